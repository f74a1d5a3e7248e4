/**
 * NodePool `spec.platform`: the `type` discriminator and one block per platform, direct fields declared.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/nodepool_types.go (NodePoolPlatform)
 * @see https://github.com/openshift/hypershift/tree/main/api/hypershift/v1beta1 (aws.go AWSNodePoolPlatform,
 *   azure.go AzureNodePoolPlatform, kubevirt.go KubevirtNodePoolPlatform, agent.go, powervs.go, openstack.go)
 */
import type { JSONSchemaProps } from '../crd-types.js';
import { arr, bool, cel, enumOf, int32, int64, intOrString, obj, opaque, quantity, str, stringMap } from './builders.js';
import { labelSelectorSchema } from './common.js';
import { awsResourceReference, awsResourceTags, ibmcloudSchema, openstackNetworkParam, platformTypeSchema } from './platform.js';

/** hyperv1.AWSNodePoolPlatform. */
const awsSchema: JSONSchemaProps = obj(
  {
    instanceType: str({ description: 'instanceType is an EC2 instance type for node instances (e.g. m5.large).', maxLength: 255 }),
    instanceProfile: str({ maxLength: 255 }),
    subnet: {
      ...awsResourceReference('subnet is the subnet to use for node instances.'),
      'x-kubernetes-validations': [
        cel(
          "has(self.id) && self.id.startsWith('subnet-') ? !has(self.filters) : size(self.filters) > 0",
          'subnet is invalid, a valid subnet id or filters must be set, but not both',
        ),
      ],
    },
    ami: str({ maxLength: 255 }),
    imageType: enumOf(['Linux', 'Windows'], { description: 'imageType selects a Linux (RHCOS, default) or Windows AMI.' }),
    cpuOptions: obj(
      { nestedVirtualizationPolicy: enumOf(['Enabled', 'Disabled']) },
      { description: 'cpuOptions configures the instances\' CPU (newer releases).', minProperties: 1, 'x-kubernetes-preserve-unknown-fields': true },
    ),
    securityGroups: arr(awsResourceReference(), { maxItems: 50 }),
    rootVolume: obj(
      {
        size: int64({ minimum: 8, description: 'size of the volume in GiB.' }),
        type: str({ maxLength: 255 }),
        iops: int64(),
        encrypted: bool(),
        encryptionKey: str({ maxLength: 2048 }),
      },
      { required: ['size', 'type'] },
    ),
    resourceTags: awsResourceTags,
    placement: obj(
      {
        tenancy: enumOf(['default', 'dedicated', 'host'], { description: 'tenancy: shared (default), single-tenant (dedicated) or dedicated-host (host) hardware.' }),
        marketType: enumOf(['', 'OnDemand', 'Spot', 'CapacityBlocks'], { description: 'marketType of the instances (newer releases).' }),
        spot: obj(
          { maxPrice: str({ minLength: 1, maxLength: 20, pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'maxPrice is the most to pay per hour, in US dollars.' }) },
          { description: 'spot configures Spot instances (marketType Spot; newer releases).' },
        ),
        capacityReservation: obj(
          {
            id: str({
              maxLength: 20,
              'x-kubernetes-validations': [
                cel(
                  "self.matches('^cr-[a-f0-9]{17}$')",
                  "AWS Capacity Reservation ID must start with 'cr-' followed by 17 lowercase hexadecimal characters (e.g., cr-0123456789abcdef0)",
                ),
              ],
            }),
            marketType: enumOf(['OnDemand', 'CapacityBlocks'], { description: 'Deprecated in newer releases for placement.marketType.' }),
            preference: enumOf(['', 'None', 'CapacityReservationsOnly', 'Open']),
          },
          {
            description: 'capacityReservation specifies Capacity Reservation options for the NodePool instances.',
            'x-kubernetes-validations': [
              cel(
                "has(self.id) ? (!has(self.preference) || !(self.preference in ['Open','None'])) : true",
                "AWS Capacity Reservation preference 'None' or 'Open' is incompatible with specifying a Capacity Reservation ID",
              ),
              cel(
                "has(self.marketType) && self.marketType == 'CapacityBlocks' ? has(self.id) : true",
                "AWS Capacity Reservation market type 'CapacityBlocks' requires a Capacity Reservation ID",
              ),
            ],
          },
        ),
      },
      {
        description:
          'placement specifies the placement options for the EC2 instances (hyperv1.PlacementOptions; fields newer releases add, e.g. Spot options, are kept).',
        'x-kubernetes-preserve-unknown-fields': true,
        'x-kubernetes-validations': [
          cel(
            "has(self.tenancy) && self.tenancy == 'host' ? !has(self.capacityReservation) : true",
            "AWS Capacity Reservations cannot be used with Dedicated Hosts (tenancy 'host')",
          ),
        ],
      },
    ),
  },
  { description: 'aws specifies the configuration used when operating on AWS.', required: ['instanceType', 'subnet'] },
);

/** hyperv1.KubevirtNodePoolPlatform. */
const kubevirtSchema: JSONSchemaProps = obj(
  {
    rootVolume: obj(
      {
        diskImage: obj({ containerDiskImage: str({ maxLength: 2048 }) }),
        type: enumOf(['Persistent'], { default: 'Persistent' }),
        persistent: obj({
          size: quantity({ default: '32Gi' }),
          storageClass: str({ maxLength: 255 }),
          accessModes: arr(enumOf(['ReadWriteOnce', 'ReadWriteMany', 'ReadOnly', 'ReadWriteOncePod']), { maxItems: 10 }),
          volumeMode: enumOf(['Filesystem', 'Block']),
        }),
        cacheStrategy: obj({ type: enumOf(['None', 'PVC'], { default: 'None' }) }, { required: ['type'] }),
      },
      { description: 'rootVolume is the VM volume that hosts RHCOS.', default: { persistent: { size: '32Gi' }, type: 'Persistent' } },
    ),
    compute: obj(
      {
        memory: quantity({ default: '8Gi' }),
        cores: int32({ minimum: 1 }),
        qosClass: enumOf(['Burstable', 'Guaranteed'], { default: 'Burstable' }),
        model: enumOf(['HostPassthrough']),
      },
      { description: 'compute is the virtual hardware requested for the VM.', default: { memory: '8Gi', cores: 2 } },
    ),
    networkInterfaceMultiqueue: enumOf(['Enable', 'Disable'], { default: 'Enable' }),
    additionalNetworks: arr(
      obj({ name: str({ maxLength: 255, description: '<namespace>/<name> of a NetworkAttachmentDefinition on the infra cluster.' }) }, { required: ['name'] }),
      { maxItems: 20 },
    ),
    attachDefaultNetwork: bool({ default: true }),
    nodeSelector: stringMap(),
    hostDevices: arr(
      obj({ deviceName: str({ maxLength: 255 }), count: { type: 'integer', minimum: 1, maximum: 2147483647, default: 1 } }, { required: ['deviceName'] }),
      { maxItems: 10 },
    ),
  },
  { description: 'kubevirt specifies the configuration used when operating on KubeVirt platform.', required: ['rootVolume'] },
);

/** hyperv1.AzureNodePoolPlatform. */
const azureSchema: JSONSchemaProps = obj(
  {
    vmSize: str({
      maxLength: 255,
      pattern: '^(Standard_|Basic_)?[A-Z]+[0-9]+(-[0-9]+)?[abdilmptsCNP]*(_[A-Z]*[0-9]+[A-Z]*)?(_v[0-9]+)?$',
    }),
    image: obj(
      {
        type: enumOf(['ImageID', 'AzureMarketplace']),
        imageID: str({ maxLength: 255 }),
        azureMarketplace: obj(
          {
            publisher: str({ minLength: 3, maxLength: 50, pattern: '^[a-z0-9][a-z0-9-_]{2,49}$' }),
            offer: str({ minLength: 1, maxLength: 255 }),
            sku: str({ minLength: 1, maxLength: 255, pattern: '^[a-z0-9-_]+$' }),
            version: str({ minLength: 1, maxLength: 32, pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$|^latest$' }),
            imageGeneration: enumOf(['Gen1', 'Gen2'], {
              description: 'imageGeneration is the Hyper-V generation of the image (newer releases): alone, the release picks the image of that generation.',
            }),
          },
          {
            description:
              'azureMarketplace is the Azure Marketplace image to boot the VMs from (hyperv1.AzureMarketplaceImage): publisher, offer, sku and version, or (newer releases) imageGeneration alone; fields a newer release adds are kept.',
            minProperties: 1,
            'x-kubernetes-preserve-unknown-fields': true,
            'x-kubernetes-validations': [
              cel(
                'has(self.publisher) == has(self.offer) && has(self.offer) == has(self.sku) && has(self.sku) == has(self.version)',
                'publisher, offer, sku and version must either be all set, or all omitted',
              ),
              cel(
                'has(self.imageGeneration) || has(self.publisher)',
                'must specify imageGeneration or must specify publisher, offer, sku and version',
              ),
            ],
          },
        ),
      },
      {
        required: ['type'],
        'x-kubernetes-validations': [
          cel("has(self.type) && self.type == 'ImageID' ?  has(self.imageID) : !has(self.imageID)", 'imageID is required when type is ImageID, and forbidden otherwise'),
          cel(
            "has(self.type) && self.type == 'AzureMarketplace' ?  true : !has(self.azureMarketplace)",
            'azureMarketplace is forbidden when type is not AzureMarketplace',
          ),
        ],
      },
    ),
    osDisk: obj({
      sizeGiB: int32({ minimum: 16, maximum: 32767 }),
      diskStorageAccountType: enumOf(['Premium_LRS', 'PremiumV2_LRS', 'Standard_LRS', 'StandardSSD_LRS']),
      encryptionSetID: str({ minLength: 1, maxLength: 285 }),
      persistence: enumOf(['Persistent', 'Ephemeral']),
    }),
    availabilityZone: str({ maxLength: 255, 'x-kubernetes-validations': [{ rule: "self in ['1', '2', '3']" }] }),
    encryptionAtHost: enumOf(['Enabled', 'Disabled'], { default: 'Enabled' }),
    subnetID: str({ minLength: 1, maxLength: 355 }),
    diagnostics: opaque('diagnostics configures boot diagnostics storage.'),
  },
  { description: 'azure specifies the configuration used when using Azure platform.', required: ['vmSize', 'image', 'osDisk', 'subnetID'] },
);

/** hyperv1.PowerVSNodePoolPlatform. */
const powervsSchema: JSONSchemaProps = obj(
  {
    systemType: str({ default: 's922', maxLength: 255 }),
    processorType: enumOf(['dedicated', 'shared', 'capped'], { default: 'shared' }),
    processors: intOrString({ default: '0.5' }),
    memoryGiB: int32({ default: 32 }),
    image: obj({ id: str({ maxLength: 255 }), name: str({ maxLength: 255 }) }),
    storageType: enumOf(['tier1', 'tier3'], { default: 'tier1' }),
    imageDeletePolicy: enumOf(['delete', 'retain'], { default: 'delete' }),
  },
  { description: 'powervs specifies the configuration used when using IBMCloud PowerVS platform.' },
);

/** hyperv1.OpenStackNodePoolPlatform. */
const openstackSchema: JSONSchemaProps = obj(
  {
    flavor: str({ description: 'flavor is the OpenStack flavor for node instances.' }),
    imageName: str(),
    availabilityZone: str({ minLength: 1, maxLength: 63, pattern: '^[^: ]*$' }),
    additionalPorts: arr(
      obj(
        {
          network: openstackNetworkParam('network is a query for the OpenStack network the port is created or discovered on.'),
          description: str(),
          allowedAddressPairs: arr(obj({ ipAddress: str() }, { required: ['ipAddress'] })),
          vnicType: str({ description: 'vnicType: normal, macvtap, direct, baremetal, direct-physical, virtio-forwarder, smart-nic, remote-managed (not validated).' }),
          portSecurityPolicy: enumOf(['Enabled', 'Disabled', '']),
        },
        { description: 'PortSpec: an additional port on the node instances.' },
      ),
    ),
  },
  { description: 'openstack specifies the configuration used when using OpenStack platform.', required: ['flavor'] },
);

/** hyperv1.NodePoolPlatform (`spec.platform`). */
export const nodePoolPlatformSchema: JSONSchemaProps = obj(
  {
    type: platformTypeSchema('NodePool'),
    aws: awsSchema,
    ibmcloud: ibmcloudSchema,
    kubevirt: kubevirtSchema,
    agent: obj(
      { agentLabelSelector: labelSelectorSchema('agentLabelSelector selects the Agents that become Machines of this pool.') },
      { description: 'agent specifies the configuration used when using Agent platform.' },
    ),
    azure: azureSchema,
    powervs: powervsSchema,
    openstack: openstackSchema,
    gcp: opaque('gcp specifies the configuration used when operating on GCP (GCPPlatform feature gate; not modelled here).'),
  },
  { description: 'platform specifies the underlying infrastructure provider for the NodePool.', required: ['type'] },
);
