/**
 * Step: stop while the HostedCluster named by `spec.clusterName` (same namespace) does not exist.
 * Upstream's reconcile fails on the lookup and retries without touching the NodePool (no
 * finalizer, no condition); the sim does the same, and the HostedCluster's creation enqueues the
 * NodePool again (controller index), so no polling is needed.
 */
import type { NodePool } from '@hcc/crds';
import type { Step } from '../../step.js';
import type { NodePoolDeps } from './nodepool-reconcile.js';

/** The step above: `'continue'` when the NodePool's HostedCluster is in the cache, else `'stop'`. Reads the cache only. */
export function requireHostedCluster(deps: Pick<NodePoolDeps, 'getHostedCluster'>): Step<NodePool> {
  return {
    name: 'requireHostedCluster',
    async run(np) {
      return deps.getHostedCluster(np.metadata.namespace!, np.spec.clusterName) ? 'continue' : 'stop';
    },
  };
}
