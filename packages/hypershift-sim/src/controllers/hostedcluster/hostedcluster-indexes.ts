/**
 * Informer indexes the HostedCluster controller uses to map other objects' events to HostedCluster
 * keys (never acting on the events themselves).
 */
import type { IndexFunc, KubeObject } from '@hcc/client';
import type { HostedCluster } from '@hcc/crds';
import { AnnotationHostedCluster } from '../../names.js';

/** HostedClusters by the Secret their `spec.pullSecret` names; value: `namespace/secretName`. */
export const HostedClustersByPullSecret = 'byPullSecret';

export const hostedClustersByPullSecret: IndexFunc<HostedCluster> = (hc) => {
  const name = hc.spec?.pullSecret?.name;
  return name ? [`${hc.metadata.namespace}/${name}`] : [];
};

/** The HostedCluster key an object made for one carries in its `hypershift.openshift.io/cluster` annotation. */
export const hostedClusterKeyOf = (obj: KubeObject): string | undefined => {
  const annotations = obj.metadata.annotations as Record<string, string> | undefined;
  const key = annotations?.[AnnotationHostedCluster];
  return key && /^[^/]+\/[^/]+$/.test(key) ? key : undefined;
};
