import { describe, expect, it } from 'vitest';
import {
  ArnFromSecretPrefix,
  hostedClusterReferencePaths,
  hostedClusterReferences,
  nodePoolReferencePaths,
  nodePoolReferences,
  type References,
  type ReferencePath,
} from './references.js';
import type { HostedCluster, NodePool } from './types.js';
import { inputsDir, loadAllInputs, type InputDoc } from './testing/inputs.js';

const hc = (spec: Record<string, unknown>): HostedCluster => ({ metadata: { name: 'x', namespace: 'clusters' }, spec });
const np = (spec: Record<string, unknown>): NodePool => ({ metadata: { name: 'x', namespace: 'clusters' }, spec: { clusterName: 'x', ...spec } });
const none: References = { secrets: [], configMaps: [] };

/** Builds the object `{a: {b: [{c: leaf}]}}` for the path `a.b[].c`. */
function objectAt(path: string, leaf: unknown): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, step) => (step.endsWith('[]') ? { [step.slice(0, -2)]: [inner] } : { [step]: inner }), leaf) as Record<string, unknown>;
}

describe('reference tables', () => {
  const sites = (paths: readonly ReferencePath[]) => paths.map((site) => ({ name: site.path, input: site, want: site.kind }));

  it.each(sites(hostedClusterReferencePaths))('HostedCluster $name is found as a $want', ({ input, want }) => {
    const got = hostedClusterReferences(objectAt(input.path, { name: 'target' }) as unknown as HostedCluster);
    expect(got).toEqual(want === 'Secret' ? { secrets: ['target'], configMaps: [] } : { secrets: [], configMaps: ['target'] });
  });

  it.each(sites(nodePoolReferencePaths))('NodePool $name is found as a $want', ({ input, want }) => {
    const got = nodePoolReferences(objectAt(input.path, { name: 'target' }) as unknown as NodePool);
    expect(got).toEqual(want === 'Secret' ? { secrets: ['target'], configMaps: [] } : { secrets: [], configMaps: ['target'] });
  });

  it('lists each path once and cites an upstream field', () => {
    for (const paths of [hostedClusterReferencePaths, nodePoolReferencePaths]) {
      expect(new Set(paths.map((p) => p.path)).size).toBe(paths.length);
      for (const p of paths) expect(p.upstream).not.toBe('');
    }
  });
});

describe('hostedClusterReferences', () => {
  it.each([
    { name: 'empty spec', input: hc({}), want: none },
    { name: 'empty references are ignored', input: hc({ pullSecret: { name: '' }, sshKey: {}, additionalTrustBundle: { name: '' } }), want: none },
    {
      name: 'duplicates collapse and lists are sorted',
      input: hc({
        pullSecret: { name: 'shared' },
        sshKey: { name: 'shared' },
        secretEncryption: { type: 'aescbc', aescbc: { activeKey: { name: 'b-key' }, backupKey: { name: 'a-key' } } },
      }),
      want: { secrets: ['a-key', 'b-key', 'shared'], configMaps: [] },
    },
    {
      name: 'several identity providers of several kinds',
      input: hc({
        configuration: {
          oauth: {
            identityProviders: [
              { name: 'h', type: 'HTPasswd', htpasswd: { fileData: { name: 'htpass' } } },
              { name: 'o', type: 'OpenID', openID: { clientSecret: { name: 'oidc-secret' }, ca: { name: 'oidc-ca' } } },
              { name: 'l', type: 'LDAP', ldap: { bindPassword: { name: 'ldap-bind' }, ca: { name: 'ldap-ca' } } },
              { name: 'r', type: 'RequestHeader', requestHeader: { ca: { name: 'rh-ca' } } },
            ],
            templates: { login: { name: 'login-tpl' }, error: { name: '' } },
          },
        },
      }),
      want: { secrets: ['htpass', 'ldap-bind', 'login-tpl', 'oidc-secret'], configMaps: ['ldap-ca', 'oidc-ca', 'rh-ca'] },
    },
    {
      name: `${ArnFromSecretPrefix}<name> anywhere in spec, other ARNs ignored`,
      input: hc({
        platform: { type: 'AWS', aws: { rolesRef: { ingressARN: 'arn-from-secret::ingress-role', storageARN: 'arn:aws:iam::1:role/x' } } },
        secretEncryption: { type: 'kms', kms: { provider: 'AWS', aws: { auth: { awsKms: 'arn-from-secret::kms-role' } } } },
        labels: { note: 'arn-from-secret::' },
      }),
      want: { secrets: ['ingress-role', 'kms-role'], configMaps: [] },
    },
    {
      name: 'Azure Key Vault secret names are not Kubernetes Secrets',
      input: hc({
        platform: {
          type: 'Azure',
          azure: { azureAuthenticationConfig: { managedIdentities: { controlPlane: { cloudProvider: { credentialsSecretName: 'kv-cert' } } } } },
        },
      }),
      want: none,
    },
    {
      name: 'malformed values are skipped, not thrown on',
      input: hc({ pullSecret: 'oops', sshKey: { name: 7 }, configuration: { oauth: { identityProviders: 'nope' } } }),
      want: none,
    },
  ])('$name', ({ input, want }) => {
    expect(hostedClusterReferences(input)).toEqual(want);
  });
});

describe('nodePoolReferences', () => {
  it.each([
    { name: 'no config', input: np({}), want: none },
    {
      name: 'config and tuningConfig, empty names dropped, sorted',
      input: np({ config: [{ name: 'mc-b' }, { name: '' }, { name: 'mc-a' }], tuningConfig: [{ name: 'tuned' }, {}] }),
      want: { secrets: [], configMaps: ['mc-a', 'mc-b', 'tuned'] },
    },
    { name: 'the same ConfigMap in both lists counts once', input: np({ config: [{ name: 'same' }], tuningConfig: [{ name: 'same' }] }), want: { secrets: [], configMaps: ['same'] } },
  ])('$name', ({ input, want }) => {
    expect(nodePoolReferences(input)).toEqual(want);
  });
});

/**
 * What each v1beta1 HostedCluster/NodePool in the real inputs references, as the file's comments and
 * bundled Secrets/ConfigMaps imply. Key: `<file prefix> <Kind> <name>`.
 */
const inputWants: Record<string, References> = {
  '02 HostedCluster cesar': { secrets: ['cesar-pull-secret'], configMaps: [] }, // trustedCA name "" and sshKey {} are empty
  '02 NodePool cesar-fakeName': none,
  '03 HostedCluster hosted-ipv4': {
    secrets: ['hosted-ipv4-etcd-encryption-key', 'hosted-ipv4-pull-secret', 'sshkey-cluster-hosted-ipv4'],
    configMaps: ['user-ca-bundle'],
  },
  '03 NodePool hosted-ipv4': none,
  '07 HostedCluster example-hcp': { secrets: ['pull-secret', 'ssh-key'], configMaps: [] }, // referenced but not in the bundle
  '07 NodePool example-hcp-workers': none,
  '08 HostedCluster test1': { secrets: ['test1-etcd-encryption-key', 'test1-pull-secret'], configMaps: [] }, // StorageClasses/NADs live in the infra cluster
  '08 NodePool test1': none,
  '09 HostedCluster bryans-cluster': { secrets: ['bryans-cluster-etcd-encryption-key', 'bryans-cluster-pull-secret'], configMaps: [] },
  '09 NodePool bryans-cluster': none,
  '10 HostedCluster my-aro-hcp-cluster': none, // every credentialsSecretName is an Azure Key Vault secret
  '11 HostedCluster cexample0000000000000': {
    secrets: ['cexample0000000000000-etcd-client-tls', 'cexample0000000000000-pull-secret', 'hypershift-ibm-iam-clientsecret', 'ibm-named-certs'],
    configMaps: [], // clientCA and templates.* are empty
  },
  '12 HostedCluster example': {
    secrets: [
      'ImageRegistryOperator',
      'IngressOperator',
      'KubeCloudControllerManager',
      'NodePoolManagement',
      'StorageOperator',
      'example-etcd-encryption-key',
      'example-pull-secret',
    ],
    configMaps: [],
  },
  '12 NodePool example': none,
  '13 NodePool custom-nodepool': { secrets: [], configMaps: ['example-crc', 'example-machineconfig'] },
  '15 HostedCluster neg-bad-clusterid': { secrets: ['key', 'secret'], configMaps: [] },
  '15 HostedCluster neg-three-services': { secrets: ['key', 'secret'], configMaps: [] },
  '15 HostedCluster neg-route-with-nodeport-block': { secrets: ['key', 'secret'], configMaps: [] },
  '15 HostedCluster neg-services-immutable': { secrets: ['key', 'secret'], configMaps: [] },
  '15 NodePool neg-replace-with-inplace': none,
  '15 NodePool neg-agent-scale-from-zero': none,
};

/** Secrets/ConfigMaps shipped in an input bundle that no object references (said so in the file's comments). */
const unreferencedInBundle = new Set(['09 Secret bryans-cluster-cloud-credentials']);

const key = (d: InputDoc) => `${d.file.slice(0, 2)} ${d.kind} ${d.name}`;
const refsOf = (d: InputDoc) =>
  d.kind === 'HostedCluster' ? hostedClusterReferences(d.object as unknown as HostedCluster) : nodePoolReferences(d.object as unknown as NodePool);

describe('references of the real inputs', () => {
  const docs = inputsDir ? loadAllInputs() : [];
  const v1beta1 = docs.filter((d) => d.apiVersion === 'hypershift.openshift.io/v1beta1' && (d.kind === 'HostedCluster' || d.kind === 'NodePool'));

  it.each(v1beta1.map((d) => ({ name: key(d), input: d, want: inputWants[key(d)] })))('$name', ({ input, want }) => {
    expect(want, 'add this object to inputWants').toBeDefined();
    expect(refsOf(input)).toEqual(want);
  });

  it('every Secret/ConfigMap bundled next to a v1beta1 object is referenced by one', () => {
    for (const file of new Set(v1beta1.map((d) => d.file))) {
      const inFile = docs.filter((d) => d.file === file);
      const referenced = new Set(
        inFile.filter((d) => v1beta1.includes(d)).flatMap((d) => {
          const refs = refsOf(d);
          return [...refs.secrets.map((n) => `Secret ${d.namespace}/${n}`), ...refs.configMaps.map((n) => `ConfigMap ${d.namespace}/${n}`)];
        }),
      );
      for (const d of inFile.filter((d) => d.kind === 'Secret' || d.kind === 'ConfigMap')) {
        if (unreferencedInBundle.has(key(d))) continue;
        expect(referenced, `${file}: ${d.kind} ${d.namespace}/${d.name}`).toContain(`${d.kind} ${d.namespace}/${d.name}`);
      }
    }
  });
});
