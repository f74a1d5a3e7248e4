/**
 * The scheduler's view of the fleet: ManagementClusters from the informer, how many
 * HostedClusters are bound to each (from the HostedCluster informer), and *assumed* placements —
 * binds the scheduler made that the informer has not shown yet — like kube-scheduler's assume
 * cache. Free slots count both, so a burst of placements between two heartbeats can never put
 * more HostedClusters on a cluster than its capacity or its reported budget.
 *
 * Free slots of a cluster = min(capacity − placed, reportedBudget − unreported), where
 * placed = bound (informer) + assumed, and unreported = max(0, placed − reportedHosted): the
 * placements its syncer has not counted in its last heartbeat.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/scheduler/backend/cache/interface.go
 */
import { ConditionReady, LabelManagementCluster, type HostedCluster, type ManagementCluster } from '@hcc/crds';
import type { ClusterInfo } from '../framework/types.js';

interface Assumed {
  cluster: string;
  deadlineMs: number;
}

/** Options of the cache. */
export interface ClusterCacheOptions {
  /** A heartbeat older than this makes a cluster not ready, in milliseconds. */
  heartbeatGraceMs: number;
  /** How long an assumed placement lives without being confirmed, in milliseconds. */
  assumeTtlMs: number;
  now: () => number;
}

export class ClusterCache {
  private readonly assumed = new Map<string, Assumed>();
  /** Bound HostedClusters per cluster, as the informer shows them: cluster → set of HC keys. */
  private readonly bound = new Map<string, Set<string>>();
  private readonly boundOf = new Map<string, string>();

  constructor(private readonly opts: ClusterCacheOptions) {}

  /** Records what the HostedCluster informer shows for key (undefined: gone). Confirms an assumption it matches. */
  observeHostedCluster(key: string, hc: HostedCluster | undefined): void {
    const cluster = hc && !isTerminated(hc) ? hc.metadata.labels?.[LabelManagementCluster] : undefined;
    const prev = this.boundOf.get(key);
    if (prev !== cluster) {
      if (prev) this.bound.get(prev)?.delete(key);
      if (cluster) {
        let s = this.bound.get(cluster);
        if (!s) this.bound.set(cluster, (s = new Set()));
        s.add(key);
        this.boundOf.set(key, cluster);
      } else this.boundOf.delete(key);
    }
    const a = this.assumed.get(key);
    if (a && (cluster === a.cluster || !hc)) this.assumed.delete(key);
  }

  /**
   * Reserves a slot for key on cluster until the informer shows the bind (observeHostedCluster)
   * or the bind fails (forget).
   * @throws Error if key is already assumed (a bug, never user input)
   */
  assume(key: string, cluster: string): void {
    if (this.assumed.has(key)) throw new Error(`HostedCluster ${key} is already assumed on ${this.assumed.get(key)!.cluster}`);
    this.assumed.set(key, { cluster, deadlineMs: this.opts.now() + this.opts.assumeTtlMs });
  }

  /** Drops a reservation (the bind failed). */
  forget(key: string): void {
    this.assumed.delete(key);
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
    let n = this.bound.get(cluster)?.size ?? 0;
    for (const a of this.assumed.values()) if (a.cluster === cluster) n++;
    return n;
  }

  private expire(): void {
    const now = this.opts.now();
    for (const [k, a] of this.assumed) if (a.deadlineMs < now) this.assumed.delete(k);
  }

  /** Snapshot of every cluster for one scheduling cycle. */
  snapshot(clusters: ManagementCluster[]): ClusterInfo[] {
    this.expire();
    const assumedPer = new Map<string, number>();
    for (const a of this.assumed.values()) assumedPer.set(a.cluster, (assumedPer.get(a.cluster) ?? 0) + 1);
    const now = this.opts.now();
    return clusters.map((mc) => {
      const name = mc.metadata.name!;
      const placed = (this.bound.get(name)?.size ?? 0) + (assumedPer.get(name) ?? 0);
      return clusterInfo(mc, placed, now, this.opts.heartbeatGraceMs);
    });
  }
}

/** A HostedCluster that is being deleted still holds its slot until it is gone. */
function isTerminated(_hc: HostedCluster): boolean {
  return false;
}

/** Computes readiness and free slots of one cluster (pure; exported for tests). */
export function clusterInfo(mc: ManagementCluster, placed: number, nowMs: number, heartbeatGraceMs: number): ClusterInfo {
  const capacity = typeof mc.spec?.capacity === 'number' ? mc.spec.capacity : Infinity;
  const st = mc.status ?? {};
  const reportedHosted = typeof st.hostedClusters === 'number' ? st.hostedClusters : 0;
  const reportedBudget = typeof st.budget === 'number' ? st.budget : capacity - reportedHosted;
  const unreported = Math.max(0, placed - reportedHosted);
  const freeSlots = Math.max(0, Math.min(capacity - placed, reportedBudget - unreported));
  const readyCond = st.conditions?.find((c) => c.type === ConditionReady);
  const hb = st.lastHeartbeatTime ? Date.parse(st.lastHeartbeatTime) : NaN;
  let notReadyReason = '';
  if (!readyCond || readyCond.status !== 'True') notReadyReason = readyCond?.reason ?? 'NoHeartbeat';
  else if (!Number.isFinite(hb) || nowMs - hb > heartbeatGraceMs) notReadyReason = 'HeartbeatExpired';
  return { name: mc.metadata.name!, cluster: mc, capacity, placed, freeSlots, ready: notReadyReason === '', notReadyReason };
}
