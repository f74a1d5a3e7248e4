/**
 * The openAPIV3Schema of hypershift.openshift.io/v1beta1 NodePool.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/nodepool_types.go
 * @see https://hypershift.pages.dev/reference/api/#hypershift.openshift.io/v1beta1.NodePoolSpec
 */
import type { JSONSchemaProps } from '../crd-types.js';
import { arr, bool, cel, duration, enumOf, immutable, int32, intOrString, localObjectReference, obj, str, stringMap } from './builders.js';
import { conditionsSchema, permissiveStatus, releaseSchema } from './common.js';
import { nodePoolPlatformSchema } from './nodepool-platform.js';

/** hyperv1.NodePoolManagement (`spec.management`). */
const managementSchema: JSONSchemaProps = obj(
  {
    upgradeType: enumOf(['Replace', 'InPlace'], {
      description: 'upgradeType is Replace (recreate instances) or InPlace (update existing instances). Immutable.',
      'x-kubernetes-validations': [immutable('UpgradeType is immutable')],
    }),
    replace: obj(
      {
        strategy: enumOf(['RollingUpdate', 'OnDelete']),
        rollingUpdate: obj({ maxUnavailable: intOrString(), maxSurge: intOrString() }),
      },
      {
        description: 'replace is the configuration for rolling upgrades.',
        default: { strategy: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        'x-kubernetes-validations': [
          cel(
            "!has(self.rollingUpdate) || self.strategy == 'RollingUpdate'",
            "The 'rollingUpdate' field can only be set when 'strategy' is 'RollingUpdate'",
          ),
        ],
      },
    ),
    inPlace: obj({ maxUnavailable: intOrString() }, { description: 'inPlace is the configuration for in-place upgrades.' }),
    autoRepair: bool({ default: false, description: 'autoRepair enables machine health checks that replace unhealthy machines.' }),
  },
  {
    description: 'management specifies upgrade and auto-repair behavior for the nodes in the pool.',
    required: ['upgradeType'],
    'x-kubernetes-validations': [
      cel("!has(self.inPlace) || self.upgradeType == 'InPlace'", "The 'inPlace' field can only be set when 'upgradeType' is 'InPlace'"),
    ],
  },
);

const taintSchema: JSONSchemaProps = obj(
  {
    key: str({
      minLength: 1,
      maxLength: 253,
      'x-kubernetes-validations': [
        cel(
          "self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\\\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$')",
          'key must be a qualified name with an optional subdomain prefix e.g. example.com/MyName',
        ),
      ],
    }),
    value: str({
      maxLength: 253,
      'x-kubernetes-validations': [
        cel(
          "self.matches('^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$')",
          "Value must start and end with alphanumeric characters and can only contain '-', '_', '.' in the middle",
        ),
      ],
    }),
    effect: enumOf(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
  },
  { required: ['key', 'effect'] },
);

/** `spec` of a NodePool. */
export const nodePoolSpecSchema: JSONSchemaProps = obj(
  {
    clusterName: str({
      description: 'clusterName is the name of the HostedCluster (same namespace) this NodePool belongs to. Immutable.',
      minLength: 1,
      maxLength: 253,
      'x-kubernetes-validations': [
        immutable('ClusterName is immutable'),
        cel(
          "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
          "clusterName must consist of lowercase alphanumeric characters or '-', start and end with an alphanumeric character, and be between 1 and 253 characters",
        ),
      ],
    }),
    release: releaseSchema('release specifies the OCP release used for this NodePool.'),
    platform: nodePoolPlatformSchema,
    replicas: int32({ description: 'replicas is the desired number of nodes; mutually exclusive with autoScaling.' }),
    management: managementSchema,
    autoScaling: obj(
      { min: int32({ minimum: 0 }), max: int32({ minimum: 1 }) },
      {
        description: 'autoScaling specifies auto-scaling behavior; mutually exclusive with replicas.',
        required: ['max', 'min'],
        'x-kubernetes-validations': [cel('self.max >= self.min', 'max must be equal or greater than min')],
      },
    ),
    config: arr(localObjectReference(), {
      description: 'config lists ConfigMaps (key "config") holding serialized MachineConfig-family objects for the nodes.',
      maxItems: 10,
    }),
    nodeDrainTimeout: duration({ description: 'nodeDrainTimeout bounds node drain retries (Go duration, 0s = no limit).' }),
    nodeVolumeDetachTimeout: duration({ description: 'nodeVolumeDetachTimeout bounds volume detach (Go duration, 0s = no limit).' }),
    nodeLabels: stringMap({ description: 'nodeLabels are applied to Nodes once, on creation.' }),
    taints: arr(taintSchema, { description: 'taints are applied to Nodes once, on creation.', maxItems: 50 }),
    pausedUntil: str({
      minLength: 1,
      maxLength: 35,
      'x-kubernetes-validations': [
        cel(
          "self.matches('^\\\\d{4}-\\\\d{2}-\\\\d{2}T\\\\d{2}:\\\\d{2}:\\\\d{2}.*$') || self in ['true', 'false', 'True', 'False']",
          "PausedUntil must be a date in RFC3339 format or 'True', 'true', 'False' or 'false'",
        ),
      ],
    }),
    tuningConfig: arr(localObjectReference(), {
      description: 'tuningConfig lists ConfigMaps (key "tuning") holding serialized Tuned or PerformanceProfile objects.',
      maxItems: 10,
    }),
    arch: enumOf(['arm64', 'amd64', 'ppc64le', 's390x'], {
      default: 'amd64',
      'x-kubernetes-validations': [immutable('Arch is immutable')],
    }),
    osImageStream: obj({ name: enumOf(['rhel-9', 'rhel-10']) }, { description: 'osImageStream selects the OS stream (OSStreams feature gate).' }),
  },
  {
    description: 'spec is the desired behavior of the NodePool.',
    required: ['clusterName', 'management', 'platform', 'release'],
    'x-kubernetes-validations': [
      cel('!has(oldSelf.arch) || has(self.arch)', 'Arch is required once set'),
      cel(
        "self.arch != 'arm64' || has(self.platform.aws) || has(self.platform.azure) || has(self.platform.agent) || self.platform.type == 'GCP' || self.platform.type == 'None'",
        'Setting Arch to arm64 is only supported for AWS, Azure, Agent, GCP and None',
      ),
      cel('!has(self.replicas) || !has(self.autoScaling)', 'Both replicas or autoScaling should not be set'),
      cel("self.arch != 's390x' || has(self.platform.kubevirt)", 's390x is only supported on KubeVirt platform'),
      cel(
        "!has(self.platform.aws) || !has(self.platform.aws.imageType) || self.platform.aws.imageType != 'Windows' || self.arch == 'amd64'",
        "ImageType 'Windows' requires arch 'amd64' (AWS only)",
      ),
      cel(
        "!has(self.autoScaling) || self.autoScaling.min > 0 || self.platform.type == 'AWS' || self.platform.type == 'Azure'",
        'Scale-from-zero (autoScaling.min=0) is currently only supported for AWS and Azure platforms',
      ),
    ],
  },
);

/** `status` of a NodePool: typed where hcc reads it (scale subresource, printer columns). */
export const nodePoolStatusSchema: JSONSchemaProps = permissiveStatus('status is the latest observed status of the NodePool.', {
  replicas: int32({ description: 'replicas is the latest observed number of nodes in the pool.' }),
  version: str({ maxLength: 64, description: 'version is the semantic version of the latest applied release.' }),
  conditions: conditionsSchema('conditions represents the latest available observations of the node pool state.'),
});

/** The complete openAPIV3Schema of NodePool v1beta1. */
export const nodePoolSchema: JSONSchemaProps = obj(
  {
    apiVersion: str(),
    kind: str(),
    metadata: { type: 'object' },
    spec: nodePoolSpecSchema,
    status: nodePoolStatusSchema,
  },
  { description: 'NodePool is a scalable set of worker nodes attached to a HostedCluster.' },
);
