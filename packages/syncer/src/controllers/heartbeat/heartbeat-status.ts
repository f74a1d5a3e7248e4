/**
 * The ManagementCluster status a heartbeat reports: Ready, the heartbeat time and how long it
 * stays current (the syncer's Lease duration), how many namespaces and HostedClusters the cluster
 * holds, the free budget, the platforms it hosts and the release versions its operator supports.
 */
import { ConditionReady, ReasonHeartbeat, rfc3339, setCondition, type ManagementCluster } from '@hcc/crds';

/** What the syncer observed in its management cluster. */
export interface Observation {
  /** Namespaces in the management cluster (a count). */
  namespaces: number;
  /** HostedClusters in the management cluster, hcc's and any others (a count). */
  hostedClusters: number;
  /** Minor versions the operator's supported-versions ConfigMap lists (e.g. `4.16`). */
  supportedVersions: string[];
}

/**
 * Budget = capacity − HostedClusters held (never below 0). Without a capacity the budget is
 * the HostedClusters it could still take by namespace count: unbounded, reported as a large number.
 */
export function budgetOf(capacity: number | undefined, hostedClusters: number): number {
  if (capacity === undefined) return 1_000_000;
  return Math.max(0, capacity - hostedClusters);
}

/**
 * The status to write for one heartbeat.
 * @param mc - the ManagementCluster as read (its other status fields are kept)
 * @param obs - what the syncer observed in its management cluster
 * @param now - the heartbeat's time (`lastHeartbeatTime`, the Ready transition time)
 * @param leaseDurationSeconds - the syncer's Lease duration, in seconds, announced as
 *   `status.leaseDurationSeconds` so the scheduler waits that long before it calls the heartbeat
 *   expired (a Lease expires leaseDurationSeconds after its renewTime)
 */
export function heartbeatStatus(mc: ManagementCluster, obs: Observation, now: Date, syncerVersion: string, leaseDurationSeconds: number): NonNullable<ManagementCluster['status']> {
  const conditions = setCondition(
    mc.status?.conditions,
    { type: ConditionReady, status: 'True', reason: ReasonHeartbeat, message: 'The syncer is connected and reporting' },
    now,
  );
  return {
    ...(mc.status ?? {}),
    conditions,
    lastHeartbeatTime: rfc3339(now),
    leaseDurationSeconds,
    namespaces: obs.namespaces,
    hostedClusters: obs.hostedClusters,
    budget: budgetOf(mc.spec?.capacity, obs.hostedClusters),
    syncerVersion,
    platforms: mc.spec?.platforms?.length ? mc.spec.platforms : undefined,
    supportedVersions: obs.supportedVersions.length ? obs.supportedVersions : undefined,
  };
}
