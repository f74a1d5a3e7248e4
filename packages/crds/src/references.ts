/**
 * Which Secrets and ConfigMaps a HostedCluster or NodePool makes the HyperShift operator read from the
 * object's own namespace. The syncer copies exactly these to the management cluster next to the object
 * (DESIGN.md flow 3, "Downsync"). Every reference is one row of a table naming the JSON path and the
 * upstream Go field, so the tables double as documentation.
 *
 * Guarantees: names are non-empty, deduplicated and sorted (JavaScript code-unit order); empty references
 * (`name: ""`, `sshKey: {}`) are ignored; malformed input (wrong types) is skipped, never thrown on.
 * Not covered: status references written by the operator (`status.kubeconfig`, `status.kubeadminPassword`),
 * names of Azure Key Vault secrets (`credentialsSecretName`, not Kubernetes Secrets), StorageClasses and
 * NetworkAttachmentDefinitions that live in the management (infra) cluster, and the operator's own
 * Secrets in its namespace.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go
 * @see https://hypershift.pages.dev/how-to/configure-ocp-components/ ("Referenced ConfigMaps and Secrets")
 */
import type { HostedCluster, NodePool } from './types.js';

/** Names of referenced objects, each list sorted and without duplicates. */
export interface References {
  secrets: string[];
  configMaps: string[];
}

/**
 * One reference site: `path` is a dot path from the object root whose value is an object with a `name`
 * (corev1.LocalObjectReference, configv1.SecretNameReference, ...); `[]` steps into every list item.
 */
export interface ReferencePath {
  kind: 'Secret' | 'ConfigMap';
  path: string;
  /** The upstream Go type and field, for readers. */
  upstream: string;
}

const S = (path: string, upstream: string): ReferencePath => ({ kind: 'Secret', path, upstream });
const CM = (path: string, upstream: string): ReferencePath => ({ kind: 'ConfigMap', path, upstream });

const IDP = 'spec.configuration.oauth.identityProviders[]';

/** Every Secret/ConfigMap reference site of a hypershift.openshift.io/v1beta1 HostedCluster. */
export const hostedClusterReferencePaths: readonly ReferencePath[] = [
  S('spec.pullSecret', 'HostedClusterSpec.PullSecret (key .dockerconfigjson)'),
  S('spec.sshKey', 'HostedClusterSpec.SSHKey (key id_rsa.pub)'),
  S('spec.serviceAccountSigningKey', 'HostedClusterSpec.ServiceAccountSigningKey (key key)'),
  S('spec.auditWebhook', 'HostedClusterSpec.AuditWebhook (key webhook-kubeconfig)'),
  CM('spec.additionalTrustBundle', 'HostedClusterSpec.AdditionalTrustBundle (key ca-bundle.crt)'),
  S('spec.etcd.unmanaged.tls.clientSecret', 'EtcdTLSConfig.ClientSecret'),
  S('spec.secretEncryption.aescbc.activeKey', 'AESCBCSpec.ActiveKey (key key)'),
  S('spec.secretEncryption.aescbc.backupKey', 'AESCBCSpec.BackupKey (key key)'),
  S('spec.secretEncryption.kms.ibmcloud.auth.unmanaged.credentials', 'IBMCloudKMSUnmanagedAuthSpec.Credentials (key iam_apikey)'),
  S('spec.secretEncryption.kms.aws.auth.credentials', 'AWSKMSAuthSpec.Credentials (older API, before awsKms role ARNs; key credentials)'),
  // Platform credentials.
  S('spec.platform.kubevirt.credentials.infraKubeConfigSecret', 'KubevirtPlatformCredentials.InfraKubeConfigSecret'),
  S('spec.platform.powervs.kubeCloudControllerCreds', 'PowerVSPlatformSpec.KubeCloudControllerCreds'),
  S('spec.platform.powervs.nodePoolManagementCreds', 'PowerVSPlatformSpec.NodePoolManagementCreds'),
  S('spec.platform.powervs.ingressOperatorCloudCreds', 'PowerVSPlatformSpec.IngressOperatorCloudCreds'),
  S('spec.platform.powervs.storageOperatorCloudCreds', 'PowerVSPlatformSpec.StorageOperatorCloudCreds'),
  S('spec.platform.powervs.imageRegistryOperatorCloudCreds', 'PowerVSPlatformSpec.ImageRegistryOperatorCloudCreds'),
  S('spec.platform.openstack.identityRef', 'OpenStackIdentityReference.Name (keys clouds.yaml, cacert)'),
  S('spec.platform.azure.credentials', 'AzurePlatformSpec.Credentials (older v1beta1, HyperShift <= 4.17)'),
  S('spec.platform.aws.kubeCloudControllerCreds', 'AWSPlatformSpec.KubeCloudControllerCreds (v1alpha1-era, converted to arn-from-secret)'),
  S('spec.platform.aws.nodePoolManagementCreds', 'AWSPlatformSpec.NodePoolManagementCreds (v1alpha1-era)'),
  S('spec.platform.aws.controlPlaneOperatorCreds', 'AWSPlatformSpec.ControlPlaneOperatorCreds (v1alpha1-era)'),
  // configuration: config.openshift.io/v1 specs whose references resolve in the HostedCluster namespace.
  CM('spec.configuration.apiServer.clientCA', 'configv1.APIServerSpec.ClientCA (key ca-bundle.crt)'),
  S('spec.configuration.apiServer.servingCerts.namedCertificates[].servingCertificate', 'configv1.APIServerNamedServingCert.ServingCertificate'),
  CM('spec.configuration.authentication.oauthMetadata', 'configv1.AuthenticationSpec.OAuthMetadata'),
  S('spec.configuration.authentication.webhookTokenAuthenticator.kubeConfig', 'configv1.WebhookTokenAuthenticator.KubeConfig'),
  CM('spec.configuration.authentication.oidcProviders[].issuer.issuerCertificateAuthority', 'configv1.TokenIssuer.CertificateAuthority'),
  S('spec.configuration.authentication.oidcProviders[].oidcClients[].clientSecret', 'configv1.OIDCClientConfig.ClientSecret'),
  CM('spec.configuration.image.additionalTrustedCA', 'configv1.ImageSpec.AdditionalTrustedCA'),
  S('spec.configuration.ingress.componentRoutes[].servingCertKeyPairSecret', 'configv1.ComponentRouteSpec.ServingCertKeyPairSecret'),
  CM('spec.configuration.proxy.trustedCA', 'configv1.ProxySpec.TrustedCA (key ca-bundle.crt)'),
  CM('spec.configuration.scheduler.policy', 'configv1.SchedulerSpec.Policy (deprecated)'),
  S('spec.configuration.oauth.templates.login', 'configv1.OAuthTemplates.Login (key login.html)'),
  S('spec.configuration.oauth.templates.providerSelection', 'configv1.OAuthTemplates.ProviderSelection (key providers.html)'),
  S('spec.configuration.oauth.templates.error', 'configv1.OAuthTemplates.Error (key errors.html)'),
  CM(`${IDP}.basicAuth.ca`, 'configv1.BasicAuthIdentityProvider.CA'),
  S(`${IDP}.basicAuth.tlsClientCert`, 'configv1.BasicAuthIdentityProvider.TLSClientCert'),
  S(`${IDP}.basicAuth.tlsClientKey`, 'configv1.BasicAuthIdentityProvider.TLSClientKey'),
  CM(`${IDP}.github.ca`, 'configv1.GitHubIdentityProvider.CA'),
  S(`${IDP}.github.clientSecret`, 'configv1.GitHubIdentityProvider.ClientSecret'),
  CM(`${IDP}.gitlab.ca`, 'configv1.GitLabIdentityProvider.CA'),
  S(`${IDP}.gitlab.clientSecret`, 'configv1.GitLabIdentityProvider.ClientSecret'),
  S(`${IDP}.google.clientSecret`, 'configv1.GoogleIdentityProvider.ClientSecret'),
  S(`${IDP}.htpasswd.fileData`, 'configv1.HTPasswdIdentityProvider.FileData (key htpasswd)'),
  CM(`${IDP}.keystone.ca`, 'configv1.KeystoneIdentityProvider.CA'),
  S(`${IDP}.keystone.tlsClientCert`, 'configv1.KeystoneIdentityProvider.TLSClientCert'),
  S(`${IDP}.keystone.tlsClientKey`, 'configv1.KeystoneIdentityProvider.TLSClientKey'),
  S(`${IDP}.ldap.bindPassword`, 'configv1.LDAPIdentityProvider.BindPassword'),
  CM(`${IDP}.ldap.ca`, 'configv1.LDAPIdentityProvider.CA'),
  CM(`${IDP}.openID.ca`, 'configv1.OpenIDIdentityProvider.CA'),
  S(`${IDP}.openID.clientSecret`, 'configv1.OpenIDIdentityProvider.ClientSecret'),
  CM(`${IDP}.requestHeader.ca`, 'configv1.RequestHeaderIdentityProvider.ClientCA'),
];

/** Every Secret/ConfigMap reference site of a hypershift.openshift.io/v1beta1 NodePool. */
export const nodePoolReferencePaths: readonly ReferencePath[] = [
  CM('spec.config[]', 'NodePoolSpec.Config (key config: MachineConfig, KubeletConfig, ContainerRuntimeConfig, ...)'),
  CM('spec.tuningConfig[]', 'NodePoolSpec.TuningConfig (key tuning: Tuned or PerformanceProfile)'),
];

/**
 * Prefix of a string value that names a Secret holding the real value: `arn-from-secret::<name>`. The
 * HostedCluster controller resolves it for `spec.platform.aws.rolesRef.*` and
 * `spec.secretEncryption.kms.aws.auth.awsKms` (hostedcluster_controller.go dereferenceAWSRoles /
 * getARNFromSecret); hcc honours it anywhere under `spec`.
 */
export const ArnFromSecretPrefix = 'arn-from-secret::';

/** One step of a reference path: a key, and whether `[]` fans out over the list found there. */
interface Step {
  key: string;
  fanOut: boolean;
}

/** Parsed paths, by path text (the tables are fixed, so this stays small). */
const stepsByPath = new Map<string, Step[]>();

function stepsOf(path: string): Step[] {
  let steps = stepsByPath.get(path);
  if (!steps) {
    steps = path.split('.').map((raw) => (raw.endsWith('[]') ? { key: raw.slice(0, -2), fanOut: true } : { key: raw, fanOut: false }));
    stepsByPath.set(path, steps);
  }
  return steps;
}

/** The objects reachable from `root` along `path` (see {@link ReferencePath}); `[]` fans out over lists. */
function resolve(root: unknown, path: string): unknown[] {
  let current: unknown[] = [root];
  for (const { key, fanOut } of stepsOf(path)) {
    const next: unknown[] = [];
    for (const value of current) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      const child = (value as Record<string, unknown>)[key];
      if (fanOut) {
        if (Array.isArray(child)) next.push(...child);
      } else if (child !== undefined) {
        next.push(child);
      }
    }
    // Most sites are absent: stop at the first missing step.
    if (next.length === 0) return next;
    current = next;
  }
  return current;
}

/** `ref.name` when it is a non-empty string. */
function refName(ref: unknown): string | undefined {
  if (ref === null || typeof ref !== 'object') return undefined;
  const name = (ref as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** Every `arn-from-secret::<name>` string anywhere below `value`. */
function arnFromSecretNames(value: unknown, out: Set<string>): void {
  if (typeof value === 'string') {
    if (value.startsWith(ArnFromSecretPrefix) && value.length > ArnFromSecretPrefix.length) out.add(value.slice(ArnFromSecretPrefix.length));
  } else if (Array.isArray(value)) {
    for (const item of value) arnFromSecretNames(item, out);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) arnFromSecretNames(item, out);
  }
}

/** Applies a reference table to an object (and the arn-from-secret scan to its `spec`). */
export function referencesOf(object: unknown, paths: readonly ReferencePath[]): References {
  const secrets = new Set<string>();
  const configMaps = new Set<string>();
  for (const site of paths) {
    for (const ref of resolve(object, site.path)) {
      const name = refName(ref);
      if (name) (site.kind === 'Secret' ? secrets : configMaps).add(name);
    }
  }
  arnFromSecretNames(resolve(object, 'spec')[0], secrets);
  return { secrets: [...secrets].sort(), configMaps: [...configMaps].sort() };
}

/**
 * Secrets and ConfigMaps (same namespace) a HostedCluster references: pull secret, SSH key, etcd
 * encryption and unmanaged-etcd TLS keys, trust bundle, service-account signing key, audit webhook,
 * platform credentials, `spec.configuration` references (serving certs, client CA, identity providers,
 * OAuth templates, proxy/image CAs, OIDC providers), and `arn-from-secret::<name>` values. The full
 * list with upstream fields is {@link hostedClusterReferencePaths}.
 * @param hc - a v1beta1 HostedCluster (earlier shapes are read the same way; unknown fields are ignored)
 * @returns `{ secrets, configMaps }`, each sorted and deduplicated; empty names are dropped
 * @see https://hypershift.pages.dev/reference/api/#hypershift.openshift.io/v1beta1.HostedClusterSpec
 */
export function hostedClusterReferences(hc: HostedCluster): References {
  return referencesOf(hc, hostedClusterReferencePaths);
}

/**
 * ConfigMaps (same namespace) a NodePool references: `spec.config[]` (serialized machineconfiguration
 * objects under key `config`) and `spec.tuningConfig[]` (Tuned/PerformanceProfile under key `tuning`),
 * plus any `arn-from-secret::<name>` Secret. NodePool platform blocks reference no Kubernetes Secrets.
 * @param np - a v1beta1 NodePool
 * @returns `{ secrets, configMaps }`, each sorted and deduplicated; empty names are dropped
 * @see https://hypershift.pages.dev/reference/api/#hypershift.openshift.io/v1beta1.NodePoolSpec
 */
export function nodePoolReferences(np: NodePool): References {
  return referencesOf(np, nodePoolReferencePaths);
}
