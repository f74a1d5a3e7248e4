/**
 * Step: tear down a HostedCluster whose `deletionTimestamp` is set, as HyperShift's
 * `HostedClusterReconciler.delete` does: delete its NodePools (without waiting for them), the CLI
 * Secrets and the control-plane namespace; wait until the namespace and Secrets are gone and
 * `deleteDelayMs` has passed since `deletionTimestamp` (teardown time); then drop the finalizer.
 * Always stops for objects being deleted; continues for live ones.
 * @see https://github.com/openshift/hypershift/blob/main/hypershift-operator/controllers/hostedcluster/hostedcluster_controller.go (func delete)
 */
import type { HostedCluster } from '@hcc/crds';
import { hasHyperShiftFinalizer, removeHyperShiftFinalizer } from '../../finalizer.js';
import { controlPlaneNamespaceName, customKubeconfigSecretName, kubeadminPasswordSecretName, kubeconfigSecretName } from '../../names.js';
import { requeueAfter, type Step } from '../../step.js';
import { remainingMs, startTime } from '../../time.js';
import type { HostedClusterDeps } from './hostedcluster-reconcile.js';

/** How often to look again while waiting for the namespace and Secrets to go (their deletion events also requeue). */
export const DeletionPollMs = 2000;

/**
 * The step above: `'continue'` for a live HostedCluster, `'stop'` for one being deleted. While the Secrets or the
 * namespace remain it requeues after {@link DeletionPollMs}; then until `deleteDelayMs` (milliseconds) have passed
 * since `deletionTimestamp`; then drops HyperShift's finalizer. Throws what the delete and update calls throw.
 */
export function deleteHostedCluster(
  deps: Pick<
    HostedClusterDeps,
    'clock' | 'deleteDelayMs' | 'getSecret' | 'getNamespace' | 'listNodePools' | 'deleteNodePool' | 'deleteSecret' | 'deleteNamespace' | 'updateHostedCluster'
  >,
): Step<HostedCluster> {
  return {
    name: 'deleteHostedCluster',
    async run(hc) {
      if (!hc.metadata.deletionTimestamp) return 'continue';
      if (!hasHyperShiftFinalizer(hc)) return 'stop'; // not ours to hold
      const namespace = hc.metadata.namespace!;
      const name = hc.metadata.name!;

      for (const np of deps.listNodePools(namespace, name)) {
        if (!np.metadata.deletionTimestamp) await deps.deleteNodePool(namespace, np.metadata.name!);
      }
      let waiting = false;
      for (const secretName of [kubeconfigSecretName(name), kubeadminPasswordSecretName(name), customKubeconfigSecretName(name)]) {
        const secret = deps.getSecret(namespace, secretName);
        if (!secret) continue;
        waiting = true;
        if (!secret.metadata.deletionTimestamp) await deps.deleteSecret(namespace, secretName);
      }
      const cpNamespace = deps.getNamespace(controlPlaneNamespaceName(namespace, name));
      if (cpNamespace) {
        waiting = true;
        if (!cpNamespace.metadata.deletionTimestamp) await deps.deleteNamespace(cpNamespace.metadata.name!);
      }
      if (waiting) return requeueAfter(DeletionPollMs);

      const deletedAtMs = startTime(hc.metadata.deletionTimestamp) ?? deps.clock.now();
      const wait = remainingMs(deps.clock.now(), deletedAtMs, deps.deleteDelayMs);
      if (wait > 0) return requeueAfter(wait);

      removeHyperShiftFinalizer(hc);
      await deps.updateHostedCluster(hc);
      return 'stop';
    },
  };
}
