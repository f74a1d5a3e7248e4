/**
 * MostBudget score (the default, the seed's rule): the more free slots a cluster has, the better.
 * Raw score is the free-slot count; the runtime normalises across feasible clusters.
 */
import type { ScorePlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

export const Name = PluginNames.MostBudget;

export const mostBudget = {
  name: Name,
  score: (_hc, cluster) => (Number.isFinite(cluster.freeSlots) ? cluster.freeSlots : Number.MAX_SAFE_INTEGER),
} satisfies ScorePlugin;
