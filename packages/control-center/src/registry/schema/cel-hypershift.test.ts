/**
 * The real HyperShift CRD rules (packages/crds, copied from upstream) against real manifests:
 * every case of testdata/hypershift/15-negative-crd-validation-cases.yaml is rejected with its
 * upstream message, and every v1beta1 HostedCluster/NodePool of the demo and of inputs 03, 08, 09
 * passes with no error, with no rule skipped as unsupported.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hyperShiftCRDs } from '@hcc/crds';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { fieldErrorMessage } from '../../apierrors/field.js';
import { checkCustomResource, resetUnsupportedRules, unsupportedRules, type JSONSchemaProps } from './index.js';

type Obj = Record<string, unknown>;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..');

const schemas: Record<string, JSONSchemaProps> = Object.fromEntries(
  hyperShiftCRDs.map((crd) => [crd.spec.names.kind, crd.spec.versions.find((v) => v.name === 'v1beta1')!.schema!.openAPIV3Schema as JSONSchemaProps]),
);

/** The v1beta1 HostedClusters and NodePools of a YAML file. */
function load(path: string): Obj[] {
  return parseAllDocuments(readFileSync(path, 'utf8'), { uniqueKeys: false })
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => !!o && o.apiVersion === 'hypershift.openshift.io/v1beta1' && (o.kind === 'HostedCluster' || o.kind === 'NodePool'));
}

const annotation = (o: Obj, k: string): string | undefined => ((o.metadata as { annotations?: Record<string, string> }).annotations ?? {})[`test.example.com/${k}`];
const nameOf = (o: Obj): string => `${o.kind as string} ${(o.metadata as { name: string }).name}`;

/** Create: prune, default, validate (as the strategy does); returns the error messages and the stored object. */
function create(o: Obj): { errors: string[]; stored: Obj } {
  const stored = structuredClone(o);
  const { errors } = checkCustomResource(stored, schemas[o.kind as string]!, { fieldValidation: 'Strict' });
  return { errors: errors.map(fieldErrorMessage), stored };
}

function update(o: Obj, old: Obj): string[] {
  const obj = structuredClone(o);
  return checkCustomResource(obj, schemas[o.kind as string]!, { fieldValidation: 'Strict', oldObj: old }).errors.map(fieldErrorMessage);
}

const negative = load(join(repoRoot, 'testdata/hypershift/15-negative-crd-validation-cases.yaml'));
const valid = [
  ...readdirSync(join(repoRoot, 'demo/manifests'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(repoRoot, 'demo/manifests', f)),
  ...['03-agent-v1beta1-disconnected-ipv4.yaml', '08-kubevirt-v1beta1-cli-render-storage-tolerations-nads.yaml', '09-azure-v1beta1-cli-render-managed-identities.yaml'].map(
    (f) => join(repoRoot, 'testdata/hypershift', f),
  ),
].flatMap((f) => load(f).map((o) => ({ name: `${f.slice(repoRoot.length + 1)}: ${nameOf(o)}`, input: o })));

beforeAll(() => resetUnsupportedRules());

describe('HyperShift CRD rules: 15-negative-crd-validation-cases.yaml', () => {
  const creates = negative.filter((o) => annotation(o, 'operation') === 'create' && annotation(o, 'expected-error'));
  const updates = negative.filter((o) => annotation(o, 'operation') === 'update');

  it('has the cases', () => {
    expect({ creates: creates.length, updates: updates.length }).toEqual({ creates: 5, updates: 1 });
  });

  it.each(creates.map((o) => ({ name: nameOf(o), input: o, want: annotation(o, 'expected-error')! })))('create $name', ({ input, want }) => {
    const { errors } = create(input);
    expect(errors.some((e) => e.includes(want)), errors.join('\n')).toBe(true);
  });

  it.each(
    updates.map((o) => ({
      name: nameOf(o),
      input: { initial: negative.find((x) => nameOf(x) === nameOf(o) && annotation(x, 'operation') === 'create')!, updated: o },
      want: annotation(o, 'expected-error')!,
    })),
  )('update $name', ({ input, want }) => {
    const initial = create(input.initial);
    expect(initial.errors).toEqual([]);
    const errors = update(input.updated, initial.stored);
    expect(errors.some((e) => e.includes(want)), errors.join('\n')).toBe(true);
    // the same object without the change still passes its transition rules
    expect(update(input.initial, initial.stored)).toEqual([]);
  });

  it('renders errors as kube-apiserver v1.34 does', () => {
    const three = negative.find((o) => nameOf(o) === 'HostedCluster neg-three-services')!;
    expect(create(three).errors).toEqual(['spec: Invalid value: "object": spec.services in body should have at least 4 items or 3 for IBMCloud']);
    const inPlace = negative.find((o) => nameOf(o) === 'NodePool neg-replace-with-inplace')!;
    expect(create(inPlace).errors).toEqual([`spec.management: Invalid value: "object": The 'inPlace' field can only be set when 'upgradeType' is 'InPlace'`]);
  });
});

/**
 * Manifests that are meant to be valid but that a copied upstream rule rejects (the real
 * kube-apiserver rejects them too): kept as expected errors here, reported, not weakened.
 */
const knownRejections: Record<string, string[]> = {
  // CLI --render fixture with fake values: `fakeInfraID` has upper case, `fakeSubnetID` is no Azure resource ID.
  'testdata/hypershift/09-azure-v1beta1-cli-render-managed-identities.yaml: HostedCluster bryans-cluster': [
    `spec.infraID: Invalid value: "string": infraID must consist of lowercase alphanumeric characters or '-', start and end with an alphanumeric character, and be between 1 and 253 characters`,
    'spec.platform.azure.subnetID: Invalid value: "string": encryptionSetID must be in the format `/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Network/virtualNetworks/{vnetName}/subnets/{subnetName}`',
  ],
};

describe('HyperShift CRD rules: valid manifests pass', () => {
  it('found the manifests', () => {
    expect(valid.length).toBeGreaterThanOrEqual(16);
    for (const k of Object.keys(knownRejections)) expect(valid.map((v) => v.name)).toContain(k);
  });

  it.each(valid.map((v) => ({ ...v, want: knownRejections[v.name] ?? [] })))('$name', ({ input, want }) => {
    const { errors, stored } = create(input);
    expect(errors).toEqual(want);
    // an update that changes nothing passes: unchanged top-level fields are not validated again
    // (every error they could raise would be ratcheted), so nothing is reported
    const obj = structuredClone(input);
    const got = checkCustomResource(obj, schemas[input.kind as string]!, { fieldValidation: 'Strict', oldObj: stored });
    expect({ errors: got.errors.map(fieldErrorMessage), warnings: got.warnings }).toEqual({ errors: [], warnings: [] });
  });

  it('skipped no HyperShift rule as unsupported', () => {
    expect([...unsupportedRules.values()]).toEqual([]);
  });
});

/**
 * Blocks upstream's CRD types field by field (openshift/api OAuthSpec, hyperv1.PlacementOptions,
 * AzureMarketplaceImage, AzureWorkloadIdentities, the OpenStack Network/Router/SubnetParam and
 * PortSpec): a typo or a wrong value there is refused as upstream refuses it, not kept and copied to
 * the management cluster (found by an unseen-inputs break test: they were preserve-unknown-fields).
 */
describe('HyperShift CRD: typed blocks refuse what upstream refuses', () => {
  const demo = (file: string, kind: string) => load(join(repoRoot, 'demo/manifests', file)).find((o) => o.kind === kind)!;
  /** A copy of `o` with the field at a dotted path set to `value` (removed when undefined). */
  const with_ = (o: Obj, path: string, value: unknown): Obj => {
    const out = structuredClone(o);
    const keys = path.split('.');
    let at = out as Record<string, unknown>;
    for (const k of keys.slice(0, -1)) at = (at[k] ??= {}) as Record<string, unknown>;
    if (value === undefined) delete at[keys.at(-1)!];
    else at[keys.at(-1)!] = value;
    return out;
  };
  /** Errors and unknown fields (Strict: kubectl's default) of a create. */
  const refusal = (o: Obj): string[] => {
    const { errors, unknownFields } = checkCustomResource(structuredClone(o), schemas[o.kind as string]!, { fieldValidation: 'Strict' });
    return [...errors.map(fieldErrorMessage), ...unknownFields.map((f) => `unknown field "${f}"`)];
  };
  const awsHC = demo('10-aws.yaml', 'HostedCluster');
  const awsNP = demo('10-aws.yaml', 'NodePool');
  const azureHC = demo('50-azure.yaml', 'HostedCluster');
  const azureNP = demo('50-azure.yaml', 'NodePool');
  const uuid = '0f3c8f57-5b3a-4c47-9a8e-0b0f3a8c9d11';
  const openstackHC = with_(awsHC, 'spec.platform', { type: 'OpenStack', openstack: { identityRef: { name: 'openstack-credentials', cloudName: 'openstack' } } });
  const openstackNP = with_(awsNP, 'spec.platform', { type: 'OpenStack', openstack: { flavor: 'm1.xlarge' } });
  const workloadIdentities = Object.fromEntries(['imageRegistry', 'ingress', 'file', 'disk', 'nodePoolManagement', 'cloudProvider', 'network'].map((c) => [c, { clientID: uuid }]));
  const workloadAzureHC = with_(azureHC, 'spec.platform.azure.azureAuthenticationConfig', { azureAuthenticationConfigType: 'WorkloadIdentities', workloadIdentities });
  const allIdPs = [
    { name: 'basic', type: 'BasicAuth', mappingMethod: 'claim', basicAuth: { url: 'https://basic.example.com', ca: { name: 'ca' }, tlsClientCert: { name: 'c' }, tlsClientKey: { name: 'k' } } },
    { name: 'gh', type: 'GitHub', github: { clientID: 'id', clientSecret: { name: 's' }, organizations: ['o'], teams: ['o/t'], hostname: 'gh.example.com', ca: { name: 'ca' } } },
    { name: 'gl', type: 'GitLab', gitlab: { clientID: 'id', clientSecret: { name: 's' }, url: 'https://gitlab.com', ca: { name: 'ca' } } },
    { name: 'google', type: 'Google', google: { clientID: 'id', clientSecret: { name: 's' }, hostedDomain: 'example.com' } },
    { name: 'htpasswd', type: 'HTPasswd', htpasswd: { fileData: { name: 'htpass' } } },
    { name: 'ks', type: 'Keystone', keystone: { url: 'https://ks.example.com', domainName: 'default', ca: { name: 'ca' } } },
    { name: 'ldap', type: 'LDAP', ldap: { url: 'ldap://ldap.example.com/ou=users?uid', bindDN: 'cn=admin', bindPassword: { name: 'bind' }, insecure: false, ca: { name: 'ca' }, attributes: { id: ['dn'], preferredUsername: ['uid'], name: ['cn'], email: ['mail'] } } },
    { name: 'oidc', type: 'OpenID', openID: { clientID: 'id', clientSecret: { name: 's' }, ca: { name: 'ca' }, extraScopes: ['email'], extraAuthorizeParameters: { include_granted_scopes: 'true' }, issuer: 'https://sso.example.com', claims: { preferredUsername: ['preferred_username'], name: ['name'], email: ['email'], groups: ['groups'] } } },
    { name: 'rh', type: 'RequestHeader', requestHeader: { loginURL: 'https://login.example.com', challengeURL: 'https://c.example.com', ca: { name: 'ca' }, clientCommonNames: ['proxy'], headers: ['X-Remote-User'], preferredUsernameHeaders: ['X-Remote-User'], nameHeaders: ['X-Remote-User-Display-Name'], emailHeaders: ['X-Remote-User-Email'] } },
  ];
  const oauth = { identityProviders: allIdPs, templates: { login: { name: 'login' } }, tokenConfig: { accessTokenMaxAgeSeconds: 86400, accessTokenInactivityTimeout: '10m' } };

  it.each([
    { name: 'every identity provider type, templates and tokenConfig', input: with_(awsHC, 'spec.configuration.oauth', oauth) },
    { name: 'AWS placement with a capacity reservation', input: with_(awsNP, 'spec.platform.aws.placement', { tenancy: 'dedicated', capacityReservation: { id: 'cr-0123456789abcdef0', marketType: 'CapacityBlocks', preference: 'CapacityReservationsOnly' } }) },
    { name: 'Azure Marketplace image', input: with_(azureNP, 'spec.platform.azure.image', { type: 'AzureMarketplace', azureMarketplace: { publisher: 'azureopenshift', offer: 'aro4', sku: 'aro_418', version: '418.94.20250122' } }) },
    { name: 'Azure workload identities', input: workloadAzureHC },
    // Fields newer HyperShift releases have: taken (and kept) whichever release a manifest was written for.
    { name: 'an Azure Marketplace image by generation alone (newer releases)', input: with_(azureNP, 'spec.platform.azure.image', { type: 'AzureMarketplace', azureMarketplace: { imageGeneration: 'Gen1' } }) },
    { name: 'AWS Spot placement (newer releases)', input: with_(awsNP, 'spec.platform.aws.placement', { marketType: 'Spot', spot: { maxPrice: '0.10' } }) },
    { name: 'AWS cpuOptions (newer releases)', input: with_(awsNP, 'spec.platform.aws.cpuOptions', { nestedVirtualizationPolicy: 'Enabled' }) },
    { name: 'an AWS resource tag with spaces (newer releases)', input: with_(awsNP, 'spec.platform.aws.resourceTags', [{ key: 'cost center', value: 'team a' }]) },
    { name: 'the control plane operator workload identity (newer releases)', input: with_(workloadAzureHC, 'spec.platform.azure.azureAuthenticationConfig.workloadIdentities.controlPlaneOperator', { clientID: uuid }) },
    {
      name: 'OpenStack network, router, subnets and external network by id and by filter',
      input: with_(openstackHC, 'spec.platform.openstack', {
        identityRef: { name: 'openstack-credentials', cloudName: 'openstack' },
        network: { filter: { name: 'hcp-net', tags: ['hcp'], notTagsAny: ['old'] } },
        router: { id: uuid },
        subnets: [{ filter: { ipVersion: 4, cidr: '10.0.0.0/16' } }, { id: uuid }],
        externalNetwork: { id: uuid },
        managedSubnets: [{ dnsNameservers: ['10.0.0.2'], allocationPools: [{ start: '10.0.0.10', end: '10.0.0.200' }] }],
      }),
    },
    { name: 'OpenStack additional ports', input: with_(openstackNP, 'spec.platform.openstack.additionalPorts', [{ network: { id: uuid }, description: 'sriov', allowedAddressPairs: [{ ipAddress: '10.0.0.5' }], vnicType: 'direct', portSecurityPolicy: 'Disabled' }]) },
  ])('accepts $name', ({ input }) => {
    expect(refusal(input)).toEqual([]);
  });

  it('keeps what newer releases add to the blocks that grow (nothing pruned on write, so nothing lost on read either)', () => {
    const np = with_(awsNP, 'spec.platform.aws.placement', { marketType: 'Spot', spot: { maxPrice: '0.10' }, futureOption: { x: 1 } });
    expect((create(np).stored.spec as { platform: { aws: { placement: unknown } } }).platform.aws.placement).toEqual({ marketType: 'Spot', spot: { maxPrice: '0.10' }, futureOption: { x: 1 } });
    const image = { type: 'AzureMarketplace', azureMarketplace: { imageGeneration: 'Gen1', futureField: 'y' } };
    expect((create(with_(azureNP, 'spec.platform.azure.image', image)).stored.spec as { platform: { azure: { image: unknown } } }).platform.azure.image).toEqual(image);
    const ids = { ...workloadIdentities, controlPlaneOperator: { clientID: uuid }, futureComponent: { clientID: uuid } };
    const hc = with_(workloadAzureHC, 'spec.platform.azure.azureAuthenticationConfig.workloadIdentities', ids);
    expect((create(hc).stored.spec as { platform: { azure: { azureAuthenticationConfig: { workloadIdentities: unknown } } } }).platform.azure.azureAuthenticationConfig.workloadIdentities).toEqual(ids);
  });

  it.each([
    { name: 'an unknown oauth field', input: with_(awsHC, 'spec.configuration.oauth', { identityProvider: [{ name: 'typo' }] }), want: 'unknown field "spec.configuration.oauth.identityProvider"' },
    { name: 'an unknown field of an identity provider', input: with_(awsHC, 'spec.configuration.oauth', { identityProviders: [{ name: 'oidc', type: 'OpenID', openID: { clientID: 'x', clientSecret: { name: 's' }, issuer: 'https://x', claim: {} } }] }), want: 'unknown field "spec.configuration.oauth.identityProviders[0].openID.claim"' },
    { name: 'a tenancy AWS does not have', input: with_(awsNP, 'spec.platform.aws.placement', { tenancy: 'shared' }), want: 'spec.platform.aws.placement.tenancy: Unsupported value: "shared": supported values: "default", "dedicated", "host"' },
    { name: 'a capacity reservation on dedicated hosts', input: with_(awsNP, 'spec.platform.aws.placement', { tenancy: 'host', capacityReservation: { preference: 'Open' } }), want: "AWS Capacity Reservations cannot be used with Dedicated Hosts (tenancy 'host')" },
    { name: 'a malformed capacity reservation id', input: with_(awsNP, 'spec.platform.aws.placement', { capacityReservation: { id: 'cr-123' } }), want: "AWS Capacity Reservation ID must start with 'cr-'" },
    { name: 'a misspelt Azure Marketplace field', input: with_(azureNP, 'spec.platform.azure.image', { type: 'AzureMarketplace', azureMarketplace: { publisher: 'azureopenshift', offerr: 'aro4', sku: 'aro_418', version: 'latest' } }), want: 'spec.platform.azure.image.azureMarketplace: Invalid value: "object": publisher, offer, sku and version must either be all set, or all omitted' },
    { name: 'an empty Azure Marketplace image', input: with_(azureNP, 'spec.platform.azure.image', { type: 'AzureMarketplace', azureMarketplace: {} }), want: 'spec.platform.azure.image.azureMarketplace: Invalid value: 0: spec.platform.azure.image.azureMarketplace in body should have at least 1 properties' },
    { name: 'an image generation Azure does not have', input: with_(azureNP, 'spec.platform.azure.image', { type: 'AzureMarketplace', azureMarketplace: { imageGeneration: 'Gen3' } }), want: 'spec.platform.azure.image.azureMarketplace.imageGeneration: Unsupported value: "Gen3"' },
    { name: 'a Spot price that is no number', input: with_(awsNP, 'spec.platform.aws.placement', { marketType: 'Spot', spot: { maxPrice: 'cheap' } }), want: 'spec.platform.aws.placement.spot.maxPrice: Invalid value: "cheap"' },
    { name: 'a workload identity left out', input: with_(workloadAzureHC, 'spec.platform.azure.azureAuthenticationConfig.workloadIdentities.network', undefined), want: 'spec.platform.azure.azureAuthenticationConfig.workloadIdentities.network: Required value' },
    { name: 'a workload identity client ID that is no UUID', input: with_(workloadAzureHC, 'spec.platform.azure.azureAuthenticationConfig.workloadIdentities.disk', { clientID: 'x' }), want: 'spec.platform.azure.azureAuthenticationConfig.workloadIdentities.disk.clientID: Invalid value: "x"' },
    { name: 'an OpenStack network id that is no UUID', input: with_(openstackHC, 'spec.platform.openstack.externalNetwork', { id: 'not-a-uuid' }), want: 'spec.platform.openstack.externalNetwork.id: Invalid value: "not-a-uuid": spec.platform.openstack.externalNetwork.id in body must be of type uuid' },
    { name: 'an OpenStack network by id and filter', input: with_(openstackHC, 'spec.platform.openstack.network', { id: uuid, filter: { name: 'n' } }), want: 'spec.platform.openstack.network: Too many: 2: must have at most 1 item' },
    { name: 'an empty OpenStack filter', input: with_(openstackHC, 'spec.platform.openstack.router', { filter: {} }), want: 'spec.platform.openstack.router.filter: Invalid value: 0: spec.platform.openstack.router.filter in body should have at least 1 properties' },
    { name: 'a port security policy OpenStack does not have', input: with_(openstackNP, 'spec.platform.openstack.additionalPorts', [{ portSecurityPolicy: 'Off' }]), want: 'spec.platform.openstack.additionalPorts[0].portSecurityPolicy: Unsupported value: "Off"' },
  ])('refuses $name', ({ input, want }) => {
    const errors = refusal(input);
    expect(errors.some((e) => e.includes(want)), errors.join('\n')).toBe(true);
  });
});
