/**
 * Step: compute the NodePool's status from it and its HostedCluster ({@link computeNodePoolStatus})
 * and write it through the status subresource when it changed. Asks to be requeued while a change
 * of replicas or version waits for its timer; never sleeps.
 */
import type { NodePool } from '@hcc/crds';
import { semanticEqual } from '../../equality.js';
import { requeueAfter, type Step } from '../../step.js';
import type { NodePoolDeps } from './nodepool-reconcile.js';
import { computeNodePoolStatus } from './nodepool-status.js';

export function updateStatus(deps: Pick<NodePoolDeps, 'clock' | 'availableDelayMs' | 'getHostedCluster' | 'updateNodePoolStatus'>): Step<NodePool> {
  return {
    name: 'updateStatus',
    async run(np) {
      const hc = deps.getHostedCluster(np.metadata.namespace!, np.spec.clusterName);
      if (!hc) return 'stop';
      const { status, requeueAfterMs } = computeNodePoolStatus({ np, hc, nowMs: deps.clock.now(), availableDelayMs: deps.availableDelayMs });
      const changed = !semanticEqual(np.status ?? {}, status);
      if (changed) {
        np.status = status;
        await deps.updateNodePoolStatus(np);
      }
      const then = changed ? 'stop' : 'continue';
      return requeueAfterMs === undefined ? then : requeueAfter(requeueAfterMs, then);
    },
  };
}
