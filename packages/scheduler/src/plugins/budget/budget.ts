/**
 * Budget filter: a cluster needs at least one free slot, counting reservations the scheduler
 * made and the cluster has not reported yet (see cache/cluster-cache.ts).
 */
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

export const Name = PluginNames.Budget;
export const ErrReasonNoBudget = 'no budget';

export const budget = {
  name: Name,
  filter: (_hc, cluster) => (cluster.freeSlots > 0 ? Status.success() : Status.unschedulable(ErrReasonNoBudget)),
} satisfies FilterPlugin;
