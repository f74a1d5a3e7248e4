/**
 * Informer indexes the HostedCluster controller uses to map other objects' events to HostedCluster
 * keys (never acting on the events themselves).
 */
import type { IndexFunc, KubeObject } from '@hcc/client';
import { hostedClusterReferences, type HostedCluster } from '@hcc/crds';
import { AnnotationHostedCluster } from '../../names.js';

/**
 * HostedClusters by every Secret and ConfigMap they reference (pull secret, SSH key, encryption keys,
 * trust bundles, platform credentials, `arn-from-secret::` names, ...: `hostedClusterReferences` of
 * `@hcc/crds`); values are {@link referenceKey}s such as `Secret/clusters/pull-secret` and
 * `ConfigMap/clusters/user-ca-bundle`. An event on such an object requeues the HostedClusters
 * naming it, so one that appears (or goes) is noticed at once, as the real operator's watches do.
 */
export const HostedClustersByReference = 'byReference';

/**
 * The index value of a referenced object.
 * @param kind - `Secret` or `ConfigMap`
 * @param namespace - the object's (and the HostedCluster's) namespace
 * @param name - the object's name
 * @returns `<kind>/<namespace>/<name>`
 */
export const referenceKey = (kind: 'Secret' | 'ConfigMap', namespace: string, name: string): string => `${kind}/${namespace}/${name}`;

/** {@link HostedClustersByReference}: one value per referenced Secret and ConfigMap (none for a malformed object). */
export const hostedClustersByReference: IndexFunc<HostedCluster> = (hc) => {
  const namespace = hc.metadata?.namespace;
  if (!namespace || !hc.spec) return [];
  const { secrets, configMaps } = hostedClusterReferences(hc);
  return [...secrets.map((n) => referenceKey('Secret', namespace, n)), ...configMaps.map((n) => referenceKey('ConfigMap', namespace, n))];
};

/** The HostedCluster key an object made for one carries in its `hypershift.openshift.io/cluster` annotation. */
export const hostedClusterKeyOf = (obj: KubeObject): string | undefined => {
  const annotations = obj.metadata.annotations as Record<string, string> | undefined;
  const key = annotations?.[AnnotationHostedCluster];
  return key && /^[^/]+\/[^/]+$/.test(key) ? key : undefined;
};
