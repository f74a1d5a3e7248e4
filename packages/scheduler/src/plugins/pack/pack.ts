/**
 * Pack score: fill the fullest cluster first — by share of capacity in use (capacity − free
 * slots, as LeastAllocated counts it) — so fewer management clusters run and empty ones can be
 * retired, for cost. The counterpart of kube-scheduler's MostAllocated. Already in [0, 100]:
 * `100 × used / capacity`; a cluster without capacity scores 0.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/scheduler/framework/plugins/noderesources/most_allocated.go
 */
import { MaxScore, type ScorePlugin } from '../../framework/types.js';
import { allocatedRatio } from '../least-allocated/least-allocated.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.Pack;

/** The Pack score plugin. */
export const pack = {
  name: Name,
  score: (_hc, cluster) => MaxScore * allocatedRatio(cluster),
} satisfies ScorePlugin;
