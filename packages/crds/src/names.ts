/**
 * Names shared by every hcc component: API groups, labels, annotations, finalizers, condition
 * types and reasons. Import these; never spell them again. See DESIGN.md "Names that tests rely on".
 */

/** hcc's own API group and version (ManagementCluster lives here). */
export const ControlCenterGroup = 'controlcenter.hcc.dev';
export const ControlCenterVersion = 'v1alpha1';
export const ControlCenterAPIVersion = `${ControlCenterGroup}/${ControlCenterVersion}`;

/** HyperShift's API group and the one version current HyperShift serves. */
export const HyperShiftGroup = 'hypershift.openshift.io';
export const HyperShiftVersion = 'v1beta1';
export const HyperShiftAPIVersion = `${HyperShiftGroup}/${HyperShiftVersion}`;

/** Resource (lowercase plural) names. */
export const Resources = {
  hostedClusters: 'hostedclusters',
  nodePools: 'nodepools',
  managementClusters: 'managementclusters',
} as const;

/**
 * The group whose members may place HostedClusters (set the placement label, or bind): the
 * scheduler's identity, written by `hcc control-center --scheduler-kubeconfig`.
 */
export const SchedulersGroup = 'hcc:schedulers';

/**
 * The group of management-cluster syncers in the control center. A member whose user name is
 * {@link syncerUserName}`(X)` is the syncer of ManagementCluster X and may only touch what is
 * placed on X (the ManagementClusterRestriction admission and authorizer, after kube's
 * NodeRestriction and Node authorizer for `system:node:<name>` in `system:nodes`).
 * @see https://kubernetes.io/docs/reference/access-authn-authz/node/
 */
export const SyncersGroup = 'hcc:syncers';
/** Prefix of a syncer's user name in the control center: `hcc:syncer:<ManagementCluster name>`. */
export const SyncerUserPrefix = 'hcc:syncer:';
/** The control-center user name of the syncer of ManagementCluster `managementCluster`. */
export const syncerUserName = (managementCluster: string): string => `${SyncerUserPrefix}${managementCluster}`;
/**
 * How the control center's refusal of a syncer's read of a Secret or ConfigMap ends (`... may only
 * read Secrets that HostedClusters placed on it reference`): a syncer reads it as "nothing placed
 * on my cluster uses this any more" (the Node authorizer's answer to a kubelet, as a 403).
 */
export const SyncerReadRefusalEnd = 'that HostedClusters placed on it reference';

/** Placement label on a virtual HostedCluster and its NodePools; value: the ManagementCluster name. */
export const LabelManagementCluster = 'controlcenter.hcc.dev/management-cluster';

/**
 * Annotation on a HostedCluster holding a label selector (Kubernetes selector string syntax,
 * e.g. `region=us-east,provider in (aws)`) matched against ManagementCluster labels.
 */
export const AnnotationManagementClusterSelector = 'controlcenter.hcc.dev/management-cluster-selector';

/** Finalizer the syncer puts on virtual objects it replicated. */
export const FinalizerSyncer = 'controlcenter.hcc.dev/syncer';

/**
 * Finalizer the control center puts on a HostedCluster that was never placed when a delete
 * starts while NodePools name it (`spec.clusterName`): its NodePool cleanup deletes them, then
 * removes it, so a restart in between cannot leave them behind (as kube-apiserver adds
 * `foregroundDeletion` for the garbage collector).
 */
export const FinalizerNodePools = 'controlcenter.hcc.dev/nodepools';

/**
 * Per-cluster state label on Secrets and ConfigMaps referenced by objects placed on a
 * management cluster, after kcp's `state.workload.kcp.io/<syncTarget>` labels: key
 * `state.controlcenter.hcc.dev/<ManagementCluster name>`, value {@link StateSync}.
 * The syncer of that cluster watches with this label as its selector.
 * @param managementCluster - ManagementCluster name (a DNS label, at most 63 characters)
 */
export const stateLabelKey = (managementCluster: string): string =>
  `state.controlcenter.hcc.dev/${managementCluster}`;
/** Value of the {@link stateLabelKey} label: the object is to be synced to that management cluster (kcp's `Sync` state). */
export const StateSync = 'Sync';

/** Label the syncer puts on every object it created downstream; value: ManagementCluster name. */
export const LabelSyncedBy = 'controlcenter.hcc.dev/synced-by';
/** Annotation on downstream copies: the upstream object's uid. */
export const AnnotationUpstreamUID = 'controlcenter.hcc.dev/upstream-uid';
/**
 * Annotation on a downstream Secret or ConfigMap that existed before hcc copied one of the same
 * name over it (taken over): when nothing places it there any more, hcc releases it (removes its
 * own label and annotations) instead of deleting it.
 */
export const AnnotationAdopted = 'controlcenter.hcc.dev/adopted';
/**
 * Annotation a management cluster's admin puts on a Secret or ConfigMap there (value `"true"`) to
 * let hcc take it over when a HostedCluster placed there references one of the same name; without
 * it, hcc never overwrites a Secret or ConfigMap it did not create (as Karmada's default
 * `conflictResolution: Abort`).
 */
export const AnnotationAdoptable = 'controlcenter.hcc.dev/adoptable';
/**
 * Annotation on a Secret or ConfigMap copy that one control center's syncer released because a
 * copy of another control center uses it (value: the releasing control center's ID): that other
 * control center's syncer takes it over as its own copy (deleted when no longer needed), not as
 * something the management cluster had (adopted, released when no longer needed).
 */
export const AnnotationHandedOver = 'controlcenter.hcc.dev/handed-over-by';
/**
 * Annotation on everything a syncer makes in a management cluster (copies, namespaces): the ID of
 * the control center it serves, the uid of that control center's `kube-system` namespace (as
 * Karmada identifies a member cluster by its kube-system uid). The label
 * {@link LabelSyncedBy} names the ManagementCluster, which two control centers (prod and
 * staging, or one started again on an empty data dir) may both call a cluster; this tells their
 * copies apart, so neither deletes or overwrites the other's.
 * @see https://github.com/karmada-io/karmada/blob/master/pkg/util/cluster.go (ObtainClusterID)
 */
export const AnnotationControlCenter = 'controlcenter.hcc.dev/control-center-id';
/**
 * Annotation beside {@link AnnotationControlCenter}: a digest of that ID and what the object is a
 * copy of (its upstream uid; a namespace's name), so that an ID edited by hand on one object
 * (changed, or removed without this) is told from one a syncer wrote.
 */
export const AnnotationControlCenterSeal = 'controlcenter.hcc.dev/control-center-seal';
/** Annotation on downstream copies: the upstream object's metadata.generation they were built from. */
export const AnnotationUpstreamGeneration = 'controlcenter.hcc.dev/upstream-generation';

/** Label on Secrets a syncer copied up from its management cluster; value: the ManagementCluster name. */
export const LabelUpsyncedFrom = 'controlcenter.hcc.dev/upsynced-from';
/**
 * Annotation on a status Secret the syncer copied up: the SHA-256 (hex) of the type and data it
 * wrote. A copy whose content no longer matches it was edited in the control center, which a
 * syncer that (re)starts sees in its cache without reading the management cluster's Secret.
 */
export const AnnotationCopiedContent = 'controlcenter.hcc.dev/copied-content';

/** Secret holding a HostedCluster's admin kubeconfig, in its namespace (`status.kubeconfig`). */
export const kubeconfigSecretName = (name: string): string => `${name}-admin-kubeconfig`;
/** Secret holding a HostedCluster's kubeadmin password, in its namespace (`status.kubeadminPassword`). */
export const kubeadminPasswordSecretName = (name: string): string => `${name}-kubeadmin-password`;
/**
 * Secret holding the kubeconfig for a HostedCluster's `spec.kubeAPIServerDNSName`, in its
 * namespace (HyperShift's `<name>-custom-admin-kubeconfig`, pointed to by `status.customKubeconfig`).
 */
export const customKubeconfigSecretName = (name: string): string => `${name}-custom-admin-kubeconfig`;

/** Suffixes of the Secrets HyperShift writes for a HostedCluster ({@link hyperShiftStatusSecretNames}). */
const statusSecretSuffixes = [kubeconfigSecretName(''), kubeadminPasswordSecretName(''), customKubeconfigSecretName('')];

/**
 * The Secrets HyperShift writes for a HostedCluster `name` and points its status to (the only
 * ones a syncer copies up): the admin kubeconfig (`status.kubeconfig`), the kubeadmin password
 * (`status.kubeadminPassword`) and the kubeconfig for `spec.kubeAPIServerDNSName`
 * (`status.customKubeconfig`, `<name>-custom-admin-kubeconfig`).
 * @see https://hypershift.pages.dev/reference/api/#hypershift.openshift.io/v1beta1.HostedClusterStatus
 */
export const hyperShiftStatusSecretNames = (name: string): string[] => statusSecretSuffixes.map((s) => `${name}${s}`);

/**
 * The HostedClusters whose status Secret `secretName` would be ({@link hyperShiftStatusSecretNames}):
 * none, one, or two (`a-custom-admin-kubeconfig` is HostedCluster `a`'s custom kubeconfig and
 * `a-custom`'s admin kubeconfig).
 */
export function hostedClustersOfStatusSecret(secretName: string): string[] {
  return statusSecretSuffixes.filter((s) => secretName.endsWith(s) && secretName.length > s.length).map((s) => secretName.slice(0, -s.length));
}

/**
 * Annotation on a syncer's Lease `hcc-system/<cluster>`: the management cluster it serves, as the
 * uid of that cluster's `kube-system` namespace (Karmada's cluster ID). A syncer of another
 * cluster does not take over a live Lease of this one: two syncers given the same `--name` on
 * different clusters would otherwise both copy the same HostedClusters.
 */
export const AnnotationClusterID = 'controlcenter.hcc.dev/cluster-id';
/** Annotation on a CRD a syncer's `--pull-crds` copied up: the ManagementCluster it came from. */
export const AnnotationPulledFrom = 'controlcenter.hcc.dev/pulled-from';
/** The CRDs `--pull-crds` follows (and the only ones a syncer identity may update). */
export const PulledCRDs = [`hostedclusters.${HyperShiftGroup}`, `nodepools.${HyperShiftGroup}`] as const;

/**
 * HostedCluster spec fields HyperShift's operator generates when empty (`clusterID`, `infraID`),
 * which a syncer copies up (and the only spec a syncer identity may write).
 */
export const OperatorGeneratedSpecFields = ['clusterID', 'infraID'] as const;

/** Namespace in the control center holding syncer Leases and hcc's own Events. */
export const SystemNamespace = 'hcc-system';

/** Placement condition on a virtual HostedCluster. */
export const ConditionScheduled = 'Scheduled';
export const ReasonScheduled = 'Scheduled';
export const ReasonUnschedulable = 'Unschedulable';

/** ManagementCluster condition set from the syncer's heartbeat. */
export const ConditionReady = 'Ready';
export const ReasonHeartbeat = 'SyncerHeartbeat';
export const ReasonHeartbeatExpired = 'HeartbeatExpired';
/** Ready=Unknown on a ManagementCluster no syncer has reported for since it was created (longer than the grace period). */
export const ReasonSyncerNeverReported = 'SyncerNeverReported';
/** Ready=False written by a running syncer that cannot reach its management cluster's API (as a kubelet reports NodeReady=False). */
export const ReasonManagementClusterUnreachable = 'ManagementClusterUnreachable';
/** Normal Event a syncer records when its heartbeat makes a ManagementCluster Ready that was not (as a kubelet records `NodeReady`). */
export const ReasonManagementClusterReady = 'ManagementClusterReady';

/** HyperShift's condition types the control center reads and marks: a HostedCluster's `Available`, a NodePool's `Ready`. */
export const ConditionAvailable = 'Available';
/**
 * Reason of `Available=Unknown` (HostedCluster) and `Ready=Unknown` (NodePool) set by the scheduler
 * while the management cluster the object is placed on is not Ready: the rest of its status is
 * that cluster's last report, as kube's node lifecycle controller marks the pods of a lost Node.
 */
export const ReasonManagementClusterNotReady = 'ManagementClusterNotReady';
/** Reason of the Warning Event on a HostedCluster or NodePool whose deletion waits for the syncer of a management cluster that is not Ready. */
export const ReasonWaitingForManagementCluster = 'WaitingForManagementCluster';

/** HyperShift's own finalizer on HostedClusters and NodePools (added by its operator). */
export const FinalizerHyperShift = 'hypershift.openshift.io/finalizer';

/** HyperShift platform types (`spec.platform.type`). */
export const PlatformTypes = ['AWS', 'Azure', 'KubeVirt', 'Agent', 'None', 'IBMCloud', 'PowerVS', 'OpenStack', 'GCP'] as const;
/** One of {@link PlatformTypes}. */
export type PlatformType = (typeof PlatformTypes)[number];

/** ManagementCluster `spec.mode` values: Pull = syncer inside the cluster, Push = control center dials out. */
export const ManagementClusterModes = ['Pull', 'Push'] as const;

/** Effects a ManagementCluster `spec.taints[]` entry may carry (kube-scheduler's, minus NoExecute). */
export const ManagementClusterTaintEffects = ['NoSchedule', 'PreferNoSchedule'] as const;
/** One of {@link ManagementClusterTaintEffects}. */
export type ManagementClusterTaintEffect = (typeof ManagementClusterTaintEffects)[number];

/**
 * Annotation on a HostedCluster holding a JSON list of Kubernetes-style tolerations
 * (`[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]`) for
 * ManagementCluster `spec.taints`.
 */
export const AnnotationTolerations = 'controlcenter.hcc.dev/tolerations';

/** Annotation on a HostedCluster naming the scheduler profile that places it (default profile otherwise). */
export const AnnotationSchedulerProfile = 'controlcenter.hcc.dev/scheduler-profile';

/** Finalizer the scheduler keeps on a ManagementCluster while HostedClusters are placed on it. */
export const FinalizerPlacements = 'controlcenter.hcc.dev/placements';

/**
 * HyperShift's control-plane namespace of a HostedCluster in its management cluster:
 * `<namespace>-<name>` (manifests.HostedControlPlaneNamespace). Deleting the HostedCluster deletes it.
 */
export const controlPlaneNamespaceName = (namespace: string, name: string): string => `${namespace}-${name}`;

/** HyperShift's label on the control-plane namespaces its operator makes (value `"true"`). */
export const LabelHostedControlPlane = 'hypershift.openshift.io/hosted-control-plane';

/**
 * Namespaces of a management cluster hcc never writes into: Kubernetes' and OpenShift's own
 * (`kube-*`, `openshift`, `openshift-*`), the HyperShift operator's (`hypershift`) and hcc's
 * (`hcc-system`). A control center user may create any namespace there, and a namespace there is
 * the same namespace in the management cluster: without this, a Secret or ConfigMap named like the
 * operator's or the cluster's would replace it. The syncer refuses copies into them; the
 * scheduler places nothing there.
 */
export function isReservedNamespace(ns: string): boolean {
  return ns === 'hypershift' || ns === 'hcc-system' || ns.startsWith('kube-') || ns.startsWith('openshift-') || ns === 'openshift';
}
