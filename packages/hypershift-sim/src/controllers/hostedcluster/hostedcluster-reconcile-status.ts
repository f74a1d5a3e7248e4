/**
 * Step: observe the pull secret, the control-plane namespace and the CLI Secrets, compute the
 * HostedCluster's status ({@link computeHostedClusterStatus}) and write it through the status
 * subresource when it changed (then stop: the write comes back as an event). Asks to be requeued
 * when a rollout waits for its timer; never sleeps.
 */
import type { HostedCluster } from '@hcc/crds';
import { semanticEqual } from '../../equality.js';
import { controlPlaneNamespaceName, customKubeconfigSecretName, kubeadminPasswordSecretName, kubeconfigSecretName } from '../../names.js';
import { kubeAPIServerDNSNameOf } from './hostedcluster-reconcile-cli-secrets.js';
import { requeueAfter, type Step } from '../../step.js';
import type { HostedClusterDeps } from './hostedcluster-reconcile.js';
import { computeHostedClusterStatus, type HostedClusterFacts } from './hostedcluster-status.js';

/** Reads the facts the status depends on from the caches. */
export function observeFacts(hc: HostedCluster, deps: Pick<HostedClusterDeps, 'getSecret' | 'getNamespace'>): HostedClusterFacts {
  const namespace = hc.metadata.namespace!;
  const name = hc.metadata.name!;
  const pullSecretName = hc.spec.pullSecret?.name;
  const pullSecret = pullSecretName ? deps.getSecret(namespace, pullSecretName) : undefined;
  const cpNamespace = deps.getNamespace(controlPlaneNamespaceName(namespace, name));
  return {
    pullSecret: !pullSecret ? 'missing' : '.dockerconfigjson' in ((pullSecret.data ?? {}) as object) ? 'found' : 'invalid',
    controlPlaneNamespace: Boolean(cpNamespace && !cpNamespace.metadata.deletionTimestamp),
    kubeconfigSecret: Boolean(deps.getSecret(namespace, kubeconfigSecretName(name))),
    kubeadminPasswordSecret: Boolean(deps.getSecret(namespace, kubeadminPasswordSecretName(name))),
    ...(kubeAPIServerDNSNameOf(hc) && { customKubeconfigSecret: Boolean(deps.getSecret(namespace, customKubeconfigSecretName(name))) }),
  };
}

export function updateStatus(
  deps: Pick<HostedClusterDeps, 'clock' | 'availableDelayMs' | 'supportedVersions' | 'getSecret' | 'getNamespace' | 'updateHostedClusterStatus'>,
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
