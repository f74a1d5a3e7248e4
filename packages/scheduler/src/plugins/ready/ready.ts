/**
 * Ready filter: only clusters whose syncer heartbeat is fresh and which report `Ready=True`
 * take new HostedClusters. Freshness is computed into the snapshot by the cache (it owns the clock).
 */
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

export const Name = PluginNames.Ready;
export const ErrReasonNotReady = 'not ready';

export const ready = {
  name: Name,
  filter: (_hc, cluster) => (cluster.ready ? Status.success() : Status.unschedulable(ErrReasonNotReady)),
} satisfies FilterPlugin;
