/**
 * Puts the syncer's finalizer on an upstream HostedCluster or NodePool before anything reaches
 * the management cluster, so its deletion waits for the downstream teardown. The write comes
 * back as an informer event, so the pass stops here.
 */
import { FinalizerSyncer } from '@hcc/crds';
import { finalizedKinds, type DownsyncDeps, type Step } from './types.js';

export const ensureSyncerFinalizer = (deps: DownsyncDeps): Step => ({
  name: 'ensureSyncerFinalizer',
  async run(req) {
    const up = req.upstream!;
    if (!finalizedKinds.has(req.kind) || up.metadata.finalizers?.includes(FinalizerSyncer)) return 'continue';
    await deps.upstream.patch(req.kind, req.namespace, req.name, {
      metadata: { resourceVersion: up.metadata.resourceVersion, finalizers: [...(up.metadata.finalizers ?? []), FinalizerSyncer] },
    });
    return 'stop';
  },
});
