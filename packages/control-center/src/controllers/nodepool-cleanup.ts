/**
 * NodePool cleanup (control center only): when a HostedCluster is gone, its NodePools
 * (`spec.clusterName` = its name, same namespace) are deleted, as the HyperShift operator deletes
 * them with their HostedCluster. For a placed HostedCluster the syncer has already done so before
 * letting it go; this covers one that was never placed (no operator, and no syncer, ever saw
 * it), which otherwise left its NodePools behind for a later HostedCluster of the same name.
 * Level-triggered by HostedCluster DELETED events of the store's watch; a NodePool already being
 * deleted, or gone, is left as it is.
 */
import type { Logger } from 'pino';
import { HostedClusterResource, NodePoolResource } from '@hcc/crds';
import type { Store, StoreWatch } from '../storage/store.js';
import type { Registry } from '../registry/registry.js';
import { storagePrefix, systemContext } from '../registry/types.js';
import { deleteObject } from '../handlers/object-ops.js';
import * as apierrors from '../apierrors/status.js';

export class NodePoolCleanup {
  private watch?: StoreWatch;

  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly log: Logger,
  ) {}

  /** Follows HostedCluster deletions from now on. */
  start(): void {
    this.watch = this.store.watch(storagePrefix(HostedClusterResource), this.store.currentRevision(), (ev) => {
      if (ev.type !== 'DELETED') return;
      const { namespace, name } = ev.object.metadata;
      if (namespace && name) void this.deleteNodePoolsOf(namespace, name);
    });
  }

  stop(): void {
    this.watch?.stop();
  }

  /** Deletes the NodePools of HostedCluster namespace/name that are not being deleted yet. @returns how many */
  async deleteNodePoolsOf(namespace: string, name: string): Promise<number> {
    const info = this.registry.lookup(NodePoolResource.group, NodePoolResource.version, NodePoolResource.resource);
    if (!info) return 0;
    let deleted = 0;
    for (const it of this.store.list(storagePrefix(info, namespace)).items) {
      const np = it.object;
      if ((np.spec as { clusterName?: unknown } | undefined)?.clusterName !== name || np.metadata.deletionTimestamp) continue;
      try {
        await deleteObject(this.store, info, namespace, np.metadata.name!, systemContext(), { dryRun: false, preconditions: { uid: np.metadata.uid } });
        deleted++;
      } catch (err) {
        if (!apierrors.isNotFound(err) && !apierrors.isConflict(err)) this.log.warn({ err, controller: 'nodepool-cleanup', namespace, nodePool: np.metadata.name }, 'could not delete a NodePool of a deleted HostedCluster');
      }
    }
    if (deleted) this.log.info({ controller: 'nodepool-cleanup', namespace, hostedCluster: name, deleted }, 'deleted the NodePools of a deleted HostedCluster');
    return deleted;
  }
}
