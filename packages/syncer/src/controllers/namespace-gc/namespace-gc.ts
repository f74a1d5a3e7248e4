/**
 * Namespace clean-up in the management cluster: a namespace the syncer created (labelled
 * `controlcenter.hcc.dev/synced-by: <cluster>`) is deleted once nothing is placed in it any more —
 * no HostedCluster, NodePool, Secret or ConfigMap of this cluster's upstream selection and no copy
 * hcc made there — and nobody else put a HostedCluster, NodePool, Secret or ConfigMap there
 * (deleting the namespace would delete those too). Kubernetes' own `kube-root-ca.crt` ConfigMap
 * and service-account token Secrets do not count. Namespaces hcc did not create are never touched.
 */
import type { Logger } from 'pino';
import { isNotFound, type RestClient } from '@hcc/client';
import { ConfigMapResource, HostedClusterResource, LabelSyncedBy, NamespaceResource, NodePoolResource, SecretResource, type KubeObject } from '@hcc/crds';

/** Objects Kubernetes itself puts in every namespace. */
const isClusterOwned = (o: KubeObject): boolean => o.metadata.name === 'kube-root-ca.crt' || o.type === 'kubernetes.io/service-account-token';

/**
 * The first object in a namespace that neither this syncer's cluster copy nor Kubernetes made, as
 * `Kind/name`, or undefined. One list per kind; more than one page of a kind counts as foreign.
 */
export async function foreignObjectIn(downstream: RestClient, cluster: string, namespace: string): Promise<string | undefined> {
  for (const [ref, kind] of [[HostedClusterResource, 'HostedCluster'], [NodePoolResource, 'NodePool'], [SecretResource, 'Secret'], [ConfigMapResource, 'ConfigMap']] as const) {
    const list = await downstream.list<KubeObject>(ref, { namespace, limit: 500 });
    const other = list.items.find((o) => o.metadata.labels?.[LabelSyncedBy] !== cluster && !isClusterOwned(o));
    if (other) return `${kind}/${other.metadata.name}`;
    if (list.metadata.continue) return `${kind}/… (more than one page: kept to be safe)`;
  }
  return undefined;
}

/** What the sweep reads. */
export interface NamespaceGCDeps {
  cluster: string;
  downstream: RestClient;
  /** Whether anything placed on this cluster, upstream or as a copy downstream, lives in the namespace. */
  inUse(namespace: string): boolean;
  log: Logger;
}

/**
 * One sweep.
 * @returns the namespaces deleted
 */
export async function sweepNamespaces(deps: NamespaceGCDeps): Promise<string[]> {
  const list = await deps.downstream.list<KubeObject>(NamespaceResource, { labelSelector: `${LabelSyncedBy}=${deps.cluster}` });
  const deleted: string[] = [];
  for (const ns of list.items) {
    const name = ns.metadata.name!;
    if (ns.metadata.deletionTimestamp || deps.inUse(name)) continue;
    const foreign = await foreignObjectIn(deps.downstream, deps.cluster, name);
    if (foreign) {
      deps.log.debug({ controller: 'namespace-gc', namespace: name, object: foreign }, 'kept a namespace hcc created: something else lives there');
      continue;
    }
    try {
      await deps.downstream.delete(NamespaceResource, undefined, name, { preconditions: { uid: ns.metadata.uid } });
      deleted.push(name);
      deps.log.info({ controller: 'namespace-gc', namespace: name, result: 'deleted' }, 'deleted a namespace nothing placed here uses');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return deleted;
}
