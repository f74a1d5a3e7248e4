/**
 * Ready filter: only clusters whose syncer heartbeat is fresh and which report `Ready=True` take
 * new HostedClusters. Freshness is computed into the snapshot by the cache (it owns the clock).
 * What a cluster already holds stays there when it stops being ready.
 */
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.Ready;
/** Reason when the cluster is not Ready or its heartbeat is stale. */
export const ErrReasonNotReady = 'not ready';

/** The Ready filter plugin. */
export const ready = {
  name: Name,
  filter: (_hc, cluster) => (cluster.ready ? Status.success() : Status.unschedulable(ErrReasonNotReady)),
} satisfies FilterPlugin;
