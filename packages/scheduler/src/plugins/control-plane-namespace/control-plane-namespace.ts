/**
 * ControlPlaneNamespace filter: HyperShift puts a HostedCluster's control plane in the namespace
 * `<namespace>-<name>` of its management cluster, so two HostedClusters whose names join to the
 * same string (`a-b/c` and `a/b-c` both give `a-b-c`) must never share a cluster. The cache keeps,
 * per cluster, the control-plane namespace names of everything bound or assumed there.
 * @see https://hypershift.pages.dev/reference/concepts-and-personas/ (HostedControlPlane namespace)
 */
import type { HostedCluster } from '@hcc/crds';
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.ControlPlaneNamespace;
/** Reason, e.g. `control-plane namespace a-b-c already in use`. */
export const errReasonInUse = (ns: string): string => `control-plane namespace ${ns} already in use`;

/** Reason when `<namespace>-<name>` exceeds the 63 characters of a namespace name. */
export const errReasonTooLong = (ns: string): string => `control-plane namespace ${ns} is longer than 63 characters`;

/** The control-plane namespace name of a HostedCluster: `<namespace>-<name>`. */
export const controlPlaneNamespaceOf = (hc: HostedCluster): string => `${hc.metadata.namespace ?? ''}-${hc.metadata.name ?? ''}`;

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
    return cluster.controlPlaneNamespaces.has(ns) ? Status.unschedulable(errReasonInUse(ns)) : Status.success();
  },
} satisfies FilterPlugin;
