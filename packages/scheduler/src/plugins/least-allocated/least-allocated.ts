/**
 * LeastAllocated score: prefer the cluster with the smallest share of its capacity in use, so
 * clusters of different sizes fill at the same pace. In use = capacity − free slots: what hcc
 * placed there (reservations included) and whatever else its syncer reports holding. Already in
 * [0, 100]: `100 × (1 − used / capacity)`; a cluster without capacity scores 100.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/scheduler/framework/plugins/noderesources/least_allocated.go
 */
import { MaxScore, type ClusterInfo, type ScorePlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.LeastAllocated;

/** Share of capacity in use, (capacity − free slots) / capacity, in [0, 1] (0 without capacity, 1 with capacity 0). */
export function allocatedRatio(cluster: ClusterInfo): number {
  if (!Number.isFinite(cluster.capacity)) return 0;
  if (cluster.capacity <= 0) return 1;
  return Math.min(1, Math.max(0, (cluster.capacity - cluster.freeSlots) / cluster.capacity));
}

/** The LeastAllocated score plugin. */
export const leastAllocated = {
  name: Name,
  score: (_hc, cluster) => MaxScore * (1 - allocatedRatio(cluster)),
} satisfies ScorePlugin;
