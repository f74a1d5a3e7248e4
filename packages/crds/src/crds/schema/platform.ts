/**
 * HostedCluster `spec.platform`: the `type` discriminator and one block per platform. The direct fields
 * of every block are declared (so a misspelt or invented field such as `kubevirt.baseDomain` is an
 * unknown field); deep sub-blocks that hcc never reads are kept as opaque objects.
 * @see https://github.com/openshift/hypershift/tree/main/api/hypershift/v1beta1 (aws.go, azure.go,
 *   kubevirt.go, agent.go, powervs.go, openstack.go, gcp.go, hostedcluster_types.go PlatformSpec)
 */
import { PlatformTypes } from '../../names.js';
import type { JSONSchemaProps } from '../crd-types.js';
import { arr, bool, cel, enumOf, immutable, localObjectReference, obj, opaque, str } from './builders.js';

const arnRole = (description: string) => str({ description, maxLength: 2048 });

/**
 * The characters of an AWS tag key or value: upstream's pattern (`^[0-9A-Za-z_.:/=+-@]+$`) and, as
 * newer HyperShift releases take, spaces (its CEL rule `^[0-9A-Za-z _.:/=+@-]+$`): what either
 * version accepts is accepted.
 */
const awsTagPattern = '^[0-9A-Za-z _.:/=+-@]+$';

const awsResourceTag = obj(
  {
    key: str({ minLength: 1, maxLength: 128, pattern: awsTagPattern }),
    value: str({ minLength: 1, maxLength: 256, pattern: awsTagPattern }),
  },
  { required: ['key', 'value'] },
);

/** hyperv1.AWSResourceReference: `{id}` or `{filters}`. */
export const awsResourceReference = (description?: string): JSONSchemaProps =>
  obj(
    {
      id: str({ maxLength: 255 }),
      filters: arr(
        obj({ name: str({ maxLength: 255 }), values: arr(str({ maxLength: 255 }), { maxItems: 50 }) }, { required: ['name', 'values'] }),
        { maxItems: 50 },
      ),
    },
    description ? { description } : {},
  );

/** AWS resource tags (shared with NodePool). */
export const awsResourceTags = arr(awsResourceTag, { maxItems: 25 });

/** hyperv1.AWSPlatformSpec. */
const awsSchema: JSONSchemaProps = obj(
  {
    region: str({ description: 'region is the AWS region in which the cluster resides.', maxLength: 255 }),
    cloudProviderConfig: obj(
      { subnet: awsResourceReference(), zone: str({ maxLength: 255 }), vpc: str({ maxLength: 255 }) },
      { description: 'cloudProviderConfig specifies AWS networking configuration for the control plane.', required: ['vpc'] },
    ),
    serviceEndpoints: arr(obj({ name: str(), url: str({ pattern: '^https://' }) }, { required: ['name', 'url'] }), { maxItems: 50 }),
    rolesRef: obj(
      {
        ingressARN: arnRole('ARN of the role for the Ingress Operator (or arn-from-secret::<name>).'),
        imageRegistryARN: arnRole('ARN of the role for the Image Registry Operator.'),
        storageARN: arnRole('ARN of the role for the Storage Operator.'),
        networkARN: arnRole('ARN of the role for the Network Operator.'),
        kubeCloudControllerARN: arnRole('ARN of the role for the KCM/KCC.'),
        nodePoolManagementARN: arnRole('ARN of the role for the CAPI controller.'),
        controlPlaneOperatorARN: arnRole('ARN of the role for the Control Plane Operator.'),
      },
      {
        description: 'rolesRef contains references to the AWS IAM roles the operators assume.',
        required: [
          'controlPlaneOperatorARN',
          'imageRegistryARN',
          'ingressARN',
          'kubeCloudControllerARN',
          'networkARN',
          'nodePoolManagementARN',
          'storageARN',
        ],
      },
    ),
    resourceTags: awsResourceTags,
    endpointAccess: enumOf(['Public', 'PublicAndPrivate', 'Private'], { default: 'Public' }),
    additionalAllowedPrincipals: arr(str({ maxLength: 255 }), { maxItems: 25 }),
    multiArch: bool({ default: false, description: 'Deprecated: no longer used.' }),
    sharedVPC: obj(
      {
        rolesRef: obj(
          {
            controlPlaneARN: str({ pattern: '^arn:(aws|aws-cn|aws-us-gov):iam::[0-9]{12}:role\\/.*$' }),
            ingressARN: str({ pattern: '^arn:(aws|aws-cn|aws-us-gov):iam::[0-9]{12}:role\\/.*$' }),
          },
          { required: ['controlPlaneARN', 'ingressARN'] },
        ),
        localZoneID: str({ maxLength: 32 }),
      },
      { required: ['localZoneID', 'rolesRef'] },
    ),
  },
  { description: 'aws specifies configuration for clusters running on Amazon Web Services.', required: ['region', 'rolesRef'] },
);

const immutableField = (name: string, extra: JSONSchemaProps = {}) =>
  str({ maxLength: 255, 'x-kubernetes-validations': [immutable(`${name} is immutable`)], ...extra });

/** hyperv1.AzureClientID: a UUID, the client ID of a managed identity. */
const azureClientID = str({
  minLength: 36,
  maxLength: 36,
  pattern: '^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$',
  'x-kubernetes-validations': [
    cel(
      "self.matches('^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$')",
      'the client ID of a managed identity must be a valid UUID. It should be 5 groups of hyphen separated hexadecimal characters in the form 8-4-4-4-12.',
    ),
  ],
});

/**
 * hyperv1.AzureWorkloadIdentities (self-managed Azure): the client ID of a federated managed identity
 * for each component, the seven upstream requires required, `controlPlaneOperator` (newer releases)
 * optional; fields a still newer release adds are kept (this API is still growing).
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/azure.go
 */
const workloadIdentities: JSONSchemaProps = (() => {
  const required = ['imageRegistry', 'ingress', 'file', 'disk', 'nodePoolManagement', 'cloudProvider', 'network'];
  const identity = obj({ clientID: azureClientID }, { required: ['clientID'] });
  return obj(Object.fromEntries([...required, 'controlPlaneOperator'].map((c) => [c, identity])), {
    description: 'workloadIdentities (self-managed Azure): client IDs of federated identities.',
    required,
    'x-kubernetes-preserve-unknown-fields': true,
  });
})();

/** hyperv1.AzurePlatformSpec. */
const azureSchema: JSONSchemaProps = obj(
  {
    cloud: enumOf(['AzurePublicCloud', 'AzureUSGovernmentCloud', 'AzureChinaCloud', 'AzureGermanCloud', 'AzureStackCloud'], {
      default: 'AzurePublicCloud',
    }),
    location: immutableField('Location', { description: 'location is the Azure region for all cloud resources.' }),
    resourceGroup: str({
      default: 'default',
      maxLength: 90,
      pattern: '^[a-zA-Z0-9_()\\-\\.]{1,89}[a-zA-Z0-9_()\\-]$',
      'x-kubernetes-validations': [immutable('ResourceGroupName is immutable')],
    }),
    vnetID: immutableField('VnetID'),
    subnetID: str({
      minLength: 1,
      maxLength: 355,
      'x-kubernetes-validations': [
        cel(
          "size(self.split('/')) == 11 && self.matches('^/subscriptions/.*/resourceGroups/.*/providers/Microsoft.Network/virtualNetworks/.*/subnets/.*$')",
          'encryptionSetID must be in the format `/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Network/virtualNetworks/{vnetName}/subnets/{subnetName}`',
        ),
        immutable('SubnetID is immutable'),
      ],
    }),
    subscriptionID: immutableField('SubscriptionID'),
    securityGroupID: immutableField('SecurityGroupID'),
    azureAuthenticationConfig: obj(
      {
        azureAuthenticationConfigType: enumOf(['ManagedIdentities', 'WorkloadIdentities']),
        managedIdentities: opaque('managedIdentities (ARO HCP): Azure Key Vault secret names and client IDs, not Kubernetes Secrets.'),
        workloadIdentities: workloadIdentities,
      },
      {
        required: ['azureAuthenticationConfigType'],
        'x-kubernetes-validations': [
          cel(
            "self.azureAuthenticationConfigType == 'ManagedIdentities' ? has(self.managedIdentities) : !has(self.managedIdentities)",
            'managedIdentities is required when azureAuthenticationConfigType is ManagedIdentities, and forbidden otherwise',
          ),
          cel(
            "self.azureAuthenticationConfigType == 'WorkloadIdentities' ? has(self.workloadIdentities) : !has(self.workloadIdentities)",
            'workloadIdentities is required when azureAuthenticationConfigType is WorkloadIdentities, and forbidden otherwise',
          ),
        ],
      },
    ),
    tenantID: str({ maxLength: 255 }),
    credentials: localObjectReference(
      'credentials (older v1beta1 API, HyperShift <= 4.17): a Secret with Azure credentials. Not served by current upstream.',
    ),
    containerRegistry: opaque('containerRegistry configures ACR pulls via a user-assigned managed identity.'),
    topology: enumOf(['Public', 'PublicAndPrivate', 'Private']),
    private: opaque('private configures private connectivity (PrivateLink or Swift).'),
  },
  {
    description: 'azure defines azure specific settings.',
    required: ['location', 'resourceGroup', 'vnetID', 'subnetID', 'subscriptionID', 'securityGroupID', 'azureAuthenticationConfig', 'tenantID'],
  },
);

/** hyperv1.KubevirtPlatformSpec. */
const kubevirtSchema: JSONSchemaProps = obj(
  {
    baseDomainPassthrough: bool({
      description: "baseDomainPassthrough uses a subdomain of the management cluster's *.apps domain as base domain.",
      'x-kubernetes-validations': [immutable('baseDomainPassthrough is immutable')],
    }),
    generateID: str({ maxLength: 11, 'x-kubernetes-validations': [immutable('Kubevirt GenerateID is immutable once set')] }),
    credentials: obj(
      {
        infraKubeConfigSecret: obj(
          { name: str(), key: str() },
          {
            description: 'infraKubeConfigSecret references a Secret holding the kubeconfig of the external infra cluster.',
            required: ['key', 'name'],
            'x-kubernetes-validations': [immutable('infraKubeConfigSecret is immutable')],
          },
        ),
        infraNamespace: str({ maxLength: 255, 'x-kubernetes-validations': [immutable('infraNamespace is immutable')] }),
      },
      { description: 'credentials for placing VMs on an external infra cluster.', required: ['infraNamespace'] },
    ),
    storageDriver: obj(
      {
        type: enumOf(['None', 'Default', 'Manual'], { default: 'Default', 'x-kubernetes-validations': [immutable('storageDriver.Type is immutable')] }),
        manual: obj(
          {
            storageClassMapping: arr(
              obj(
                { group: str({ maxLength: 255 }), guestStorageClassName: str({ maxLength: 255 }), infraStorageClassName: str({ maxLength: 255 }) },
                { required: ['guestStorageClassName', 'infraStorageClassName'] },
              ),
              { maxItems: 50, 'x-kubernetes-validations': [immutable('storageClassMapping is immutable')] },
            ),
            volumeSnapshotClassMapping: arr(
              obj(
                {
                  group: str({ maxLength: 255 }),
                  guestVolumeSnapshotClassName: str({ maxLength: 255 }),
                  infraVolumeSnapshotClassName: str({ maxLength: 255 }),
                },
                { required: ['guestVolumeSnapshotClassName', 'infraVolumeSnapshotClassName'] },
              ),
              { maxItems: 50, 'x-kubernetes-validations': [immutable('volumeSnapshotClassMapping is immutable')] },
            ),
          },
          {
            description: 'manual maps infra StorageClasses/VolumeSnapshotClasses (in the infra cluster) to guest ones.',
            'x-kubernetes-validations': [immutable('storageDriver.Manual is immutable')],
          },
        ),
      },
      { 'x-kubernetes-validations': [immutable('storageDriver is immutable')] },
    ),
  },
  {
    description: 'kubevirt defines KubeVirt specific settings for cluster components.',
    'x-kubernetes-validations': [cel('!has(oldSelf.generateID) || has(self.generateID)', 'Kubevirt GenerateID is required once set')],
  },
);

/** hyperv1.PowerVSPlatformSpec. */
const powervsSchema: JSONSchemaProps = obj(
  {
    accountID: str({ maxLength: 255 }),
    cisInstanceCRN: str({ maxLength: 255, pattern: '^crn:' }),
    resourceGroup: str({ maxLength: 255 }),
    region: str({ maxLength: 255 }),
    zone: str({ maxLength: 255 }),
    subnet: obj({ id: str({ maxLength: 255 }), name: str({ maxLength: 255 }) }),
    serviceInstanceID: str({ maxLength: 255 }),
    vpc: obj(
      { name: str({ maxLength: 255 }), region: str({ maxLength: 255 }), zone: str({ maxLength: 255 }), subnet: str({ maxLength: 255 }) },
      { required: ['name', 'region'] },
    ),
    kubeCloudControllerCreds: localObjectReference('Secret with cloud controller credentials.'),
    nodePoolManagementCreds: localObjectReference('Secret with node pool management credentials.'),
    ingressOperatorCloudCreds: localObjectReference('Secret with ingress operator credentials.'),
    storageOperatorCloudCreds: localObjectReference('Secret with storage operator credentials.'),
    imageRegistryOperatorCloudCreds: localObjectReference('Secret with image registry operator credentials.'),
  },
  {
    description: 'powervs specifies configuration for clusters running on IBMCloud Power VS Service. Immutable.',
    required: [
      'accountID',
      'cisInstanceCRN',
      'resourceGroup',
      'region',
      'zone',
      'subnet',
      'serviceInstanceID',
      'vpc',
      'kubeCloudControllerCreds',
      'nodePoolManagementCreds',
      'ingressOperatorCloudCreds',
      'storageOperatorCloudCreds',
      'imageRegistryOperatorCloudCreds',
    ],
  },
);

/** hyperv1.NeutronTag: not empty, no commas. */
const neutronTag = str({ minLength: 1, pattern: '^[^,]+$' });

/**
 * An OpenStack resource named by `id` (a UUID) or by `filter` (name, description, projectID, the
 * tag lists and `extra` fields; at least one), never both: hyperv1.RouterParam, NetworkParam and
 * SubnetParam (MinProperties/MaxProperties 1).
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/openstack.go
 */
function openstackParam(description: string, extra: Record<string, JSONSchemaProps>): JSONSchemaProps {
  const tags = (what: string) => arr(neutronTag, { description: what, 'x-kubernetes-list-type': 'set' });
  return obj(
    {
      id: str({ format: 'uuid' }),
      filter: obj(
        {
          name: str(),
          description: str(),
          projectID: str(),
          ...extra,
          tags: tags('tags: the resource must have all of them.'),
          tagsAny: tags('tagsAny: the resource must have at least one of them.'),
          notTags: tags('notTags: resources with all of them are excluded.'),
          notTagsAny: tags('notTagsAny: resources with any of them are excluded.'),
        },
        { minProperties: 1 },
      ),
    },
    { description, minProperties: 1, maxProperties: 1 },
  );
}

/** hyperv1.NetworkParam. */
export const openstackNetworkParam = (description: string): JSONSchemaProps => openstackParam(description, {});

/** hyperv1.OpenStackPlatformSpec (OpenStack feature gate upstream). */
const openstackSchema: JSONSchemaProps = obj(
  {
    identityRef: obj(
      {
        name: str({ description: 'name of a Secret (same namespace) with a clouds.yaml key.' }),
        cloudName: str({ description: 'cloudName is the clouds.yaml entry to use.' }),
      },
      { required: ['name', 'cloudName'] },
    ),
    managedSubnets: arr(
      obj({
        dnsNameservers: arr(str()),
        allocationPools: arr(obj({ start: str(), end: str() }, { required: ['start', 'end'] })),
      }),
      { maxItems: 1, 'x-kubernetes-list-type': 'atomic' },
    ),
    router: openstackParam('router specifies an existing router to use if managedSubnets are specified.', {}),
    network: openstackNetworkParam('network specifies an existing network to use if no managedSubnets are specified.'),
    subnets: arr(
      openstackParam('SubnetParam: an OpenStack subnet by id or filter.', {
        ipVersion: { type: 'integer' },
        gatewayIP: str(),
        cidr: str(),
        ipv6AddressMode: str(),
        ipv6RAMode: str(),
      }),
      { maxItems: 2, 'x-kubernetes-list-type': 'atomic' },
    ),
    networkMTU: { type: 'integer' },
    externalNetwork: openstackNetworkParam('externalNetwork is the OpenStack network that gives the VMs public internet access.'),
    disableExternalNetwork: bool(),
    tags: arr(str(), { 'x-kubernetes-list-type': 'set' }),
    ingressFloatingIP: str({ 'x-kubernetes-validations': [cel('isIP(self)', 'floatingIP must be a valid IPv4 or IPv6 address')] }),
  },
  { description: 'openstack specifies configuration for clusters running on OpenStack.', required: ['identityRef'] },
);

const gcpResourceReference = obj(
  { name: str({ minLength: 1, maxLength: 63, pattern: '^[a-z]([a-z0-9]*(-[a-z0-9]+)*)?$' }) },
  { required: ['name'] },
);

/**
 * hyperv1.GCPPlatformSpec (GCPPlatform feature gate, tech preview upstream). The known fields are
 * declared; others are preserved because the GCP API is still moving.
 */
const gcpSchema: JSONSchemaProps = {
  type: 'object',
  description: 'gcp specifies configuration for clusters running on Google Cloud Platform.',
  properties: {
    project: str({ minLength: 6, maxLength: 30, pattern: '^[a-z]([a-z0-9]*(-[a-z0-9]+)*)?$', 'x-kubernetes-validations': [immutable('Project is immutable')] }),
    region: str({ maxLength: 63, pattern: '^[a-z]+-[a-z0-9]+[0-9]$', 'x-kubernetes-validations': [immutable('Region is immutable')] }),
    networkConfig: obj(
      { network: gcpResourceReference, privateServiceConnectSubnet: gcpResourceReference },
      { required: ['network', 'privateServiceConnectSubnet'] },
    ),
    endpointAccess: enumOf(['PublicAndPrivate', 'Private'], { default: 'Private' }),
  },
  required: ['project', 'region', 'networkConfig'],
  'x-kubernetes-preserve-unknown-fields': true,
};

/** hyperv1.IBMCloudPlatformSpec (shared with NodePool). */
export const ibmcloudSchema: JSONSchemaProps = obj(
  { providerType: str({ description: 'providerType is a specific supported infrastructure provider within IBM Cloud (e.g. UPI, VPC).' }) },
  { description: 'ibmcloud defines IBMCloud specific settings for components.' },
);

/** `spec.platform.type`: every HyperShift platform (OpenStack and GCP are feature-gated upstream). */
export const platformTypeSchema = (what: string): JSONSchemaProps =>
  enumOf(PlatformTypes, {
    description: `type is the type of infrastructure provider for the ${what}. Immutable.`,
    maxLength: 100,
    'x-kubernetes-validations': [immutable('Type is immutable')],
  });

/** hyperv1.PlatformSpec (`spec.platform`). */
export const platformSchema: JSONSchemaProps = obj(
  {
    type: platformTypeSchema('cluster'),
    aws: awsSchema,
    agent: obj(
      { agentNamespace: str({ description: 'agentNamespace is the namespace where to search for Agents for this cluster.', maxLength: 63 }) },
      { description: 'agent specifies configuration for agent-based installations.', required: ['agentNamespace'] },
    ),
    ibmcloud: ibmcloudSchema,
    azure: azureSchema,
    powervs: powervsSchema,
    kubevirt: kubevirtSchema,
    openstack: openstackSchema,
    gcp: gcpSchema,
  },
  { description: 'platform specifies the underlying infrastructure provider for the cluster.', required: ['type'] },
);
