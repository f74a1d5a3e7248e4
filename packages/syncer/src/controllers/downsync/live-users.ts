/**
 * Which HostedClusters placed on this management cluster use a Secret or ConfigMap and are not
 * being deleted: the ones a same-named Secret or ConfigMap there may be taken over for
 * (downsync-reconcile-apply.ts, `referencedHere`).
 */
import type { KubeObject, NodePool } from '@hcc/crds';
import type { ReferencingObject } from './types.js';

/**
 * The names of the HostedClusters among `users` (the HostedClusters and NodePools in one namespace
 * that reference the object, as the upstream informers show them) that are not being deleted: a
 * HostedCluster directly, a NodePool through its `spec.clusterName`, counted only when that
 * HostedCluster is known (`hostedCluster`, the upstream informer's lookup by name in the same
 * namespace) and neither it nor the NodePool is being deleted. A teardown takes nothing over: the
 * copy would get the control center's data just as the last user goes, and be released at once.
 */
export function liveUsersHere(users: Iterable<ReferencingObject>, hostedCluster: (name: string) => KubeObject | undefined): Set<string> {
  const live = new Set<string>();
  for (const u of users) {
    if (u.obj.metadata.deletionTimestamp) continue;
    const hc = u.kind === 'HostedCluster' ? u.obj : hostedCluster((u.obj as NodePool).spec?.clusterName ?? '');
    if (hc && !hc.metadata.deletionTimestamp) live.add(hc.metadata.name ?? '');
  }
  return live;
}
