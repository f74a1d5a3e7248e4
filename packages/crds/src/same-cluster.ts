/**
 * One management cluster registered under two ManagementCluster names (a Push-mode
 * `kubeconfigSecretRef` copied from another cluster's, a second pull syncer installed under
 * another `--name`) would offer its capacity twice: each name's syncer reports the whole
 * cluster's budget, and the scheduler would fill both. Karmada refuses to register a cluster
 * whose ID (`Cluster.spec.id`, its `kube-system` namespace uid) another Cluster already has
 * (`util.IsClusterIdentifyUnique`); here the names exist already, so of the live
 * ManagementClusters that report one cluster ID the one registered first takes placements and the
 * others have the condition `DuplicateCluster=True` (reason `SameClusterID`) and take none, until
 * it is gone or not Ready. They stay `Ready`: their syncers are healthy and keep serving what is
 * placed on them. The syncer writes that condition (`kubectl describe mc` shows it) and the
 * scheduler applies the same rule to its own view, so the two names are never filled at once, even
 * before a heartbeat says so.
 * @see https://github.com/karmada-io/karmada/blob/master/pkg/util/cluster.go (IsClusterIdentifyUnique)
 */
import { findCondition } from './conditions.js';
import { ConditionReady } from './names.js';
import type { ManagementCluster } from './types.js';

/**
 * Condition type on a ManagementCluster whose management cluster another ManagementCluster,
 * registered earlier, reports too (status True; absent otherwise); also the reason of the syncer's
 * Warning Event and of the scheduler's not-ready mark.
 */
export const ConditionDuplicateCluster = 'DuplicateCluster';
/** The reason of `DuplicateCluster=True`. */
export const ReasonSameClusterID = 'SameClusterID';

/**
 * Whether ManagementCluster `a` was registered before `b`: the earlier `creationTimestamp`, then
 * (the same second) the name first in code-unit order, so every component ranks a group alike.
 */
export function registeredBefore(a: ManagementCluster, b: ManagementCluster): boolean {
  const ta = Date.parse(a.metadata.creationTimestamp ?? '');
  const tb = Date.parse(b.metadata.creationTimestamp ?? '');
  if (ta !== tb && Number.isFinite(ta) && Number.isFinite(tb)) return ta < tb;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '');
}

/** Whether a ManagementCluster's Ready condition is True (its syncer reports; a duplicate too). */
export const reportsReady = (mc: ManagementCluster): boolean => findCondition(mc.status?.conditions, ConditionReady)?.status === 'True';

/**
 * The ManagementCluster that `mc` duplicates: another one, not being deleted, that reports the
 * same management cluster (`status.clusterID` equal to `clusterID`), is live (its Ready condition
 * is True) and was registered before `mc` ({@link registeredBefore}); the earliest such.
 * `undefined` when there is none, or `clusterID` is unknown. (The scheduler applies the same rule
 * to its own view, heartbeat ages included: scheduler cache/cluster-cache.ts markDuplicates.)
 * @param clusterID - the cluster ID of `mc`'s management cluster (the uid of its `kube-system`
 *   namespace), as its syncer observed it
 * @param fleet - every ManagementCluster (`mc` itself among them or not)
 */
export function duplicateOf(mc: ManagementCluster, clusterID: string | undefined, fleet: Iterable<ManagementCluster>): ManagementCluster | undefined {
  if (!clusterID) return undefined;
  let first: ManagementCluster | undefined;
  for (const other of fleet) {
    if (other.metadata.name === mc.metadata.name || other.status?.clusterID !== clusterID || other.metadata.deletionTimestamp) continue;
    if (!registeredBefore(other, mc) || !reportsReady(other)) continue;
    if (!first || registeredBefore(other, first)) first = other;
  }
  return first;
}

/**
 * The names of the other ManagementClusters of `mc`'s management cluster (`status.clusterID` equal
 * to `clusterID`) that are live (Ready, not being deleted), in name order: their syncers serve
 * their own placements there, and keep their own copies of the Secrets and ConfigMaps those use.
 */
export function siblingsOf(mc: ManagementCluster, clusterID: string | undefined, fleet: Iterable<ManagementCluster>): string[] {
  if (!clusterID) return [];
  const out: string[] = [];
  for (const other of fleet) {
    if (other.metadata.name === mc.metadata.name || other.status?.clusterID !== clusterID || other.metadata.deletionTimestamp || !reportsReady(other)) continue;
    out.push(other.metadata.name ?? '');
  }
  return out.sort();
}

/** Whether a ManagementCluster has `DuplicateCluster=True`. */
export const reportsDuplicate = (mc: ManagementCluster): boolean => findCondition(mc.status?.conditions, ConditionDuplicateCluster)?.status === 'True';

/**
 * The message of `DuplicateCluster=True`.
 * @param name - the duplicate ManagementCluster's name
 * @param first - the name of the one registered first
 */
export function duplicateClusterMessage(name: string, first: string, clusterID: string): string {
  return `Management cluster ${name} is the same cluster as ManagementCluster ${first} (cluster ID ${clusterID}, the uid of its kube-system namespace), registered earlier: no new HostedClusters are placed here, so its capacity is not offered twice (what is placed here stays and is served). To remove this name: delete what is placed here while its syncer runs, stop the syncer, then kubectl delete managementcluster ${name}`;
}
