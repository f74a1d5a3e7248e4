/**
 * Ready filter: only clusters whose syncer heartbeat is fresh and which report `Ready=True` (and
 * not `DuplicateCluster=True`) take new HostedClusters. Freshness is computed into the snapshot by
 * the cache (it owns the clock), as is a duplicate: the same management cluster as another ready
 * one registered before it (`status.clusterID`, see @hcc/crds same-cluster.ts). What a cluster
 * already holds stays there when it stops being ready.
 */
import { ConditionDuplicateCluster } from '@hcc/crds';
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.Ready;
/** Reason when the cluster is not Ready or its heartbeat is stale. */
export const ErrReasonNotReady = 'not ready';
/** Reason when the cluster is another ManagementCluster's management cluster under a second name. */
export const ErrReasonDuplicate = 'same cluster as another ManagementCluster';

/** The Ready filter plugin. */
export const ready = {
  name: Name,
  filter: (_hc, cluster) =>
    cluster.ready ? Status.success() : Status.unschedulable(cluster.notReadyReason === ConditionDuplicateCluster ? ErrReasonDuplicate : ErrReasonNotReady),
} satisfies FilterPlugin;
