/**
 * The ManagementCluster status a heartbeat reports: Ready, the heartbeat time and how long it
 * stays current (the syncer's Lease duration), the cluster's ID, how many namespaces and
 * HostedClusters the cluster holds, the free budget, the platforms it hosts and the release
 * versions its operator supports; `DuplicateCluster=True` when it is another ManagementCluster's
 * management cluster under a second name.
 */
import {
  ConditionDuplicateCluster,
  ConditionReady,
  duplicateClusterMessage,
  ReasonHeartbeat,
  ReasonManagementClusterUnreachable,
  ReasonSameClusterID,
  rfc3339,
  setCondition,
  type Condition,
  type ManagementCluster,
} from '@hcc/crds';

/** What the syncer observed in its management cluster. */
export interface Observation {
  /** Namespaces in the management cluster (a count). */
  namespaces: number;
  /** HostedClusters in the management cluster, hcc's and any others (a count). */
  hostedClusters: number;
  /** Of those, the syncer's copies (label `controlcenter.hcc.dev/synced-by: <cluster>`), a count; absent: not counted. */
  syncedHostedClusters?: number;
  /** Minor versions the operator's supported-versions ConfigMap lists (e.g. `4.16`). */
  supportedVersions: string[];
  /** The management cluster's ID: its `kube-system` namespace's uid (absent when it has none or it cannot be listed). */
  clusterID?: string;
}

/** The budget of a management cluster without a capacity, before what it holds: unbounded, reported as a large number. */
export const UncappedBudget = 1_000_000;

/**
 * Budget = capacity − HostedClusters held (never below 0). Without a capacity it is
 * {@link UncappedBudget} less what it holds, so the free slots still go down as it fills (a
 * `sum()` over the fleet and a `free_slots < N` alert stay meaningful).
 */
export function budgetOf(capacity: number | undefined, hostedClusters: number): number {
  return Math.max(0, (capacity ?? UncappedBudget) - hostedClusters);
}

/**
 * The status to write for one heartbeat.
 * @param mc - the ManagementCluster as read (its other status fields are kept)
 * @param obs - what the syncer observed in its management cluster
 * @param now - the heartbeat's time (`lastHeartbeatTime`, the Ready transition time)
 * @param leaseDurationSeconds - the syncer's Lease duration, in seconds, announced as
 *   `status.leaseDurationSeconds` so the scheduler waits that long before it calls the heartbeat
 *   expired (a Lease expires leaseDurationSeconds after its renewTime)
 * @param duplicateOf - the name of the ManagementCluster registered earlier for the same
 *   management cluster (@hcc/crds duplicateOf), if any: then the condition `DuplicateCluster=True`
 *   (reason `SameClusterID`) says so and the cluster takes no placements; without it that
 *   condition is removed. The rest is reported as usual (the syncer still serves what is placed).
 */
export function heartbeatStatus(
  mc: ManagementCluster,
  obs: Observation,
  now: Date,
  syncerVersion: string,
  leaseDurationSeconds: number,
  duplicateOf?: string,
): NonNullable<ManagementCluster['status']> {
  const ready: Condition = { type: ConditionReady, status: 'True', reason: ReasonHeartbeat, message: 'The syncer is connected and reporting' };
  const status = reported(mc, ready, now, syncerVersion, leaseDurationSeconds);
  status.conditions =
    duplicateOf && obs.clusterID
      ? setCondition(
          status.conditions,
          { type: ConditionDuplicateCluster, status: 'True', reason: ReasonSameClusterID, message: duplicateClusterMessage(mc.metadata.name ?? '', duplicateOf, obs.clusterID) },
          now,
        )
      : status.conditions!.filter((c) => c.type !== ConditionDuplicateCluster);
  return {
    ...status,
    ...(obs.clusterID ? { clusterID: obs.clusterID } : {}),
    namespaces: obs.namespaces,
    hostedClusters: obs.hostedClusters,
    ...(obs.syncedHostedClusters !== undefined ? { syncedHostedClusters: obs.syncedHostedClusters } : {}),
    budget: budgetOf(mc.spec?.capacity, obs.hostedClusters),
    // The spec this budget was computed from: the scheduler knows a later capacity change at once.
    ...(mc.metadata.generation !== undefined ? { observedGeneration: mc.metadata.generation } : {}),
    // null, not absent: the status is written as a merge patch, where only null removes a field
    // (platforms removed from the spec, an operator that stopped listing versions).
    platforms: mc.spec?.platforms?.length ? mc.spec.platforms : (null as unknown as undefined),
    supportedVersions: obs.supportedVersions.length ? obs.supportedVersions : (null as unknown as undefined),
  };
}

/** What every heartbeat writes: the status as read, with its Ready condition set, the heartbeat time, Lease duration and syncer version. */
function reported(mc: ManagementCluster, ready: Condition, now: Date, syncerVersion: string, leaseDurationSeconds: number): NonNullable<ManagementCluster['status']> {
  return { ...(mc.status ?? {}), conditions: setCondition(mc.status?.conditions, ready, now), lastHeartbeatTime: rfc3339(now), leaseDurationSeconds, syncerVersion };
}

/**
 * The status a heartbeat reports when the syncer runs but cannot observe its management cluster
 * (its API is down or refuses the syncer): `Ready=False`, reason `ManagementClusterUnreachable`,
 * the error in the message (at most 300 characters), so `kubectl get mc` says what is wrong
 * instead of the scheduler's later "No heartbeat from the syncer" (as a kubelet that runs but
 * cannot reach its container runtime reports NodeReady=False with the reason). The counts and
 * budget of the last successful heartbeat are kept; the cluster takes no placements while not Ready.
 * @param mc - the ManagementCluster as read
 * @param why - what the observation failed with
 * @param now - the heartbeat's time
 */
export function unreachableStatus(mc: ManagementCluster, why: string, now: Date, syncerVersion: string, leaseDurationSeconds: number): NonNullable<ManagementCluster['status']> {
  const detail = why.length > 300 ? `${why.slice(0, 297)}...` : why;
  const ready: Condition = {
    type: ConditionReady,
    status: 'False',
    reason: ReasonManagementClusterUnreachable,
    message: `The syncer runs but cannot reach the management cluster's API (${detail}); no new HostedClusters are placed here`,
  };
  return reported(mc, ready, now, syncerVersion, leaseDurationSeconds);
}
