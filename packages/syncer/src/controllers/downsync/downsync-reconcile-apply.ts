/**
 * Creates or updates the downstream copy from the upstream object (see transform.ts), after
 * making sure its namespace exists there. Local drift of what hcc manages is corrected; what the
 * operator owns is kept. Skips the write when the copy is already in sync.
 */
import { isAlreadyExists } from '@hcc/client';
import { desiredDownstream, inSync } from '../../transform.js';
import { payloadKeys, type DownsyncDeps, type Step } from './types.js';

export const applyDownstream = (deps: DownsyncDeps): Step => ({
  name: 'applyDownstream',
  async run(req) {
    const up = req.upstream!;
    let down = req.downstream;
    const keys = payloadKeys[req.kind];
    if (!down) {
      await deps.ensureDownstreamNamespace(req.namespace);
      try {
        await deps.downstream.create(req.kind, desiredDownstream(up, undefined, deps.cluster, keys));
        return 'stop';
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      // It exists already: made by someone else (adopt it), or our cache lags.
      down = await deps.downstream.get(req.kind, req.namespace, req.name);
      if (!down) return { requeueAfterMs: 500 };
    }
    const desired = desiredDownstream(up, down, deps.cluster, keys);
    if (down.metadata.deletionTimestamp) return { requeueAfterMs: 2000 };
    if (inSync(desired, down, keys)) return 'stop';
    desired.metadata.resourceVersion = down.metadata.resourceVersion;
    await deps.downstream.update(req.kind, desired);
    return 'stop';
  },
});
