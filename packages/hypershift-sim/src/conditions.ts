/**
 * metav1.Condition helpers with apimachinery's `meta.SetStatusCondition` semantics: a condition's
 * `lastTransitionTime` changes only when its `status` flips; type, reason, message and
 * observedGeneration are always overwritten. Functions return new arrays and never mutate input.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/api/meta/conditions.go
 */
import type { Condition } from '@hcc/crds';

/** A condition without its transition time (the helpers fill that in). */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/** The condition of this type, or undefined. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True when the condition of this type exists with status `True`. */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * Sets one condition. A new type is appended; an existing one keeps its position and its
 * `lastTransitionTime` unless the status changed.
 * @param now - RFC 3339 time used when the status flips (or the condition is new)
 */
export function setCondition(conditions: readonly Condition[] | undefined, next: ConditionInput, now: string): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const old = i >= 0 ? list[i] : undefined;
  const lastTransitionTime = old && old.status === next.status && old.lastTransitionTime ? old.lastTransitionTime : now;
  const merged: Condition = {
    type: next.type,
    status: next.status,
    observedGeneration: next.observedGeneration,
    lastTransitionTime,
    reason: next.reason ?? '',
    message: next.message ?? '',
  };
  if (i >= 0) list[i] = merged;
  else list.push(merged);
  return list;
}

/** Sets several conditions in order (see {@link setCondition}). */
export function setConditions(conditions: readonly Condition[] | undefined, next: readonly ConditionInput[], now: string): Condition[] {
  return next.reduce<Condition[]>((acc, c) => setCondition(acc, c, now), [...(conditions ?? [])]);
}

/** Removes the condition of this type, if any. */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
