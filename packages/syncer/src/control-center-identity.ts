/**
 * Which control center a syncer's copies in a management cluster belong to.
 *
 * A copy carries the ManagementCluster name it was made for (label
 * `controlcenter.hcc.dev/synced-by`) and the ID of the control center whose syncer made it
 * (annotation `controlcenter.hcc.dev/control-center-id`: the uid of that control center's
 * `kube-system` namespace, as Karmada identifies a cluster). Two control centers may call one
 * management cluster by the same name (prod and staging, or a control center started again on an
 * empty data dir); by the name alone each syncer would take the other's copies for its own and
 * delete those whose objects it does not hold. A syncer therefore deletes, overwrites and counts
 * only copies that carry its own control center's ID, or none (made before copies carried one:
 * taken as its own, and given the ID at its next write), or the ID of a control center it was
 * told to take over from (`hcc syncer --take-over-from`, after restoring a control center on a new
 * data dir); the copies of any other control center are left as they are and reported.
 * @see https://github.com/karmada-io/karmada/blob/master/pkg/util/cluster.go (ObtainClusterID)
 */
import { AnnotationControlCenter, AnnotationUpstreamUID, LabelSyncedBy, NamespaceResource, type KubeObject } from '@hcc/crds';
import type { RestClient } from '@hcc/client';

/** The control center a syncer serves, as its copies carry it. */
export interface ControlCenterIdentity {
  /** This control center's ID: the uid of its `kube-system` namespace. */
  id: string;
  /** IDs of other control centers whose copies this syncer takes as its own (and gives its ID at their next write). */
  takeOverFrom?: ReadonlySet<string>;
}

/**
 * The ID of the other control center whose copy `o` is, or undefined when it is not another's:
 * it carries this control center's ID, one in `takeOverFrom`, or none; or it is the copy of `up`,
 * an object of this control center (it carries `up`'s uid, which no other control center's object
 * has: an ID edited by hand on the copy does not make it another's). Without an identity (`cc`
 * undefined: a syncer that does not stamp) nothing is another's.
 */
export function otherControlCenter(cc: ControlCenterIdentity | undefined, o: KubeObject, up?: KubeObject): string | undefined {
  const id = o.metadata.annotations?.[AnnotationControlCenter];
  if (!cc || !id || id === cc.id || cc.takeOverFrom?.has(id)) return undefined;
  if (up?.metadata.uid && o.metadata.annotations?.[AnnotationUpstreamUID] === up.metadata.uid) return undefined;
  return id;
}

/**
 * Whether `o` in the management cluster is what this syncer made: labelled synced-by `cluster`,
 * and not another control center's ({@link otherControlCenter}; `up`, when known, is the object of
 * this control center it would be the copy of).
 */
export function isOwnCopy(cluster: string, cc: ControlCenterIdentity | undefined, o: KubeObject, up?: KubeObject): boolean {
  return o.metadata.labels?.[LabelSyncedBy] === cluster && otherControlCenter(cc, o, up) === undefined;
}

/**
 * Reads a control center's ID: the uid of its `kube-system` namespace (which a control center
 * creates at its first start and never lets anyone delete), with a GET the syncer's RBAC allows
 * (deploy/control-center/syncer-policy.yaml: `get` on namespaces, resourceNames `kube-system`).
 * @throws the client's error (a 403 when the policy lacks that rule), or when the namespace has no uid
 */
export async function readControlCenterID(upstream: Pick<RestClient, 'get'>): Promise<string> {
  const ns = await upstream.get<KubeObject>(NamespaceResource, undefined, 'kube-system');
  if (!ns.metadata.uid) throw new Error('the control center\'s kube-system namespace has no uid');
  return ns.metadata.uid;
}
