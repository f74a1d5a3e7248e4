/**
 * Where HostedClusters and NodePools are placed, read from the store, for the syncer restriction
 * (admission and authorizer alike): the placement label `controlcenter.hcc.dev/management-cluster`,
 * and what belongs to a management cluster because of it.
 */
import { customKubeconfigSecretName, hostedClustersOfStatusSecret, HostedClusterResource, LabelManagementCluster, type KubeObject } from '@hcc/crds';
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
 * `<hc>-custom-admin-kubeconfig`), which its syncer copies up. A name can be two HostedClusters'
 * (`a-custom-admin-kubeconfig` is `a`'s custom kubeconfig and `a-custom`'s admin kubeconfig), so
 * it is attributed to every existing HostedCluster that would have it written: the admin
 * kubeconfig and kubeadmin password always, the custom kubeconfig only while the HostedCluster
 * sets `spec.kubeAPIServerDNSName` (HyperShift writes it for that name only). Every such
 * HostedCluster must be placed on `managementCluster` (so the syncer of one cluster never reaches
 * a Secret another cluster's HostedCluster writes, as the Node authorizer gives a kubelet only
 * what its own pods use), and:
 * - for a write (`write`: create, update, patch), at least one exists;
 * - otherwise (get, delete), a HostedCluster of the name placed on `managementCluster` may also be
 *   one that no longer has it written (the custom kubeconfig after `spec.kubeAPIServerDNSName`
 *   was removed: its syncer reads and deletes the copy it made).
 * @param write - whether the request writes the Secret
 * @see https://hypershift.pages.dev/reference/api/#hypershift.openshift.io/v1beta1.HostedClusterStatus
 */
export function isStatusSecretPlacedOn(store: Store, managementCluster: string, namespace: string, name: string, write = false): boolean {
  let ours = false;
  let writers = 0;
  for (const hcName of hostedClustersOfStatusSecret(name)) {
    const hc = store.get(storageKey(HostedClusterResource, namespace, hcName))?.object;
    if (!hc) continue;
    const here = hc.metadata.labels?.[LabelManagementCluster] === managementCluster;
    const dns = (hc.spec as { kubeAPIServerDNSName?: unknown } | undefined)?.kubeAPIServerDNSName;
    const written = name !== customKubeconfigSecretName(hcName) || (typeof dns === 'string' && dns !== '');
    if (written && !here) return false;
    if (written) writers++;
    if (here) ours = true;
  }
  return write ? writers > 0 : ours;
}
