/**
 * Unschedulable filter: a cordoned ManagementCluster (`spec.unschedulable: true`) takes no new
 * HostedClusters; what it holds stays. The counterpart of kube-scheduler's NodeUnschedulable.
 * @see https://github.com/kubernetes/kubernetes/tree/master/pkg/scheduler/framework/plugins/nodeunschedulable
 */
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.Unschedulable;
/** Reason for a cordoned cluster. */
export const ErrReasonCordoned = 'cordoned';
/** Reason for a cluster being deleted (it waits for what it holds to go). */
export const ErrReasonDeleting = 'being deleted';

/** The Unschedulable filter plugin. */
export const unschedulable = {
  name: Name,
  filter: (_hc, cluster) =>
    cluster.cluster.metadata.deletionTimestamp
      ? Status.unschedulable(ErrReasonDeleting)
      : cluster.cluster.spec?.unschedulable
        ? Status.unschedulable(ErrReasonCordoned)
        : Status.success(),
} satisfies FilterPlugin;
