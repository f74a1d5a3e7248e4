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
  return typeof s === 'number' && Number.isFinite(s) && s > 0 ? s * 1000 : 0;
}

/**
 * The heartbeat grace period of one cluster: max(configuredGraceMs, what its syncer announces).
 * @param mc - the ManagementCluster (undefined: the configured grace)
 * @param configuredGraceMs - the scheduler's `--heartbeat-grace`, in milliseconds
 * @returns the grace, in milliseconds: a heartbeat older than this is expired
 */
export function heartbeatGraceMs(mc: ManagementCluster | undefined, configuredGraceMs: number): number {
  return Math.max(configuredGraceMs, announcedLeaseMs(mc));
}
