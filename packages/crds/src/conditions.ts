/**
 * Helpers for metav1.Condition lists, after k8s.io/apimachinery/pkg/api/meta/conditions.go:
 * `lastTransitionTime` changes only when `status` changes.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/api/meta/conditions.go
 */
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
