/**
 * Propagates a HostedCluster's placement to what travels with it, so each syncer can watch just
 * its own objects with a label selector:
 * - a NodePool gets the HostedCluster's placement label (`spec.clusterName` names the HC);
 * - a Secret or ConfigMap referenced by a placed HostedCluster or NodePool gets the state label
 *   `state.controlcenter.hcc.dev/<cluster>: Sync` for every cluster that needs it, and loses it
 *   when nothing placed there references it any more (kcp's syncer does the same with
 *   `state.workload.kcp.io/<syncTarget>`).
 * - a NodePool of a HostedCluster the scheduler cannot place gets `Ready=False`, reason
 *   `Unschedulable` (HyperShift's NodePool MESSAGE column reads Ready), unless something else
 *   already wrote a Ready condition, as its HostedCluster gets `Available=False`; the mark goes
 *   when the HostedCluster is placed, is being deleted, or stops being unschedulable. A NodePool
 *   whose HostedCluster does not exist gets the mark too, saying so, until it is created.
 * Keys are `<Kind>/<namespace>/<name>`. A placement label, once set on a NodePool, is never changed.
 */
import {
  ConditionReady,
  ConditionScheduled,
  conditionUpToDate,
  findCondition,
  hasNotPlaced,
  hostedClusterReferences,
  LabelManagementCluster,
  mayMarkNotPlaced,
  nodePoolNotPlacedCondition,
  nodePoolReferences,
  setCondition,
  stateLabelKey,
  StateSync,
  withoutNotPlaced,
  type Condition,
  type HostedCluster,
  type KubeObject,
  type NodePool,
} from '@hcc/crds';
import type { Lister, ReconcileResult } from '@hcc/client';

/** Label key prefix of per-cluster state labels. */
export const StateLabelPrefix = 'state.controlcenter.hcc.dev/';

/** Index names used by the propagation controller. */
export const Indexes = {
  /** HostedClusters and NodePools by referenced Secret key `ns/name`. */
  bySecret: 'bySecret',
  /** ... by referenced ConfigMap key. */
  byConfigMap: 'byConfigMap',
  /** NodePools by their HostedCluster key `ns/clusterName`. */
  byHostedCluster: 'byHostedCluster',
} as const;

/** Keys `ns/name` of the Secrets and ConfigMaps an HC or NP references. */
export function referencedKeys(obj: HostedCluster | NodePool, kind: 'HostedCluster' | 'NodePool'): { secrets: string[]; configMaps: string[] } {
  const refs = kind === 'HostedCluster' ? hostedClusterReferences(obj as HostedCluster) : nodePoolReferences(obj as NodePool);
  const ns = obj.metadata.namespace ?? '';
  return { secrets: refs.secrets.map((n) => `${ns}/${n}`), configMaps: refs.configMaps.map((n) => `${ns}/${n}`) };
}

/** What the reconciler reads and writes. */
export interface PropagationDeps {
  hostedClusters: Lister<HostedCluster>;
  nodePools: Lister<NodePool>;
  secrets: Lister<KubeObject>;
  configMaps: Lister<KubeObject>;
  /** Clusters whose placed HostedClusters or NodePools reference `<Kind>/<ns>/<name>` (see reference-tracker.ts). */
  clustersFor(refKey: string): Set<string>;
  /** Merge-patches metadata.labels (null removes a label) of `kind` ns/name. */
  patchLabels(kind: 'NodePool' | 'Secret' | 'ConfigMap', namespace: string, name: string, labels: Record<string, string | null>): Promise<void>;
  /** Writes a NodePool's status.conditions, conditional on its resourceVersion (a 409 is retried by the queue). */
  writeNodePoolConditions(np: NodePool, conditions: Condition[]): Promise<void>;
  now(): Date;
}

/**
 * The not-placed mark a NodePool should carry: its HostedCluster (`spec.clusterName`) does not
 * exist (a typo, or not created yet: nothing would ever place the NodePool), or exists, is not
 * placed, and its `Scheduled` condition is `False`. Undefined otherwise.
 */
function wantedNotPlacedMark(np: NodePool, hc: HostedCluster | undefined): Condition | undefined {
  if (!hc) {
    const name = np.spec?.clusterName ?? '';
    const why = name ? `no HostedCluster ${JSON.stringify(name)} in namespace ${np.metadata.namespace ?? ''}` : 'spec.clusterName names none';
    return nodePoolNotPlacedCondition(name, why, np.metadata.generation);
  }
  if (hc.metadata.deletionTimestamp || hc.metadata.labels?.[LabelManagementCluster]) return undefined;
  const scheduled = findCondition(hc.status?.conditions, ConditionScheduled);
  if (scheduled?.status !== 'False') return undefined;
  return nodePoolNotPlacedCondition(hc.metadata.name!, scheduled.message ?? scheduled.reason ?? '', np.metadata.generation);
}

/**
 * Sets or removes a NodePool's not-placed mark; a Ready condition another writer set (the operator,
 * the syncer) is left alone.
 */
async function reconcileNotPlacedMark(deps: PropagationDeps, np: NodePool, want: Condition | undefined): Promise<void> {
  const conditions = np.status?.conditions;
  const marked = hasNotPlaced(conditions, ConditionReady);
  if (!want) {
    if (marked) await deps.writeNodePoolConditions(np, withoutNotPlaced(conditions ?? [], ConditionReady));
    return;
  }
  if (!mayMarkNotPlaced(conditions, ConditionReady)) return;
  if (conditionUpToDate(conditions, want)) return;
  await deps.writeNodePoolConditions(np, setCondition(conditions, want, deps.now()));
}

/** Reconciles one key `<Kind>/<ns>/<name>`. */
export async function reconcilePropagation(deps: PropagationDeps, key: string): Promise<ReconcileResult> {
  const [kind, ns, name] = key.split('/') as ['NodePool' | 'Secret' | 'ConfigMap', string, string];
  const objKey = `${ns}/${name}`;
  if (kind === 'NodePool') {
    const np = deps.nodePools.get(objKey);
    if (!np) return;
    if (np.metadata.labels?.[LabelManagementCluster]) return reconcileNotPlacedMark(deps, np, undefined);
    const hc = deps.hostedClusters.get(`${ns}/${np.spec?.clusterName}`);
    const cluster = hc?.metadata.labels?.[LabelManagementCluster];
    // Labelled, the NodePool comes back as an update, and the mark (if any) goes then.
    if (cluster) await deps.patchLabels('NodePool', ns, name, { [LabelManagementCluster]: cluster });
    else await reconcileNotPlacedMark(deps, np, wantedNotPlacedMark(np, hc));
    return;
  }
  const lister = kind === 'Secret' ? deps.secrets : deps.configMaps;
  const obj = lister.get(objKey);
  if (!obj) return;
  const want = deps.clustersFor(key);
  const patch: Record<string, string | null> = {};
  const labels = obj.metadata.labels ?? {};
  for (const c of want) if (labels[stateLabelKey(c)] !== StateSync) patch[stateLabelKey(c)] = StateSync;
  for (const k of Object.keys(labels)) if (k.startsWith(StateLabelPrefix) && !want.has(k.slice(StateLabelPrefix.length))) patch[k] = null;
  if (Object.keys(patch).length) await deps.patchLabels(kind, ns, name, patch);
}
