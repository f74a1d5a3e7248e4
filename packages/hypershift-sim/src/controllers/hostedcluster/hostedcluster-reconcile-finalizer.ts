/**
 * Step: add HyperShift's finalizer to a live HostedCluster, so that its deletion waits for the
 * control plane's teardown. The sim's first write to a new HostedCluster; stops after it.
 */
import type { HostedCluster } from '@hcc/crds';
import { addFinalizerStep } from '../../finalizer.js';
import type { Step } from '../../step.js';
import type { HostedClusterDeps } from './hostedcluster-reconcile.js';

/** The step above, built on {@link addFinalizerStep}: passes objects being deleted or already carrying the finalizer. */
export const ensureFinalizer = (deps: Pick<HostedClusterDeps, 'updateHostedCluster'>): Step<HostedCluster> =>
  addFinalizerStep('ensureFinalizer', (hc) => deps.updateHostedCluster(hc));
