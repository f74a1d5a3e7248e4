/**
 * One scheduling cycle for one HostedCluster key: read it from the cache, and either make sure
 * its `Scheduled` condition says where it is, or pick its profile → snapshot the fleet → filter →
 * score → select → assume → bind. Bind (the profile's bind plugin; the default one POSTs the
 * `binding` subresource) writes the placement label and the `Scheduled` condition with a
 * resourceVersion precondition, so a stale view can never bind twice; a binder that leaves the
 * condition out gets it through the status subresource when the informer brings the placed
 * object back. An Event (`Normal Scheduled` / `Warning FailedScheduling`, kube-scheduler's
 * reasons) says the same in `kubectl describe hc`.
 *
 * Guarantees: placements never move (a labelled HostedCluster is never rescheduled); snapshot →
 * filter → score → assume runs without an await, so concurrent workers never decide on the same
 * free slot; a failed bind forgets its reservation and is retried by the work queue.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/scheduler/schedule_one.go
 */
import {
  ConditionScheduled,
  conditionUpToDate,
  hasNotPlaced,
  LabelManagementCluster,
  mayMarkNotPlaced,
  notPlacedCondition,
  ReasonUnschedulable,
  scheduledCondition,
  setCondition,
  type Condition,
  type HostedCluster,
  type ManagementCluster,
  withoutNotPlaced,
} from '@hcc/crds';
import { isConflict, isNotFound, type EventRecorder, type Lister, type ReconcileResult } from '@hcc/client';
import type { ClusterCache } from './cache/cluster-cache.js';
import { profileFor, type SchedulerConfig } from './config/config.js';
import type { BindHandle } from './framework/types.js';
import { runProfile } from './framework/runtime.js';
import type { SchedulerMetrics } from './metrics.js';
import { ErrReasonNoBudget } from './plugins/budget/budget.js';
import { platformOf } from './plugins/platform-supported/platform-supported.js';
import type { PendingInfo } from './scale-out/scale-out.js';

/** Event reason for a bind (kube-scheduler's). */
export const EventReasonScheduled = 'Scheduled';
/** Event reason when nothing fits (kube-scheduler's). */
export const EventReasonFailedScheduling = 'FailedScheduling';

/** What a cycle needs; everything injected so tests run without a server. */
export interface ScheduleDeps {
  hostedClusters: Lister<HostedCluster>;
  managementClusters: Lister<ManagementCluster>;
  cache: ClusterCache;
  config: Pick<SchedulerConfig, 'profiles' | 'defaultProfile'>;
  /** Tie-break randomness in [0, 1). */
  random: () => number;
  now: () => Date;
  /** Handed to the bind plugin: the merge PATCH with a resourceVersion precondition. */
  bindHandle: BindHandle;
  /** Writes status.conditions with a resourceVersion precondition. */
  writeConditions(hc: HostedCluster, conditions: Condition[]): Promise<void>;
  recorder: Pick<EventRecorder, 'event'>;
  metrics: SchedulerMetrics;
  /** Keys known to be unschedulable and why (re-queued when the fleet changes; read by the scale-out signal). */
  pending: Map<string, PendingInfo>;
  /** How long to wait before trying an unschedulable HostedCluster again anyway, in milliseconds. */
  unschedulableRetryMs: number;
  /**
   * Whether this replica may run a scheduling cycle (bind, or mark a HostedCluster unschedulable)
   * now: it surely still holds the leader Lease (client leader-election `isLeading`). A leader frozen past its renew
   * deadline (SIGSTOP, a long pause) may have been replaced: binding from its old view beside the
   * new leader could overbook a cluster. Absent: always (no leader election).
   */
  mayBind?(): boolean;
}

/** The Scheduled=False condition for a HostedCluster that fits nowhere. */
export const unschedulableCondition = (hc: HostedCluster, message: string): Condition => ({
  type: ConditionScheduled,
  status: 'False',
  reason: ReasonUnschedulable,
  message,
  observedGeneration: hc.metadata.generation,
});

/**
 * Schedules (or confirms) one HostedCluster.
 * @param key - `namespace/name`
 * @returns a requeue for unschedulable HostedClusters
 * @throws ApiError on a failed bind or condition write (the queue retries; 409s are normal)
 */
export async function scheduleOne(deps: ScheduleDeps, key: string): Promise<ReconcileResult> {
  const hc = deps.hostedClusters.get(key);
  if (!hc || hc.metadata.deletionTimestamp) {
    if (!hc) deps.cache.forget(key);
    deps.pending.delete(key);
    return;
  }
  const placed = hc.metadata.labels?.[LabelManagementCluster];
  if (placed) {
    deps.pending.delete(key);
    const cond = scheduledCondition(placed);
    // Up to date includes no observedGeneration: one an older hcc wrote is dropped (it made `kubectl wait` hang once the generation moved).
    // A not-placed mark a custom binder left behind goes too.
    if (conditionUpToDate(hc.status?.conditions, cond) && !hasNotPlaced(hc.status?.conditions)) return;
    await deps.writeConditions(hc, withoutNotPlaced(setCondition(hc.status?.conditions, cond, deps.now())));
    return;
  }
  if (deps.cache.isAssumed(key)) return; // a bind is in flight or not yet seen; the informer update re-queues it
  // Not sure to lead any more: no scheduling cycle (a replica that does not lead runs none in
  // kube-scheduler), so no bind, status write or Event from an old view beside the new leader; the
  // queue tries again (the renew loop settles it).
  if (deps.mayBind && !deps.mayBind()) return { requeueAfterMs: 1000 };

  const profile = profileFor(deps.config, hc);
  if (profile instanceof Error) {
    deps.metrics.attempts.inc({ result: 'unschedulable', profile: '' });
    return unschedulable(deps, key, hc, profile.message, false);
  }
  const started = performance.now();
  const snapshot = deps.cache.snapshot(deps.managementClusters.list());
  const result = runProfile(profile, hc, snapshot, deps.random);
  deps.metrics.schedulingDuration.observe((performance.now() - started) / 1000);
  if (!result.feasible) {
    deps.metrics.attempts.inc({ result: 'unschedulable', profile: profile.name });
    for (const plugin of Object.keys(result.rejectedBy)) deps.metrics.rejections.inc({ plugin });
    const budgetBound = (result.reasons[ErrReasonNoBudget] ?? 0) > 0 || result.evaluated === 0;
    return unschedulable(deps, key, hc, result.message, budgetBound);
  }

  deps.cache.assume(key, result.cluster, hc.metadata.resourceVersion);
  const bindStarted = performance.now();
  try {
    await profile.bind.bind(hc, result.cluster, deps.bindHandle);
  } catch (err) {
    deps.cache.forget(key);
    deps.metrics.attempts.inc({ result: 'error', profile: profile.name });
    // A refused bind (not a lost race: 409, or the HostedCluster gone: 404) is shown on the
    // HostedCluster, as kube-scheduler records "Binding rejected" on the Pod.
    if (!isConflict(err) && !isNotFound(err)) deps.recorder.event(hc, 'Warning', EventReasonFailedScheduling, `Binding rejected: ${(err as Error).message}`);
    // Deleted while its bind was in flight: nothing to retry (the informer's delete forgets it).
    if (isNotFound(err)) return;
    throw err;
  }
  deps.cache.finishBinding(key);
  deps.metrics.bindingDuration.observe((performance.now() - bindStarted) / 1000);
  deps.pending.delete(key);
  deps.metrics.attempts.inc({ result: 'scheduled', profile: profile.name });
  const created = Date.parse(hc.metadata.creationTimestamp ?? '');
  if (Number.isFinite(created)) deps.metrics.e2eLatency.observe(Math.max(0, deps.now().getTime() - created) / 1000);
  deps.recorder.event(hc, 'Normal', EventReasonScheduled, `Successfully assigned ${key} to management cluster ${result.cluster}`);
  // The binding wrote the Scheduled condition; what a custom binder left out is written when the
  // informer brings the placed HostedCluster back (the `placed` branch above).
}

/**
 * Records a HostedCluster that fits nowhere: pending set, conditions (when the message changed:
 * `Scheduled=False` and, unless another Available condition is there, `Available=False`
 * Unschedulable, which `kubectl get hc` shows in its AVAILABLE and MESSAGE columns),
 * requeue, and a FailedScheduling Event when the message changed or at most once per retry
 * interval otherwise: kube-scheduler records one per failed attempt and the recorder folds
 * repeats into one Event's `count`, so `kubectl describe` shows `(x3 over 2m)`; re-evaluations
 * triggered by fleet changes in between do not add to it.
 */
async function unschedulable(deps: ScheduleDeps, key: string, hc: HostedCluster, message: string, budgetBound: boolean): Promise<ReconcileResult> {
  const prev = deps.pending.get(key);
  const nowMs = deps.now().getTime();
  const info: PendingInfo = { budgetBound, platform: platformOf(hc), sinceMs: prev?.sinceMs ?? nowMs, ...(prev?.eventMs !== undefined ? { eventMs: prev.eventMs } : {}) };
  deps.pending.set(key, info);
  const cond = unschedulableCondition(hc, message);
  const conditions = hc.status?.conditions;
  const mark = mayMarkNotPlaced(conditions) ? notPlacedCondition(message, hc.metadata.generation) : undefined;
  const changed = !conditionUpToDate(conditions, cond) || (!!mark && !conditionUpToDate(conditions, mark));
  if (changed) {
    const next = setCondition(conditions, cond, deps.now());
    await deps.writeConditions(hc, mark ? setCondition(next, mark, deps.now()) : next);
  }
  if (changed || info.eventMs === undefined || nowMs - info.eventMs >= deps.unschedulableRetryMs) {
    deps.recorder.event(hc, 'Warning', EventReasonFailedScheduling, message);
    info.eventMs = nowMs;
  }
  return { requeueAfterMs: deps.unschedulableRetryMs };
}
