/**
 * Creates or updates the downstream copy from the upstream object (see transform.ts), after
 * making sure its namespace exists there. Local drift of what hcc manages is corrected; what the
 * operator owns is kept. Skips the write when the copy is already in sync.
 *
 * Two things keep this from fighting the operator and its own informer lag:
 * - An existing copy is brought in sync with a JSON merge patch of only what hcc manages, without
 *   a resourceVersion (transform.ts `downstreamPatch`). The operator writes the same object at the
 *   same time (status, finalizers, defaults); a resourceVersion-guarded update lost most of those
 *   races with a 409 and went round again.
 * - A copy this syncer just created is remembered (`recentCreates`) until the downstream informer
 *   shows it, so the events that follow the create do not create it again (a 409 AlreadyExists,
 *   then a GET); what a patch returned likewise (`downWrites`), so a pass that comes before the
 *   patch's own event does not send it again.
 *
 * An object of the same name that hcc did not create: a Secret or ConfigMap that cluster's admin
 * annotated `controlcenter.hcc.dev/adoptable: "true"` is taken over (its data becomes the control
 * center's; marked `controlcenter.hcc.dev/adopted`, so it is released, not deleted, when hcc no
 * longer places it); without that consent it is left as it is (`CopyBlocked`, as Karmada's
 * default `conflictResolution: Abort`), and neither is it taken over while a HostedCluster or NodePool there that hcc
 * did not create uses it (usedByForeign); a HostedCluster or NodePool is never touched, a
 * Warning Event (`CopyBlocked`) says why, and it is looked at again in a minute. Nor are the
 * NodePools, Secrets and ConfigMaps of a HostedCluster blocked that way copied (blockedByForeign):
 * they would change the other owner's cluster; and a Secret or ConfigMap is only taken over once
 * a HostedCluster placed here that references it, and is not being deleted, is known (referencedHere).
 *
 * A copy that another control center's syncer made (it carries that control center's ID,
 * control-center-identity.ts) is never written or taken over, whatever its kind: a Warning Event
 * (`CopyBlocked`) says whose it is, and the HostedClusters and NodePools here that use such a
 * Secret or ConfigMap are told (`DependencyNotCopied`).
 *
 * A Secret or ConfigMap that cannot take the change in place (it is `immutable`, or has another
 * `type`: a 422 naming only those rules, cannotChangeInPlace) is replaced — deleted, then created
 * again by the next pass — when hcc made it, as `kubectl replace --force` would; one hcc did not
 * make is left alone, a Warning Event (`CopyBlocked`) on the upstream object says why, and it is
 * looked at again in a minute. Any other refusal leaves the live copy as it is (`CopyFailed`). A HostedCluster or NodePool copy is never replaced: that would tear down a control plane.
 * A create into a namespace being deleted there is not a refusal: the copy waits for it to go
 * (`NamespaceTerminating` upstream, no Event) and is made in the namespace made anew.
 *
 * A Secret of type `kubernetes.io/service-account-token` is never copied (`CopyBlocked`): the
 * management cluster would fill it with a token of one of its ServiceAccounts.
 *
 * Nothing the management cluster does to a write goes unsaid: fields its older CRD drops from a
 * HostedCluster or NodePool copy get a Warning Event `FieldsDropped` (droppedFields), and a write
 * it refuses one `CopyFailed` (reportRefused), both on the upstream object.
 */
import { ApiError, isAlreadyExists, isInvalid, isNamespaceTerminating, isNotFound } from '@hcc/client';
import { AnnotationAdoptable, AnnotationAdopted, AnnotationHandedOver, AnnotationUpstreamUID, isReservedNamespace, conditionUpToDate, LabelSyncedBy, setCondition, type Condition, type KubeObject } from '@hcc/crds';
import { AnnotationSyncedKeys, desiredDownstream, downstreamPatch, operatorDefaultedSpecFields, syncedKeysOf } from '../../transform.js';
import { payloadKeys, type DownsyncDeps, type DownsyncRequest, type Step, type StepResult, type SyncKind } from './types.js';
import { copyMaker, isControlCenterID, isOwnCopy, otherControlCenter } from '../../control-center-identity.js';
import { TakeOverFromFlag } from '../presence/take-over.js';

/**
 * A Secret of this type is never copied: in a management cluster, kube's token controller fills it
 * with a long-lived token of the ServiceAccount its annotation names, so whoever may place a
 * HostedCluster referencing one would have the syncer mint tokens there.
 * @see https://kubernetes.io/docs/concepts/configuration/secret/#serviceaccount-token-secrets
 */
export const ServiceAccountTokenType = 'kubernetes.io/service-account-token';
const ServiceAccountNameAnnotation = 'kubernetes.io/service-account.name';

/** How long a created copy stands in for one the downstream informer does not show yet, in milliseconds. */
export const RecentCreateTTLMs = 30_000;

/**
 * The last step (rules above); expects `req.upstream` (the delete step stopped the pass otherwise). `'skip'` when the
 * copy is in sync, `'stop'` after a create or patch, a requeue (milliseconds) while it waits or is left alone. Throws
 * the client's errors other than those handled above (AlreadyExists on create, NotFound on patch, an in-place refusal
 * of a copy it may replace), after reporting a refusal upstream as `CopyFailed`.
 */
export const applyDownstream = (deps: DownsyncDeps): Step => ({
  name: 'applyDownstream',
  async run(req) {
    const up = req.upstream!;
    const keys = payloadKeys[req.kind];
    let down = req.downstream;
    const recent = deps.recentCreates.get(req.key);
    if (down || (recent && (deps.now() - recent.atMs > RecentCreateTTLMs || recent.object.metadata.annotations?.[AnnotationUpstreamUID] !== up.metadata.uid))) {
      deps.recentCreates.delete(req.key);
    } else if (recent) {
      down = recent.object;
    }
    if (isReservedNamespace(req.namespace)) {
      const why = `namespace ${req.namespace} is one hcc never writes into (Kubernetes', OpenShift's, HyperShift's or hcc's own)`;
      return refuseCopy(deps, req, down, why, `the ${req.kind} is not copied there: use another namespace`);
    }
    if (req.kind === 'Secret' && up.type === ServiceAccountTokenType) {
      const why = `a Secret of type ${ServiceAccountTokenType} would be filled there with a token of the management cluster's ServiceAccount ${JSON.stringify(up.metadata.annotations?.[ServiceAccountNameAnnotation] ?? '')} (kube's token controller does that)`;
      // The HostedClusters and NodePools placed here that reference it are told too (their own
      // conditions would only say the Secret is not found there).
      return refuseCopy(deps, req, down, why, 'hcc never copies one there: use a Secret of another type', 'hcc never copies one there: reference a Secret of another type');
    }
    const underControlPlane = deps.blockedByControlPlane?.(req.kind, up);
    if (underControlPlane) return refuseCopy(deps, req, down, underControlPlane, `the ${req.kind} is not copied there`);
    const blocked = req.kind === 'HostedCluster' ? undefined : deps.blockedByForeign?.(req.kind, up);
    if (blocked) {
      // Never write what belongs with a HostedCluster hcc does not own here (its CopyBlocked
      // Event says why); a copy hcc made before is left as it is.
      if (req.kind === 'NodePool') {
        deps.warn(up, ReasonCopyBlocked, `management cluster ${deps.cluster}: ${blocked}; the NodePool is not copied there`);
        // No copy of ours there (nothing, or a same-named NodePool hcc did not create): say so upstream.
        if (!down || !isOurs(deps, req.kind, up, down)) await markNoCopy(deps, req.kind, req.key, up, ReasonCopyBlocked, `management cluster ${deps.cluster} has no copy: ${blocked}`);
      }
      deps.log.info({ key: req.key, reason: blocked }, 'not copying: its HostedCluster is blocked here');
      return { requeueAfterMs: ForeignRecheckMs };
    }
    const teardown = req.kind === 'NodePool' ? hostedClusterTearingDown(deps, up) : undefined;
    if (teardown) {
      // HyperShift deletes a HostedCluster's NodePools when its teardown starts: a copy created
      // (or written) now would be a new NodePool in a cluster going away. The NodePool's own
      // deletion follows (deleteUpstreamNodePools); the HostedCluster's events wake this key.
      deps.log.info({ key: req.key, reason: teardown }, 'not copying a NodePool: its HostedCluster is being torn down');
      return 'stop';
    }
    if (!down) {
      const taken = req.kind === 'HostedCluster' ? await deps.foreignControlPlaneNamespace?.(up) : undefined;
      if (taken) return refuseCopy(deps, req, down, taken, 'the HostedCluster is not copied there: rename it or its namespace, or remove that namespace there');
      await deps.ensureDownstreamNamespace(req.namespace);
      const dropped = droppedFields(req.kind);
      try {
        const copy = desiredDownstream(up, undefined, deps.cluster, keys, undefined, deps.controlCenter?.id);
        const created = await deps.downstream.create(req.kind, copy, dropped?.collect);
        deps.recentCreates.set(req.key, { object: created, atMs: deps.now() });
        deps.namespaceWaits?.delete(req.key);
        if (copy.metadata.annotations?.[AnnotationSyncedKeys] === undefined) deps.rememberedKeys?.set(req.key, syncedKeysOf(up));
        return dropped?.report(deps, up) ?? 'stop';
      } catch (err) {
        if (isNamespaceTerminating(err)) {
          // The namespace there is being deleted (by this syncer, once nothing of hcc's was left in
          // it, or by that cluster's admin): not a refusal. The create fails until it is gone; then
          // the namespace is made again (the failed create forgot it) and the copy with it. Looked
          // at again sooner at first (the syncer's own namespace deletes take seconds), then less
          // often; one stuck (a finalizer there nobody removes) gets a Warning Event.
          const since = deps.namespaceWaits?.get(req.key) ?? deps.now();
          deps.namespaceWaits?.set(req.key, since);
          const waitedMs = deps.now() - since;
          deps.log.debug({ key: req.key, waitedMs }, 'waiting for the namespace there to finish terminating');
          if (waitedMs >= NamespaceStuckMs) {
            deps.warn(up, ReasonNamespaceTerminating, `management cluster ${deps.cluster}: namespace ${req.namespace} there has been terminating for over ${NamespaceStuckMs / 60_000} minutes (its status there says what holds it); the ${req.kind} is copied once it is gone`);
          }
          await markNoCopy(deps, req.kind, req.key, up, ReasonNamespaceTerminating, `management cluster ${deps.cluster} has no copy yet: namespace ${req.namespace} there is being deleted; the copy is made once it is gone`);
          return { requeueAfterMs: Math.min(NamespaceTerminatingMaxRecheckMs, Math.max(NamespaceTerminatingRecheckMs, waitedMs / 4)) };
        }
        if (!isAlreadyExists(err)) {
          const refused = reportRefused(deps, req.kind, up, err);
          if (refused) await markNoCopy(deps, req.kind, req.key, up, ReasonCopyFailed, `management cluster ${deps.cluster} has no copy: it refused to create one (${refused.code} ${refused.reason}): ${refused.message}`);
          throw err;
        }
      }
      // It exists already: made by someone else (adopt it), or our cache lags.
      down = await deps.downstream.get(req.kind, req.namespace, req.name);
      if (!down) return { requeueAfterMs: 500 };
    }
    if (down.metadata.deletionTimestamp) return { requeueAfterMs: 2000 };
    const otherCC = otherControlCenter(deps.controlCenter, down, up);
    if (otherCC) return await leaveOtherControlCenters(deps, req.kind, req.key, up, down, otherCC);
    if (isEarlierObjectsCopy(req.kind, up, down)) return await leaveEarlier(deps, req.key, up, down);
    if (isSiblingsCopy(deps, req.kind, up, down)) {
      // One copy for the cluster, kept by that syncer; looked at again in case it goes first.
      deps.log.debug({ key: req.key, owner: down.metadata.labels?.[LabelSyncedBy] }, 'the copy of another name for this management cluster; leaving it to its syncer');
      return { requeueAfterMs: SiblingRecheckMs };
    }
    const desired = desiredDownstream(up, down, deps.cluster, keys, deps.rememberedKeys?.get(req.key), deps.controlCenter?.id);
    let adopting = false;
    if (!isOurs(deps, req.kind, up, down)) {
      // Someone else's object of the same name. A HostedCluster or NodePool is never taken over:
      // its spec would change under the owner's control plane, and deleting ours would delete it.
      if (!replaceableKinds.has(req.kind)) return await leaveForeign(deps, req.kind, req.key, up, down);
      // A Secret or ConfigMap is taken over only for a HostedCluster placed here that the
      // informers show (the state label can arrive before the placement), and not being deleted:
      // the HostedCluster's arrival wakes it again (syncer.ts wakeDependents), now judged by blockedByForeign.
      if (deps.referencedHere && !deps.referencedHere(req.kind, req.namespace, req.name)) {
        deps.log.info({ key: req.key }, 'not taking over: no HostedCluster placed here, and not being deleted, references it');
        return { requeueAfterMs: ForeignRecheckMs };
      }
      // Nor when a HostedCluster or NodePool hcc did not create uses it there (Karmada's default
      // conflictResolution: Abort): its data would change under that cluster.
      const user = deps.usedByForeign?.(req.kind, req.namespace, req.name);
      if (user) return leaveUsed(deps, req.kind, req.key, up, down, user);
      // Nor when something in that cluster owns it (a HostedControlPlane's certificate, an
      // operator's configuration): its owner would lose it, and releasing it later would not give it back.
      const owners = down.metadata.ownerReferences ?? [];
      if (owners.length) return leaveOwned(deps, req.kind, up, down, owners);
      if (down.metadata.annotations?.[AnnotationHandedOver] !== undefined) {
        // Another control center's syncer handed its copy over (handOverToControlCenterPatch): an
        // hcc copy, this syncer's own from now on, deleted when no longer needed.
        delete desired.metadata.annotations![AnnotationHandedOver];
        deps.log.info({ key: req.key, from: down.metadata.annotations[AnnotationHandedOver] }, "taking over the copy another control center's syncer handed over");
      } else {
        // Nor without the consent of that cluster's admin, on the object itself: a tenant of the
        // control center could otherwise overwrite any same-named Secret there (another syncer's
        // kubeconfig, an operator's credentials), and releasing it would not give the data back.
        if (down.metadata.annotations?.[AnnotationAdoptable] !== 'true') return leaveUnconsented(deps, req.kind, req.key, up, down);
        adopting = down.metadata.annotations?.[AnnotationAdopted] !== 'true';
        desired.metadata.annotations![AnnotationAdopted] = 'true';
      }
    }
    if (req.kind === 'HostedCluster') {
      for (const f of operatorDefaultedSpecFields) {
        const want = (up.spec as Record<string, unknown> | undefined)?.[f];
        const have = (down.spec as Record<string, unknown> | undefined)?.[f];
        if (want && have && want !== have) {
          deps.warn(
            up,
            ReasonFieldConflict,
            `the copy in management cluster ${deps.cluster} has spec.${f} ${String(have)}, this HostedCluster ${String(want)}; it never changes once set, so the copy keeps its own and the rest of the spec is still copied: it was changed there by hand`,
          );
        }
      }
    }
    const untracked = desired.metadata.annotations?.[AnnotationSyncedKeys] === undefined;
    if (untracked) {
      deps.warn(
        up,
        ReasonKeysUntracked,
        `the copy in management cluster ${deps.cluster} has no room left under the 256 KiB annotation limit (this object's annotations and any that cluster keeps on the copy) for hcc's record of the labels and annotations it synced: one removed here leaves the copy only while this syncer runs (it remembers them), not after it restarts`,
      );
    }
    const remember = () => {
      if (untracked) deps.rememberedKeys?.set(req.key, syncedKeysOf(up));
      else deps.rememberedKeys?.delete(req.key);
    };
    const patch = downstreamPatch(desired, down, keys);
    if (!patch) {
      remember();
      return 'skip';
    }
    const dropped = droppedFields(req.kind);
    try {
      deps.downWrites.record(req.key, down, await deps.downstream.patch(req.kind, req.namespace, req.name, patch, dropped?.collect));
    } catch (err) {
      if (isNotFound(err)) {
        // Gone since it was last seen (the informer will tell): the next pass creates it again.
        deps.recentCreates.delete(req.key);
        return { requeueAfterMs: 500 };
      }
      if (replaceableKinds.has(req.kind) && cannotChangeInPlace(err)) return replaceOrLeave(deps, req.kind, req.key, up, down, err);
      reportRefused(deps, req.kind, up, err);
      throw err;
    }
    remember();
    if (adopting) {
      deps.log.info({ key: req.key }, 'took over a same-named object hcc did not create');
      deps.warn(
        up,
        ReasonAdopted,
        `management cluster ${deps.cluster} had a ${req.kind} ${req.namespace}/${req.name} that hcc did not create; its content is now this one's (marked ${AnnotationAdopted}; released, not deleted, when no HostedCluster placed there uses it, with this content)`,
      );
    }
    return dropped?.report(deps, up) ?? 'stop';
  },
});

/**
 * Why a NodePool `np` must not be copied or written now, or undefined: its HostedCluster
 * (`spec.clusterName`, same namespace) is being deleted in the control center, or its copy here
 * is being torn down (a `deletionTimestamp`, as informers show them). HyperShift's HostedCluster
 * controller deletes the NodePools at the start of that teardown
 * (hypershift-operator/controllers/hostedcluster, `deleteNodePools`), so a copy made then would
 * be a new NodePool (new uid, no finalizers) the teardown may miss.
 */
export function hostedClusterTearingDown(deps: Pick<DownsyncDeps, 'getUpstream' | 'getDownstream'>, np: KubeObject): string | undefined {
  const hcName = (np.spec as { clusterName?: string } | undefined)?.clusterName;
  if (!hcName) return undefined;
  const key = `${np.metadata.namespace ?? ''}/${hcName}`;
  if (deps.getUpstream('HostedCluster', key)?.metadata.deletionTimestamp) return `HostedCluster ${key} is being deleted`;
  if (deps.getDownstream('HostedCluster', key)?.metadata.deletionTimestamp) return `the copy of HostedCluster ${key} is being torn down`;
  return undefined;
}

/** Warning Event: the copy's clusterID or infraID differs from the control center's (set by hand there; neither can change once set). */
export const ReasonFieldConflict = 'FieldConflict';

/** Warning Event: a copy's annotations leave no room for hcc's synced-keys record (transform.ts), so keys removed upstream stay on it. */
export const ReasonKeysUntracked = 'KeysUntracked';

/** Warning Event: the management cluster refused to create or change the copy. */
export const ReasonCopyFailed = 'CopyFailed';

/**
 * Condition reason (Available on a HostedCluster, Ready on a NodePool, status Unknown) while the
 * copy's namespace in the management cluster is being deleted: kube-apiserver refuses creates
 * there (403 with the cause `NamespaceTerminating`) until the namespace is gone.
 * @see https://github.com/kubernetes/kubernetes/blob/master/plugin/pkg/admission/namespace/lifecycle/admission.go
 */
export const ReasonNamespaceTerminating = 'NamespaceTerminating';

/**
 * How soon a create waiting on a terminating namespace is tried again, in milliseconds: a quarter
 * of the time waited so far, at least this...
 */
export const NamespaceTerminatingRecheckMs = 1_000;
/** ...and at most this (milliseconds). */
export const NamespaceTerminatingMaxRecheckMs = 30_000;
/** After this long (milliseconds) a terminating namespace is called stuck: a Warning Event on each object waiting. */
export const NamespaceStuckMs = 2 * 60_000;

/**
 * Makes a write the management cluster refused visible where users look, as Karmada's
 * `SyncFailed` Events do: a Warning Event `CopyFailed` on the control center's object with the
 * cluster's own message (one Event per message, counted), for a refusal that is about the
 * request (4xx: Forbidden, as in a namespace being terminated there, Invalid, ...). Conflicts,
 * a copy gone meanwhile, throttling and server or transport errors are passing and stay in the
 * log. The caller still fails the pass with `err`, retried with backoff.
 * @returns the refusal, or undefined when `err` is not one
 */
function reportRefused(deps: DownsyncDeps, kind: SyncKind, up: KubeObject, err: unknown): ApiError | undefined {
  if (!(err instanceof ApiError) || err.code < 400 || err.code >= 500 || [404, 409, 429].includes(err.code)) return undefined;
  // The copy carries hcc's own annotations beside the object's: an object at the limit leaves them no room.
  const hint = /metadata\.annotations: Too long/.test(err.message)
    ? ` (the copy carries hcc's annotations ${AnnotationUpstreamUID}, upstream-generation and synced-keys beside this object's and any the management cluster keeps on the copy: leave them room under the limit)`
    : '';
  deps.warn(up, ReasonCopyFailed, `management cluster ${deps.cluster} refused the ${kind} copy (${err.code} ${err.reason}): ${err.message}${hint}; retrying`);
  return err;
}

/**
 * The condition a missing copy makes Unknown upstream, per kind: what `kubectl get` shows
 * (AVAILABLE, READY); also the one a torn-down copy makes False (downsync-reconcile-delete.ts).
 */
export const NoCopyCondition: Partial<Record<SyncKind, string>> = { HostedCluster: 'Available', NodePool: 'Ready' };

/**
 * Refuses to write the copy of `req.upstream` there, for a reason that holds for every object of
 * its kind, namespace or type (not for this one's data): a Warning Event `CopyBlocked` on the
 * upstream object (`management cluster <name>: <why>; <advice>`), with `userAdvice` one
 * `DependencyNotCopied` on each HostedCluster and NodePool placed here that references it, the
 * missing copy marked (markNoCopy) unless a copy of ours is there already (left as it is), and a
 * look again later.
 */
async function refuseCopy(deps: DownsyncDeps, req: DownsyncRequest, down: KubeObject | undefined, why: string, advice: string, userAdvice?: string): Promise<StepResult> {
  const up = req.upstream!;
  deps.warn(up, ReasonCopyBlocked, `management cluster ${deps.cluster}: ${why}; ${advice}`);
  if (userAdvice !== undefined) {
    for (const user of deps.usersHere?.(req.kind, req.namespace, req.name) ?? []) {
      deps.warn(user, ReasonDependencyNotCopied, `management cluster ${deps.cluster} has no copy of ${req.kind} ${req.namespace}/${req.name}: ${why}; ${userAdvice}`);
    }
  }
  if (!down || !isOurs(deps, req.kind, up, down)) await markNoCopy(deps, req.kind, req.key, up, ReasonCopyBlocked, `management cluster ${deps.cluster} has no copy: ${why}`);
  return { requeueAfterMs: ForeignRecheckMs };
}

/**
 * When there is no HostedCluster or NodePool copy in the management cluster, because the cluster
 * refuses to create one (`CopyFailed`) or an object hcc did not create holds the name there
 * (`CopyBlocked`), no operator reports on it, so what the control center shows is not known
 * (nothing yet, or Available=True of a copy since deleted): marks `Available=Unknown` (NodePool
 * `Ready=Unknown`) with that reason and `message`, as the scheduler marks what a lost cluster
 * holds, so `kubectl get` and `kubectl wait` show why. Once per message; upsync puts the
 * operator's status back when a copy exists again. A failed mark is logged, not thrown (the pass
 * is retried).
 */
async function markNoCopy(deps: DownsyncDeps, kind: SyncKind, key: string, up: KubeObject, reason: string, message: string): Promise<void> {
  const type = NoCopyCondition[kind];
  if (!type || !deps.updateUpstreamStatus) return;
  const conditions = (up.status as { conditions?: Condition[] } | undefined)?.conditions;
  const cond: Condition = { type, status: 'Unknown', reason, message };
  if (conditionUpToDate(conditions, cond)) return;
  try {
    const written = await deps.updateUpstreamStatus(kind, { ...up, status: { ...((up.status as object | undefined) ?? {}), conditions: setCondition(conditions, cond, new Date(deps.now())) } });
    deps.ownWrites.record(key, up, written);
  } catch (e) {
    deps.log.warn({ key, err: e }, 'could not mark the missing copy in the control center');
  }
}

/** Warning Event: the management cluster's CRD dropped fields of the copy it does not know. */
export const ReasonFieldsDropped = 'FieldsDropped';

/** How often a copy missing fields is written again (the cluster's CRD may have been upgraded), in milliseconds. */
export const FieldsDroppedRecheckMs = 5 * 60_000;

/**
 * For a HostedCluster or NodePool (kinds with a CRD schema that differs between HyperShift
 * versions), a collector of the management cluster's warnings about unknown fields, which its
 * kube-apiserver prunes silently unless asked (`fieldValidation=Warn`), and the report of what it
 * dropped: a Warning Event `FieldsDropped` on the upstream object naming the fields (one Event
 * per object and message, counted), and a write again after {@link FieldsDroppedRecheckMs}.
 * Karmada reports the same as a Work that failed to apply; here the copy is still written, as a
 * newer control center CRD may only default a field an older operator does without.
 * @returns undefined for Secrets and ConfigMaps
 */
function droppedFields(kind: SyncKind): { collect: (text: string) => void; report: (deps: DownsyncDeps, up: KubeObject) => StepResult | undefined } | undefined {
  if (kind !== 'HostedCluster' && kind !== 'NodePool') return undefined;
  const unknown: string[] = [];
  return {
    collect: (text) => {
      if (/^unknown field /.test(text)) unknown.push(text.replace(/^unknown field /, ''));
    },
    report: (deps, up) => {
      if (!unknown.length) return undefined;
      const fields = [...new Set(unknown)].sort().join(', ');
      deps.log.warn({ kind, object: up.metadata.name, namespace: up.metadata.namespace, fields }, 'the management cluster dropped fields its CRD does not know');
      deps.warn(
        up,
        ReasonFieldsDropped,
        `management cluster ${deps.cluster} does not know ${fields} (its ${kind} CRD is older than the control center's): the copy there lacks them; upgrade HyperShift there or leave them unset`,
      );
      return { requeueAfterMs: FieldsDroppedRecheckMs };
    },
  };
}

/**
 * True when `down` is a HostedCluster copy hcc made of an earlier object of the same name (another
 * upstream uid) that is a different hosted cluster: `up` has no `spec.clusterID`, or another one.
 * That object was deleted while this syncer was away (its finalizer removed by hand, or its
 * ManagementCluster retired) and a new one took the name. Giving the copy to the new object would
 * hand it the old cluster's identity, etcd and kubeconfig. One with the copy's clusterID is the
 * same cluster (a control center restored from an export), whose copy it is.
 */
export function isEarlierObjectsCopy(kind: SyncKind, up: KubeObject, down: KubeObject): boolean {
  if (kind !== 'HostedCluster') return false;
  const was = down.metadata.annotations?.[AnnotationUpstreamUID];
  if (!was || !up.metadata.uid || was === up.metadata.uid) return false;
  const clusterID = (o: KubeObject) => ((o.spec as { clusterID?: unknown } | undefined)?.clusterID as string | undefined) || '';
  return clusterID(up) !== clusterID(down);
}

/** How long a shared copy kept by the syncer of another name for this cluster waits before the next look, in milliseconds. */
export const SiblingRecheckMs = 10_000;

/**
 * True when `down` is a Secret or ConfigMap copy of `up` that the syncer of another live
 * ManagementCluster name for this same management cluster keeps (`synced-by: <that name>`, the
 * same upstream uid, this control center's): both would need it, and both relabelling it would
 * rewrite it without end.
 */
export function isSiblingsCopy(deps: Pick<DownsyncDeps, 'cluster' | 'isSibling' | 'controlCenter'>, kind: SyncKind, up: KubeObject, down: KubeObject): boolean {
  const owner = down.metadata.labels?.[LabelSyncedBy];
  return (
    replaceableKinds.has(kind) &&
    otherControlCenter(deps.controlCenter, down, up) === undefined &&
    !!owner &&
    owner !== deps.cluster &&
    !!up.metadata.uid &&
    down.metadata.annotations?.[AnnotationUpstreamUID] === up.metadata.uid &&
    deps.isSibling?.(owner) === true
  );
}

/**
 * True when `down` is this syncer's copy of `up`: it carries `synced-by: <cluster>`, or the
 * upstream uid (a copy whose label someone removed), or it was taken over earlier; never the copy
 * of another control center (control-center-identity.ts), nor of an earlier HostedCluster of that
 * name ({@link isEarlierObjectsCopy}).
 */
export function isOurs(deps: Pick<DownsyncDeps, 'cluster' | 'controlCenter'>, kind: SyncKind, up: KubeObject, down: KubeObject): boolean {
  if (otherControlCenter(deps.controlCenter, down, up) !== undefined || isEarlierObjectsCopy(kind, up, down)) return false;
  return down.metadata.labels?.[LabelSyncedBy] === deps.cluster || (!!up.metadata.uid && down.metadata.annotations?.[AnnotationUpstreamUID] === up.metadata.uid) || down.metadata.annotations?.[AnnotationAdopted] === 'true';
}

/**
 * Reports the copy of an earlier HostedCluster in the way (Warning Event `CopyBlocked`, and
 * `Available=Unknown`: {@link markNoCopy}) and looks again later; writes nothing downstream.
 */
async function leaveEarlier(deps: DownsyncDeps, key: string, up: KubeObject, down: KubeObject): Promise<StepResult> {
  const ns = down.metadata.namespace ?? '';
  const name = down.metadata.name ?? '';
  const clusterID = ((down.spec as { clusterID?: string } | undefined)?.clusterID ?? '') || '(none yet)';
  const what = `a copy of an earlier HostedCluster ${ns}/${name} (upstream uid ${down.metadata.annotations?.[AnnotationUpstreamUID]}, clusterID ${clusterID}), deleted while its syncer was away`;
  deps.log.warn({ key, clusterID }, 'the management cluster holds the copy of an earlier HostedCluster of this name; leaving it');
  deps.warn(
    up,
    ReasonCopyBlocked,
    `management cluster ${deps.cluster} has ${what}; hcc does not give it to this HostedCluster: delete it there (kubectl delete hostedcluster -n ${ns} ${name}) to have this one copied, or, restoring the control center, set spec.clusterID to ${clusterID} to take it over`,
  );
  await markNoCopy(deps, 'HostedCluster', key, up, ReasonCopyBlocked, `management cluster ${deps.cluster} has no copy: it has ${what} (delete it there)`);
  return { requeueAfterMs: ForeignRecheckMs };
}

/**
 * Reports a copy that the syncer of another control center made under this ManagementCluster's
 * name in the way (Warning Event `CopyBlocked`; for a HostedCluster or NodePool, the upstream
 * object marked as having no copy: {@link markNoCopy}) and looks again later; writes nothing
 * downstream. Two control centers serving one management cluster under one name is a
 * misconfiguration the admin resolves: a name of its own in one of them, or, when this control
 * center replaces that one, {@link TakeOverFromFlag}.
 */
async function leaveOtherControlCenters(deps: DownsyncDeps, kind: SyncKind, key: string, up: KubeObject, down: KubeObject, other: string): Promise<StepResult> {
  deps.log.warn({ key, controlCenter: other }, `the ${kind} of this name in the management cluster is another control center's copy; leaving it`);
  const name = down.metadata.labels?.[LabelSyncedBy];
  // Under this ManagementCluster's name: two control centers serve the cluster under one name.
  // Under another name: that control center's copy, which no flag of this syncer should take.
  const sameName = name === deps.cluster;
  const what = `a ${kind} ${down.metadata.namespace}/${down.metadata.name} that ${copyMaker(other)} made ${sameName ? 'under the same ManagementCluster name' : `for its ManagementCluster ${name ?? '(none)'}`}`;
  const advice = !isControlCenterID(other)
    ? `put back what was edited there, or rename this one`
    : sameName
      ? `two control centers must not serve one management cluster under one name (give it another name in one of them), or, if this control center replaces that one, start this cluster's syncer with ${TakeOverFromFlag} ${other}`
      : `rename this one, or delete that copy there once that control center no longer uses it`;
  deps.warn(up, ReasonCopyBlocked, `management cluster ${deps.cluster} already has ${what}; hcc leaves it: ${advice}`);
  if (NoCopyCondition[kind]) await markNoCopy(deps, kind, key, up, ReasonCopyBlocked, `management cluster ${deps.cluster} has no copy: it has ${what}`);
  // A HostedCluster or NodePool copy of this control center there runs on that one's Secret or ConfigMap.
  // (A stamp edited by hand names no other control center: waiting would not help.)
  if (replaceableKinds.has(kind)) {
    const [whose, userAdvice] = isControlCenterID(other)
      ? ["that is another control center's copy", 'rename the reference, or wait until that control center no longer uses it (then this one takes it over)']
      : ['that hcc cannot tell for its own', 'put back what was edited there, or rename the reference'];
    warnUsers(deps, kind, down, `made by ${copyMaker(other)}`, whose, userAdvice);
  }
  return { requeueAfterMs: ForeignRecheckMs };
}

/**
 * Reports a foreign HostedCluster or NodePool in the way (Warning Event `CopyBlocked`, and the
 * upstream object marked as having no copy: {@link markNoCopy}) and looks again later; writes
 * nothing downstream.
 */
async function leaveForeign(deps: DownsyncDeps, kind: SyncKind, key: string, up: KubeObject, down: KubeObject): Promise<StepResult> {
  deps.log.warn({ key }, `a ${kind} hcc did not create has this name in the management cluster; leaving it`);
  const what = `a ${kind} ${down.metadata.namespace}/${down.metadata.name} that hcc did not create`;
  deps.warn(up, ReasonCopyBlocked, `management cluster ${deps.cluster} already has ${what}; hcc never takes over a ${kind}: delete it there or rename this one`);
  await markNoCopy(deps, kind, key, up, ReasonCopyBlocked, `management cluster ${deps.cluster} has no copy: it already has ${what} (delete it there or rename this one)`);
  return { requeueAfterMs: ForeignRecheckMs };
}

/**
 * Tells the HostedClusters and NodePools placed here that use a Secret or ConfigMap hcc leaves as
 * it is there (Warning Event `DependencyNotCopied` on each): their copies run with that cluster's
 * object of the name, not the control center's.
 */
function warnUsers(deps: DownsyncDeps, kind: SyncKind, down: KubeObject, why: string, whose = 'that hcc did not create', advice = `rename the reference or remove that ${kind} there`): void {
  for (const user of deps.usersHere?.(kind, down.metadata.namespace ?? '', down.metadata.name ?? '') ?? []) {
    deps.warn(
      user,
      ReasonDependencyNotCopied,
      `management cluster ${deps.cluster} has a ${kind} ${down.metadata.namespace}/${down.metadata.name} ${whose} (${why}); the copy there uses that one's data, not the control center's: ${advice}`,
    );
  }
}

/** Warning Event on a HostedCluster or NodePool whose Secret or ConfigMap is left as the management cluster has it. */
export const ReasonDependencyNotCopied = 'DependencyNotCopied';

/** Reports a Secret or ConfigMap hcc did not create that a foreign HostedCluster or NodePool uses (Warning Event `CopyBlocked`) and looks again later; writes nothing downstream. */
function leaveUsed(deps: DownsyncDeps, kind: SyncKind, key: string, up: KubeObject, down: KubeObject, user: string): StepResult {
  deps.log.warn({ key, user }, `a ${kind} hcc did not create has this name in the management cluster and ${user} uses it; leaving it`);
  deps.warn(
    up,
    ReasonCopyBlocked,
    `management cluster ${deps.cluster} already has a ${kind} ${down.metadata.namespace}/${down.metadata.name} that hcc did not create and that ${user} (not hcc's) uses; hcc does not take it over: rename this one`,
  );
  warnUsers(deps, kind, down, `${user} uses it`);
  return { requeueAfterMs: ForeignRecheckMs };
}

/**
 * Reports a Secret or ConfigMap hcc did not create and may not take over (it lacks
 * `controlcenter.hcc.dev/adoptable: "true"`): a Warning Event `CopyBlocked`, `DependencyNotCopied`
 * on the users placed there, another look in a minute; writes nothing downstream.
 */
function leaveUnconsented(deps: DownsyncDeps, kind: SyncKind, key: string, up: KubeObject, down: KubeObject): StepResult {
  deps.log.warn({ key }, `a ${kind} hcc did not create has this name in the management cluster; leaving it (no ${AnnotationAdoptable} annotation)`);
  deps.warn(
    up,
    ReasonCopyBlocked,
    `management cluster ${deps.cluster} already has a ${kind} ${down.metadata.namespace}/${down.metadata.name} that hcc did not create; hcc does not overwrite it: rename this one, remove that one there, or annotate it there ${AnnotationAdoptable}=true to let hcc take it over`,
  );
  warnUsers(deps, kind, down, 'hcc does not overwrite it', 'that hcc did not create', `rename the reference, remove that ${kind} there, or annotate it there ${AnnotationAdoptable}=true`);
  return { requeueAfterMs: ForeignRecheckMs };
}

/** Warning Event on the control center's object: the syncer took over a same-named Secret or ConfigMap it did not create. */
export const ReasonAdopted = 'Adopted';

/** Reports a Secret or ConfigMap hcc did not create that something in the management cluster owns (Warning Event `CopyBlocked`) and looks again later; writes nothing downstream. */
function leaveOwned(deps: DownsyncDeps, kind: SyncKind, up: KubeObject, down: KubeObject, owners: { kind?: string; name?: string }[]): StepResult {
  const owner = owners.map((o) => `${o.kind ?? '?'} ${o.name ?? '?'}`).join(', ');
  deps.log.warn({ kind, namespace: down.metadata.namespace, object: down.metadata.name, owner }, `a ${kind} hcc did not create has this name in the management cluster and ${owner} owns it; leaving it`);
  deps.warn(
    up,
    ReasonCopyBlocked,
    `management cluster ${deps.cluster} already has a ${kind} ${down.metadata.namespace}/${down.metadata.name} that hcc did not create and that ${owner} owns there; hcc does not take it over: rename this one`,
  );
  warnUsers(deps, kind, down, `${owner} owns it`);
  return { requeueAfterMs: ForeignRecheckMs };
}

/** Kinds whose copies may be deleted and created again when they cannot change in place. */
const replaceableKinds = new Set<SyncKind>(['Secret', 'ConfigMap']);

/** The fields of a Secret or ConfigMap that kube-apiserver never lets an update change (when `immutable` is set, or ever for `type`). */
const fixedFields = new Set(['type', 'immutable', 'data', 'binaryData']);

/**
 * True when a refused write of a Secret or ConfigMap copy can only succeed by replacing it: a 422
 * whose every cause is one of kube-apiserver's immutability rules (ValidateSecretUpdate,
 * ValidateConfigMapUpdate: `type: Invalid value: ...: field is immutable`, `data: Forbidden: field
 * is immutable when \`immutable\` is set`). Any other 422 (an annotation over the size limit, a
 * key the cluster refuses) would refuse the new copy too: deleting the live one would only take
 * it away from the control planes that use it.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/validation.go
 */
export function cannotChangeInPlace(err: unknown): boolean {
  if (!isInvalid(err) || !(err instanceof ApiError)) return false;
  const causes = err.details?.causes ?? [];
  return causes.length > 0 && causes.every((c) => fixedFields.has(c.field ?? '') && /field is immutable/.test(c.message ?? ''));
}

/** Reason of the Warning Event on the upstream object when a foreign copy blocks it. */
export const ReasonCopyBlocked = 'CopyBlocked';

/** Warning Event on a HostedCluster or NodePool whose copy someone deleted in the management cluster (syncer.ts), made again. */
export const ReasonCopyDeleted = 'CopyDeleted';

/** How long a Secret or ConfigMap hcc did not make and cannot change waits before the next look, in milliseconds. */
export const ForeignRecheckMs = 60_000;

async function replaceOrLeave(deps: DownsyncDeps, kind: SyncKind, key: string, up: KubeObject, down: KubeObject, err: unknown): Promise<StepResult> {
  const reason = (err as Error).message;
  if (isOwnCopy(deps.cluster, deps.controlCenter, down) && down.metadata.annotations?.[AnnotationAdopted] !== 'true') {
    // Only when the new copy would be taken: a copy deleted and then refused would leave the
    // control planes using it without it. The copy to come is made from the object as it is now
    // (this pass's view may lag: an oversized annotation added since), and the management cluster
    // is asked first (a server-side dry-run create).
    try {
      const live = await deps.upstream.get(kind, up.metadata.namespace ?? '', up.metadata.name ?? '');
      if (!live || live.metadata.uid !== up.metadata.uid) return { requeueAfterMs: 500 }; // changed under this pass: look again
      await deps.downstream.dryRunCreate?.(kind, desiredDownstream(live, undefined, deps.cluster, payloadKeys[kind], undefined, deps.controlCenter?.id));
    } catch (refusal) {
      reportRefused(deps, kind, up, refusal);
      throw refusal;
    }
    await deps.confirmControlCenter?.();
    deps.log.info({ key, reason }, 'copy cannot change in place (immutable or another type): deleting it to create it again');
    deps.recentCreates.delete(key);
    // Only the copy looked at: an object of the same name made since (by a user) is not it.
    await deps.downstream.delete(kind, down.metadata.namespace ?? '', down.metadata.name ?? '', down.metadata.uid ? { uid: down.metadata.uid } : undefined);
    return { requeueAfterMs: 500 };
  }
  deps.log.warn({ key, reason }, `a ${kind} hcc did not create has this name and cannot take the control center's content (immutable or another type); leaving it`);
  deps.warn(
    up,
    ReasonCopyBlocked,
    `management cluster ${deps.cluster} has a ${kind} ${down.metadata.namespace}/${down.metadata.name} that hcc did not create and that cannot take this content (immutable or another type); delete it there or rename this one: ${reason}`,
  );
  warnUsers(deps, kind, down, 'it cannot take the content: immutable or another type');
  return { requeueAfterMs: ForeignRecheckMs };
}
