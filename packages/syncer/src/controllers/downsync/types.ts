/**
 * Shapes shared by the downsync steps: the kinds it replicates, what each copies, and the
 * getters and writers a step receives (never an informer or a raw client; STYLE.md §2).
 */
import type { SyncedKeys } from '../../transform.js';
import type { ControlCenterIdentity } from '../../control-center-identity.js';
import type { KubeObject } from '@hcc/crds';
import type { DeleteOptions } from '@hcc/client';
import type { Logger } from 'pino';
import type { OwnWrites } from '@hcc/client';

/** The kinds the syncer replicates downstream. */
export type SyncKind = 'HostedCluster' | 'NodePool' | 'Secret' | 'ConfigMap';

/** Top-level fields copied from upstream to downstream, per kind. */
export const payloadKeys: Record<SyncKind, string[]> = {
  HostedCluster: ['spec'],
  NodePool: ['spec'],
  Secret: ['type', 'data', 'immutable'],
  ConfigMap: ['data', 'binaryData', 'immutable'],
};

/** Kinds the syncer holds with its finalizer upstream (and waits on downstream finalizers for). */
export const finalizedKinds = new Set<SyncKind>(['HostedCluster', 'NodePool']);

/**
 * Writes to one side (side-writer.ts). Errors are thrown as the API error (409s are retried by
 * the worker), except where a method says otherwise.
 */
export interface SideWriter {
  /** Reads the live object (bypassing caches); undefined when absent (404). */
  get(kind: SyncKind, namespace: string, name: string): Promise<KubeObject | undefined>;
  /**
   * Creates. With `onWarning`, asks the server to report fields its schema does not know
   * (`fieldValidation=Warn`) and hands it each warning.
   */
  create(kind: SyncKind, obj: KubeObject, onWarning?: (text: string) => void): Promise<KubeObject>;
  update(kind: SyncKind, obj: KubeObject): Promise<KubeObject>;
  /** JSON merge patch of the main resource; `onWarning` as for create. */
  patch(kind: SyncKind, namespace: string, name: string, patch: unknown, onWarning?: (text: string) => void): Promise<KubeObject>;
  /**
   * Deletes; an object already gone (404) counts as deleted and resolves. With `preconditions`,
   * only the object of that uid (and resourceVersion) is deleted: another rejects with the API's
   * 409 Conflict.
   */
  delete(kind: SyncKind, namespace: string, name: string, preconditions?: DeleteOptions['preconditions']): Promise<void>;
  /**
   * Asks the server whether it would take `obj` as a new object (a server-side dry-run create:
   * validation, then the name check, so a valid object of a taken name answers 409
   * AlreadyExists). Resolves when it would; throws the server's refusal otherwise.
   */
  dryRunCreate?(kind: SyncKind, obj: KubeObject): Promise<void>;
}

/** What a downsync step may use. */
export interface DownsyncDeps {
  /** This management cluster's name. */
  cluster: string;
  /**
   * The control center this syncer serves, whose ID its copies carry: a copy carrying another
   * control center's ID is that one's, never written or deleted here (control-center-identity.ts).
   * Absent: copies get no ID, and every copy labelled with this cluster's name counts as this
   * syncer's.
   */
  controlCenter?: ControlCenterIdentity;
  /**
   * Resolves once a fresh read shows the control center still has the ID the syncer started with;
   * called before a copy is deleted or replaced (control-center-id-guard.ts).
   * @throws ControlCenterChangedError when it changed (the syncer then stops), or the read's error
   */
  confirmControlCenter?(): Promise<void>;
  /** Upstream (control center) object from the informer cache. */
  getUpstream(kind: SyncKind, key: string): KubeObject | undefined;
  /** Downstream (management cluster) object from the informer cache. */
  getDownstream(kind: SyncKind, key: string): KubeObject | undefined;
  upstream: SideWriter;
  downstream: SideWriter;
  /** The syncer's own upstream writes not yet shown by the informer (shared with upsync); passes start from the freshest object. */
  ownWrites: OwnWrites;
  /**
   * The syncer's own patches of downstream copies not yet shown by the downstream informer, by
   * downsync key: a pass that comes before the patch's watch event builds on what the patch
   * returned instead of sending the same patch again. Owned by the caller, starts empty.
   */
  downWrites: OwnWrites;
  /**
   * Deletes the upstream NodePools of a HostedCluster being deleted (`spec.clusterName`), as the
   * HyperShift operator deletes them with their HostedCluster; none when the HostedCluster of that
   * name in the control center is not the one of `uid` being deleted (read live: a new one of the
   * same name keeps its NodePools). `from`: `cache` deletes the NodePools placed here that the
   * informer shows (cheap, for each look at a teardown in progress); `live` lists the namespace
   * in the control center (also NodePools not placed yet; its cost grows with the namespace, so
   * once per HostedCluster, before the syncer's finalizer is removed).
   */
  deleteUpstreamNodePools?(namespace: string, clusterName: string, uid: string | undefined, from: 'cache' | 'live'): Promise<void>;
  /**
   * True when a HostedCluster or NodePool copy hcc made in this management cluster references a
   * Secret or ConfigMap (hostedClusterReferences/nodePoolReferences; live or being torn down,
   * however the upstream Secret went), or when it still exists upstream (a live read) and a
   * HostedCluster or NodePool placed on this cluster references it.
   */
  stillReferenced?(kind: SyncKind, namespace: string, name: string): Promise<boolean>;
  /**
   * True when a HostedCluster placed on this cluster, or one of its NodePools, as the informers show
   * now, references Secret or ConfigMap namespace/name, and neither is being deleted (live-users.ts).
   * A Secret or ConfigMap of the same name that hcc did not create is only taken over then: until
   * its HostedCluster shows up, blockedByForeign cannot tell whether that HostedCluster is blocked
   * by a foreign one (whose Secret this may be); and during a teardown it would get the control
   * center's data just as its last user goes, and be released at once.
   */
  referencedHere?(kind: SyncKind, namespace: string, name: string): boolean;
  /**
   * Whether `cluster` is another live ManagementCluster name of this syncer's management cluster
   * (HeartbeatOptions.onSiblings): its syncer keeps the copies labelled with its name, so this one
   * leaves them (two syncers relabelling one copy would rewrite it without end). Absent: none.
   */
  isSibling?(cluster: string): boolean;
  /**
   * Whether HostedCluster or NodePool copies of another live name for this management cluster
   * (not being torn down) reference the Secret or ConfigMap: this syncer's copy of it, no longer
   * needed here, is handed over to that name's syncer rather than deleted or kept. Absent: never.
   */
  usedBySibling?(kind: SyncKind, namespace: string, name: string): boolean;
  /**
   * Why an upstream NodePool, Secret or ConfigMap must not be copied here, or undefined: its
   * HostedCluster (for a Secret or ConfigMap: every HostedCluster placed here that references
   * it, directly or through a NodePool) is blocked by a HostedCluster of the same name in the
   * management cluster that hcc did not create. Copying it would change that other cluster.
   */
  blockedByForeign?(kind: SyncKind, up: KubeObject): string | undefined;
  /**
   * Why an upstream object must not be copied here because of HyperShift's control-plane
   * namespaces (`<namespace>-<name>` of each HostedCluster), or undefined: its namespace is the
   * control-plane namespace of a HostedCluster in the management cluster (deleting that
   * HostedCluster deletes the namespace and the copy with it), or, for a HostedCluster, its own
   * control-plane namespace holds HostedClusters, NodePools or copies there. The scheduler's
   * ControlPlaneNamespace filter keeps placements from this; this catches what it cannot see
   * (HostedClusters created in the management cluster directly, a placement made by hand).
   */
  blockedByControlPlane?(kind: SyncKind, up: KubeObject): string | undefined;
  /**
   * For a HostedCluster about to be copied here (no copy yet): why its control-plane namespace
   * `<namespace>-<name>` must not be used, or undefined: a namespace of that name exists here that
   * is not a control plane's (no `hypershift.openshift.io/hosted-control-plane` label) — someone
   * else's, which HyperShift's operator would take as the control plane's and delete, with what
   * lives in it, when the HostedCluster goes. One read of the management cluster per new copy.
   */
  foreignControlPlaneNamespace?(up: KubeObject): Promise<string | undefined>;
  /**
   * Which HostedCluster or NodePool in the management cluster that hcc did not create references
   * Secret or ConfigMap namespace/name (`HostedCluster ns/name`), or undefined: one hcc did not
   * create either is then not taken over, as its data would change under that other cluster.
   */
  usedByForeign?(kind: SyncKind, namespace: string, name: string): string | undefined;
  /**
   * The label and annotation keys last synced to each copy that has no room for hcc's record of
   * them (by key `<Kind>/<ns>/<name>`), so keys removed upstream still leave the copy while this
   * syncer runs. Owned by the caller; absent: not remembered.
   */
  rememberedKeys?: Map<string, SyncedKeys>;
  /**
   * Which live HostedCluster or NodePool copy of another control center in the management cluster
   * (any ManagementCluster name) references Secret or ConfigMap namespace/name (`HostedCluster
   * ns/name of the control center <ID>`), or undefined. That copy runs on this syncer's copy of it
   * (its own could not be made over this one): when this syncer no longer needs it, it is released
   * (hcc's label and annotations removed, as a taken-over one is), not deleted, so that control
   * center's syncer takes it over. Absent: never.
   */
  usedByOtherControlCenter?(kind: SyncKind, namespace: string, name: string): string | undefined;
  /**
   * The upstream HostedClusters and NodePools placed here that reference a Secret or ConfigMap
   * (told when hcc leaves a same-named one there as it is: their copies use that one's data).
   */
  usersHere?(kind: SyncKind, namespace: string, name: string): KubeObject[];
  /** PUT `/status` of an upstream object (its resourceVersion guards it). */
  updateUpstreamStatus?(kind: SyncKind, obj: KubeObject): Promise<KubeObject>;
  /** Creates the namespace downstream when missing. */
  ensureDownstreamNamespace(name: string): Promise<void>;
  /**
   * Copies this syncer created downstream, by key, with when (ms since the epoch), until the
   * downstream informer shows them; owned by the caller, starts empty.
   */
  recentCreates: Map<string, { object: KubeObject; atMs: number }>;
  /**
   * Since when (ms since the epoch) each key's create has been refused because its namespace there
   * is terminating; cleared by a create that goes through. Absent: every wait counts from now.
   */
  namespaceWaits?: Map<string, number>;
  /** The clock, in ms since the epoch. */
  now(): number;
  /** Records an Event about an upstream object, so `kubectl describe` in the control center shows why a copy is stuck. */
  warn(obj: KubeObject, reason: string, message: string): void;
  log: Logger;
}

/** One pass over one key. */
export interface DownsyncRequest {
  kind: SyncKind;
  key: string;
  namespace: string;
  name: string;
  upstream: KubeObject | undefined;
  downstream: KubeObject | undefined;
}

/**
 * What a step decides: go on, stop this pass (done, or a write will bring an event), stop it
 * having found nothing to write (`skip`: the pass is logged at debug), or look again later.
 */
export type StepResult = 'continue' | 'stop' | 'skip' | { requeueAfterMs: number };

/** A named step of a reconcile. */
export interface Step {
  name: string;
  run(req: DownsyncRequest): Promise<StepResult>;
}

/** A HostedCluster or NodePool that references a Secret or ConfigMap (upstream, or its copy in the management cluster), and its kind. */
export interface ReferencingObject {
  kind: 'HostedCluster' | 'NodePool';
  obj: KubeObject;
}
