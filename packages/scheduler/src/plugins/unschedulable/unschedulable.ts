/**
 * Unschedulable filter: a cordoned ManagementCluster (`spec.unschedulable: true`) takes no new
 * HostedClusters; what it holds stays. The counterpart of kube-scheduler's NodeUnschedulable.
 */
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

export const Name = PluginNames.Unschedulable;
export const ErrReasonCordoned = 'cordoned';

export const unschedulable = {
  name: Name,
  filter: (_hc, cluster) => (cluster.cluster.spec?.unschedulable ? Status.unschedulable(ErrReasonCordoned) : Status.success()),
} satisfies FilterPlugin;
