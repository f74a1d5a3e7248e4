/**
 * The openAPIV3Schema of hypershift.openshift.io/v1beta1 HostedCluster: `spec` modelled after
 * HostedClusterSpec field by field, `status` permissive (typed where hcc reads it).
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go
 * @see https://hypershift.pages.dev/reference/api/#hypershift.openshift.io/v1beta1.HostedClusterSpec
 */
import type { JSONSchemaProps } from '../crd-types.js';
import {
  arr,
  bool,
  cel,
  enumOf,
  immutable,
  int32,
  int64,
  localObjectReference,
  obj,
  opaque,
  str,
  stringMap,
} from './builders.js';
import { conditionsSchema, permissiveStatus, releaseSchema, tolerationSchema } from './common.js';
import { configurationSchema } from './configuration.js';
import { etcdSchema, secretEncryptionSchema } from './etcd-encryption.js';
import { dnsSchema, networkingSchema, servicesSchema } from './networking.js';
import { platformSchema } from './platform.js';

const availabilityPolicy = (description: string, defaultValue: string, extra: JSONSchemaProps = {}) =>
  enumOf(['HighlyAvailable', 'SingleReplica'], { description, default: defaultValue, ...extra });

const pausedUntil = str({
  description: "pausedUntil pauses reconciliation until an RFC 3339 date, or while 'true'.",
  minLength: 4,
  maxLength: 35,
  'x-kubernetes-validations': [
    cel(
      "self.matches('^\\\\d{4}-\\\\d{2}-\\\\d{2}T\\\\d{2}:\\\\d{2}:\\\\d{2}.*$') || self in ['true', 'false', 'True', 'False']",
      "PausedUntil must be a date in RFC3339 format or 'True', 'true', 'False' or 'false'",
    ),
  ],
});

const optionalCapabilities = ['ImageRegistry', 'openshift-samples', 'Insights', 'baremetal', 'Console', 'NodeTuning', 'Ingress'];

/** hyperv1.ClusterAutoscaling (`spec.autoscaling`). */
const autoscalingSchema: JSONSchemaProps = obj(
  {
    scaling: enumOf(['ScaleUpOnly', 'ScaleUpAndScaleDown'], { default: 'ScaleUpAndScaleDown' }),
    scaleDown: obj({
      delayAfterAddSeconds: int32({ minimum: 0, maximum: 86400 }),
      delayAfterDeleteSeconds: int32({ minimum: 0, maximum: 86400 }),
      delayAfterFailureSeconds: int32({ minimum: 0, maximum: 86400 }),
      unneededDurationSeconds: int32({ minimum: 0, maximum: 86400 }),
      utilizationThresholdPercent: int32({ minimum: 0, maximum: 100 }),
    }),
    balancingIgnoredLabels: arr(str({ maxLength: 317 }), { maxItems: 64 }),
    maxNodesTotal: int32({ minimum: 0 }),
    maxPodGracePeriod: int32({ minimum: 0 }),
    maxNodeProvisionTime: str({ maxLength: 100, pattern: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$' }),
    maxFreeDifferenceRatioPercent: int32({ minimum: 0, maximum: 100 }),
    podPriorityThreshold: int32(),
    expanders: arr(enumOf(['LeastWaste', 'Priority', 'Random']), { minItems: 1, maxItems: 3 }),
  },
  {
    description: 'autoscaling specifies auto-scaling behavior that applies to all NodePools of this HostedCluster.',
    'x-kubernetes-validations': [
      cel("self.scaling == 'ScaleUpAndScaleDown' ? true : !has(self.scaleDown)", 'scaleDown can only be set when scaling is ScaleUpAndScaleDown'),
    ],
  },
);

/** `spec` of a HostedCluster. */
export const hostedClusterSpecSchema: JSONSchemaProps = obj(
  {
    release: releaseSchema('release specifies the desired OCP release payload for all the hosted cluster components.'),
    controlPlaneRelease: releaseSchema('controlPlaneRelease is like release but only for the components on the management cluster.'),
    clusterID: str({
      description: 'clusterID uniquely identifies this cluster: an RFC4122 UUID. Generated when empty; immutable once set.',
      minLength: 36,
      maxLength: 36,
      'x-kubernetes-validations': [
        cel(
          "self.matches('[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}')",
          'clusterID must be an RFC4122 UUID value (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx in hexadecimal digits)',
        ),
        cel('oldSelf == "" || self == oldSelf', 'clusterID is immutable'),
      ],
    }),
    infraID: str({
      description: 'infraID is a globally unique identifier for the cluster, used to tag cloud resources. Immutable once set.',
      minLength: 1,
      maxLength: 253,
      'x-kubernetes-validations': [
        cel(
          "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
          "infraID must consist of lowercase alphanumeric characters or '-', start and end with an alphanumeric character, and be between 1 and 253 characters",
        ),
        cel('oldSelf == "" || self == oldSelf', 'infraID is immutable'),
      ],
    }),
    updateService: str({ 'x-kubernetes-validations': [cel('isURL(self)', 'updateService must be a valid absolute URL')] }),
    channel: str({ minLength: 1, maxLength: 100, description: 'channel requests a non-default set of updates.' }),
    platform: platformSchema,
    kubeAPIServerDNSName: str({
      maxLength: 253,
      'x-kubernetes-validations': [
        cel(
          "self == \"\" || self.matches('^(?:(?:[a-zA-Z0-9-]+\\\\.)+[a-zA-Z]{2,}|[a-zA-Z0-9-]+)$')",
          'kubeAPIServerDNSName must be a valid URL name (e.g., api.example.com)',
        ),
      ],
    }),
    controllerAvailabilityPolicy: availabilityPolicy('controllerAvailabilityPolicy applies to critical control plane components.', 'HighlyAvailable', {
      'x-kubernetes-validations': [immutable('ControllerAvailabilityPolicy is immutable')],
    }),
    infrastructureAvailabilityPolicy: availabilityPolicy(
      'infrastructureAvailabilityPolicy applies to infrastructure services on the data plane.',
      'SingleReplica',
    ),
    dns: dnsSchema,
    networking: networkingSchema,
    autoscaling: autoscalingSchema,
    autoNode: opaque('autoNode configures automatic node provisioning (Karpenter; AutoNodeKarpenter feature gate).'),
    etcd: etcdSchema,
    services: servicesSchema,
    pullSecret: localObjectReference('pullSecret is a Secret with a .dockerconfigjson key: the OpenShift pull secret.'),
    sshKey: localObjectReference('sshKey is a Secret with an id_rsa.pub key: authorized SSH keys for the nodes.'),
    issuerURL: str({
      description: 'issuerURL is the OIDC issuer URL for ServiceAccount tokens. Immutable.',
      default: 'https://kubernetes.default.svc',
      maxLength: 255,
      'x-kubernetes-validations': [immutable('issuerURL is immutable'), cel('isURL(self)', 'issuerURL must be a valid absolute URL')],
    }),
    serviceAccountSigningKey: localObjectReference('serviceAccountSigningKey is a Secret with a "key" key: the token signing key.'),
    configuration: configurationSchema,
    operatorConfiguration: opaque('operatorConfiguration configures individual OCP operators (CVO, CNO, ingress).'),
    auditWebhook: localObjectReference('auditWebhook is a Secret with a webhook-kubeconfig key for the audit webhook.'),
    imageContentSources: arr(
      obj(
        {
          source: str({ maxLength: 255, description: 'source is the repository users refer to.' }),
          mirrors: arr(str({ maxLength: 255 }), { maxItems: 255, 'x-kubernetes-list-type': 'set' }),
        },
        { required: ['source'] },
      ),
      { description: 'imageContentSources specifies image mirrors for the nodes.', maxItems: 255 },
    ),
    additionalTrustBundle: localObjectReference('additionalTrustBundle is a ConfigMap with a ca-bundle.crt key added to the control plane and nodes.'),
    secretEncryption: secretEncryptionSchema,
    fips: bool({ description: "fips runs the cluster's nodes in FIPS mode. Immutable.", 'x-kubernetes-validations': [immutable('fips is immutable')] }),
    pausedUntil,
    olmCatalogPlacement: enumOf(['management', 'guest'], {
      default: 'management',
      'x-kubernetes-validations': [immutable('OLMCatalogPlacement is immutable')],
    }),
    nodeSelector: stringMap({
      description: 'nodeSelector is propagated to every control plane Deployment and StatefulSet.',
      'x-kubernetes-validations': [cel('size(self) <= 20', 'nodeSelector map can have at most 20 entries')],
    }),
    tolerations: arr(tolerationSchema, { description: 'tolerations are added to the control plane pods.', maxItems: 25 }),
    labels: stringMap({ description: 'labels are added to the control plane pods.', maxProperties: 20 }),
    capabilities: obj(
      {
        enabled: arr(enumOf(optionalCapabilities), {
          maxItems: 25,
          'x-kubernetes-list-type': 'atomic',
          'x-kubernetes-validations': [immutable('Enabled is immutable. Changes might result in unpredictable and disruptive behavior.')],
        }),
        disabled: arr(enumOf(optionalCapabilities), {
          maxItems: 25,
          'x-kubernetes-list-type': 'atomic',
          'x-kubernetes-validations': [
            immutable('Disabled is immutable. Changes might result in unpredictable and disruptive behavior.'),
            cel("!self.exists(cap, cap == 'Ingress') || self.exists(cap, cap == 'Console')", 'Ingress capability can only be disabled if Console capability is also disabled'),
          ],
        }),
      },
      {
        description: 'capabilities enables or disables optional components at install time. Immutable.',
        default: {},
        'x-kubernetes-validations': [
          immutable('Capabilities is immutable. Changes might result in unpredictable and disruptive behavior.'),
          cel(
            'has(self.enabled) && has(self.disabled) ? self.enabled.all(e, !(e in self.disabled)) : true',
            'Capabilities can not be both enabled and disabled at once.',
          ),
        ],
      },
    ),
  },
  {
    description: 'spec is the desired behavior of the HostedCluster.',
    required: ['etcd', 'networking', 'platform', 'pullSecret', 'release', 'services'],
    'x-kubernetes-validations': [
      cel(
        "self.platform.type == 'IBMCloud' ? size(self.services) >= 3 : size(self.services) >= 4",
        'spec.services in body should have at least 4 items or 3 for IBMCloud',
      ),
      cel(
        'self.platform.type != "IBMCloud" ? self.services == oldSelf.services : true',
        'Services is immutable. Changes might result in unpredictable and disruptive behavior.',
      ),
      cel('has(self.issuerURL) || !has(self.serviceAccountSigningKey)', 'If serviceAccountSigningKey is set, issuerURL must be set'),
    ],
  },
);

const versionHistoryEntry: JSONSchemaProps = {
  type: 'object',
  properties: {
    state: str(),
    version: str(),
    image: str(),
    verified: bool(),
    startedTime: str({ format: 'date-time' }),
    completionTime: str({ format: 'date-time', nullable: true }),
  },
  'x-kubernetes-preserve-unknown-fields': true,
};

/** `status` of a HostedCluster: typed where hcc reads it, anything else preserved. */
export const hostedClusterStatusSchema: JSONSchemaProps = permissiveStatus('status is the latest observed status of the HostedCluster.', {
  conditions: conditionsSchema('conditions represents the latest available observations of the control plane state.'),
  version: permissiveStatus('version is the status of the release version applied to the HostedCluster.', {
    desired: opaque('desired is the version the cluster is reconciling towards (image, version, channels, url).'),
    history: arr(versionHistoryEntry, { description: 'history lists the most recent versions applied, newest first.' }),
    observedGeneration: int64(),
    availableUpdates: arr(opaque(), { nullable: true }),
    conditionalUpdates: arr(opaque()),
  }),
  kubeconfig: localObjectReference('kubeconfig is the Secret holding the default admin kubeconfig.'),
  customKubeconfig: localObjectReference('customKubeconfig is the Secret holding the kubeconfig for kubeAPIServerDNSName.'),
  kubeadminPassword: localObjectReference('kubeadminPassword is the Secret holding the initial kubeadmin password.'),
  ignitionEndpoint: str({ maxLength: 1024 }),
  controlPlaneEndpoint: obj({ host: str(), port: int32() }),
  oauthCallbackURLTemplate: str({ maxLength: 1024 }),
  payloadArch: enumOf(['Multi', 'ARM64', 'AMD64', 'PPC64LE', 'S390X']),
  platform: opaque(),
  configuration: opaque(),
});

/** The complete openAPIV3Schema of HostedCluster v1beta1. */
export const hostedClusterSchema: JSONSchemaProps = obj(
  {
    apiVersion: str(),
    kind: str(),
    metadata: { type: 'object' },
    spec: hostedClusterSpecSchema,
    status: hostedClusterStatusSchema,
  },
  {
    description:
      'HostedCluster is the primary representation of a HyperShift cluster: an OpenShift control plane with no attached nodes; NodePools add workers.',
  },
);
