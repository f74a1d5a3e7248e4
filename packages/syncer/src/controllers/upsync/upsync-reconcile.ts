/**
 * Upsync: copies the status of each replicated HostedCluster and NodePool back to its upstream
 * object through the status subresource, adopts the spec fields the operator generated
 * (`clusterID`, `infraID`; upsync-adopt.ts), and copies up the Secrets that status points users to
 * (`status.kubeconfig`, `status.kubeadminPassword`, `status.customKubeconfig`), so a user can
 * reach the hosted cluster from the control center; a copy the status stops naming is deleted
 * (dropSecretCopy). Keys are `<Kind>/<namespace>/<name>`.
 *
 * Those Secrets are read with GETs (watching every Secret of a management cluster would cache
 * all of its control planes' Secrets), so they are not read on every status change: they are
 * copied when a status first points to them or points to others, and re-checked at most every
 * `secretRecheckMs` (a rotated kubeconfig reaches the control center within that time; the key
 * is requeued for it, like an informer resync). A re-check reads the control center's side from
 * the syncer's cache of its copies (`getUpstreamSecretCopy`) when that copy already matches, so it
 * costs one GET, in the management cluster. Re-checks are spread out: each interval is jittered
 * by up to {@link RecheckJitter}, and a syncer that starts (or restarts) with copies already in
 * place schedules each HostedCluster's first re-check at a random point of the interval instead
 * of re-reading its whole share at once (as kube-controller-manager spreads its informers'
 * resync periods, `ResyncPeriod` in cmd/kube-controller-manager/app/controllermanager.go); a
 * copy missing, or edited while no syncer watched it (its content no longer matches the digest
 * written with it, `controlcenter.hcc.dev/copied-content`), is checked at once.
 *
 * A status write returns the new upstream object before the informer shows it; the next change
 * of the copy often comes sooner, and writing it over the informer's older object would only earn
 * a 409. So passes build on the freshest object the syncer's own writes returned (@hcc/client own-writes.ts,
 * shared with downsync, which writes the same objects).
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { AnnotationCopiedContent, AnnotationUpstreamUID, hostedClustersOfStatusSecret, hyperShiftStatusSecretNames, LabelSyncedBy, LabelUpsyncedFrom, type KubeObject } from '@hcc/crds';
import { isAlreadyExists, isForbidden, isNamespaceTerminating, isNotFound, type DeleteOptions, type ReconcileResult } from '@hcc/client';
import { upstreamStatus } from './upsync-status.js';
import { parseSyncKey } from '../downsync/downsync-reconcile.js';
import type { SyncKind } from '../downsync/types.js';
import { ReasonCopyBlocked } from '../downsync/downsync-reconcile-apply.js';
import type { OwnWrites } from '@hcc/client';
import type { Logger } from 'pino';
import { adoptOperatorFields } from './upsync-adopt.js';

export { LabelUpsyncedFrom, hyperShiftStatusSecretNames } from '@hcc/crds';

/**
 * What {@link reconcileUpsync} reads and writes: the caches of both sides, the upstream writes it may make, and the
 * bookkeeping and clock the caller owns. `cluster` is the ManagementCluster name this syncer serves.
 */
export interface UpsyncDeps {
  cluster: string;
  /**
   * False while the syncer's last heartbeat could not reach the management cluster's API: the
   * downstream caches are stale, so nothing is copied up (the control center's scheduler marks
   * the statuses placed there unknown meanwhile, and a copy of the cached status would undo that
   * mark with news that may be wrong). Absent: always reachable.
   */
  downstreamReachable?(): boolean;
  /** While unreachable, how soon a key is looked at again, in milliseconds (default 10,000: a heartbeat). */
  unreachableRecheckMs?: number;
  getUpstream(kind: SyncKind, key: string): KubeObject | undefined;
  getDownstream(kind: SyncKind, key: string): KubeObject | undefined;
  /** PUT the status subresource upstream (resourceVersion-guarded); returns the object written. */
  updateUpstreamStatus(kind: SyncKind, obj: KubeObject): Promise<KubeObject>;
  /** JSON merge patch of an upstream main resource (adopting operator-generated spec fields); returns the object written. */
  patchUpstream(kind: SyncKind, namespace: string, name: string, patch: unknown): Promise<KubeObject>;
  /** Where a refused adoption is reported. */
  log: Logger;
  /** Reads a Secret in the management cluster. */
  getDownstreamSecret(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Reads a Secret in the control center. */
  getUpstreamSecret(namespace: string, name: string): Promise<KubeObject | undefined>;
  /**
   * The syncer's cached copy of a status Secret in the control center (its informer on Secrets
   * labelled `controlcenter.hcc.dev/upsynced-from=<cluster>`), or undefined when it holds none by
   * that name. Only trusted to say a copy is already as wanted (a copy edited or deleted since is
   * copied again on the informer's event); anything else is read with {@link getUpstreamSecret}.
   * Absent: the control center's side is always read live.
   */
  getUpstreamSecretCopy?(namespace: string, name: string): KubeObject | undefined;
  /** Creates a Secret in the control center; rejects with the API's error (409 AlreadyExists when the name is taken). */
  createUpstreamSecret(obj: KubeObject): Promise<void>;
  updateUpstreamSecret(obj: KubeObject): Promise<void>;
  /**
   * Deletes a Secret in the control center, only the one of `preconditions.uid` at
   * `preconditions.resourceVersion` (another rejects with 409 Conflict); one already gone (404)
   * counts as deleted. Absent: dropped Secrets stay.
   */
  deleteUpstreamSecret?(namespace: string, name: string, preconditions: NonNullable<DeleteOptions['preconditions']>): Promise<void>;
  /**
   * Records a Warning Event on a control center object (`reason`, `message`): here, that a Secret
   * the status points to cannot be copied up because the name is taken. Absent: not reported.
   */
  warn?(obj: KubeObject, reason: string, message: string): void;
  /**
   * When each key's Secrets were last copied or checked (ms since the epoch); owned by the caller,
   * starts empty. {@link SecretsDueNow} asks for a check at the key's next pass (a copy edited or
   * deleted in the control center); a key with no entry is one not looked at since the start.
   */
  secretsCheckedAt: Map<string, number>;
  /** The syncer's own upstream writes not yet shown by the informer (shared with downsync). */
  ownWrites: OwnWrites;
  /** How often the Secrets of an unchanged status are re-checked, in milliseconds (default 300,000). */
  secretRecheckMs?: number;
  /** The clock, in ms since the epoch (default Date.now). */
  now?: () => number;
  /** A uniform random number in [0, 1) for spreading re-checks (default Math.random). */
  random?: () => number;
}

/**
 * How much a re-check interval is stretched at random, as a fraction of it: each re-check comes
 * after `secretRecheckMs × (1 + RecheckJitter × random)`, as client-go's `wait.Jitter(d, 0.1)`,
 * so re-checks bunched by a burst of creates drift apart instead of coming back as one wave.
 */
export const RecheckJitter = 0.1;

/** A {@link UpsyncDeps.secretsCheckedAt} value that makes the key's Secrets due at its next pass. */
export const SecretsDueNow = Number.NEGATIVE_INFINITY;

/** Default of {@link UpsyncDeps.secretRecheckMs}: 5 minutes. */
export const DefaultSecretRecheckMs = 5 * 60_000;
/** How soon a status Secret whose copy was blocked (CopyBlocked) is looked at again: 30 seconds. */
export const BlockedRecheckMs = 30_000;

/** The status fields naming a Secret to copy up (HyperShift's HostedClusterStatus). */
const secretRefs = ['kubeconfig', 'kubeadminPassword', 'customKubeconfig'] as const;

const refName = (status: Record<string, unknown> | undefined, ref: string): string | undefined => (status?.[ref] as { name?: string } | undefined)?.name;

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Whether the control center refused this syncer a status Secret (403), not for a namespace being
 * deleted (which ends the copying quietly): skipped with a word, so the status still goes up.
 */
const isRefusal = (err: unknown): boolean => isForbidden(err) && !isNamespaceTerminating(err);

/**
 * Copies one status-referenced Secret up when missing or different, owned by `owner` (so the
 * control center's garbage collector deletes it with its HostedCluster); only one of the names
 * HyperShift gives them ({@link hyperShiftStatusSecretNames}).
 *
 * An upstream Secret of that name is overwritten when hcc copied it (label
 * `controlcenter.hcc.dev/upsynced-from`) from this cluster, or from another one with no owner
 * but `owner`: a HostedCluster deleted with `--cascade=orphan` and created again (maybe placed
 * elsewhere) left it ownerless, and its data is the old control plane's. One without the label
 * is a user's own Secret, and one another HostedCluster owns is that one's: both are left alone.
 *
 * `createFirst` (the upstream status does not point to this name yet, so hcc has not copied it
 * for this HostedCluster) tries the create before any read: one request instead of a GET that
 * would almost always answer 404 and then the create. When the name is taken (409
 * AlreadyExists: a user's own Secret, another HostedCluster's, or a copy the status write after
 * it did not record) the rules above decide on the Secret read then.
 */
async function copySecretUp(deps: UpsyncDeps, namespace: string, name: string, owner: KubeObject, createFirst: boolean): Promise<boolean> {
  try {
    return await copySecretUpOnce(deps, namespace, name, owner, createFirst);
  } catch (err) {
    // Refused (not for a namespace being deleted, which the caller handles): the control center
    // keeps this syncer from that Secret, e.g. a name another cluster's HostedCluster would have
    // written too (`a-custom-admin-kubeconfig`: `a`'s custom kubeconfig and `a-custom`'s admin
    // kubeconfig). Said on the HostedCluster and skipped: the rest of its status still goes up.
    if (!isRefusal(err)) throw err;
    const clash = hostedClustersOfStatusSecret(name).filter((hc) => hc !== owner.metadata.name);
    deps.log.warn({ hostedCluster: owner.metadata.name, namespace, secret: name, err: errorMessage(err) }, 'the control center refuses this syncer a status Secret; not copying it up');
    deps.warn?.(
      owner,
      ReasonCopyBlocked,
      `the control center refuses this syncer the Secret ${namespace}/${name}${clash.length ? ` (HostedCluster ${clash.join(', ')} would have a Secret of that name written too: HyperShift names them after the HostedCluster, so one of the two must be deleted and created under another name)` : ''}; the status names it, but it is not copied up, and a Secret of that name in the control center, if any, is not this HostedCluster's`,
    );
    return false;
  }
}

/**
 * {@link copySecretUp} without its handling of a refusal.
 * @returns false when the copy is blocked (a Secret of that name that is not to be overwritten)
 */
async function copySecretUpOnce(deps: UpsyncDeps, namespace: string, name: string, owner: KubeObject, createFirst: boolean): Promise<boolean> {
  // HyperShift names them after the HostedCluster (`<name>-admin-kubeconfig`,
  // `<name>-kubeadmin-password`, `<name>-custom-admin-kubeconfig`): a status naming any other Secret of the management cluster's
  // namespace (written there by hand, for a moment; another HostedCluster's) does not get that
  // Secret copied to the control center.
  if (!hyperShiftStatusSecretNames(owner.metadata.name ?? '').includes(name)) {
    deps.log.warn({ hostedCluster: owner.metadata.name, namespace, secret: name }, 'not copying up a Secret the status names that is not one HyperShift writes for its HostedCluster');
    return true;
  }
  const down = await deps.getDownstreamSecret(namespace, name);
  if (!down) return true;
  const want: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace,
      labels: { [LabelUpsyncedFrom]: deps.cluster },
      annotations: { [AnnotationCopiedContent]: contentDigest(down) },
      ownerReferences: [{ apiVersion: owner.apiVersion!, kind: owner.kind!, name: owner.metadata.name!, uid: owner.metadata.uid! }],
    },
    type: down.type,
    data: down.data,
  };
  if (createFirst) {
    try {
      await deps.createUpstreamSecret(want);
      return true;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
  // The copy the syncer's cache holds is as wanted: nothing to write, and no read needed (a
  // change to it since comes as an informer event, which copies again).
  const cachedCopy = deps.getUpstreamSecretCopy?.(namespace, name);
  if (cachedCopy && isCopyAsWanted(deps.cluster, cachedCopy, want, owner)) return true;
  const up = await deps.getUpstreamSecret(namespace, name);
  if (!up) {
    await deps.createUpstreamSecret(want);
    return true;
  }
  const from = up.metadata.labels?.[LabelUpsyncedFrom];
  const blocked = (whose: string) => {
    deps.warn?.(
      owner,
      ReasonCopyBlocked,
      `the control center already has a Secret ${namespace}/${name} that ${whose}; the status names it, but it does not hold this HostedCluster's ${name.endsWith('-kubeconfig') ? 'kubeconfig' : 'credentials'} from management cluster ${deps.cluster}: delete or rename that Secret to have it copied up`,
    );
    return false;
  };
  if (from === undefined) return blocked('hcc did not copy up (a user\'s own)'); // never overwrite it
  const owners = up.metadata.ownerReferences ?? [];
  if (from !== deps.cluster && owners.some((o) => o.uid !== owner.metadata.uid)) return blocked('another HostedCluster owns');
  if (isCopyAsWanted(deps.cluster, up, want, owner)) return true;
  if (secretType(up) !== secretType(want) && deps.deleteUpstreamSecret) {
    // A Secret's type is immutable (kube's ValidateSecretUpdate: 422 "field is immutable"), so a
    // copy of another type (replaced by hand) would fail every update and hold up the status:
    // the one just read is deleted (another in its place fails with 409, and the pass is retried)
    // and the copy made again.
    deps.log.info({ hostedCluster: owner.metadata.name, namespace, secret: name, type: up.type, want: want.type }, 'replacing the copied-up Secret: its type was changed in the control center, and a type cannot be updated');
    await deps.deleteUpstreamSecret(namespace, name, { uid: up.metadata.uid, resourceVersion: up.metadata.resourceVersion });
    await deps.createUpstreamSecret(want);
    return true;
  }
  await deps.updateUpstreamSecret({ ...want, metadata: { ...want.metadata, resourceVersion: up.metadata.resourceVersion } });
  return true;
}

/** A Secret's type, `Opaque` when unset (kube's SetDefaults_Secret). */
const secretType = (s: KubeObject): string => (s.type as string | undefined) || 'Opaque';

/**
 * The SHA-256 (hex) of a Secret's type and data (keys sorted), as recorded on a copy in
 * {@link AnnotationCopiedContent}.
 */
export function contentDigest(secret: KubeObject): string {
  const data = (secret.data ?? {}) as Record<string, string>;
  const entries = Object.keys(data).sort().map((k) => [k, data[k]]);
  return createHash('sha256').update(JSON.stringify([secretType(secret), entries])).digest('hex');
}

/** Whether `secret`, in the control center, is a copy `cluster`'s syncer made for `owner` alone (label and ownerReference). */
function isCopyFor(cluster: string, secret: KubeObject, owner: KubeObject): boolean {
  const owners = secret.metadata.ownerReferences ?? [];
  return secret.metadata.labels?.[LabelUpsyncedFrom] === cluster && owners.length === 1 && owners[0]!.uid === owner.metadata.uid;
}

/**
 * Whether `up`, a Secret in the control center, is already the copy `want` of this cluster's
 * Secret for `owner`: copied up from `cluster`, owned by `owner` alone, same type, data and
 * content digest.
 */
function isCopyAsWanted(cluster: string, up: KubeObject, want: KubeObject, owner: KubeObject): boolean {
  return (
    isCopyFor(cluster, up, owner) &&
    secretType(up) === secretType(want) &&
    isDeepStrictEqual(up.data, want.data) &&
    up.metadata.annotations?.[AnnotationCopiedContent] === want.metadata.annotations?.[AnnotationCopiedContent]
  );
}

/**
 * Whether the syncer's cache ({@link UpsyncDeps.getUpstreamSecretCopy}) holds a copy of the
 * status Secret `name` made from this cluster for `owner` alone, with the content it was written
 * with ({@link AnnotationCopiedContent}; whether the management cluster's Secret still holds that
 * content needs a read there).
 */
function hasCachedCopy(deps: UpsyncDeps, namespace: string, name: string, owner: KubeObject): boolean {
  const copy = deps.getUpstreamSecretCopy?.(namespace, name);
  // Unchanged since this cluster's syncer wrote it: not edited in the control center while no
  // syncer watched it.
  return copy !== undefined && isCopyFor(deps.cluster, copy, owner) && copy.metadata.annotations?.[AnnotationCopiedContent] === contentDigest(copy);
}

/**
 * Deletes the control center's copy of a Secret the status no longer names (HyperShift deletes
 * the kubeadmin password once an identity provider is configured and clears
 * `status.kubeadminPassword`; `status.customKubeconfig` goes with `spec.kubeAPIServerDNSName`):
 * only one hcc copied up from this cluster (label `controlcenter.hcc.dev/upsynced-from`) for
 * `owner` (its ownerReference), by one of the names HyperShift gives them. Otherwise the control
 * center would keep serving a password that no longer works.
 */
async function dropSecretCopyOnce(deps: UpsyncDeps, namespace: string, name: string, owner: KubeObject): Promise<void> {
  if (!deps.deleteUpstreamSecret || !hyperShiftStatusSecretNames(owner.metadata.name ?? '').includes(name)) return;
  const up = await deps.getUpstreamSecret(namespace, name);
  if (!up || up.metadata.labels?.[LabelUpsyncedFrom] !== deps.cluster || !up.metadata.ownerReferences?.some((o) => o.uid === owner.metadata.uid)) return;
  deps.log.info({ hostedCluster: owner.metadata.name, namespace, secret: name }, 'deleting the copied-up Secret the status no longer names');
  // Only the Secret just read: one changed or replaced meanwhile (a user's own, another
  // cluster's copy) fails the pass with 409, which is retried and reads it again.
  await deps.deleteUpstreamSecret(namespace, name, { uid: up.metadata.uid, resourceVersion: up.metadata.resourceVersion });
}

/**
 * {@link dropSecretCopyOnce}, skipping (with a warn line) a Secret the control center refuses
 * this syncer (its name is now another cluster's HostedCluster's too): whatever copy there is, is
 * no longer this syncer's to delete, and the status must still go up.
 */
async function dropSecretCopy(deps: UpsyncDeps, namespace: string, name: string, owner: KubeObject): Promise<void> {
  try {
    await dropSecretCopyOnce(deps, namespace, name, owner);
  } catch (err) {
    if (!isRefusal(err)) throw err;
    deps.log.warn({ hostedCluster: owner.metadata.name, namespace, secret: name, err: errorMessage(err) }, 'not deleting the copied-up Secret the status no longer names: the control center refuses it to this syncer');
  }
}

/** Reconciles one key. */
export async function reconcileUpsync(deps: UpsyncDeps, key: string): Promise<ReconcileResult> {
  if (deps.downstreamReachable && !deps.downstreamReachable()) return { requeueAfterMs: deps.unreachableRecheckMs ?? 10_000 };
  const { kind, namespace, objKey } = parseSyncKey(key);
  const cached = deps.getUpstream(kind, objKey);
  const down = deps.getDownstream(kind, objKey);
  if (!cached || !down || down.metadata.labels?.[LabelSyncedBy] !== deps.cluster || down.metadata.annotations?.[AnnotationUpstreamUID] !== cached.metadata.uid) {
    deps.secretsCheckedAt.delete(key);
    if (!cached) deps.ownWrites.forget(key);
    return;
  }
  // The informer may not show this key's last own write yet: build on what that write returned.
  let up = deps.ownWrites.freshest(key, cached)!;
  const status = upstreamStatus(down, up, new Date((deps.now ?? Date.now)()));
  let result: ReconcileResult = undefined;
  if (kind === 'HostedCluster') {
    const names = secretRefs.map((ref) => refName(status, ref));
    // Named upstream before and not now: the copy goes before the status says so (a failed
    // delete fails the pass, which is retried with the old status still naming it).
    const before = secretRefs.map((ref) => refName(up.status as Record<string, unknown> | undefined, ref));
    for (const name of before) if (name && !names.includes(name)) await dropSecretCopy(deps, namespace, name, up);
    if (names.some((n) => n)) {
      const now = (deps.now ?? Date.now)();
      const recheckMs = deps.secretRecheckMs ?? DefaultSecretRecheckMs;
      // Already pointed to upstream means copied before (the status is written after the copy).
      const pointed = secretRefs.map((ref) => refName(up.status as Record<string, unknown> | undefined, ref));
      const unchanged = pointed.every((name, i) => name === names[i]);
      const random = deps.random ?? Math.random;
      let checkedAt = deps.secretsCheckedAt.get(key);
      // First look since the syncer started, at a status that already points to copies the cache
      // shows in place: copied before, so the re-check can wait; at a random point of the
      // interval, so a restarted syncer does not re-read its whole share at once.
      if (unchanged && checkedAt === undefined && names.every((n) => !n || hasCachedCopy(deps, namespace, n, up))) {
        checkedAt = now - Math.floor(random() * recheckMs);
        deps.secretsCheckedAt.set(key, checkedAt);
      }
      // Time to the next re-check of what the status names (0 or less: due now).
      const dueInMs = checkedAt === undefined ? 0 : checkedAt + recheckMs - now;
      const due = dueInMs <= 0;
      result = { requeueAfterMs: Math.max(1, dueInMs) };
      if (!unchanged || due) {
        // Not due, the status names a Secret it did not (HyperShift names the kubeconfig and the
        // kubeadmin password in separate status writes): that one is copied now; the ones copied
        // before keep their re-check time instead of being read again.
        const checking = due ? names : names.map((n) => (n && !pointed.includes(n) ? n : undefined));
        let blocked = false;
        try {
          for (const name of checking) if (name && !(await copySecretUp(deps, namespace, name, up, !pointed.includes(name)))) blocked = true;
        } catch (err) {
          // The namespace is being deleted (with its HostedCluster): no copy can or should be made
          // there again, and the deletion removes the ones there were. Not a failure to retry.
          if (!isNamespaceTerminating(err)) throw err;
          deps.log.debug({ key, namespace }, 'not copying status Secrets up: the namespace is being deleted');
        }
        // A blocked copy is looked at again sooner: what blocks it (a Secret of that name, another
        // cluster's HostedCluster of a clashing name) may go at any time, with no event here.
        if (due || blocked) {
          const nextMs = blocked ? Math.min(recheckMs, BlockedRecheckMs) : Math.round(recheckMs * (1 + RecheckJitter * random()));
          deps.secretsCheckedAt.set(key, now - recheckMs + nextMs);
          result = { requeueAfterMs: nextMs };
        }
      }
    } else deps.secretsCheckedAt.delete(key);
  }
  if (!isDeepStrictEqual(up.status ?? {}, status)) {
    let written: KubeObject;
    try {
      written = await deps.updateUpstreamStatus(kind, { ...up, status });
    } catch (err) {
      // Deleted upstream since the informer saw it: nothing left to report to; its DELETED event cleans up.
      if (!isNotFound(err)) throw err;
      deps.ownWrites.forget(key);
      return undefined;
    }
    deps.ownWrites.record(key, up, written);
    up = written;
  }
  if (kind === 'HostedCluster') {
    const adopted = await adoptOperatorFields(up, down, (p) => deps.patchUpstream(kind, namespace, up.metadata.name!, p), deps.log);
    if (adopted) deps.ownWrites.record(key, up, adopted);
  }
  return result;
}
