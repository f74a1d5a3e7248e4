/**
 * Deletion, both ways it happens:
 * - the upstream object is gone (deleted, or no longer placed here): delete the downstream copy
 *   hcc made (only copies carrying `synced-by: <this cluster>`);
 * - the upstream object is being deleted (`deletionTimestamp`): delete the downstream copy, wait
 *   until the operator's own finalizers let it go, then remove the syncer's finalizer upstream —
 *   for a HostedCluster after deleting its upstream NodePools, as the operator deletes them too.
 * Nothing is orphaned in the management cluster.
 */
import { FinalizerSyncer, LabelSyncedBy } from '@hcc/crds';
import { isNotFound } from '@hcc/client';
import { finalizedKinds, type DownsyncDeps, type Step } from './types.js';

/** A finalizer removal whose object is already gone (the control center's garbage collector got there first) has done its job. */
const goneIsDone = async (write: Promise<unknown>): Promise<void> => {
  try {
    await write;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
};

/** How often to look again while the operator tears a HostedCluster down, in milliseconds. */
export const teardownPollMs = 2000;

export const deleteDownstream = (deps: DownsyncDeps): Step => ({
  name: 'deleteDownstream',
  async run(req) {
    const { upstream: up, downstream: down } = req;
    const ours = down?.metadata.labels?.[LabelSyncedBy] === deps.cluster;
    if (!up) {
      if (down && ours && !down.metadata.deletionTimestamp) await deps.downstream.delete(req.kind, req.namespace, req.name);
      return 'stop';
    }
    if (!up.metadata.deletionTimestamp) return 'continue';
    if (down && ours) {
      if (!down.metadata.deletionTimestamp) await deps.downstream.delete(req.kind, req.namespace, req.name);
      // The operator's finalizers hold the copy until its teardown is done; its removal re-queues this key.
      return { requeueAfterMs: teardownPollMs };
    }
    if (finalizedKinds.has(req.kind) && up.metadata.finalizers?.includes(FinalizerSyncer)) {
      if (req.kind === 'HostedCluster') await deps.deleteUpstreamNodePools?.(req.namespace, req.name);
      await goneIsDone(
        deps.upstream.patch(req.kind, req.namespace, req.name, {
          metadata: { resourceVersion: up.metadata.resourceVersion, finalizers: up.metadata.finalizers.filter((f) => f !== FinalizerSyncer) },
        }),
      );
    }
    return 'stop';
  },
});
