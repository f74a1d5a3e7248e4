/**
 * The names the HyperShift operator writes, as the sim writes them: condition types, reasons and
 * messages (spelled as in HyperShift's API, typos included), labels and annotations, and the names
 * of the objects it derives from a HostedCluster.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_conditions.go
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/nodepool_conditions.go
 */

/** HostedCluster condition types (hyperv1.ConditionType). */
export const HostedClusterConditions = {
  Available: 'Available',
  Progressing: 'Progressing',
  Degraded: 'Degraded',
  ReconciliationActive: 'ReconciliationActive',
  ReconciliationSucceeded: 'ReconciliationSucceeded',
  ValidConfiguration: 'ValidConfiguration',
  SupportedHostedCluster: 'SupportedHostedCluster',
  ValidReleaseImage: 'ValidReleaseImage',
  IgnitionEndpointAvailable: 'IgnitionEndpointAvailable',
  EtcdAvailable: 'EtcdAvailable',
  KubeAPIServerAvailable: 'KubeAPIServerAvailable',
  InfrastructureReady: 'InfrastructureReady',
} as const;

/** NodePool condition types. */
export const NodePoolConditions = {
  Ready: 'Ready',
  AutoscalingEnabled: 'AutoscalingEnabled',
  AutorepairEnabled: 'AutorepairEnabled',
  UpdateManagementEnabled: 'UpdateManagementEnabled',
  UpdatingVersion: 'UpdatingVersion',
  UpdatingConfig: 'UpdatingConfig',
  ValidReleaseImage: 'ValidReleaseImage',
  ReconciliationActive: 'ReconciliationActive',
  IgnitionEndpointAvailable: 'IgnitionEndpointAvailable',
  ValidMachineConfig: 'ValidMachineConfig',
  ValidTuningConfig: 'ValidTuningConfig',
  /** The NodePool's version is within the skew HyperShift supports with its HostedCluster's. */
  SupportedVersionSkew: 'SupportedVersionSkew',
} as const;

/** Condition reasons. */
export const Reasons = {
  AsExpected: 'AsExpected',
  StatusUnknown: 'StatusUnknown',
  NotFound: 'NotFound',
  WaitingForAvailable: 'WaitingForAvailable',
  SecretNotFound: 'SecretNotFound',
  InvalidImage: 'InvalidImage',
  Blocked: 'Blocked',
  /** Progressing=True (the reason is the type's name upstream, not a constant). */
  Progressing: 'Progressing',
  ReconciliationActive: 'ReconciliationActive',
  /** ReconciliationActive=False while `spec.pausedUntil` pauses it (util.ReconciliationPausedConditionReason). */
  ReconciliationPaused: 'ReconciliationPaused',
  /** Upstream's spelling, typo included (hostedcluster_controller.go / reconcile_status.go). */
  ReconciliationSucceeded: 'ReconciliatonSucceeded',
  ReconciliationError: 'ReconciliationError',
  EtcdQuorumAvailable: 'QuorumAvailable',
  EtcdWaitingForQuorum: 'EtcdWaitingForQuorum',
  WaitingOnInfrastructureReady: 'WaitingOnInfrastructureReady',
  IgnitionEndpointMissing: 'IgnitionEndpointMissing',
  /** CAPI MachineDeployment reasons bubbled up into NodePool Ready. */
  WaitingForAvailableMachines: 'WaitingForAvailableMachines',
  ScalingDown: 'ScalingDown',
  /** ValidMachineConfig / ValidTuningConfig = False (NodePoolValidationFailedReason). */
  ValidationFailed: 'ValidationFailed',
  /** SupportedVersionSkew = False (NodePoolUnsupportedSkewReason). */
  UnsupportedSkew: 'UnsupportedSkew',
} as const;

/** Condition messages worded as upstream's. */
export const Messages = {
  Available: 'The hosted control plane is available',
  WaitingForAvailable: 'Waiting for hosted control plane to be healthy',
  AtExpectedVersion: 'HostedCluster is at expected version',
  NotDegraded: 'The hosted cluster is not degraded',
  ControlPlaneNotFound: 'The hosted control plane is not found',
  ReconciliationActive: 'Reconciliation active on resource',
  ReconciliationSucceeded: 'Reconciliation completed successfully',
  ValidConfiguration: 'Configuration passes validation',
  SupportedHostedCluster: 'HostedCluster is supported by operator configuration',
  ValidReleaseImage: 'Release image is valid',
  AllIsWell: 'All is well',
} as const;

/** Field manager of every write the sim makes. */
export const FieldManager = 'hypershift-sim';

/**
 * Annotation on a NodePool: the hash of the config its machines run ({@link NodePoolConditions}
 * UpdatingConfig is True while the wanted config's hash differs), as HyperShift's nodepool controller
 * sets it when a rollout completes (`nodePoolAnnotationCurrentConfig`).
 */
export const AnnotationNodePoolCurrentConfig = 'hypershift.openshift.io/nodePoolCurrentConfig';

/** Annotation on objects the operator made for a HostedCluster; value: the HostedCluster key `namespace/name`. */
export const AnnotationHostedCluster = 'hypershift.openshift.io/cluster';
/** Label of the operator's supported-versions ConfigMap. */
export const LabelSupportedVersions = 'hypershift.openshift.io/supported-versions';

/** Namespace and name of the operator's supported-versions ConfigMap. */
export const OperatorNamespace = 'hypershift';
export const SupportedVersionsConfigMapName = 'supported-versions';
/** OCP minor versions the sim claims to support, newest first (the ConfigMap's `versions`). */
export const DefaultSupportedVersions: readonly string[] = ['4.22', '4.21', '4.20', '4.19', '4.18', '4.17', '4.16', '4.15', '4.14'];

/** Version reported for a release image whose tag holds no `x.y.z` (e.g. a digest). */
export const DefaultReleaseVersion = '4.16.0';
/** Base domain used when `spec.dns.baseDomain` is empty. */
export const DefaultBaseDomain = 'example.com';

/** Control-plane namespace of a HostedCluster: `<namespace>-<name>` (manifests.HostedControlPlaneNamespace). */
export { controlPlaneNamespaceName, LabelHostedControlPlane } from '@hcc/crds';
/** The Secrets HyperShift writes for a HostedCluster and points its status to, in its namespace. */
export { customKubeconfigSecretName, kubeadminPasswordSecretName, kubeconfigSecretName } from '@hcc/crds';
