/**
 * Placement admission: the label `controlcenter.hcc.dev/management-cluster` on HostedClusters and
 * NodePools is the scheduler's. Only users in the group `hcc:schedulers` may set it (once, from
 * absent to present, naming an existing ManagementCluster that is not being deleted, or for a
 * NodePool, the one its HostedCluster is placed on); nobody may change or remove it
 * afterwards — a running control plane is not moved by editing a label (like a Pod's
 * `spec.nodeName`, set through the binding subresource and immutable). Pin a HostedCluster with
 * the selector annotation `controlcenter.hcc.dev/management-cluster-selector` instead.
 */
import { HyperShiftGroup, LabelManagementCluster, ManagementClusterResource, SchedulersGroup, type KubeObject } from '@hcc/crds';
import * as field from '../../../apierrors/field.js';
import type { ValidatingAdmission } from '../admission.js';
import { storageKey } from '../../../registry/types.js';
import { placementOfHostedCluster } from '../../placement-lookup.js';

/** A NodePool's `spec.clusterName` ('' when absent). */
const nodePoolClusterName = (obj: KubeObject): string => {
  const name = (obj.spec as { clusterName?: unknown } | undefined)?.clusterName;
  return typeof name === 'string' ? name : '';
};

export { SchedulersGroup };

const labelPath = `metadata.labels[${LabelManagementCluster}]`;
const placed = new Set(['hostedclusters', 'nodepools']);

/**
 * The plugin above, on HostedCluster and NodePool writes (deletes pass): a field error `forbidden` when the label changes
 * or is removed, or is set by a user outside `hcc:schedulers`; `invalid` when it names no ManagementCluster or one being
 * deleted. Never throws.
 */
export const placementAdmission: ValidatingAdmission = {
  name: 'Placement',
  validate({ info, operation, obj, old, user, store }) {
    if (operation === 'DELETE') return [];
    if (info.group !== HyperShiftGroup || !placed.has(info.resource)) return [];
    const want = obj.metadata.labels?.[LabelManagementCluster];
    const had = old?.metadata.labels?.[LabelManagementCluster];
    if (want === had) return [];
    const nodePool = info.resource === 'nodepools';
    if (had !== undefined) {
      const why = nodePool ? 'a NodePool stays with its HostedCluster, and a placed HostedCluster never moves' : 'a placed HostedCluster never moves';
      // A manifest exported from another placement brings its old label back with every apply:
      // say how to stop that (a create drops the label, and forgets it was applied).
      const fix = user.groups.includes(SchedulersGroup) ? '' : '; leave this label out of the manifests you apply or replace: it is the scheduler\'s';
      return [field.forbidden(labelPath, `the placement is immutable once set (it is ${JSON.stringify(had)}); ${why}${fix}`)];
    }
    if (!user.groups.includes(SchedulersGroup)) {
      const why = nodePool
        ? "only the scheduler places NodePools (with their HostedCluster); to choose management clusters, set the annotation controlcenter.hcc.dev/management-cluster-selector on the HostedCluster"
        : 'only the scheduler places HostedClusters; to choose management clusters, set the annotation controlcenter.hcc.dev/management-cluster-selector';
      return [field.forbidden(labelPath, why)];
    }
    const mc = want ? store.get(storageKey(ManagementClusterResource, '', want)) : undefined;
    if (!mc) return [field.invalid(labelPath, want ?? '', 'no such ManagementCluster')];
    // A NodePool follows its HostedCluster onto a cluster being deleted: the HostedCluster is
    // still served there until it goes, and a NodePool added meanwhile belongs with it.
    if (mc.object.metadata.deletionTimestamp && !(nodePool && placementOfHostedCluster(store, obj.metadata.namespace ?? '', nodePoolClusterName(obj)) === want)) {
      return [field.invalid(labelPath, want!, 'the ManagementCluster is being deleted and takes no new placements')];
    }
    return [];
  },
};
