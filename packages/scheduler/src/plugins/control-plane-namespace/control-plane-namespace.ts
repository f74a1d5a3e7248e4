/**
 * ControlPlaneNamespace filter: HyperShift puts a HostedCluster's control plane in the namespace
 * `<namespace>-<name>` of its management cluster, and the syncer copies the HostedCluster itself
 * (with its NodePools and Secrets) into `<namespace>` there. So on one cluster:
 * - two HostedClusters whose names join to the same string (`a-b/c` and `a/b-c` both give `a-b-c`)
 *   must never meet;
 * - a HostedCluster's control-plane namespace must not be a namespace other HostedClusters live
 *   in, nor its namespace another's control-plane namespace (`clusters/a` has its control plane
 *   in `clusters-a`; a HostedCluster in namespace `clusters-a` placed beside it would be deleted
 *   with that control plane);
 * - neither namespace may be one of the cluster's own (`kube/system` → `kube-system`; a
 *   HostedCluster in `hypershift` or `hcc-system`, whose copy the syncer refuses).
 * The cache keeps, per cluster, the control-plane namespace names and the namespaces of
 * everything bound or assumed there.
 * @see https://hypershift.pages.dev/reference/concepts-and-personas/ (HostedControlPlane namespace)
 */
import { controlPlaneNamespaceName, isReservedNamespace, type HostedCluster } from '@hcc/crds';
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.ControlPlaneNamespace;
/** Reason, e.g. `control-plane namespace a-b-c already in use`. */
export const errReasonInUse = (ns: string): string => `control-plane namespace ${ns} already in use`;

/** Reason when the control-plane namespace is one HostedClusters placed there live in. */
export const errReasonTenantNamespace = (ns: string): string => `control-plane namespace ${ns} holds other HostedClusters there`;

/** Reason when the HostedCluster's own namespace is another's control-plane namespace there. */
export const errReasonInControlPlane = (ns: string): string => `namespace ${ns} is the control-plane namespace of a HostedCluster there`;

/** Reason when the control-plane namespace is one of a cluster's own (Kubernetes', OpenShift's, HyperShift's, hcc's). */
export const errReasonReserved = (ns: string): string => `control-plane namespace ${ns} is reserved on every management cluster`;

/**
 * Namespaces never a control plane's: the management cluster's own (isReservedNamespace, where
 * the syncer never writes: a HostedCluster in one is placed nowhere, as its copy would be refused
 * everywhere while holding a slot) and `default`.
 */
export const reservedControlPlaneNamespace = (ns: string): boolean => ns === 'default' || isReservedNamespace(ns);

/** Reason when the HostedCluster's own namespace is reserved. */
export const errReasonReservedNamespace = (ns: string): string => `namespace ${ns} is reserved on every management cluster`;

/** Reason when `<namespace>-<name>` exceeds the 63 characters of a namespace name. */
export const errReasonTooLong = (ns: string): string => `control-plane namespace ${ns} is longer than 63 characters`;

/** The control-plane namespace name of a HostedCluster: `<namespace>-<name>`. */
export const controlPlaneNamespaceOf = (hc: HostedCluster): string => controlPlaneNamespaceName(hc.metadata.namespace ?? '', hc.metadata.name ?? '');

// A cycle filters one HostedCluster against every cluster in turn: its namespace name is built once.
let lastHC: HostedCluster | undefined;
let lastNS = '';
const cachedNamespaceOf = (hc: HostedCluster): string => {
  if (hc !== lastHC) {
    lastNS = controlPlaneNamespaceOf(hc);
    lastHC = hc;
  }
  return lastNS;
};

/** The ControlPlaneNamespace filter plugin. */
export const controlPlaneNamespace = {
  name: Name,
  filter: (hc, cluster) => {
    const ns = cachedNamespaceOf(hc);
    // The namespace is a DNS label: a longer one can never be created on any cluster.
    if (ns.length > 63) return Status.unschedulable(errReasonTooLong(ns));
    if (isReservedNamespace(hc.metadata.namespace ?? '')) return Status.unschedulable(errReasonReservedNamespace(hc.metadata.namespace ?? ''));
    if (reservedControlPlaneNamespace(ns)) return Status.unschedulable(errReasonReserved(ns));
    if (cluster.controlPlaneNamespaces.has(ns)) return Status.unschedulable(errReasonInUse(ns));
    if (cluster.namespaces.has(ns)) return Status.unschedulable(errReasonTenantNamespace(ns));
    const own = hc.metadata.namespace ?? '';
    return cluster.controlPlaneNamespaces.has(own) ? Status.unschedulable(errReasonInControlPlane(own)) : Status.success();
  },
} satisfies FilterPlugin;
