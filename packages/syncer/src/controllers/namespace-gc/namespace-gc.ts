/**
 * Namespace clean-up in the management cluster: a namespace the syncer created (labelled
 * `controlcenter.hcc.dev/synced-by: <cluster>`) is deleted once nothing is placed in it any more —
 * no HostedCluster, NodePool, Secret or ConfigMap of this cluster's upstream selection and no copy
 * hcc made there. Namespaces hcc did not create are never touched.
 */
import type { Logger } from 'pino';
import { isNotFound, type RestClient } from '@hcc/client';
import { LabelSyncedBy, NamespaceResource, type KubeObject } from '@hcc/crds';

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
