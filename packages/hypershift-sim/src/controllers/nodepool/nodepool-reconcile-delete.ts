/**
 * Step: a NodePool whose `deletionTimestamp` is set loses HyperShift's finalizer once
 * `deleteDelayMs` have passed since then (the time its machines would take to go). It does not
 * need its HostedCluster for that, as upstream. Always stops for objects being deleted.
 */
import type { NodePool } from '@hcc/crds';
import { hasHyperShiftFinalizer, removeHyperShiftFinalizer } from '../../finalizer.js';
import { requeueAfter, type Step } from '../../step.js';
import { remainingMs, startTime } from '../../time.js';
import type { NodePoolDeps } from './nodepool-reconcile.js';

/**
 * The step above: `'continue'` for a live NodePool. One being deleted always stops the pass; while it carries
 * HyperShift's finalizer, it is requeued until `deleteDelayMs` (milliseconds) have passed since its
 * `deletionTimestamp`, then the finalizer is dropped with `updateNodePool` (whose errors it throws).
 */
export function deleteNodePool(deps: Pick<NodePoolDeps, 'clock' | 'deleteDelayMs' | 'updateNodePool'>): Step<NodePool> {
  return {
    name: 'deleteNodePool',
    async run(np) {
      if (!np.metadata.deletionTimestamp) return 'continue';
      if (!hasHyperShiftFinalizer(np)) return 'stop';
      const deletedAtMs = startTime(np.metadata.deletionTimestamp) ?? deps.clock.now();
      const wait = remainingMs(deps.clock.now(), deletedAtMs, deps.deleteDelayMs);
      if (wait > 0) return requeueAfter(wait);
      removeHyperShiftFinalizer(np);
      await deps.updateNodePool(np);
      return 'stop';
    },
  };
}
