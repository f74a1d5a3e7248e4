/**
 * Which control center a syncer's copies in a management cluster belong to.
 *
 * A copy carries the ManagementCluster name it was made for (label
 * `controlcenter.hcc.dev/synced-by`) and the ID of the control center whose syncer made it
 * (annotation `controlcenter.hcc.dev/control-center-id`: the uid of that control center's
 * `kube-system` namespace, as Karmada identifies a cluster), sealed (`control-center-seal`, a
 * digest of the ID and the upstream uid) so that an ID edited by hand is not taken for one. Two control centers may call one
 * management cluster by the same name (prod and staging, or a control center started again on an
 * empty data dir); by the name alone each syncer would take the other's copies for its own and
 * delete those whose objects it does not hold. A syncer therefore deletes, overwrites and counts
 * only copies that carry its own control center's ID, or none (made before copies carried one:
 * taken as its own, and given the ID at its next write), or the ID of a control center it was
 * told to take over from (`hcc syncer --take-over-from`, after restoring a control center on a new
 * data dir); the copies of any other control center are left as they are and reported.
 * @see https://github.com/karmada-io/karmada/blob/master/pkg/util/cluster.go (ObtainClusterID)
 */
import { createHash } from 'node:crypto';
import { AnnotationControlCenter, AnnotationControlCenterSeal, AnnotationUpstreamUID, LabelSyncedBy, NamespaceResource, type KubeObject } from '@hcc/crds';
import type { RestClient } from '@hcc/client';

/** The control center a syncer serves, as its copies carry it. */
export interface ControlCenterIdentity {
  /** This control center's ID: the uid of its `kube-system` namespace. */
  id: string;
  /** IDs of other control centers whose copies this syncer takes as its own (and gives its ID at their next write). */
  takeOverFrom?: ReadonlySet<string>;
}

/** What a namespace's seal covers besides the ID (it is a copy of no upstream object): its name. */
export const namespaceSealSubject = (name: string): string => `namespace:${name}`;

/** What an object's seal covers besides the ID: the uid of the object it is a copy of, or, for a namespace, {@link namespaceSealSubject}. */
const sealSubject = (o: KubeObject): string => o.metadata.annotations?.[AnnotationUpstreamUID] ?? namespaceSealSubject(o.metadata.name ?? '');

/**
 * The seal of control center `id` on an object of seal subject `subject` (its upstream uid, or
 * {@link namespaceSealSubject}): the first 16 hex digits of SHA-256 over both. Not a secret: it
 * tells an ID a syncer wrote from one edited by hand (or copied from another object), not from a
 * forger.
 */
export function controlCenterSeal(id: string, subject: string): string {
  return createHash('sha256').update(`${id}\n${subject}`).digest('hex').slice(0, 16);
}

/** The annotations that stamp an object of seal subject `subject` ({@link controlCenterSeal}) as made by control center `id`: its ID and seal. */
export function controlCenterStamp(id: string, subject: string): Record<string, string> {
  return { [AnnotationControlCenter]: id, [AnnotationControlCenterSeal]: controlCenterSeal(id, subject) };
}

/**
 * The control center ID an object carries: `undefined` when it carries none (made before copies
 * carried one), `null` when what it carries was edited by hand (an ID without a matching seal, or
 * a seal without an ID), else the ID.
 */
export function stampedID(o: KubeObject): string | null | undefined {
  const id = o.metadata.annotations?.[AnnotationControlCenter];
  const seal = o.metadata.annotations?.[AnnotationControlCenterSeal];
  if (id === undefined && seal === undefined) return undefined;
  if (!id || seal !== controlCenterSeal(id, sealSubject(o))) return null;
  return id;
}

/**
 * The control center another control center's copy `o` is, for messages, or undefined when it is
 * not another's: it carries this control center's ID, one in `takeOverFrom`, or none (made before
 * copies carried one); or it is the copy of `up`, an object of this control center (it carries
 * `up`'s uid, which no other control center's object has: an ID edited by hand on the copy does not
 * make it another's; or this control center's ID sealed for `up`'s uid, its upstream uid removed or
 * changed by hand). An ID edited by hand (no matching seal) is never this control center's nor
 * one taken over: `edited (it reads X)`. Without an identity (`cc` undefined: a syncer that does
 * not stamp) nothing is another's.
 */
export function otherControlCenter(cc: ControlCenterIdentity | undefined, o: KubeObject, up?: KubeObject): string | undefined {
  if (!cc) return undefined;
  if (up?.metadata.uid && (o.metadata.annotations?.[AnnotationUpstreamUID] === up.metadata.uid || sealedFor(cc, o, up.metadata.uid))) return undefined;
  const id = stampedID(o);
  if (id === undefined || (id !== null && isServedID(cc, id))) return undefined;
  return id ?? `${EditedPrefix}${o.metadata.annotations?.[AnnotationControlCenter] ?? 'none'}`;
}

/**
 * Whether `o` carries this control center's ID (or one it takes over from) sealed for the object
 * of uid `upUID`: the copy of that object whatever its upstream-uid annotation now says (removed
 * or changed by hand), which no other control center's syncer could have sealed. Its syncer then
 * writes the uid back, instead of leaving the copy detached (its object's changes, and its
 * deletion, would never reach it).
 */
function sealedFor(cc: ControlCenterIdentity, o: KubeObject, upUID: string): boolean {
  const id = o.metadata.annotations?.[AnnotationControlCenter];
  return !!id && isServedID(cc, id) && o.metadata.annotations?.[AnnotationControlCenterSeal] === controlCenterSeal(id, upUID);
}

/** Whether copies stamped with control center `id` are this syncer's: its own control center's, or one it takes over from. */
const isServedID = (cc: ControlCenterIdentity, id: string): boolean => id === cc.id || !!cc.takeOverFrom?.has(id);

/** How {@link otherControlCenter} names a control center ID edited by hand. */
const EditedPrefix = 'edited-by-hand:';

/**
 * Who made the copy of another control center ({@link otherControlCenter}'s answer), for a
 * message: `the syncer of another control center (ID X)`, or, for a stamp edited by hand, `an hcc
 * syncer (its control center ID, seal or upstream uid was edited by hand there: its ID reads X)`.
 */
export function copyMaker(other: string): string {
  return other.startsWith(EditedPrefix) ? `an hcc syncer (its control center ID, seal or upstream uid was edited by hand there: its ID reads ${other.slice(EditedPrefix.length)})` : `the syncer of another control center (ID ${other})`;
}

/** Whether {@link otherControlCenter}'s answer names a control center (not an ID edited by hand), which `--take-over-from` could name. */
export const isControlCenterID = (other: string): boolean => !other.startsWith(EditedPrefix);

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
