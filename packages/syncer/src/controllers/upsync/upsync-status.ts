/**
 * What the upstream status of a HostedCluster or NodePool should be, given its downstream copy:
 * the operator's status as is, with every `observedGeneration` translated from the downstream
 * copy's generations to the upstream object's (the copy records the upstream generation it was
 * built from), and with the conditions only the control center sets (`Scheduled`) kept.
 * So `kubectl wait --for=condition=Available` against the control center sees the truth, and a
 * condition observed for an older spec still reads as older.
 */
import { AnnotationUpstreamGeneration, ConditionScheduled, rfc3339, type Condition, type KubeObject, deepCopyJSON } from '@hcc/crds';

/** Condition types owned by the control center side; never overwritten from downstream. */
export const upstreamOwnedConditions = new Set([ConditionScheduled]);

/**
 * Maps a downstream observedGeneration to the upstream generation it corresponds to.
 *
 * Caught up with the copy (`observed >= downGen`) is caught up with the upstream generation the
 * copy was built from. Behind it, the copy records no older pairs, so the upstream generation is
 * a guess, `upGen - (downGen - observed)`, which holds only while both advance in step: a drift
 * the syncer corrected bumps the copy's generation twice with no upstream change, and several
 * upstream writes can fold into one downstream write. So a guess never goes below `floor`, what
 * the control center already shows for the same field (the operator had observed that much, and
 * observedGeneration does not go backwards), when that is not past `upGen`.
 * @param observed - the downstream observedGeneration (undefined: none)
 * @param downGen - the downstream copy's metadata.generation
 * @param upGen - the upstream generation the copy was built from
 * @param floor - the upstream observedGeneration already shown for this field, if any
 * @returns the upstream observedGeneration, at least 1; undefined when `observed` is
 */
export function mapGeneration(observed: number | undefined, downGen: number, upGen: number, floor?: number): number | undefined {
  if (observed === undefined || observed === null) return undefined;
  if (observed >= downGen) return upGen;
  const guess = Math.max(1, upGen - (downGen - observed));
  return typeof floor === 'number' && floor <= upGen && floor > guess ? floor : guess;
}

/**
 * A condition's `lastTransitionTime` upstream, where it is the time the *upstream* condition last
 * changed status (metav1.Condition): kept while the status stays what it is upstream; the copy's
 * when the copy changed later than the upstream condition did; `now` when the upstream status was
 * something else meanwhile (the scheduler's `Unknown` while the management cluster was lost: the
 * copy's older time would date the recovery before the outage).
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/types.go (Condition.LastTransitionTime)
 */
export function upstreamTransitionTime(c: Condition, upCond: Condition | undefined, now: Date): string | undefined {
  if (!upCond) return c.lastTransitionTime;
  if (upCond.status === c.status) return upCond.lastTransitionTime ?? c.lastTransitionTime;
  const downMs = Date.parse(c.lastTransitionTime ?? '');
  const upMs = Date.parse(upCond.lastTransitionTime ?? '');
  return Number.isFinite(downMs) && (!Number.isFinite(upMs) || downMs > upMs) ? c.lastTransitionTime : rfc3339(now);
}

/**
 * The desired upstream status.
 * @param now - the time of a condition whose upstream status changes without the copy's changing (see {@link upstreamTransitionTime})
 */
export function upstreamStatus(down: KubeObject, up: KubeObject, now = new Date()): Record<string, unknown> {
  const downGen = down.metadata.generation ?? 1;
  const upGen = Number(down.metadata.annotations?.[AnnotationUpstreamGeneration] ?? up.metadata.generation ?? 1);
  const status = deepCopyJSON((down.status ?? {}) as Record<string, unknown>);
  const num = (g: unknown) => (typeof g === 'number' ? g : undefined);
  const map = (g: unknown, floor: unknown) => mapGeneration(num(g), downGen, upGen, num(floor));
  const upStatus = (up.status ?? {}) as { conditions?: Condition[]; version?: { observedGeneration?: unknown }; observedGeneration?: unknown };
  const upConds = upStatus.conditions ?? [];
  const conds = ((status.conditions as Condition[] | undefined) ?? [])
    .filter((c) => !upstreamOwnedConditions.has(c.type))
    .map((c) => {
      const upCond = upConds.find((u) => u.type === c.type);
      const m = map(c.observedGeneration, upCond?.observedGeneration);
      const withGen = m === undefined ? c : { ...c, observedGeneration: m };
      const ltt = upstreamTransitionTime(c, upCond, now);
      return ltt === c.lastTransitionTime ? withGen : { ...withGen, lastTransitionTime: ltt };
    });
  const owned = upConds.filter((c) => upstreamOwnedConditions.has(c.type));
  if (conds.length || owned.length) status.conditions = [...owned, ...conds];
  const version = status.version as { observedGeneration?: number } | undefined;
  if (version && typeof version === 'object' && version.observedGeneration !== undefined) version.observedGeneration = map(version.observedGeneration, upStatus.version?.observedGeneration);
  if (typeof status.observedGeneration === 'number') status.observedGeneration = map(status.observedGeneration, upStatus.observedGeneration);
  return status;
}
