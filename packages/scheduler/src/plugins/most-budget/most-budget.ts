/**
 * MostBudget score (the default, the seed's rule): the more free slots a cluster has, the better.
 * Raw score is the free-slot count (a cluster without capacity counts as very large); normalised
 * relative to the feasible cluster with the most free slots.
 */
import { defaultNormalizeScore } from '../../framework/runtime.js';
import type { ScorePlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.MostBudget;

/** The MostBudget score plugin. */
export const mostBudget = {
  name: Name,
  score: (_hc, cluster) => (Number.isFinite(cluster.freeSlots) ? cluster.freeSlots : Number.MAX_SAFE_INTEGER),
  normalizeScore: (scores) => defaultNormalizeScore(scores),
} satisfies ScorePlugin;
