/**
 * Marks a ManagementCluster `Ready=False` (reason `HeartbeatExpired`, `lastTransitionTime` = when
 * the scheduler noticed) when its syncer has not written a heartbeat for longer than the grace
 * period, and `Ready=Unknown` (reason `SyncerNeverReported`) when none ever did within the grace
 * period after its creation, so `kubectl get mc` shows it and it takes no new placements (the Ready filter also
 * checks the heartbeat age itself, so placements stop at the grace period even before this write
 * lands). What it holds stays where it is: placements never move on their own. The syncer sets
 * `Ready=True` again with its next heartbeat. Keys are ManagementCluster names.
 *
 * A ManagementCluster keeps the `controlcenter.hcc.dev/placements` finalizer while anything is
 * placed on it (HostedClusters and NodePools: a deleted HostedCluster's NodePools go after it).
 * Deleting one whose heartbeat has expired, or whose syncer has reported its API unreachable for
 * longer than the grace period, retires it: the HostedClusters and NodePools on it that are being
 * deleted lose the syncer's finalizer (nobody will tear their
 * copies down), so deleting them (`kubectl delete hc -A -l controlcenter.hcc.dev/management-cluster=NAME`)
 * lets the cluster go.
 *
 * The grace period of a cluster is the longer of `--heartbeat-grace` and the Lease duration its
 * syncer announces in `status.leaseDurationSeconds` (cache/heartbeat-grace.ts): a syncer that
 * beats every 60 s (Lease 240 s) is not declared lost 40 s after each beat. A heartbeat's age is
 * measured on the scheduler's clock from when its reported time last changed
 * (HeartbeatObserver), not from the time the syncer's clock wrote.
 */
import {
  ConditionReady,
  FinalizerPlacements,
  findCondition,
  LabelManagementCluster,
  ReasonHeartbeatExpired,
  ReasonManagementClusterUnreachable,
  ReasonSyncerNeverReported,
  setCondition,
  type Condition,
  type ManagementCluster,
} from '@hcc/crds';
import type { Lister, ReconcileResult } from '@hcc/client';
import { heartbeatGraceMs } from '../cache/heartbeat-grace.js';

/**
 * Normal Event on a ManagementCluster being deleted while HostedClusters or NodePools are still placed on it,
 * saying what its deletion waits for, as kube's namespace controller says so in its
 * `NamespaceContentRemaining` condition.
 */
export const ReasonWaitingForHostedClusters = 'WaitingForHostedClusters';

/** What the reconciler reads and writes. */
export interface ClusterHealthDeps {
  managementClusters: Lister<ManagementCluster>;
  /** HostedClusters bound to the cluster, reservations included, and NodePools placed there (a count). */
  placedOn?(cluster: string): number;
  /** Writes metadata.finalizers with a resourceVersion precondition. */
  writeFinalizers?(mc: ManagementCluster, finalizers: string[]): Promise<void>;
  /**
   * Removes the syncer's (and HyperShift's) finalizer from the HostedClusters and NodePools placed
   * on the cluster that are being deleted (their syncer will never tear their copies down);
   * @returns how many it released.
   */
  releaseSyncerFinalizers?(cluster: string, why: string): Promise<number>;
  now: () => Date;
  /**
   * The configured grace (`--heartbeat-grace`), in milliseconds: a heartbeat older than the longer
   * of this and the cluster's announced `status.leaseDurationSeconds` is expired.
   */
  heartbeatGraceMs: number;
  /**
   * When the scheduler saw the cluster's heartbeat change, ms since the epoch on its own clock
   * (cache/heartbeat-grace.ts HeartbeatObserver; NaN: none reported). Absent (tests): the time the
   * syncer reported.
   */
  heartbeatSeenMs?(mc: ManagementCluster): number;
  /** Writes status.conditions through the status subresource with a resourceVersion precondition. */
  writeConditions(mc: ManagementCluster, conditions: Condition[]): Promise<void>;
  /**
   * Records an Event on the ManagementCluster when this controller marks it not Ready (as the node
   * lifecycle controller records `NodeNotReady`), so `kubectl describe mc` and `kubectl get events`
   * show when a cluster was lost. Absent: no Events.
   */
  recordEvent?(mc: ManagementCluster, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /**
   * The last WaitingForHostedClusters message recorded per ManagementCluster name (the caller
   * keeps it across passes), so the Event is recorded when what it says changes. Absent: at every pass.
   */
  waitingSaid?: Map<string, string>;
}

/**
 * Reconciles one ManagementCluster name.
 * @returns a requeue for when a fresh heartbeat would expire, in milliseconds
 * @throws ApiError when the write fails (409 on a concurrent heartbeat: requeued, and re-read)
 */
export async function reconcileClusterHealth(deps: ClusterHealthDeps, name: string): Promise<ReconcileResult> {
  const mc = deps.managementClusters.get(name);
  if (!mc) return;
  const graceMs = heartbeatGraceMs(mc, deps.heartbeatGraceMs);
  // While a deleted cluster waits for what is placed on it, look again in 5 s (and still mark
  // it not ready below when its heartbeat expires).
  let waiting: ReconcileResult = undefined;
  // A ManagementCluster that holds HostedClusters is not deleted from under them: it keeps the
  // finalizer until nothing is placed on it (it takes no new placements while terminating).
  if (deps.writeFinalizers && deps.placedOn) {
    const fins = mc.metadata.finalizers ?? [];
    const has = fins.includes(FinalizerPlacements);
    if (!mc.metadata.deletionTimestamp && !has) {
      await deps.writeFinalizers(mc, [...fins, FinalizerPlacements]);
      return;
    }
    if (mc.metadata.deletionTimestamp && has) {
      const placed = deps.placedOn(name);
      if (placed > 0) {
        // What `kubectl delete mc` waits for, on `kubectl describe mc`: said again only when the
        // count changes, not at every pass (heartbeats and the 5 s requeue).
        const message = `Management cluster ${name} is being deleted: waiting for the ${placed} HostedClusters and NodePools placed on it to be deleted (kubectl get hostedclusters,nodepools -A -l ${LabelManagementCluster}=${name}); it takes no new placements`;
        if (deps.waitingSaid?.get(name) !== message) {
          deps.waitingSaid?.set(name, message);
          deps.recordEvent?.(mc, 'Normal', ReasonWaitingForHostedClusters, message);
        }
        // Deleting a cluster that is lost declares it gone for good (as tainting a Node
        // out-of-service lets kube's pod GC force-delete its terminating pods): what is being
        // deleted there is released instead of waiting forever for a teardown nobody will do.
        // Lost: its syncer stopped reporting, or reports it cannot reach the cluster's API (a
        // push syncer, or a pull syncer outside its cluster, outlives the cluster), for longer
        // than the grace period.
        const now = deps.now();
        const age = heartbeatAgeMs(deps, mc, now);
        const ready = findCondition(mc.status?.conditions, ConditionReady);
        const unreachableFor = ready?.status !== 'True' && ready?.reason === ReasonManagementClusterUnreachable ? ageMs(ready.lastTransitionTime, now) : 0;
        if (deps.releaseSyncerFinalizers && (age > graceMs || unreachableFor > graceMs)) {
          const silent = age > graceMs;
          const why = silent ? `its syncer has not reported since ${mc.status?.lastHeartbeatTime ?? 'never'}` : `its syncer has not reached its API since ${ready?.lastTransitionTime ?? 'unknown'}`;
          // The syncer's own report (itself a sentence with a cause in parentheses) follows as a
          // sentence of its own, not nested in this one.
          const report = !silent && ready?.message ? `. Its syncer's last report: ${ready.message}` : '';
          await deps.releaseSyncerFinalizers(name, `management cluster ${name} is being deleted and ${why}: released without tearing down its copy there${report}`);
        }
        waiting = { requeueAfterMs: 5000 };
      } else {
        await deps.writeFinalizers(mc, fins.filter((f) => f !== FinalizerPlacements));
        return;
      }
    }
  }
  const ready = findCondition(mc.status?.conditions, ConditionReady);
  if (!ready) return neverReported(deps, mc, graceMs, waiting);
  // Not ready by its syncer's own report (the management cluster's API unreachable) still expires
  // when that syncer stops reporting: the message then says so instead of a stale reason.
  if (ready.status !== 'True' && ready.reason !== ReasonManagementClusterUnreachable) return waiting;
  const now = deps.now();
  const inGrace = untilGraceEnds(graceMs, heartbeatAgeMs(deps, mc, now), waiting);
  if (inGrace) return inGrace;
  const grace = `No heartbeat from the syncer for more than ${Math.round(graceMs / 1000)}s`;
  const rest = `; no new HostedClusters are placed here${pushHint(mc)}`;
  const cond: Condition = {
    type: ConditionReady,
    status: 'False',
    reason: ReasonHeartbeatExpired,
    message: `${grace} (last: ${mc.status?.lastHeartbeatTime ?? 'never'})${rest}`,
  };
  await deps.writeConditions(mc, setCondition(mc.status?.conditions, cond, now));
  // No time in the Event (the condition has it): a cluster that flaps folds into one Event's count,
  // as its syncer's ManagementClusterReady Events do.
  deps.recordEvent?.(mc, 'Warning', ReasonHeartbeatExpired, `Management cluster ${mc.metadata.name} is not Ready: ${grace}${rest}`);
  return waiting;
}

/**
 * A ManagementCluster no syncer has reported for (no Ready condition) since longer than the grace
 * period after its creation gets `Ready=Unknown` (reason `SyncerNeverReported`), so `kubectl get mc`
 * shows it instead of an empty READY column, as the node lifecycle controller marks a Node whose
 * kubelet never posted status (`NodeStatusNeverUpdated`). The syncer's first heartbeat sets
 * `Ready=True`.
 * @see https://kubernetes.io/docs/concepts/architecture/nodes/#condition
 */
async function neverReported(deps: ClusterHealthDeps, mc: ManagementCluster, graceMs: number, waiting: ReconcileResult): Promise<ReconcileResult> {
  if (mc.status?.lastHeartbeatTime) return waiting;
  const now = deps.now();
  const inGrace = untilGraceEnds(graceMs, ageMs(mc.metadata.creationTimestamp, now), waiting);
  if (inGrace) return inGrace;
  const cond: Condition = {
    type: ConditionReady,
    status: 'Unknown',
    reason: ReasonSyncerNeverReported,
    message:
      mc.spec?.mode === 'Push'
        ? `The push syncer has not reached this management cluster since it was created (${mc.metadata.creationTimestamp ?? 'unknown'}); no HostedClusters are placed here until it does${pushHint(mc)}`
        : `No syncer has reported for this management cluster since it was created (${mc.metadata.creationTimestamp ?? 'unknown'}); start \`hcc syncer --name ${mc.metadata.name}\` there; no HostedClusters are placed here until it does`,
  };
  await deps.writeConditions(mc, setCondition(mc.status?.conditions, cond, now));
  deps.recordEvent?.(mc, 'Warning', ReasonSyncerNeverReported, cond.message ?? '');
  return waiting;
}

/** Where to look when a Push-mode cluster is not reached (its syncer runs next to the control center); '' otherwise. */
function pushHint(mc: ManagementCluster): string {
  return mc.spec?.mode === 'Push' ? ` (Push mode: check spec.kubeconfigSecretRef, the Events of \`kubectl describe mc ${mc.metadata.name}\` and the push syncer's log)` : '';
}

/** How long ago the cluster's heartbeat was seen to change, in milliseconds (Infinity when none is reported). */
function heartbeatAgeMs(deps: ClusterHealthDeps, mc: ManagementCluster, now: Date): number {
  if (!deps.heartbeatSeenMs) return ageMs(mc.status?.lastHeartbeatTime, now);
  const seen = deps.heartbeatSeenMs(mc);
  return Number.isFinite(seen) ? now.getTime() - seen : Infinity;
}

/** Time since an RFC 3339 timestamp (a heartbeat, a creation), in milliseconds (Infinity when there is none). */
function ageMs(timestamp: string | undefined, now: Date): number {
  const t = Date.parse(timestamp ?? '');
  return Number.isFinite(t) ? now.getTime() - t : Infinity;
}

/**
 * Longest requeue, in milliseconds. An announced grace can exceed what a timer can wait (Node
 * fires a setTimeout over 2^31−1 ms after 1 ms, which would spin this controller); the check is
 * level-triggered, so looking again early only schedules the next look.
 */
const MaxRequeueMs = 3_600_000;

/**
 * While something `age` ms old is within the grace period (`graceMs`, the cluster's): a requeue
 * for just after it ends (or `waiting`'s, when sooner; at most an hour). Undefined once the
 * grace period is over.
 */
function untilGraceEnds(graceMs: number, age: number, waiting: ReconcileResult): ReconcileResult | undefined {
  if (age > graceMs) return undefined;
  return { requeueAfterMs: Math.min(graceMs - age + 100, waiting?.requeueAfterMs ?? Infinity, MaxRequeueMs) };
}
