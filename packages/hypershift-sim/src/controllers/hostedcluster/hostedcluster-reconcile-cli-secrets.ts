/**
 * Step: make sure the Secrets users fetch from a HostedCluster's namespace exist, owned by the
 * HostedCluster (controller ownerReference) and annotated with its key:
 * - `<name>-admin-kubeconfig`, key `kubeconfig`: an admin kubeconfig for
 *   `https://api.<name>.<spec.dns.baseDomain>:6443` (certificate data is a placeholder: there is no
 *   real API server behind it);
 * - `<name>-kubeadmin-password`, key `password`: a random `xxxxx-xxxxx-xxxxx-xxxxx` password, unless
 *   `spec.configuration.oauth` is set (HyperShift then makes no kubeadmin user, and deletes the
 *   Secret made before);
 * - `<name>-custom-admin-kubeconfig`, key `kubeconfig`, while `spec.kubeAPIServerDNSName` is set:
 *   the admin kubeconfig for `https://<kubeAPIServerDNSName>:443` (HyperShift's custom
 *   kubeconfig, deleted when the field is cleared, and written again for the new name when the
 *   field changes, as HyperShift reconciles it from the spec).
 * Existing Secrets are otherwise left alone: the password is generated once, and a kubeconfig's
 * other content (rotated in the management cluster) is kept.
 */
import { keyOf, parseKubeconfig, type KubeObject } from '@hcc/client';
import { HyperShiftAPIVersion, type HostedCluster, type OwnerReference } from '@hcc/crds';
import { AnnotationHostedCluster, customKubeconfigSecretName, DefaultBaseDomain, kubeadminPasswordSecretName, kubeconfigSecretName } from '../../names.js';
import type { Step } from '../../step.js';
import { randomString } from './hostedcluster-reconcile-default-ids.js';
import type { HostedClusterDeps } from './hostedcluster-reconcile.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const placeholderPEM = (kind: string) =>
  `-----BEGIN ${kind}-----\naHlwZXJzaGlmdC1zaW06IG5vdCBhIHJlYWwga2V5\n-----END ${kind}-----\n`;

/** `spec.dns.baseDomain`, or {@link DefaultBaseDomain}. */
export function baseDomainOf(hc: HostedCluster): string {
  const dns = hc.spec.dns as { baseDomain?: string } | undefined;
  return dns?.baseDomain || DefaultBaseDomain;
}

/** The hosted cluster's API server URL as its kubeconfig names it. */
export const apiServerURL = (hc: HostedCluster): string => `https://api.${hc.metadata.name}.${baseDomainOf(hc)}:6443`;

/** True when `spec.configuration.oauth` is set: no kubeadmin password then. */
export const hasExplicitOAuth = (hc: HostedCluster): boolean =>
  Boolean((hc.spec.configuration as { oauth?: unknown } | undefined)?.oauth);

/** `spec.kubeAPIServerDNSName`, or undefined when unset. */
export const kubeAPIServerDNSNameOf = (hc: HostedCluster): string | undefined => ((hc.spec as { kubeAPIServerDNSName?: string }).kubeAPIServerDNSName || undefined);

/** An admin kubeconfig (YAML) for the hosted cluster, shaped like the one HyperShift writes; `server` defaults to {@link apiServerURL}. */
export function adminKubeconfig(hc: HostedCluster, server = apiServerURL(hc)): string {
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${b64(placeholderPEM('CERTIFICATE'))}`,
    `    server: ${server}`,
    '  name: cluster',
    'contexts:',
    '- context:',
    '    cluster: cluster',
    '    namespace: default',
    '    user: admin',
    '  name: admin',
    'current-context: admin',
    'kind: Config',
    'preferences: {}',
    'users:',
    '- name: admin',
    '  user:',
    `    client-certificate-data: ${b64(placeholderPEM('CERTIFICATE'))}`,
    `    client-key-data: ${b64(placeholderPEM('RSA PRIVATE KEY'))}`,
    '',
  ].join('\n');
}

/** A kubeadmin-style password: four groups of five characters. */
export const kubeadminPassword = (random: () => number): string =>
  Array.from({ length: 4 }, () => randomString(5, random)).join('-');

/** The controller ownerReference pointing at a HostedCluster. */
export function hostedClusterOwnerReference(hc: HostedCluster): OwnerReference {
  return {
    apiVersion: HyperShiftAPIVersion,
    kind: 'HostedCluster',
    name: hc.metadata.name!,
    uid: hc.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function secret(hc: HostedCluster, name: string, key: string, value: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: hc.metadata.namespace,
      annotations: { [AnnotationHostedCluster]: keyOf(hc) },
      ownerReferences: [hostedClusterOwnerReference(hc)],
    },
    type: 'Opaque',
    data: { [key]: b64(value) },
  };
}

/** The server a kubeconfig Secret's `kubeconfig` key names (its current context's), or undefined when it has none or does not parse. */
function kubeconfigServerOf(s: KubeObject): string | undefined {
  const data = (s.data as Record<string, string> | undefined)?.kubeconfig;
  if (!data) return undefined;
  try {
    return parseKubeconfig(Buffer.from(data, 'base64').toString(), `${s.metadata.namespace}/${s.metadata.name}`).server;
  } catch {
    return undefined;
  }
}

/**
 * The step above: creates, updates or deletes those Secrets from the cache's view, then always continues. Throws what
 * the Secret calls throw (the controller's create ignores AlreadyExists, update and delete NotFound).
 */
export function ensureCLISecrets(deps: Pick<HostedClusterDeps, 'getSecret' | 'createSecret' | 'updateSecret' | 'deleteSecret' | 'random'>): Step<HostedCluster> {
  return {
    name: 'ensureCLISecrets',
    async run(hc) {
      const namespace = hc.metadata.namespace!;
      const kubeconfigName = kubeconfigSecretName(hc.metadata.name!);
      if (!deps.getSecret(namespace, kubeconfigName)) {
        await deps.createSecret(secret(hc, kubeconfigName, 'kubeconfig', adminKubeconfig(hc)));
      }
      const passwordName = kubeadminPasswordSecretName(hc.metadata.name!);
      const password = deps.getSecret(namespace, passwordName);
      if (!hasExplicitOAuth(hc) && !password) {
        await deps.createSecret(secret(hc, passwordName, 'password', kubeadminPassword(deps.random)));
      } else if (hasExplicitOAuth(hc) && password && !password.metadata.deletionTimestamp) {
        await deps.deleteSecret(namespace, passwordName);
      }
      const customName = customKubeconfigSecretName(hc.metadata.name!);
      const dnsName = kubeAPIServerDNSNameOf(hc);
      const custom = deps.getSecret(namespace, customName);
      const customServer = `https://${dnsName}:443`;
      if (dnsName && !custom) {
        await deps.createSecret(secret(hc, customName, 'kubeconfig', adminKubeconfig(hc, customServer)));
      } else if (dnsName && custom && !custom.metadata.deletionTimestamp && kubeconfigServerOf(custom) !== customServer) {
        // spec.kubeAPIServerDNSName changed: the custom kubeconfig names the new host.
        await deps.updateSecret({ ...custom, data: { ...((custom.data as Record<string, string> | undefined) ?? {}), kubeconfig: b64(adminKubeconfig(hc, customServer)) } });
      } else if (!dnsName && custom && !custom.metadata.deletionTimestamp) {
        await deps.deleteSecret(namespace, customName);
      }
      return 'continue';
    },
  };
}
