/**
 * Informer indexes over NodePools.
 */
import type { IndexFunc } from '@hcc/client';
import type { NodePool } from '@hcc/crds';

/** NodePools by the HostedCluster they belong to; value: `namespace/spec.clusterName`. */
export const NodePoolsByHostedCluster = 'byHostedCluster';

export const nodePoolsByHostedCluster: IndexFunc<NodePool> = (np) =>
  np.spec?.clusterName ? [`${np.metadata.namespace}/${np.spec.clusterName}`] : [];
