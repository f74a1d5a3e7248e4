/**
 * Creates or updates the downstream copy from the upstream object (see transform.ts), after
 * making sure its namespace exists there. Local drift of what hcc manages is corrected; what the
 * operator owns is kept. Skips the write when the copy is already in sync.
 *
 * Two things keep this from fighting the operator and its own informer lag:
 * - An existing copy is brought in sync with a JSON merge patch of only what hcc manages, without
 *   a resourceVersion (transform.ts `downstreamPatch`). The operator writes the same object at the
 *   same time (status, finalizers, defaults); a resourceVersion-guarded update lost most of those
 *   races with a 409 and went round again.
 * - A copy this syncer just created is remembered (`recentCreates`) until the downstream informer
 *   shows it, so the events that follow the create do not create it again (a 409 AlreadyExists,
 *   then a GET).
 */
import { isAlreadyExists, isNotFound } from '@hcc/client';
import { AnnotationUpstreamUID } from '@hcc/crds';
import { desiredDownstream, downstreamPatch } from '../../transform.js';
import { payloadKeys, type DownsyncDeps, type Step } from './types.js';

/** How long a created copy stands in for one the downstream informer does not show yet, in milliseconds. */
export const RecentCreateTTLMs = 30_000;

export const applyDownstream = (deps: DownsyncDeps): Step => ({
  name: 'applyDownstream',
  async run(req) {
    const up = req.upstream!;
    const keys = payloadKeys[req.kind];
    let down = req.downstream;
    const recent = deps.recentCreates.get(req.key);
    if (down || (recent && (deps.now() - recent.atMs > RecentCreateTTLMs || recent.object.metadata.annotations?.[AnnotationUpstreamUID] !== up.metadata.uid))) {
      deps.recentCreates.delete(req.key);
    } else if (recent) {
      down = recent.object;
    }
    if (!down) {
      await deps.ensureDownstreamNamespace(req.namespace);
      try {
        const created = await deps.downstream.create(req.kind, desiredDownstream(up, undefined, deps.cluster, keys));
        deps.recentCreates.set(req.key, { object: created, atMs: deps.now() });
        return 'stop';
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      // It exists already: made by someone else (adopt it), or our cache lags.
      down = await deps.downstream.get(req.kind, req.namespace, req.name);
      if (!down) return { requeueAfterMs: 500 };
    }
    if (down.metadata.deletionTimestamp) return { requeueAfterMs: 2000 };
    const patch = downstreamPatch(desiredDownstream(up, down, deps.cluster, keys), down, keys);
    if (!patch) return 'stop';
    try {
      await deps.downstream.patch(req.kind, req.namespace, req.name, patch);
    } catch (err) {
      // Gone since it was last seen (the informer will tell): the next pass creates it again.
      if (!isNotFound(err)) throw err;
      deps.recentCreates.delete(req.key);
      return { requeueAfterMs: 500 };
    }
    return 'stop';
  },
});
