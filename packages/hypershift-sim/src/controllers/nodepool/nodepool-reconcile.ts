/**
 * NodePool reconcile: the ordered steps, in the order HyperShift's nodepool controller takes them
 * (teardown first; then the HostedCluster lookup; finalizer; owner reference; status). Read this
 * file first.
 *
 * Guarantees: at most one write of the NodePool per pass (metadata, or status). State comes from
 * the informer caches through the getters in {@link NodePoolDeps}.
 * @see https://github.com/openshift/hypershift/blob/main/hypershift-operator/controllers/nodepool/nodepool_controller.go
 */
import { clone, type Clock, type ReconcileResult } from '@hcc/client';
import type { HostedCluster, KubeObject, NodePool } from '@hcc/crds';
import { runSteps, type Step } from '../../step.js';
import { deleteNodePool } from './nodepool-reconcile-delete.js';
import { requireHostedCluster } from './nodepool-reconcile-hosted-cluster.js';
import { ensureFinalizer } from './nodepool-reconcile-finalizer.js';
import { ensureOwnerReference } from './nodepool-reconcile-owner-reference.js';
import { updateStatus } from './nodepool-reconcile-status.js';

/** What the steps may read and do (see HostedClusterDeps for the contract of getters and writers). */
export interface NodePoolDeps {
  clock: Clock;
  /** Time a change of replicas or version takes once the HostedCluster is available, in milliseconds. */
  availableDelayMs: number;
  /** Least time from `deletionTimestamp` to the finalizer's removal, in milliseconds. */
  deleteDelayMs: number;
  getHostedCluster(namespace: string, name: string): HostedCluster | undefined;
  /** A ConfigMap from the cache (the ones `spec.config` and `spec.tuningConfig` name). */
  getConfigMap(namespace: string, name: string): KubeObject | undefined;
  /** PUT metadata+spec. */
  updateNodePool(np: NodePool): Promise<void>;
  /** PUT `/status`. */
  updateNodePoolStatus(np: NodePool): Promise<void>;
}

/** The steps of one pass, in order. */
export const nodePoolSteps = (deps: NodePoolDeps): Step<NodePool>[] => [
  deleteNodePool(deps), // deletionTimestamp set: wait deleteDelayMs, drop the finalizer; always stops
  requireHostedCluster(deps), // no HostedCluster named by spec.clusterName: stop (its creation requeues us)
  ensureFinalizer(deps), // adds hypershift.openshift.io/finalizer, then stops
  ensureOwnerReference(deps), // ownerReference to the HostedCluster, then stops
  updateStatus(deps), // conditions, replicas, version; requeues a pending change
];

/**
 * Reconciles one NodePool. A NodePool missing from the cache is gone: nothing to do.
 */
export async function reconcileNodePool(cached: NodePool | undefined, deps: NodePoolDeps): Promise<{ result: ReconcileResult; stoppedAt: string }> {
  if (!cached) return { result: undefined, stoppedAt: 'gone' };
  return runSteps(nodePoolSteps(deps), clone(cached));
}
