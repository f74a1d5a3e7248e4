/**
 * Step: add HyperShift's finalizer to a live NodePool whose HostedCluster exists; stops after it.
 */
import type { NodePool } from '@hcc/crds';
import { addFinalizerStep } from '../../finalizer.js';
import type { Step } from '../../step.js';
import type { NodePoolDeps } from './nodepool-reconcile.js';

/** The step above, built on {@link addFinalizerStep}: passes objects being deleted or already carrying the finalizer. */
export const ensureFinalizer = (deps: Pick<NodePoolDeps, 'updateNodePool'>): Step<NodePool> =>
  addFinalizerStep('ensureFinalizer', (np) => deps.updateNodePool(np));
