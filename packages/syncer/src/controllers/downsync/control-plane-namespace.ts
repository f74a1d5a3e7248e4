/**
 * Whether a HostedCluster's control-plane namespace `<namespace>-<name>` in its management
 * cluster is someone else's: a namespace of that name that HyperShift's operator did not make (no
 * `hypershift.openshift.io/hosted-control-plane: "true"` label). The operator would take such a
 * namespace as the control plane's and delete it, with what lives in it, when the HostedCluster
 * goes, so the syncer does not copy the HostedCluster there (downsync-reconcile-apply.ts).
 * @see https://github.com/openshift/hypershift/blob/main/hypershift-operator/controllers/manifests/manifests.go (HostedControlPlaneNamespace)
 */
import { isForbidden } from '@hcc/client';
import { controlPlaneNamespaceName, LabelHostedControlPlane, type KubeObject } from '@hcc/crds';

/**
 * Why `up`'s control-plane namespace must not be used, or undefined (none there, or a control
 * plane's).
 * @param namespaceNamed - reads the management cluster's namespace of that name (undefined: none)
 * @param onForbidden - called when the identity may not read namespaces there: the namespace
 *   cannot be checked, and undefined is answered (the copy is made as before)
 * @throws what `namespaceNamed` throws other than a 403 (the pass is retried)
 */
export async function foreignControlPlaneNamespace(
  namespaceNamed: (name: string) => Promise<KubeObject | undefined>,
  up: KubeObject,
  onForbidden: (err: unknown) => void,
): Promise<string | undefined> {
  const cp = controlPlaneNamespaceName(up.metadata.namespace ?? '', up.metadata.name ?? '');
  let found: KubeObject | undefined;
  try {
    found = await namespaceNamed(cp);
  } catch (err) {
    if (!isForbidden(err)) throw err;
    onForbidden(err);
    return undefined;
  }
  if (!found || found.metadata.labels?.[LabelHostedControlPlane] === 'true') return undefined;
  return `its control-plane namespace ${cp} exists here and is not a control plane's (no ${LabelHostedControlPlane} label): HyperShift would take it over and delete it, with what lives in it, when the HostedCluster goes`;
}
