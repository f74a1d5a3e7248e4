/**
 * Helpers for metav1.Condition lists, after k8s.io/apimachinery/pkg/api/meta/conditions.go:
 * `lastTransitionTime` changes only when `status` changes.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/api/meta/conditions.go
 */
import { ConditionAvailable, ConditionReady, ConditionScheduled, ReasonScheduled, ReasonUnschedulable } from './names.js';
import type { Condition } from './types.js';

let lastSecond = NaN;
let lastText = '';

/**
 * RFC 3339 with second precision, as metav1.Time serialises (`2026-12-05T19:20:12Z`). The text of
 * the last second asked for is kept: a burst of writes stamps the same second thousands of times.
 * @throws RangeError for an invalid Date (as `toISOString`)
 */
export function rfc3339(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== lastSecond) {
    // toISOString always ends in `.sssZ`.
    lastText = `${d.toISOString().slice(0, -5)}Z`;
    lastSecond = second;
  }
  return lastText;
}

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
 * A NodePool of such a HostedCluster gets the same mark as its `Ready` condition (`type`
 * {@link ConditionReady}, HyperShift's NodePool MESSAGE column) from {@link nodePoolNotPlacedCondition}.
 * @param message - why it fits nowhere, e.g. `0/3 management clusters are available: 3 no budget.`
 * @param generation - the object's metadata.generation
 * @param type - the condition type: `Available` (HostedCluster, the default) or `Ready` (NodePool)
 */
export const notPlacedCondition = (message: string, generation?: number, type: string = ConditionAvailable): Condition => ({
  type,
  status: 'False',
  reason: ReasonUnschedulable,
  message: `Not placed on a management cluster: ${message}`,
  ...(generation !== undefined ? { observedGeneration: generation } : {}),
});

/**
 * The `Ready=False` mark of a NodePool whose HostedCluster the scheduler cannot place: a NodePool
 * goes where its HostedCluster goes, so it waits with it; the placement removes it.
 * @param hostedCluster - the HostedCluster's name (the NodePool's `spec.clusterName`; empty when it names none)
 * @param why - the HostedCluster's `Scheduled=False` message
 * @param generation - the NodePool's metadata.generation
 */
export const nodePoolNotPlacedCondition = (hostedCluster: string, why: string, generation?: number): Condition =>
  notPlacedCondition(`waiting for ${hostedCluster ? `HostedCluster ${hostedCluster}` : 'a HostedCluster'}: ${why}`, generation, ConditionReady);

/**
 * True when `conditions` hold a {@link notPlacedCondition}: a condition of `type` (default
 * `Available`) with reason `Unschedulable`.
 */
export const hasNotPlaced = (conditions: readonly Condition[] | undefined, type: string = ConditionAvailable): boolean => {
  const c = findCondition(conditions, type);
  return c?.reason === ReasonUnschedulable;
};

/**
 * Whether the scheduler may write its {@link notPlacedCondition} of `type` into `conditions`: no
 * condition of that type yet, or its own mark (anything another writer set, the operator's
 * included, stays).
 */
export const mayMarkNotPlaced = (conditions: readonly Condition[] | undefined, type: string = ConditionAvailable): boolean =>
  !findCondition(conditions, type) || hasNotPlaced(conditions, type);

/** `conditions` without a {@link notPlacedCondition} of `type` (default `Available`); any other condition of that type stays. */
export const withoutNotPlaced = (conditions: readonly Condition[], type: string = ConditionAvailable): Condition[] =>
  conditions.filter((c) => !(c.type === type && c.reason === ReasonUnschedulable));
