/**
 * One scheduling cycle for one HostedCluster key: read it from the cache, and either make sure
 * its `Scheduled` condition says where it is, or snapshot the fleet → filter → score → select →
 * assume → bind. Bind is a PATCH of the placement label with a resourceVersion precondition (so
 * a stale view can never bind twice); the `Scheduled` condition follows through the status
 * subresource. Placements never move: a labelled HostedCluster is never rescheduled.
 */
import {
  ConditionScheduled,
  conditionUpToDate,
  findCondition,
  LabelManagementCluster,
  ReasonScheduled,
  ReasonUnschedulable,
  setCondition,
  type Condition,
  type HostedCluster,
  type ManagementCluster,
} from '@hcc/crds';
import type { EventRecorder, Lister, ReconcileResult } from '@hcc/client';
import type { ClusterCache } from './cache/cluster-cache.js';
import type { Profile } from './framework/types.js';
import { runProfile } from './framework/runtime.js';
import type { SchedulerMetrics } from './metrics.js';

/** What a cycle needs; everything injected so tests run without a server. */
export interface ScheduleDeps {
  hostedClusters: Lister<HostedCluster>;
  managementClusters: Lister<ManagementCluster>;
  cache: ClusterCache;
  profile: Profile;
  random: () => number;
  now: () => Date;
  /** Sets the placement label with a resourceVersion precondition; returns the updated object. */
  bind(hc: HostedCluster, cluster: string): Promise<HostedCluster>;
  /** Writes status.conditions with a resourceVersion precondition. */
  writeConditions(hc: HostedCluster, conditions: Condition[]): Promise<void>;
  recorder: Pick<EventRecorder, 'event'>;
  metrics: SchedulerMetrics;
  /** Keys known to be unschedulable (re-queued when the fleet changes). */
  unschedulable: Set<string>;
  /** How long to wait before trying an unschedulable HostedCluster again anyway, in milliseconds. */
  unschedulableRetryMs: number;
}

/** The Scheduled=True condition for a placement. */
export const scheduledCondition = (hc: HostedCluster, cluster: string): Condition => ({
  type: ConditionScheduled,
  status: 'True',
  reason: ReasonScheduled,
  message: `Placed on management cluster ${cluster}`,
  observedGeneration: hc.metadata.generation,
});

/** Schedules (or confirms) one HostedCluster. */
export async function scheduleOne(deps: ScheduleDeps, key: string): Promise<ReconcileResult> {
  const hc = deps.hostedClusters.get(key);
  if (!hc) {
    deps.cache.forget(key);
    deps.unschedulable.delete(key);
    return;
  }
  if (hc.metadata.deletionTimestamp) {
    deps.unschedulable.delete(key);
    return;
  }
  const placed = hc.metadata.labels?.[LabelManagementCluster];
  if (placed) {
    deps.unschedulable.delete(key);
    const cond = scheduledCondition(hc, placed);
    const cur = findCondition(hc.status?.conditions, ConditionScheduled);
    // Keep the observedGeneration of an existing True condition: a placement is made once.
    if (cur?.status === 'True' && cur.reason === ReasonScheduled && cur.message === cond.message) return;
    await deps.writeConditions(hc, setCondition(hc.status?.conditions, cond, deps.now()));
    return;
  }
  if (deps.cache.isAssumed(key)) return; // a bind is in flight; the informer update re-queues it
  const started = performance.now();
  const snapshot = deps.cache.snapshot(deps.managementClusters.list());
  const result = runProfile(deps.profile, hc, snapshot, deps.random);
  deps.metrics.schedulingDuration.observe((performance.now() - started) / 1000);
  if (!result.feasible) {
    deps.metrics.attempts.inc({ result: 'unschedulable' });
    deps.unschedulable.add(key);
    const cond: Condition = {
      type: ConditionScheduled,
      status: 'False',
      reason: ReasonUnschedulable,
      message: result.message,
      observedGeneration: hc.metadata.generation,
    };
    if (!conditionUpToDate(hc.status?.conditions, cond)) {
      await deps.writeConditions(hc, setCondition(hc.status?.conditions, cond, deps.now()));
      deps.recorder.event(hc, 'Warning', 'FailedScheduling', result.message);
    }
    return { requeueAfterMs: deps.unschedulableRetryMs };
  }
  deps.cache.assume(key, result.cluster);
  let bound: HostedCluster;
  try {
    bound = await deps.bind(hc, result.cluster);
  } catch (err) {
    deps.cache.forget(key);
    deps.metrics.attempts.inc({ result: 'error' });
    throw err;
  }
  deps.unschedulable.delete(key);
  deps.metrics.attempts.inc({ result: 'scheduled' });
  const created = Date.parse(hc.metadata.creationTimestamp ?? '');
  if (Number.isFinite(created)) deps.metrics.e2eLatency.observe(Math.max(0, deps.now().getTime() - created) / 1000);
  deps.recorder.event(bound, 'Normal', 'Scheduled', `Successfully assigned ${key} to management cluster ${result.cluster}`);
  await deps.writeConditions(bound, setCondition(bound.status?.conditions, scheduledCondition(bound, result.cluster), deps.now()));
}
