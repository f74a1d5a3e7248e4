/**
 * Step: observe the pull secret, the other referenced Secrets and ConfigMaps, the control-plane
 * namespace and the CLI Secrets, compute the
 * HostedCluster's status ({@link computeHostedClusterStatus}) and write it through the status
 * subresource when it changed (then stop: the write comes back as an event). Asks to be requeued
 * when a rollout waits for its timer; never sleeps.
 */
import { hostedClusterReferences, type HostedCluster } from '@hcc/crds';
import { semanticEqual } from '../../equality.js';
import { controlPlaneNamespaceName, customKubeconfigSecretName, kubeadminPasswordSecretName, kubeconfigSecretName } from '../../names.js';
import { kubeAPIServerDNSNameOf } from './hostedcluster-reconcile-cli-secrets.js';
import { requeueAfter, type Step } from '../../step.js';
import type { HostedClusterDeps } from './hostedcluster-reconcile.js';
import { computeHostedClusterStatus, type HostedClusterFacts } from './hostedcluster-status.js';

/**
 * The reconcile error HyperShift's hostedcluster controller returns for the first Secret or ConfigMap
 * the HostedCluster references (`hostedClusterReferences` of `@hcc/crds`, all in its namespace) that
 * does not exist, leaving out the pull secret (its error is reported through ValidReleaseImage, see
 * hostedcluster-status.ts). Order: `spec.sshKey` first, then the other Secrets, then the ConfigMaps,
 * each by name. Wording: the SSH key's is upstream's exactly (`failed to get SSH key secret NAME:
 * secrets "NAME" not found`); the others are close imitations (upstream words each lookup on its
 * own): `failed to get secret NAMESPACE/NAME: secrets "NAME" not found` and `failed to get configmap
 * NAMESPACE/NAME: configmaps "NAME" not found`, ending in the API's NotFound message as upstream's do.
 * @param hc - the HostedCluster
 * @param deps - cache getters (`getSecret`, `getConfigMap`)
 * @returns the error text, or undefined when every referenced object exists
 * @see https://github.com/openshift/hypershift/blob/main/hypershift-operator/controllers/hostedcluster/hostedcluster_controller.go
 */
export function missingReferenceError(hc: HostedCluster, deps: Pick<HostedClusterDeps, 'getSecret' | 'getConfigMap'>): string | undefined {
  const namespace = hc.metadata.namespace!;
  const { secrets, configMaps } = hostedClusterReferences(hc);
  const pullSecretName = hc.spec.pullSecret?.name;
  const sshKeyName = hc.spec.sshKey?.name;
  if (sshKeyName && sshKeyName !== pullSecretName && !deps.getSecret(namespace, sshKeyName)) {
    return `failed to get SSH key secret ${sshKeyName}: secrets "${sshKeyName}" not found`;
  }
  const secret = secrets.find((name) => name !== pullSecretName && name !== sshKeyName && !deps.getSecret(namespace, name));
  if (secret) return `failed to get secret ${namespace}/${secret}: secrets "${secret}" not found`;
  const configMap = configMaps.find((name) => !deps.getConfigMap(namespace, name));
  if (configMap) return `failed to get configmap ${namespace}/${configMap}: configmaps "${configMap}" not found`;
  return undefined;
}

/**
 * Reads the facts the status depends on from the caches.
 * @param hc - the HostedCluster
 * @param deps - cache getters
 * @returns the {@link HostedClusterFacts}; `missingReference` only when some referenced object is missing
 */
export function observeFacts(hc: HostedCluster, deps: Pick<HostedClusterDeps, 'getSecret' | 'getConfigMap' | 'getNamespace'>): HostedClusterFacts {
  const namespace = hc.metadata.namespace!;
  const name = hc.metadata.name!;
  const pullSecretName = hc.spec.pullSecret?.name;
  const pullSecret = pullSecretName ? deps.getSecret(namespace, pullSecretName) : undefined;
  const cpNamespace = deps.getNamespace(controlPlaneNamespaceName(namespace, name));
  const missingReference = missingReferenceError(hc, deps);
  return {
    pullSecret: !pullSecret ? 'missing' : '.dockerconfigjson' in ((pullSecret.data ?? {}) as object) ? 'found' : 'invalid',
    controlPlaneNamespace: Boolean(cpNamespace && !cpNamespace.metadata.deletionTimestamp),
    kubeconfigSecret: Boolean(deps.getSecret(namespace, kubeconfigSecretName(name))),
    kubeadminPasswordSecret: Boolean(deps.getSecret(namespace, kubeadminPasswordSecretName(name))),
    ...(kubeAPIServerDNSNameOf(hc) && { customKubeconfigSecret: Boolean(deps.getSecret(namespace, customKubeconfigSecretName(name))) }),
    ...(missingReference && { missingReference }),
  };
}

/**
 * The status step (see the file comment).
 * @param deps - clock, settings, cache getters and the status writer
 * @returns a step that stops after a write, else continues; with a requeue while a rollout waits
 */
export function updateStatus(
  deps: Pick<HostedClusterDeps, 'clock' | 'availableDelayMs' | 'supportedVersions' | 'getSecret' | 'getConfigMap' | 'getNamespace' | 'updateHostedClusterStatus'>,
): Step<HostedCluster> {
  return {
    name: 'updateStatus',
    async run(hc) {
      const { status, requeueAfterMs } = computeHostedClusterStatus({
        hc,
        facts: observeFacts(hc, deps),
        nowMs: deps.clock.now(),
        availableDelayMs: deps.availableDelayMs,
        supportedVersions: deps.supportedVersions,
      });
      const changed = !semanticEqual(hc.status ?? {}, status);
      if (changed) {
        // @hcc/crds types completionTime as string | undefined; the API (and upstream) send null.
        hc.status = status as HostedCluster['status'];
        await deps.updateHostedClusterStatus(hc);
      }
      const then = changed ? 'stop' : 'continue';
      return requeueAfterMs === undefined ? then : requeueAfter(requeueAfterMs, then);
    },
  };
}
