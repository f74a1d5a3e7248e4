/**
 * Puts the syncer's finalizer on an upstream HostedCluster or NodePool before anything reaches
 * the management cluster, so its deletion waits for the downstream teardown. The pass goes on with
 * the object the write returned instead of waiting for it to come back as an event: the copy is
 * created one watch round trip sooner (the event that follows finds everything in sync). This is
 * the one step that writes and continues; its write and the next step's go to different clusters.
 */
import { FinalizerSyncer } from '@hcc/crds';
import { finalizedKinds, type DownsyncDeps, type Step } from './types.js';

/**
 * The step above; runs only on a live upstream object (after {@link deleteDownstream}). For a HostedCluster or NodePool
 * without the finalizer, adds it with a patch guarded by the resourceVersion it read and puts the result in
 * `req.upstream`; always `'continue'`. Throws what the upstream patch throws (a 409 when the object changed since).
 */
export const ensureSyncerFinalizer = (deps: DownsyncDeps): Step => ({
  name: 'ensureSyncerFinalizer',
  async run(req) {
    const up = req.upstream!;
    if (!finalizedKinds.has(req.kind) || up.metadata.finalizers?.includes(FinalizerSyncer)) return 'continue';
    req.upstream = await deps.upstream.patch(req.kind, req.namespace, req.name, {
      metadata: { resourceVersion: up.metadata.resourceVersion, finalizers: [...(up.metadata.finalizers ?? []), FinalizerSyncer] },
    });
    deps.ownWrites.record(req.key, up, req.upstream);
    return 'continue';
  },
});
