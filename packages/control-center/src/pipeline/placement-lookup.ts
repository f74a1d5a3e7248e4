/**
 * Where HostedClusters and NodePools are placed, read from the store, for the syncer restriction
 * (admission and authorizer alike): the placement label `controlcenter.hcc.dev/management-cluster`,
 * and what belongs to a management cluster because of it.
 */
import { hostedClustersOfStatusSecret, HostedClusterResource, LabelManagementCluster, type KubeObject } from '@hcc/crds';
import { storageKey } from '../registry/types.js';
import type { Store } from '../storage/store.js';

/** Where the HostedCluster `namespace/name` is placed ('' when unplaced or missing). */
export function placementOfHostedCluster(store: Store, namespace: string, name: string): string {
  return store.get(storageKey(HostedClusterResource, namespace, name))?.object.metadata.labels?.[LabelManagementCluster] ?? '';
}

/**
 * Where a HostedCluster or NodePool is placed: its label, or for an unplaced NodePool its
 * HostedCluster's (`spec.clusterName`); '' when neither is placed.
 * @param resource - `hostedclusters` or `nodepools`
 */
export function placementOf(store: Store, resource: string, obj: KubeObject): string {
  const own = obj.metadata.labels?.[LabelManagementCluster];
  if (own !== undefined || resource !== 'nodepools') return own ?? '';
  const hc = (obj.spec as { clusterName?: unknown } | undefined)?.clusterName;
  return typeof hc === 'string' && hc ? placementOfHostedCluster(store, obj.metadata.namespace ?? '', hc) : '';
}

/**
 * Whether the Secret `namespace/name` is one HyperShift writes for a HostedCluster placed on
 * `managementCluster` (`<hc>-admin-kubeconfig`, `<hc>-kubeadmin-password`,
 * `<hc>-custom-admin-kubeconfig`), which its syncer copies up.
 */
export function isStatusSecretPlacedOn(store: Store, managementCluster: string, namespace: string, name: string): boolean {
  return hostedClustersOfStatusSecret(name).some((hc) => placementOfHostedCluster(store, namespace, hc) === managementCluster);
}
