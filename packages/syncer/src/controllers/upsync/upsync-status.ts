/**
 * What the upstream status of a HostedCluster or NodePool should be, given its downstream copy:
 * the operator's status as is, with every `observedGeneration` translated from the downstream
 * copy's generations to the upstream object's (the copy records the upstream generation it was
 * built from), and with the conditions only the control center sets (`Scheduled`) kept.
 * So `kubectl wait --for=condition=Available` against the control center sees the truth, and a
 * condition observed for an older spec still reads as older.
 */
import { AnnotationUpstreamGeneration, ConditionScheduled, type Condition, type KubeObject, deepCopyJSON } from '@hcc/crds';

/** Condition types owned by the control center side; never overwritten from downstream. */
export const upstreamOwnedConditions = new Set([ConditionScheduled]);

/**
 * Maps a downstream observedGeneration to the upstream generation it corresponds to.
 * @param downGen - the downstream copy's metadata.generation
 * @param upGen - the upstream generation the copy was built from
 */
export function mapGeneration(observed: number | undefined, downGen: number, upGen: number): number | undefined {
  if (observed === undefined || observed === null) return undefined;
  if (observed >= downGen) return upGen;
  return Math.max(1, upGen - (downGen - observed));
}

/** The desired upstream status. */
export function upstreamStatus(down: KubeObject, up: KubeObject): Record<string, unknown> {
  const downGen = down.metadata.generation ?? 1;
  const upGen = Number(down.metadata.annotations?.[AnnotationUpstreamGeneration] ?? up.metadata.generation ?? 1);
  const status = deepCopyJSON((down.status ?? {}) as Record<string, unknown>);
  const map = (g: unknown) => mapGeneration(typeof g === 'number' ? g : undefined, downGen, upGen);
  const conds = ((status.conditions as Condition[] | undefined) ?? [])
    .filter((c) => !upstreamOwnedConditions.has(c.type))
    .map((c) => {
      const m = map(c.observedGeneration);
      return m === undefined ? c : { ...c, observedGeneration: m };
    });
  const owned = (((up.status as { conditions?: Condition[] } | undefined)?.conditions) ?? []).filter((c) => upstreamOwnedConditions.has(c.type));
  if (conds.length || owned.length) status.conditions = [...owned, ...conds];
  const version = status.version as { observedGeneration?: number } | undefined;
  if (version && typeof version === 'object' && version.observedGeneration !== undefined) version.observedGeneration = map(version.observedGeneration);
  if (typeof status.observedGeneration === 'number') status.observedGeneration = map(status.observedGeneration);
  return status;
}
