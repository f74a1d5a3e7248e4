/**
 * Helpers for metav1.Condition lists, after k8s.io/apimachinery/pkg/api/meta/conditions.go:
 * `lastTransitionTime` changes only when `status` changes.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/api/meta/conditions.go
 */
import { ConditionAvailable, ConditionScheduled, ReasonScheduled, ReasonUnschedulable } from './names.js';
import type { Condition } from './types.js';

/** RFC 3339 with second precision, as metav1.Time serialises. */
export const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Finds a condition by type. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Returns a new list with `cond` set: added, or updated in place keeping `lastTransitionTime`
 * unless the status changed.
 * @param now - used for lastTransitionTime when the condition is new or flips
 */
export function setCondition(conditions: readonly Condition[] | undefined, cond: Condition, now: Date): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === cond.type);
  if (i < 0) {
    list.push({ ...cond, lastTransitionTime: cond.lastTransitionTime ?? rfc3339(now) });
    return list;
  }
  const old = list[i]!;
  list[i] = { ...cond, lastTransitionTime: old.status === cond.status && old.lastTransitionTime ? old.lastTransitionTime : (cond.lastTransitionTime ?? rfc3339(now)) };
  return list;
}

/** True when the list already holds a condition equal to `cond` in type, status, reason, message and observedGeneration. */
export function conditionUpToDate(conditions: readonly Condition[] | undefined, cond: Condition): boolean {
  const c = findCondition(conditions, cond.type);
  return !!c && c.status === cond.status && c.reason === cond.reason && c.message === cond.message && c.observedGeneration === cond.observedGeneration;
}

/**
 * The Scheduled=True condition of a placed HostedCluster, as the binding subresource writes it and
 * the scheduler checks it. Without `observedGeneration`, like a pod's PodScheduled: a placement is
 * made once and holds for every later generation, while a condition that named the generation it
 * was set at would look stale after the first spec change (the operator's `clusterID` adopted a
 * moment later is one), and `kubectl wait --for=condition=Scheduled` waits until a condition's
 * observedGeneration reaches the object's generation.
 * @see https://github.com/kubernetes/kubernetes/pull/97408 (kubectl wait and observedGeneration)
 */
export const scheduledCondition = (cluster: string): Condition => ({
  type: ConditionScheduled,
  status: 'True',
  reason: ReasonScheduled,
  message: `Placed on management cluster ${cluster}`,
});

/**
 * The `Available=False` condition of a HostedCluster the scheduler cannot place (reason
 * `Unschedulable`, the scheduling message): no operator reports on it yet, and without it
 * `kubectl get hc` shows an empty row (HyperShift's AVAILABLE and MESSAGE columns read this
 * condition), where `kubectl get pods` shows `Pending`. A placement removes it
 * ({@link withoutNotPlaced}); the operator's own Available condition follows.
 * @param message - why it fits nowhere, e.g. `0/3 management clusters are available: 3 no budget.`
 * @param generation - the HostedCluster's metadata.generation
 */
export const notPlacedCondition = (message: string, generation?: number): Condition => ({
  type: ConditionAvailable,
  status: 'False',
  reason: ReasonUnschedulable,
  message: `Not placed on a management cluster: ${message}`,
  ...(generation !== undefined ? { observedGeneration: generation } : {}),
});

/** True when `conditions` hold a {@link notPlacedCondition} (an Available condition of reason `Unschedulable`). */
export const hasNotPlaced = (conditions: readonly Condition[] | undefined): boolean => {
  const c = findCondition(conditions, ConditionAvailable);
  return c?.reason === ReasonUnschedulable;
};

/** `conditions` without a {@link notPlacedCondition}; any other Available condition stays. */
export const withoutNotPlaced = (conditions: readonly Condition[]): Condition[] =>
  conditions.filter((c) => !(c.type === ConditionAvailable && c.reason === ReasonUnschedulable));
