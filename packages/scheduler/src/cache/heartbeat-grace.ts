/**
 * How long a ManagementCluster's last heartbeat counts as current. One rule for every place that
 * judges a heartbeat (the Ready condition's `HeartbeatExpired`, the Ready filter, retiring a
 * deleted cluster, the `SyncerNeverReported` wait), so they never disagree about one cluster.
 *
 * A Lease is renewed by its holder and expires `leaseDurationSeconds` after its `renewTime`
 * (coordination.k8s.io/v1 LeaseSpec); a syncer renews its Lease `hcc-system/<cluster>` with every
 * heartbeat and announces the same duration in the ManagementCluster's
 * `status.leaseDurationSeconds` (4 × its heartbeat interval), so the scheduler honours it without
 * watching Leases. The scheduler's own `--heartbeat-grace` stays the floor: a syncer cannot make
 * its cluster expire sooner than the operator configured, and one that announces nothing (older
 * syncers) is judged by the configured grace alone.
 * @see https://kubernetes.io/docs/concepts/architecture/leases/#node-heart-beats
 * @see https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/lease-v1/
 */
import type { ManagementCluster } from '@hcc/crds';

/**
 * The duration a cluster's syncer announces in `status.leaseDurationSeconds`.
 * @returns milliseconds, or 0 when absent or not a positive finite number (nothing announced)
 */
export function announcedLeaseMs(mc: ManagementCluster | undefined): number {
  const s = mc?.status?.leaseDurationSeconds;
  return typeof s === 'number' && Number.isFinite(s) && s > 0 ? Math.min(s, MaxAnnouncedLeaseSeconds) * 1000 : 0;
}

/**
 * The longest Lease a syncer's announcement is taken for, in seconds: 4 × the longest heartbeat
 * interval `hcc syncer` accepts (3600 s). A larger one (written by hand, or by a syncer identity
 * that wants its cluster never to expire) counts as this.
 */
export const MaxAnnouncedLeaseSeconds = 4 * 3600;

/**
 * The heartbeat grace period of one cluster: max(configuredGraceMs, what its syncer announces).
 * @param mc - the ManagementCluster (undefined: the configured grace)
 * @param configuredGraceMs - the scheduler's `--heartbeat-grace`, in milliseconds
 * @returns the grace, in milliseconds: a heartbeat older than this is expired
 */
export function heartbeatGraceMs(mc: ManagementCluster | undefined, configuredGraceMs: number): number {
  return Math.max(configuredGraceMs, announcedLeaseMs(mc));
}

/**
 * When the scheduler saw each ManagementCluster's heartbeat change, by the scheduler's own clock,
 * as kube's node lifecycle controller keeps a `probeTimestamp` per Node instead of trusting the
 * times a kubelet writes: a syncer stamps `status.lastHeartbeatTime` with its own clock, and a
 * syncer on another host whose clock is ahead would keep a dead cluster fresh (and one behind
 * would never look fresh). A heartbeat is current while less than the grace period has passed,
 * on the scheduler's clock, since its reported value last changed.
 *
 * The first time a cluster is seen (a scheduler start, a new leader), its heartbeat counts as
 * seen now, as kube assumes for a Node it has not seen yet, so a restart never marks a live
 * cluster lost ({@link observe}: what the health controller judges by). For placements the
 * scheduler is more careful until it has seen the heartbeat change once ({@link placementSeenMs}):
 * the earlier of now and the time it reports, so a cluster whose syncer stopped while no
 * scheduler ran takes no new HostedClusters; a syncer whose clock is behind gets them again with
 * its next heartbeat.
 *
 * Time the scheduler could not see the ManagementClusters (its watch of them broken: the control
 * center restarting or refusing connections; one that hangs with its connections open breaks
 * nothing, and that time counts) does not count either ({@link unseenFrom}, {@link seenAgain}):
 * a syncer cannot write a heartbeat the scheduler cannot read either, so counting that time would
 * mark a live cluster lost moments after a control-center restart longer than the grace period
 * minus one heartbeat interval. Only the outage is left out, not a whole grace period as at a
 * start: a cluster whose syncer died before the outage still expires after the rest of its grace.
 */
export class HeartbeatObserver {
  private readonly seen = new Map<string, { uid: string; reported: string; reportedMs: number; atMs: number; changed: boolean }>();
  /** When the scheduler stopped seeing the clusters (ms since the epoch), while it cannot. */
  private unseenSinceMs: number | undefined;

  /** @param now - the scheduler's clock, ms since the epoch */
  constructor(private readonly now: () => number) {}

  /**
   * Records the cluster's reported heartbeat (call it for every version the informer delivers, so
   * a change is stamped when it arrives) and returns when it was seen to change, moved later by
   * the time since then the scheduler could not see the clusters.
   * @returns ms since the epoch on the scheduler's clock (now, the first time), or NaN when no
   *   heartbeat is reported
   */
  observe(mc: ManagementCluster): number {
    const e = this.entry(mc);
    return e ? this.counted(e.atMs) : NaN;
  }

  /**
   * {@link observe} (recording the heartbeat too), but until a change has been seen, the earlier
   * of that and the time the syncer reports: what the Ready filter judges placements by.
   */
  placementSeenMs(mc: ManagementCluster): number {
    const e = this.entry(mc);
    if (!e) return NaN;
    const at = this.counted(e.atMs);
    return e.changed ? at : Math.min(at, e.reportedMs);
  }

  /**
   * The scheduler stopped seeing the ManagementClusters at `atMs` (its informer's watch broke):
   * from then until {@link seenAgain}, heartbeat ages stand still. A second call during the same
   * outage is ignored.
   * @param atMs - ms since the epoch on the scheduler's clock
   */
  unseenFrom(atMs: number): void {
    this.unseenSinceMs ??= atMs;
  }

  /**
   * The scheduler sees the ManagementClusters again at `atMs`: every heartbeat seen before the
   * outage counts as seen that much later, so the outage never adds to its age.
   * @param atMs - ms since the epoch on the scheduler's clock
   */
  seenAgain(atMs: number): void {
    const from = this.unseenSinceMs;
    if (from === undefined) return;
    this.unseenSinceMs = undefined;
    for (const e of this.seen.values()) e.atMs = this.shifted(e.atMs, from, atMs);
  }

  /** `atMs`, moved later by the part of the outage under way (if any) that came after it. */
  private counted(atMs: number): number {
    return this.unseenSinceMs === undefined ? atMs : this.shifted(atMs, this.unseenSinceMs, this.now());
  }

  /** A time seen at `atMs`, with the span [fromMs, toMs] the scheduler could not see left out of its age. */
  private shifted(atMs: number, fromMs: number, toMs: number): number {
    return toMs <= fromMs ? atMs : atMs + (toMs - Math.max(fromMs, Math.min(atMs, toMs)));
  }

  /** Forgets a deleted ManagementCluster. */
  forget(name: string): void {
    this.seen.delete(name);
  }

  private entry(mc: ManagementCluster): { reportedMs: number; atMs: number; changed: boolean } | undefined {
    const reported = mc.status?.lastHeartbeatTime;
    const name = mc.metadata.name ?? '';
    if (!reported) {
      this.seen.delete(name);
      return undefined;
    }
    const uid = mc.metadata.uid ?? '';
    const prev = this.seen.get(name);
    if (prev && prev.uid === uid && prev.reported === reported) return prev;
    // Parsed once per reported value: the Ready filter asks for every cluster in every cycle.
    const parsed = Date.parse(reported);
    const next = { uid, reported, reportedMs: Number.isFinite(parsed) ? parsed : -Infinity, atMs: this.now(), changed: !!prev && prev.uid === uid };
    this.seen.set(name, next);
    return next;
  }
}
