/**
 * TypeScript shapes of the Kubernetes objects hcc handles. Only the fields hcc reads or writes are
 * typed; everything else passes through untouched (`[key: string]: unknown`).
 */

/** metav1.ObjectMeta, as JSON. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** metav1.OwnerReference, as JSON: the owner of an object, in the same namespace or cluster-scoped. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** metav1.Condition. `lastTransitionTime` is RFC 3339. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/** A reference to an object in the same namespace by name (corev1.LocalObjectReference). */
export interface LocalObjectReference {
  name?: string;
}

/** hypershift.openshift.io/v1beta1 HostedCluster (fields hcc uses). */
export interface HostedCluster extends KubeObject {
  spec: {
    release?: { image?: string };
    platform?: { type?: string; [key: string]: unknown };
    pullSecret?: LocalObjectReference;
    sshKey?: LocalObjectReference;
    clusterID?: string;
    infraID?: string;
    [key: string]: unknown;
  };
  status?: {
    conditions?: Condition[];
    version?: {
      desired?: { image?: string; version?: string };
      history?: { state?: string; version?: string; image?: string; startedTime?: string; completionTime?: string }[];
      observedGeneration?: number;
      [key: string]: unknown;
    };
    kubeconfig?: LocalObjectReference;
    kubeadminPassword?: LocalObjectReference;
    [key: string]: unknown;
  };
}

/** hypershift.openshift.io/v1beta1 NodePool (fields hcc uses). */
export interface NodePool extends KubeObject {
  spec: {
    clusterName: string;
    replicas?: number;
    release?: { image?: string };
    platform?: { type?: string; [key: string]: unknown };
    config?: LocalObjectReference[];
    tuningConfig?: LocalObjectReference[];
    management?: { upgradeType?: 'Replace' | 'InPlace'; [key: string]: unknown };
    [key: string]: unknown;
  };
  status?: {
    conditions?: Condition[];
    replicas?: number;
    version?: string;
    [key: string]: unknown;
  };
}

/** Whether a syncer runs inside the management cluster (Pull) or next to the control center (Push). */
export type ManagementClusterMode = 'Pull' | 'Push';

/** controlcenter.hcc.dev/v1alpha1 ManagementCluster (cluster-scoped). See DESIGN.md. */
export interface ManagementCluster extends KubeObject {
  spec: {
    /** HyperShift platform types this cluster can host. Empty or absent: every platform. */
    platforms?: string[];
    /** Most HostedClusters the cluster may hold (a count). */
    capacity?: number;
    /** Cordon: no new placements when true. */
    unschedulable?: boolean;
    mode?: ManagementClusterMode;
    kubeconfigSecretRef?: { name: string; namespace?: string; key?: string };
    /** The admin lets this cluster's syncer (`--pull-crds`) replace the HostedCluster and NodePool CRDs with newer ones. */
    pullCRDs?: boolean;
    /** Taints repel HostedClusters that do not tolerate them (NoSchedule) or make the cluster a last resort (PreferNoSchedule). */
    taints?: { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' }[];
    [key: string]: unknown;
  };
  status?: {
    conditions?: Condition[];
    /** RFC 3339 time of the syncer's last heartbeat. */
    lastHeartbeatTime?: string;
    /**
     * How long the syncer's heartbeat stays current after `lastHeartbeatTime`, in seconds: the
     * `leaseDurationSeconds` of its Lease `hcc-system/<name>` (4 × its heartbeat interval). The
     * scheduler marks the cluster not ready after max(its `--heartbeat-grace`, this). Absent
     * (syncers before it was added): the scheduler's grace alone.
     */
    leaseDurationSeconds?: number;
    /** Namespaces in the management cluster (a count). */
    namespaces?: number;
    /** HostedClusters the cluster holds (a count). */
    hostedClusters?: number;
    /**
     * How many of `hostedClusters` are the syncer's copies of HostedClusters placed here (a
     * count); the rest were created in the cluster directly. Absent (syncers before it was
     * added): taken as `hostedClusters`.
     */
    syncedHostedClusters?: number;
    /** Free slots: how many more HostedClusters the cluster can take (a count). */
    budget?: number;
    /**
     * The `metadata.generation` of the spec the last heartbeat computed `budget` from. Below the
     * current generation (capacity changed since), the scheduler computes the budget from
     * `spec.capacity` itself. Absent (syncers before it was added): `budget` is taken as is.
     */
    observedGeneration?: number;
    syncerVersion?: string;
    /**
     * The management cluster's ID: the uid of its `kube-system` namespace (Karmada's cluster ID),
     * as its syncer observed it. Two ManagementClusters with one ID are one cluster under two
     * names (same-cluster.ts). Absent: not observed yet (or a syncer before it was added).
     */
    clusterID?: string;
    /** Release versions (`4.14`, ...) the cluster's HyperShift operator supports. */
    supportedVersions?: string[];
    /** Platform types the syncer observed the cluster can host (reported, unlike the desired `spec.platforms`). */
    platforms?: string[];
    [key: string]: unknown;
  };
}
