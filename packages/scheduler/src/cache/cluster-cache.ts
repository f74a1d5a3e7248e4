/**
 * The scheduler's view of the fleet: ManagementClusters from the informer, which HostedClusters
 * are bound to each (from the HostedCluster informer), and *assumed* placements — binds the
 * scheduler started or made that the informer has not shown yet — like kube-scheduler's assume
 * cache. Free slots count both, so a burst of placements between two heartbeats can never put
 * more HostedClusters on a cluster than its capacity or its reported budget.
 *
 * Free slots of a cluster = min(capacity − placed, reportedBudget − unreported), where
 * placed = bound (informer) + assumed, and unreported = max(0, placed − reportedSynced): the
 * placements its syncer has not counted in its last heartbeat (reportedSynced is the syncer's
 * copies among the HostedClusters it reported, `status.syncedHostedClusters`; HostedClusters
 * created in the cluster directly are in the budget already and must not pass for placements). A budget reported for an older spec
 * (`status.observedGeneration` below `metadata.generation`: the capacity changed since) is taken
 * as capacity − reportedHosted, what the syncer will report next, so a capacity change counts at
 * once instead of at the next heartbeat.
 *
 * Contract:
 * - An assumption lives until the informer shows the HostedCluster on the assumed cluster
 *   (confirm), shows it gone, shows a newer version after the bind finished (the label was
 *   changed or removed since: the informer view is the truth then), or the bind fails (forget).
 *   With `assumeTtlMs > 0` it also expires that long after the bind finished — off by default,
 *   since an expiry that beats a slow informer could overbook.
 * - Per cluster it also keeps, for bound and assumed HostedClusters together, how many use each
 *   control-plane namespace name (`<namespace>-<name>`) and each namespace: the
 *   ControlPlaneNamespace filter and the SpreadByLabel score read them from the snapshot.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/scheduler/backend/cache/interface.go
 */
import { ConditionDuplicateCluster, ConditionReady, LabelManagementCluster, registeredBefore, reportsDuplicate, type HostedCluster, type ManagementCluster } from '@hcc/crds';
import type { ClusterInfo } from '../framework/types.js';
import { HeartbeatObserver, heartbeatGraceMs as graceOf } from './heartbeat-grace.js';

interface Assumed {
  cluster: string;
  /** resourceVersion of the HostedCluster the bind was computed from. */
  preBindResourceVersion: string | undefined;
  bindFinished: boolean;
  /** Infinity until the bind finished (and forever without a TTL), in ms since the epoch. */
  deadlineMs: number;
}

/** Options of the cache. */
export interface ClusterCacheOptions {
  /**
   * The configured heartbeat grace (`--heartbeat-grace`), in milliseconds: a heartbeat older than
   * the longer of this and the cluster's announced `status.leaseDurationSeconds` makes a cluster
   * not ready (see heartbeat-grace.ts).
   */
  heartbeatGraceMs: number;
  /** How long an assumed placement lives after its bind finished without being confirmed, in milliseconds; 0 (default) = until the informer shows it. */
  assumeTtlMs?: number;
  now: () => number;
}

/** Control-plane namespace name HyperShift creates for a HostedCluster key `namespace/name`: `namespace-name`. */
export const controlPlaneNamespaceOfKey = (key: string): string => key.replace('/', '-');

const namespaceOfKey = (key: string): string => key.slice(0, key.indexOf('/'));

const inc = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
const dec = (m: Map<string, number>, k: string) => {
  const n = (m.get(k) ?? 0) - 1;
  if (n > 0) m.set(k, n);
  else m.delete(k);
};

/** What the cache holds per ManagementCluster name. */
class ClusterState {
  readonly bound = new Set<string>();
  assumed = 0;
  readonly controlPlaneNamespaces = new Map<string, number>();
  readonly namespaces = new Map<string, number>();

  add(key: string): void {
    inc(this.controlPlaneNamespaces, controlPlaneNamespaceOfKey(key));
    inc(this.namespaces, namespaceOfKey(key));
  }

  remove(key: string): void {
    dec(this.controlPlaneNamespaces, controlPlaneNamespaceOfKey(key));
    dec(this.namespaces, namespaceOfKey(key));
  }

  get placed(): number {
    return this.bound.size + this.assumed;
  }
}

const emptyState = new ClusterState();

/** Bound and assumed HostedClusters per ManagementCluster; see the module comment. */
export class ClusterCache {
  private readonly assumed = new Map<string, Assumed>();
  private readonly clusters = new Map<string, ClusterState>();
  private readonly boundOf = new Map<string, string>();
  /** When each cluster's heartbeat was seen to change, on the scheduler's clock (feed it every ManagementCluster the informer delivers). */
  readonly heartbeats: HeartbeatObserver;

  constructor(private readonly opts: ClusterCacheOptions) {
    this.heartbeats = new HeartbeatObserver(opts.now);
  }

  private state(cluster: string): ClusterState {
    let s = this.clusters.get(cluster);
    if (!s) this.clusters.set(cluster, (s = new ClusterState()));
    return s;
  }

  /**
   * Records what the HostedCluster informer shows for key (undefined: gone) and settles an
   * assumption it answers (see the module comment).
   * @param key - `namespace/name`
   */
  observeHostedCluster(key: string, hc: HostedCluster | undefined): void {
    const cluster = hc?.metadata.labels?.[LabelManagementCluster] || undefined;
    const prev = this.boundOf.get(key);
    if (prev !== cluster) {
      if (prev) {
        const s = this.state(prev);
        s.bound.delete(key);
        s.remove(key);
        this.boundOf.delete(key);
      }
      if (cluster) {
        const s = this.state(cluster);
        s.bound.add(key);
        s.add(key);
        this.boundOf.set(key, cluster);
      }
    }
    const a = this.assumed.get(key);
    if (!a) return;
    const newer = a.bindFinished && hc?.metadata.resourceVersion !== a.preBindResourceVersion;
    if (!hc || cluster === a.cluster || newer) this.dropAssumed(key, a);
  }

  /**
   * Reserves a slot for key on cluster before the bind starts. The counterpart of
   * kube-scheduler's AssumePod.
   * @param key - HostedCluster key, `namespace/name`
   * @param preBindResourceVersion - resourceVersion of the object the decision was made from
   * @throws Error if key is already assumed (a bug, never user input)
   */
  assume(key: string, cluster: string, preBindResourceVersion?: string): void {
    const a = this.assumed.get(key);
    if (a) throw new Error(`HostedCluster ${key} is already assumed on ${a.cluster}`);
    this.assumed.set(key, { cluster, preBindResourceVersion, bindFinished: false, deadlineMs: Infinity });
    const s = this.state(cluster);
    s.assumed++;
    s.add(key);
  }

  /** Marks the bind of an assumed key done; from now on a newer informer view settles it (and the TTL runs, if any). */
  finishBinding(key: string): void {
    const a = this.assumed.get(key);
    if (!a) return;
    a.bindFinished = true;
    const ttl = this.opts.assumeTtlMs ?? 0;
    if (ttl > 0) a.deadlineMs = this.opts.now() + ttl;
  }

  /** Drops a reservation (the bind failed). The counterpart of kube-scheduler's ForgetPod. */
  forget(key: string): void {
    const a = this.assumed.get(key);
    if (a) this.dropAssumed(key, a);
  }

  /** Whether key has a reservation in flight. */
  isAssumed(key: string): boolean {
    this.expire();
    return this.assumed.has(key);
  }

  /** Number of reservations in flight (for metrics). */
  assumedCount(): number {
    return this.assumed.size;
  }

  /** HostedClusters bound to a cluster, including reservations. */
  placedOn(cluster: string): number {
    this.expire();
    return this.clusters.get(cluster)?.placed ?? 0;
  }

  private dropAssumed(key: string, a: Assumed): void {
    this.assumed.delete(key);
    const s = this.state(a.cluster);
    s.assumed--;
    s.remove(key);
  }

  private expire(): void {
    if (!this.opts.assumeTtlMs) return;
    const now = this.opts.now();
    for (const [k, a] of this.assumed) if (a.deadlineMs < now) this.dropAssumed(k, a);
  }

  /**
   * Snapshot of every cluster for one scheduling cycle. The per-cluster maps are live views: use
   * the snapshot synchronously (schedule-one does: snapshot → filter → score → assume, no await).
   */
  snapshot(clusters: readonly ManagementCluster[]): ClusterInfo[] {
    this.expire();
    const now = this.opts.now();
    const infos = clusters.map((mc) => {
      const s = this.clusters.get(mc.metadata.name!) ?? emptyState;
      return clusterInfo(mc, s.placed, now, this.opts.heartbeatGraceMs, s, this.heartbeats.placementSeenMs(mc));
    });
    markDuplicates(infos);
    return infos;
  }
}

/**
 * One management cluster under several names (the same `status.clusterID`; see @hcc/crds
 * same-cluster.ts): every ready name but the one registered first is made not ready, reason
 * `DuplicateCluster` (one cluster must not be filled twice, even before its syncer's next
 * heartbeat says so; names being deleted take nothing new and are skipped), and the free slots of
 * the one that takes placements count what the other names hold too: their placements against
 * its capacity, and those their syncers have not reported yet against its reported budget (a
 * name that took placements while the first was lost has copies coming that no budget shows).
 * Changes `infos` in place; linear in its length.
 */
export function markDuplicates(infos: ClusterInfo[]): void {
  let groups: Map<string, ClusterInfo[]> | undefined;
  for (const c of infos) {
    const id = c.cluster.status?.clusterID;
    if (!id) continue;
    groups ??= new Map();
    const g = groups.get(id);
    if (g) g.push(c);
    else groups.set(id, [c]);
  }
  if (!groups) return;
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    let first: ClusterInfo | undefined;
    for (const c of group) {
      if (!c.ready || c.cluster.metadata.deletionTimestamp) continue;
      if (!first) first = c;
      else if (registeredBefore(c.cluster, first.cluster)) {
        notReady(first);
        first = c;
      } else notReady(c);
    }
    if (!first) continue;
    let othersPlaced = 0;
    let othersUnreported = 0;
    for (const c of group) {
      if (c === first) continue;
      othersPlaced += c.placed;
      othersUnreported += Math.max(0, c.placed - reportOf(c.cluster).reportedSynced);
    }
    const { capacity, reportedBudget, reportedSynced } = reportOf(first.cluster);
    const unreported = Math.max(0, first.placed - reportedSynced) + othersUnreported;
    first.freeSlots = Math.max(0, Math.min(capacity - first.placed - othersPlaced, reportedBudget - unreported));
  }
}

function notReady(c: ClusterInfo): void {
  c.ready = false;
  c.notReadyReason = ConditionDuplicateCluster;
}

/** What a ManagementCluster object reports, read once per object (informer objects are never changed in place). */
interface Report {
  capacity: number;
  reportedHosted: number;
  /** The syncer's copies among reportedHosted (all of them when a syncer does not say). */
  reportedSynced: number;
  reportedBudget: number;
  /** Why its conditions say it takes no placements ('' when Ready=True and not `DuplicateCluster=True`). */
  conditionReason: string;
  /** lastHeartbeatTime, ms since the epoch (NaN when absent). */
  hb: number;
}

const reports = new WeakMap<ManagementCluster, Report>();

function reportOf(mc: ManagementCluster): Report {
  let r = reports.get(mc);
  if (r) return r;
  const capacity = typeof mc.spec?.capacity === 'number' ? mc.spec.capacity : Infinity;
  const st = mc.status ?? {};
  const reportedHosted = typeof st.hostedClusters === 'number' ? st.hostedClusters : 0;
  const readyCond = st.conditions?.find((c) => c.type === ConditionReady);
  // A budget computed from an older spec (the capacity changed since): recompute it from this one.
  const staleBudget =
    typeof st.observedGeneration === 'number' && typeof mc.metadata.generation === 'number' && st.observedGeneration < mc.metadata.generation && Number.isFinite(capacity);
  r = {
    capacity,
    reportedHosted,
    reportedSynced: typeof st.syncedHostedClusters === 'number' ? Math.min(st.syncedHostedClusters, reportedHosted) : reportedHosted,
    reportedBudget: typeof st.budget === 'number' && !staleBudget ? st.budget : capacity - reportedHosted,
    conditionReason: !readyCond || readyCond.status !== 'True' ? (readyCond?.reason ?? 'NoHeartbeat') : reportsDuplicate(mc) ? ConditionDuplicateCluster : '',
    hb: st.lastHeartbeatTime ? Date.parse(st.lastHeartbeatTime) : NaN,
  };
  reports.set(mc, r);
  return r;
}

/**
 * Computes readiness and free slots of one cluster (pure; exported for tests and plugin tests).
 * @param placed - HostedClusters bound or assumed on it (a count)
 * @param nowMs - the cycle's time, ms since the epoch
 * @param heartbeatGraceMs - the configured grace, in milliseconds: a heartbeat older than the
 *   longer of this and the cluster's announced `status.leaseDurationSeconds` makes it not ready
 *   (reason `HeartbeatExpired`; see heartbeat-grace.ts)
 * @param members - per-namespace counts of what is placed (empty when omitted)
 * @param heartbeatSeenMs - when the scheduler saw its heartbeat change, ms since the epoch on its
 *   own clock ({@link HeartbeatObserver}); omitted (tests), the time the syncer reported
 */
export function clusterInfo(
  mc: ManagementCluster,
  placed: number,
  nowMs: number,
  heartbeatGraceMs: number,
  members: Pick<ClusterInfo, 'controlPlaneNamespaces' | 'namespaces'> = emptyState,
  heartbeatSeenMs?: number,
): ClusterInfo {
  const { capacity, reportedSynced, reportedBudget, conditionReason, hb: reportedHb } = reportOf(mc);
  const hb = heartbeatSeenMs ?? reportedHb;
  const unreported = Math.max(0, placed - reportedSynced);
  const freeSlots = Math.max(0, Math.min(capacity - placed, reportedBudget - unreported));
  let notReadyReason = conditionReason;
  if (!notReadyReason && (!Number.isFinite(hb) || nowMs - hb > graceOf(mc, heartbeatGraceMs))) notReadyReason = 'HeartbeatExpired';
  return {
    name: mc.metadata.name!,
    cluster: mc,
    capacity,
    placed,
    freeSlots,
    ready: notReadyReason === '',
    notReadyReason,
    controlPlaneNamespaces: members.controlPlaneNamespaces,
    namespaces: members.namespaces,
  };
}
