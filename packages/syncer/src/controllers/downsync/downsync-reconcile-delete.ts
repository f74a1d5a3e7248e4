/**
 * Deletion, both ways it happens:
 * - the upstream object is gone (deleted, or no longer placed here): delete the downstream copy
 *   hcc made (only copies carrying `synced-by: <this cluster>` and this control center's sealed ID,
 *   or none: control-center-identity.ts); a Secret or ConfigMap hcc took over is released instead (its label and annotations removed), one that the copies of another
 *   live name for this management cluster use is handed over to that name's syncer (its label
 *   removed), and one that a HostedCluster or NodePool copy here still references (live or being
 *   torn down), or that one placed here references while it still exists upstream, is kept
 *   (stillReferenced);
 * - the upstream object is being deleted (`deletionTimestamp`): delete the downstream copy, wait
 *   until the operator's own finalizers let it go, then remove the syncer's finalizer upstream
 *   (and HyperShift's, which an exported manifest may carry and nothing else would remove). A
 *   HostedCluster's upstream NodePools are deleted when its copy's teardown starts (and again,
 *   for any made since, before its finalizer goes), as the operator deletes them then.
 * Nothing is orphaned in the management cluster. An object that other finalizers still hold when
 * the syncer's goes is first marked so (Available=False on a HostedCluster, Ready=False and no
 * replicas on a NodePool, reason {@link ReasonTornDown}): nothing runs for it any more.
 */
import { AnnotationAdopted, AnnotationUpstreamUID, conditionUpToDate, FinalizerHyperShift, FinalizerSyncer, LabelManagementCluster, setCondition, type Condition, type KubeObject } from '@hcc/crds';
import { isNotFound } from '@hcc/client';
import { handOverPatch, handOverToControlCenterPatch, releasePatch } from '../../transform.js';
import { finalizedKinds, type DownsyncDeps, type Step, type StepResult, type SyncKind } from './types.js';
import { isOwnCopy } from '../../control-center-identity.js';
import { isEarlierObjectsCopy, NoCopyCondition } from './downsync-reconcile-apply.js';

/** A finalizer removal whose object is already gone (the control center's garbage collector got there first) has done its job. */
const goneIsDone = async (write: Promise<unknown>): Promise<void> => {
  try {
    await write;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
};

/** How often to look again at a copy kept because something placed here still references it, in milliseconds. */
export const referencedRecheckMs = 5000;

/**
 * How long a Secret or ConfigMap deleted upstream keeps its copy while a live HostedCluster or
 * NodePool copy references it, in milliseconds: long enough for the HostedCluster's own deletion
 * to show when both were deleted together (`kubectl delete -f`, a namespace), after which the copy
 * stays for the whole teardown.
 */
export const referenceGraceMs = 2 * referencedRecheckMs;

/**
 * Deletes the copy hcc made; releases one it took over (releasePatch: hcc's label and annotations
 * removed, the object kept: it was the management cluster's before); hands over one that a live
 * copy of another control center uses (handOverToControlCenterPatch, usedByOtherControlCenter:
 * that control center's syncer takes it as its own; deleting it would pull it from under that
 * control plane).
 */
async function removeCopy(deps: DownsyncDeps, kind: SyncKind, key: string, down: KubeObject): Promise<void> {
  const ns = down.metadata.namespace ?? '';
  const name = down.metadata.name ?? '';
  if (down.metadata.annotations?.[AnnotationAdopted] === 'true') {
    deps.log.info({ kind, namespace: ns, object: name }, 'releasing a copy hcc took over: removing its label and annotations, keeping the object');
    await deps.downstream.patch(kind, ns, name, releasePatch());
    return;
  }
  const user = finalizedKinds.has(kind) ? undefined : deps.usedByOtherControlCenter?.(kind, ns, name);
  if (user) {
    deps.log.info({ kind, namespace: ns, object: name, user }, "handing the copy over instead of deleting it: another control center's copy uses it, whose syncer takes it over");
    await deps.downstream.patch(kind, ns, name, handOverToControlCenterPatch(deps.controlCenter?.id ?? ''));
    return;
  }
  deps.log.info({ kind, namespace: ns, object: name }, 'deleting the copy');
  // Only the copy looked at: an object of the same name made since (by a user) is not it.
  await deps.downstream.delete(kind, ns, name, down.metadata.uid ? { uid: down.metadata.uid } : undefined);
  // Until the informer shows the deletion, passes see the copy as being deleted (not deleted again).
  deps.downWrites.record(key, down, { ...down, metadata: { ...down.metadata, resourceVersion: '', deletionTimestamp: new Date(deps.now()).toISOString() } });
}

/** How soon a copy whose object the informer does not show, but a live read does, is looked at again, in milliseconds. */
export const informerLagRecheckMs = 1000;

/**
 * Whether the copy `down` must stay although the informer shows no object placed here for it: a
 * live read finds one placed here that is the copy's own object (the informer lags), or a new
 * object of that name (another uid) placed here, whose pass judges the copy (isEarlierObjectsCopy).
 * @returns a requeue to look again, or undefined when the copy's object is gone from here
 */
async function stillHere(deps: DownsyncDeps, kind: SyncKind, namespace: string, name: string, down: KubeObject): Promise<StepResult | undefined> {
  const live = await deps.upstream.get(kind, namespace, name);
  if (!live || live.metadata.labels?.[LabelManagementCluster] !== deps.cluster) return undefined;
  const was = down.metadata.annotations?.[AnnotationUpstreamUID];
  if (was && live.metadata.uid === was && live.metadata.deletionTimestamp) return undefined;
  deps.log.info({ kind, namespace, object: name }, 'not deleting the copy: a live read shows its object placed here, which the informer does not show yet');
  return { requeueAfterMs: informerLagRecheckMs };
}

/** How often to look again while the operator tears a HostedCluster down, in milliseconds. */
export const teardownPollMs = 2000;

/**
 * The first step (rules above): `'continue'` for a live upstream object. Upstream gone: removes, releases or hands over
 * this syncer's copy and stops, or requeues while it must stay; `'skip'` when there is no copy of ours to act on.
 * Upstream being deleted: removes (or releases) the copy, requeuing every {@link teardownPollMs} while it goes, then
 * drops the syncer's finalizer (NotFound counts as done) and stops. Throws what the client calls throw.
 */
export const deleteDownstream = (deps: DownsyncDeps): Step => ({
  name: 'deleteDownstream',
  async run(req) {
    const { upstream: up, downstream: down } = req;
    // Only what this syncer made: a copy of another control center under this name is not (control-center-identity.ts).
    const ours = !!down && isOwnCopy(deps.cluster, deps.controlCenter, down, up);
    if (!up) {
      if (!down || !ours || down.metadata.deletionTimestamp) return 'skip';
      // Its object gone from a control center that is still the one the copy was made for (not
      // one started afresh at the same address, whose relist shows none of them).
      await deps.confirmControlCenter?.();
      // A HostedCluster or NodePool copy runs a control plane: its object's absence is confirmed
      // with a live read first, as kube's garbage collector reads an owner before deleting a
      // dependent (the informer may not show an object created a moment ago yet).
      if (finalizedKinds.has(req.kind)) {
        const wait = await stillHere(deps, req.kind, req.namespace, req.name, down);
        if (wait) return wait;
      }
      // A Secret or ConfigMap the copies of another live name for this management cluster use
      // (DuplicateCluster): handed over to that name's syncer, which keeps it current from now on.
      if (!finalizedKinds.has(req.kind) && deps.usedBySibling?.(req.kind, req.namespace, req.name)) {
        deps.log.info({ kind: req.kind, namespace: req.namespace, object: req.name }, 'handing the copy over to the syncer of another name for this management cluster, whose copies use it');
        await deps.downstream.patch(req.kind, req.namespace, req.name, handOverPatch());
        deps.rememberedKeys?.delete(req.key);
        return 'stop';
      }
      // A Secret or ConfigMap that left this syncer's view while a HostedCluster or NodePool
      // placed here still references it, and still exists upstream (a PUT without hcc's state
      // label, until the scheduler puts it back): the copy the operator uses stays.
      if (!finalizedKinds.has(req.kind) && (await deps.stillReferenced?.(req.kind, req.namespace, req.name))) return { requeueAfterMs: referencedRecheckMs };
      await removeCopy(deps, req.kind, req.key, down);
      deps.rememberedKeys?.delete(req.key);
      return 'stop';
    }
    if (!up.metadata.deletionTimestamp) return 'continue';
    // The copy of an earlier HostedCluster of this name is not this one's to delete (see isEarlierObjectsCopy).
    if (down && ours && !isEarlierObjectsCopy(req.kind, up, down)) {
      await deps.confirmControlCenter?.();
      // A Secret or ConfigMap being deleted (a namespace deleted whole) stays while a copy that uses it is torn down.
      if (!finalizedKinds.has(req.kind) && !down.metadata.deletionTimestamp && (await deps.stillReferenced?.(req.kind, req.namespace, req.name))) return { requeueAfterMs: referencedRecheckMs };
      // HyperShift deletes a HostedCluster's NodePools when its teardown starts; so does the
      // control center, so none is left (or copied again) while the teardown runs, and a
      // HostedCluster applied again under the name right after finds none still being deleted.
      if (req.kind === 'HostedCluster') await deps.deleteUpstreamNodePools?.(req.namespace, req.name, up.metadata.uid, 'cache');
      if (!down.metadata.deletionTimestamp) await removeCopy(deps, req.kind, req.key, down);
      deps.rememberedKeys?.delete(req.key);
      if (down.metadata.annotations?.[AnnotationAdopted] === 'true') return 'stop';
      // The operator's finalizers hold the copy until its teardown is done; its removal re-queues this key.
      return { requeueAfterMs: teardownPollMs };
    }
    if (finalizedKinds.has(req.kind) && up.metadata.finalizers?.includes(FinalizerSyncer)) {
      if (req.kind === 'HostedCluster') await deps.deleteUpstreamNodePools?.(req.namespace, req.name, up.metadata.uid, 'live');
      // HyperShift's own finalizer, when the manifest came with it (exported with `oc get -o
      // yaml`), goes too: the operator honoured it on the copy it tore down, and no operator
      // runs in the control center to remove it from the virtual object.
      const finalizers = up.metadata.finalizers.filter((f) => f !== FinalizerSyncer && f !== FinalizerHyperShift);
      // Others' finalizers keep the object: its status, the operator's last report, would go on
      // saying it is available (a NodePool its nodes) though nothing runs any more.
      const written = finalizers.length ? await markTornDown(deps, req.kind, up, finalizers) : undefined;
      if (written === null) return 'stop';
      // A pass after a failed finalizer patch builds on this write, not the informer's older object.
      if (written) deps.ownWrites.record(req.key, up, written);
      await goneIsDone(deps.upstream.patch(req.kind, req.namespace, req.name, { metadata: { resourceVersion: (written ?? up).metadata.resourceVersion, finalizers } }));
    }
    return 'stop';
  },
});

/** Condition reason on an object whose copy is gone while others' finalizers still hold it upstream. */
export const ReasonTornDown = 'TornDown';

/**
 * Marks `up` (being deleted, its copy gone) as torn down before the syncer's finalizer leaves it
 * to `others`: its {@link NoCopyCondition} `False`, reason {@link ReasonTornDown}, and a NodePool's
 * `status.replicas` 0. Returns what the control center wrote, `undefined` when nothing needed
 * writing (or no status writer), `null` when the object is gone already. Throws other client errors
 * (a 409 retries the pass with the newer object).
 */
async function markTornDown(deps: DownsyncDeps, kind: SyncKind, up: KubeObject, others: string[]): Promise<KubeObject | null | undefined> {
  const type = NoCopyCondition[kind];
  if (!type || !deps.updateUpstreamStatus) return undefined;
  const status = (up.status ?? {}) as { conditions?: Condition[]; replicas?: number };
  // Neutral about whether there ever was a copy (one refused or blocked there never ran).
  const cond: Condition = {
    type,
    status: 'False',
    reason: ReasonTornDown,
    message: `deleted: nothing of it runs in management cluster ${deps.cluster} any more; waiting for the finalizers ${others.join(', ')}`,
  };
  const replicasStale = kind === 'NodePool' && status.replicas !== undefined && status.replicas !== 0;
  if (conditionUpToDate(status.conditions, cond) && !replicasStale) return undefined;
  try {
    return await deps.updateUpstreamStatus(kind, {
      ...up,
      status: { ...status, conditions: setCondition(status.conditions, cond, new Date(deps.now())), ...(kind === 'NodePool' ? { replicas: 0 } : {}) },
    });
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}
