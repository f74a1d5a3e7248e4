/**
 * The ManagementCluster CustomResourceDefinition (controlcenter.hcc.dev/v1alpha1, cluster-scoped): one
 * object per management cluster, `spec` written by admins (or created by the syncer on first start),
 * `status` written by that cluster's syncer every heartbeat. See DESIGN.md "Names that tests rely on".
 */
import {
  ControlCenterGroup,
  ControlCenterVersion,
  ManagementClusterModes,
  ManagementClusterTaintEffects,
  PlatformTypes,
  Resources,
} from '../names.js';
import type { CustomResourceDefinition, JSONSchemaProps } from './crd-types.js';
import { arr, bool, cel, enumOf, int32, obj, str } from './schema/builders.js';
import { conditionsSchema } from './schema/common.js';

const count = (description: string): JSONSchemaProps => int32({ description, minimum: 0 });

/** A Kubernetes qualified name (label key): an optional DNS-subdomain prefix and `/`, then up to 63 of `[A-Za-z0-9_.-]`, alphanumeric at both ends. */
const QualifiedNamePattern = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';

/** A Kubernetes label value: empty, or `[A-Za-z0-9_.-]` alphanumeric at both ends (63 at most, by maxLength). */
const LabelValuePattern = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';

const specSchema: JSONSchemaProps = obj(
  {
    platforms: arr(enumOf(PlatformTypes), {
      description: 'platforms lists the HyperShift platform types (spec.platform.type) this cluster can host. Empty: every platform.',
      'x-kubernetes-list-type': 'set',
    }),
    capacity: count('capacity is the most HostedClusters this cluster may hold.'),
    unschedulable: bool({ description: 'unschedulable cordons the cluster: no new placements, existing ones stay.' }),
    mode: enumOf(ManagementClusterModes, {
      description: 'mode is Pull (the syncer runs in the management cluster) or Push (the control center reaches it with kubeconfigSecretRef).',
      default: 'Pull',
    }),
    kubeconfigSecretRef: obj(
      {
        name: str({ minLength: 1, maxLength: 253 }),
        namespace: str({ maxLength: 63, description: 'namespace of the Secret; defaults to hcc-system.' }),
        key: str({ maxLength: 253, description: 'key in the Secret holding the kubeconfig; defaults to kubeconfig.' }),
      },
      { description: 'kubeconfigSecretRef points at a Secret in the control center holding a kubeconfig for the cluster (Push mode).', required: ['name'] },
    ),
    pullCRDs: bool({
      description:
        "pullCRDs lets this cluster's syncer (hcc syncer --pull-crds) replace the control center's HostedCluster and NodePool CRDs with newer ones from this cluster, which then validate every HostedCluster of the fleet. An admin's choice: a syncer may not set it.",
    }),
    // Validated as kube-apiserver validates a Node's taints (validateNodeTaints): the key a
    // qualified name, the value a label value, one taint per key and effect; a toleration for
    // a taint that passed nothing of this could never be written.
    taints: arr(
      obj(
        {
          key: str({ minLength: 1, maxLength: 316, pattern: QualifiedNamePattern, description: 'key is a qualified name, as a label key.' }),
          value: str({ maxLength: 63, pattern: LabelValuePattern, description: 'value is a label value.' }),
          effect: enumOf(ManagementClusterTaintEffects),
        },
        { required: ['key', 'effect'] },
      ),
      {
        description: 'taints keep HostedClusters away unless they tolerate them.',
        'x-kubernetes-list-type': 'atomic',
        maxItems: 64,
        'x-kubernetes-validations': [cel('self.all(t, self.exists_one(u, u.key == t.key && u.effect == t.effect))', 'taints must be unique by key and effect pair')],
      },
    ),
  },
  {
    description: 'spec is the desired state of the ManagementCluster.',
    'x-kubernetes-validations': [
      cel("!has(self.mode) || self.mode != 'Push' || has(self.kubeconfigSecretRef)", 'kubeconfigSecretRef is required when mode is Push'),
    ],
  },
);

const statusSchema: JSONSchemaProps = obj(
  {
    conditions: conditionsSchema('conditions: Ready reports whether the syncer heartbeats are current; DuplicateCluster=True that another ManagementCluster, registered earlier, reports the same management cluster (clusterID), so this one takes no new HostedClusters.'),
    lastHeartbeatTime: str({ format: 'date-time', description: "lastHeartbeatTime is the RFC 3339 time of the syncer's last heartbeat." }),
    leaseDurationSeconds: int32({
      description:
        "leaseDurationSeconds is how long the syncer's heartbeat stays current after lastHeartbeatTime, in seconds: the leaseDurationSeconds of its Lease hcc-system/<name> (4 times its heartbeat interval). The scheduler marks the cluster not ready only after the longer of this and its own --heartbeat-grace.",
      minimum: 1,
    }),
    namespaces: count('namespaces is the number of namespaces in the management cluster.'),
    hostedClusters: count('hostedClusters is the number of HostedClusters the cluster holds.'),
    syncedHostedClusters: count(
      'syncedHostedClusters is how many of hostedClusters are copies the syncer made of HostedClusters placed here; the rest were created in the cluster directly. The scheduler counts its placements against this number, so HostedClusters it does not know about never make room for more.',
    ),
    budget: int32({ description: 'budget is the number of free slots: how many more HostedClusters the cluster can take.' }),
    observedGeneration: {
      type: 'integer',
      format: 'int64',
      minimum: 0,
      description:
        'observedGeneration is the metadata.generation of the spec the last heartbeat computed budget from. While it is below metadata.generation (capacity changed since), the scheduler takes spec.capacity minus the HostedClusters held instead of budget.',
    },
    syncerVersion: str(),
    clusterID: str({
      description:
        "clusterID is the management cluster's ID, the uid of its kube-system namespace, as its syncer observed it. Of the live ManagementClusters reporting one clusterID (one cluster under two names), only the one created first takes new HostedClusters; the others have the condition DuplicateCluster=True (and stay Ready: their syncers serve what is placed on them).",
      maxLength: 128,
    }),
    supportedVersions: arr(str(), { description: "supportedVersions lists the OCP minor versions (4.17, ...) the cluster's HyperShift operator supports." }),
    platforms: arr(str(), { description: 'platforms lists the platform types the syncer observed the cluster can host.' }),
  },
  { description: 'status is written by the syncer of this cluster.' },
);

/** `managementclusters.controlcenter.hcc.dev`. Treat as read-only; `structuredClone` before changing it. */
export const managementClusterCRD: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${Resources.managementClusters}.${ControlCenterGroup}` },
  spec: {
    group: ControlCenterGroup,
    names: {
      kind: 'ManagementCluster',
      listKind: 'ManagementClusterList',
      plural: Resources.managementClusters,
      singular: 'managementcluster',
      shortNames: ['mc'],
    },
    scope: 'Cluster',
    versions: [
      {
        name: ControlCenterVersion,
        served: true,
        storage: true,
        additionalPrinterColumns: [
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Syncer heartbeat current' },
          { name: 'Budget', type: 'integer', jsonPath: '.status.budget', description: 'Free HostedCluster slots' },
          { name: 'Hosted', type: 'integer', jsonPath: '.status.hostedClusters', description: 'HostedClusters held' },
          { name: 'Capacity', type: 'integer', jsonPath: '.spec.capacity', description: 'Most HostedClusters allowed', priority: 1 },
          { name: 'Platforms', type: 'string', jsonPath: '.spec.platforms', description: 'Platform types it can host', priority: 1 },
          { name: 'Cluster ID', type: 'string', jsonPath: '.status.clusterID', description: "The management cluster's kube-system namespace uid", priority: 1 },
          { name: 'Mode', type: 'string', jsonPath: '.spec.mode', description: 'Pull (syncer in the cluster) or Push (syncer next to the control center)', priority: 1 },
          { name: 'Cordoned', type: 'boolean', jsonPath: '.spec.unschedulable', description: 'No new placements', priority: 1 },
          { name: 'Deleting', type: 'date', jsonPath: '.metadata.deletionTimestamp', description: 'Being deleted for (its syncer tears down what it hosts first)', priority: 1 },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: obj(
            { apiVersion: str(), kind: str(), metadata: { type: 'object' }, spec: specSchema, status: statusSchema },
            { description: 'ManagementCluster is a cluster running the HyperShift operator that hcc may place HostedClusters on.' },
          ),
        },
        subresources: { status: {} },
      },
    ],
  },
};
