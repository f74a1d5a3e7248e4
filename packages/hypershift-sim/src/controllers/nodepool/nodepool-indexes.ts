/**
 * Informer indexes over NodePools.
 */
import type { IndexFunc } from '@hcc/client';
import type { NodePool } from '@hcc/crds';

/** NodePools by the HostedCluster they belong to; value: `namespace/spec.clusterName`. */
export const NodePoolsByHostedCluster = 'byHostedCluster';

/** Index function for {@link NodePoolsByHostedCluster}: `namespace/spec.clusterName`, none when `spec.clusterName` is empty. */
export const nodePoolsByHostedCluster: IndexFunc<NodePool> = (np) =>
  np.spec?.clusterName ? [`${np.metadata.namespace}/${np.spec.clusterName}`] : [];

/** The names a list of ConfigMap references (`spec.config`, `spec.tuningConfig`) gives, in order, each once; empty and malformed entries skipped. */
export function configMapNames(refs: unknown): string[] {
  if (!Array.isArray(refs)) return [];
  const names = refs.map((r) => (r && typeof r === 'object' ? (r as { name?: unknown }).name : undefined)).filter((n): n is string => typeof n === 'string' && n !== '');
  return [...new Set(names)];
}

/** NodePools by each ConfigMap their `spec.config` and `spec.tuningConfig` name; value: `namespace/name`. */
export const NodePoolsByConfigMap = 'byConfigMap';

/**
 * Index function for {@link NodePoolsByConfigMap}: `namespace/name` of each ConfigMap named in `spec.config` or
 * `spec.tuningConfig`, each once.
 */
export const nodePoolsByConfigMap: IndexFunc<NodePool> = (np) => {
  const namespace = np.metadata?.namespace;
  if (!namespace || !np.spec) return [];
  return [...new Set([...configMapNames(np.spec.config), ...configMapNames(np.spec.tuningConfig)])].map((n) => `${namespace}/${n}`);
};
