/**
 * Budget filter: a cluster needs at least one free slot, counting reservations the scheduler made
 * and placements the cluster has not reported yet (see cache/cluster-cache.ts). The one filter a
 * profile cannot drop: without it nothing keeps a cluster under its capacity.
 */
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.Budget;
/** Reason for a cluster without a free slot. */
export const ErrReasonNoBudget = 'no budget';

/** The Budget filter plugin. */
export const budget = {
  name: Name,
  filter: (_hc, cluster) => (cluster.freeSlots > 0 ? Status.success() : Status.unschedulable(ErrReasonNoBudget)),
} satisfies FilterPlugin;
