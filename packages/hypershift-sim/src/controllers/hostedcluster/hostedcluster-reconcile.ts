/**
 * HostedCluster reconcile: the ordered steps, in the order HyperShift's hostedcluster controller
 * takes them (teardown first; then finalizer; IDs; status; block on invalid input; the objects a
 * control plane brings). Read this file first.
 *
 * Guarantees: at most one write of the HostedCluster per pass (metadata+spec, or status); the
 * other objects (namespace, Secrets, NodePool deletes) are created or deleted idempotently. State
 * comes from the informer caches through the getters in {@link HostedClusterDeps}.
 * @see https://github.com/openshift/hypershift/blob/main/hypershift-operator/controllers/hostedcluster/hostedcluster_controller.go
 */
import { clone, type Clock, type KubeObject, type ReconcileResult } from '@hcc/client';
import type { HostedCluster, NodePool } from '@hcc/crds';
import { runSteps, type Step } from '../../step.js';
import { deleteHostedCluster } from './hostedcluster-reconcile-delete.js';
import { ensureFinalizer } from './hostedcluster-reconcile-finalizer.js';
import { defaultClusterIDs } from './hostedcluster-reconcile-default-ids.js';
import { updateStatus } from './hostedcluster-reconcile-status.js';
import { blockOnInvalidSpec } from './hostedcluster-reconcile-block.js';
import { ensureControlPlaneNamespace } from './hostedcluster-reconcile-control-plane-namespace.js';
import { ensureCLISecrets } from './hostedcluster-reconcile-cli-secrets.js';

/**
 * What the steps may read and do. Getters read informer caches (shared, read-only objects);
 * writers are idempotent: creates tolerate AlreadyExists, deletes tolerate NotFound, updates send
 * the object's resourceVersion (a 409 Conflict throws and the key is retried).
 */
export interface HostedClusterDeps {
  clock: Clock;
  /** Time from a rollout's start (or from the release becoming valid) to its completion, in milliseconds. */
  availableDelayMs: number;
  /** Least time from `deletionTimestamp` to the finalizer's removal, in milliseconds. */
  deleteDelayMs: number;
  /** Supported OCP minors, e.g. `['4.18', '4.17']`. */
  supportedVersions: readonly string[];
  /** Randomness in [0, 1) for the infraID suffix and the kubeadmin password. */
  random: () => number;
  /** A new RFC 4122 v4 UUID. */
  newUUID: () => string;

  getSecret(namespace: string, name: string): KubeObject | undefined;
  getConfigMap(namespace: string, name: string): KubeObject | undefined;
  getNamespace(name: string): KubeObject | undefined;
  /** NodePools whose `spec.clusterName` names this HostedCluster. */
  listNodePools(namespace: string, clusterName: string): NodePool[];

  /** PUT metadata+spec. */
  updateHostedCluster(hc: HostedCluster): Promise<void>;
  /** PUT `/status`. */
  updateHostedClusterStatus(hc: HostedCluster): Promise<void>;
  createNamespace(ns: KubeObject): Promise<void>;
  createSecret(secret: KubeObject): Promise<void>;
  /** PUT a Secret (its resourceVersion guards the write: a 409 Conflict throws and the key is retried). */
  updateSecret(secret: KubeObject): Promise<void>;
  deleteNamespace(name: string): Promise<void>;
  deleteSecret(namespace: string, name: string): Promise<void>;
  deleteNodePool(namespace: string, name: string): Promise<void>;
}

/** The steps of one pass, in order. */
export const hostedClusterSteps = (deps: HostedClusterDeps): Step<HostedCluster>[] => [
  deleteHostedCluster(deps), // deletionTimestamp set: tear down, wait, drop the finalizer; always stops
  ensureFinalizer(deps), // adds hypershift.openshift.io/finalizer, then stops (first write)
  defaultClusterIDs(deps), // spec.clusterID (UUID) and spec.infraID (<name>-xxxxx) when empty
  updateStatus(deps), // conditions, version history, Secret refs, endpoints; requeues a pending rollout
  blockOnInvalidSpec(), // stops while ValidConfiguration/SupportedHostedCluster/ValidReleaseImage is False
  ensureControlPlaneNamespace(deps), // <namespace>-<name>; waits while an old one terminates
  ensureCLISecrets(deps), // <name>-admin-kubeconfig and <name>-kubeadmin-password
];

/**
 * Reconciles one HostedCluster key (`namespace/name`). A key missing from the cache means the
 * object is gone: nothing to do.
 */
export async function reconcileHostedCluster(
  cached: HostedCluster | undefined,
  deps: HostedClusterDeps,
): Promise<{ result: ReconcileResult; stoppedAt: string }> {
  if (!cached) return { result: undefined, stoppedAt: 'gone' };
  return runSteps(hostedClusterSteps(deps), clone(cached));
}
