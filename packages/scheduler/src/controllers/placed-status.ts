/**
 * Marks the status of what is placed on a lost management cluster as unknown, as kube's node
 * lifecycle controller marks the pods of a Node that stopped reporting: while a ManagementCluster
 * is not `Ready` (its heartbeat expired, no syncer ever reported, or its syncer cannot reach the
 * management cluster's API), each HostedCluster placed there gets `Available=Unknown` and each
 * NodePool `Ready=Unknown`, reason `ManagementClusterNotReady`, with a message naming the cluster,
 * its reason and since when. So `kubectl get hc` shows `Unknown` and why instead of the last
 * `True` the syncer copied up before it was lost; the rest of the status stays as last reported.
 * The same for what stays placed on a ManagementCluster that no longer exists (its finalizer was
 * removed by hand): `... no longer exists`.
 *
 * The syncer puts the truth back: once its cluster is reachable again it rewrites each status from
 * the copy there (upsync). While its management cluster's API is unreachable it copies nothing up,
 * so it does not answer this mark with the stale status it still caches.
 *
 * Each object is marked once per not-Ready episode of its cluster (the episode is the Ready
 * condition's `lastTransitionTime` and reason): if something writes the status back while the
 * cluster is still not Ready (a syncer whose heartbeat is failing while its upsync still works),
 * the mark is not written again, so the two never trade writes. A restarted scheduler may mark once more.
 *
 * An object being deleted there also gets a Warning Event `WaitingForManagementCluster`: its
 * deletion waits for that cluster's syncer to tear the copy down, and the message says how to
 * retire the cluster if it is gone for good (not once the cluster is being deleted).
 *
 * An object being deleted that is placed on a ManagementCluster that no longer exists (its
 * finalizer was removed by hand, or an older hcc let it go before the NodePools of a deleted
 * HostedCluster) has no syncer to tear its copy down and remove its finalizer: it is released
 * (the syncer's finalizer removed, a Warning `SyncerGone` Event), as kube's pod GC deletes the
 * pods of a Node that is gone. A syncer that comes back deletes copies whose upstream is gone.
 * Keys are `<Kind>/<namespace>/<name>` with Kind `HostedCluster` or `NodePool`.
 * @see https://kubernetes.io/docs/concepts/architecture/nodes/#condition
 */
import {
  ConditionAvailable,
  ConditionReady,
  ConditionScheduled,
  conditionUpToDate,
  FinalizerHyperShift,
  FinalizerSyncer,
  findCondition,
  HostedClusterResource,
  LabelManagementCluster,
  NodePoolResource,
  ReasonManagementClusterNotReady,
  ReasonWaitingForManagementCluster,
  setCondition,
  type Condition,
  type HostedCluster,
  type KubeObject,
  type ManagementCluster,
  type NodePool,
} from '@hcc/crds';
import { isNotFound, type Lister, type ReconcileResult } from '@hcc/client';

/** The kinds this controller marks. */
export type PlacedKind = 'HostedCluster' | 'NodePool';

/** What the reconciler reads and writes. */
export interface PlacedStatusDeps {
  managementClusters: Lister<ManagementCluster>;
  hostedClusters: Lister<HostedCluster>;
  nodePools: Lister<NodePool>;
  /** Writes status.conditions through the status subresource with a resourceVersion precondition. */
  writeConditions(kind: PlacedKind, obj: KubeObject, conditions: Condition[]): Promise<void>;
  /** Records an Event on the object (as the node lifecycle controller records `NodeNotReady` on each pod). */
  recordEvent?(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /**
   * Removes the syncer's finalizer (and HyperShift's) from an object being deleted on `cluster`
   * and records a Warning `SyncerGone` Event saying `why`; a conflict or a vanished object is
   * skipped (the next event looks again).
   */
  releaseSyncerFinalizers?(kind: PlacedKind, obj: KubeObject, cluster: string, why: string): Promise<unknown>;
  /** Key → the episode (`<cluster>@`{@link notReadyEpisode}) it was marked for; owned by the caller, starts empty. */
  marked: Map<string, string>;
  now: () => Date;
}

/** The condition marked on each kind: what `kubectl get` shows (HostedCluster AVAILABLE, NodePool MESSAGE). */
export const MarkedCondition: Record<PlacedKind, string> = { HostedCluster: ConditionAvailable, NodePool: ConditionReady };

/**
 * The not-Ready Ready condition of a ManagementCluster, or undefined when it is Ready, has no
 * Ready condition yet (the cluster-health controller marks one that never reported), or is absent.
 */
export function notReady(mc: ManagementCluster | undefined): Condition | undefined {
  const ready = findCondition(mc?.status?.conditions, ConditionReady);
  return ready && ready.status !== 'True' ? ready : undefined;
}

/**
 * Names a not-Ready episode of a ManagementCluster: its Ready condition's `lastTransitionTime` and
 * reason ('' while it is Ready). A change means the objects placed there need another look.
 */
export function notReadyEpisode(ready: Condition | undefined): string {
  return ready ? `${ready.lastTransitionTime ?? ''}/${ready.reason ?? ''}` : '';
}

/** Index of HostedClusters and NodePools by the management cluster they are placed on (their placement label). */
export const ByManagementCluster = 'byManagementCluster';

/** Whether a finalizer is one only a syncer removes: hcc's own, or HyperShift's, which an exported manifest brings. */
export function isSyncerFinalizer(f: string): boolean {
  return f === FinalizerSyncer || f === FinalizerHyperShift;
}

/** Whether an object carries a finalizer only a syncer removes ({@link isSyncerFinalizer}). */
export function heldBySyncer(obj: KubeObject): boolean {
  return (obj.metadata.finalizers ?? []).some(isSyncerFinalizer);
}

/** The API resource of a kind this controller handles. */
export function resourceOf(kind: PlacedKind): typeof HostedClusterResource {
  return kind === 'HostedCluster' ? HostedClusterResource : NodePoolResource;
}

/**
 * The Ready condition standing for a ManagementCluster that no longer exists (deleted with its
 * finalizer removed by hand): what is placed there is marked as on a lost cluster.
 */
export const GoneReady: Condition = { type: ConditionReady, status: 'Unknown', reason: 'ManagementClusterNotFound' };

/** How a mark's message ends when the object's status holds a report from that cluster. */
const LastReport = 'the rest of this status is its last report';

/**
 * The mark for an object placed on `cluster`, whose Ready condition is `ready` (not True; {@link GoneReady} for a cluster that is gone).
 * `reported`: the object's status holds a report from there (conditions other than the mark's);
 * without one (placed while the cluster was away, a NodePool created meanwhile) the message says
 * nothing came from there yet, instead of calling the rest of the status its last report.
 */
export function markCondition(kind: PlacedKind, cluster: string, ready: Condition, old: Condition | undefined, reported = true): Condition {
  const since = ready.lastTransitionTime ? ` since ${ready.lastTransitionTime}` : '';
  const rest = reported ? LastReport : 'nothing has been reported from there yet';
  return {
    type: MarkedCondition[kind],
    status: 'Unknown',
    reason: ReasonManagementClusterNotReady,
    message:
      ready === GoneReady
        ? `Management cluster ${cluster} no longer exists (its ManagementCluster was deleted): ${rest}`
        : `Management cluster ${cluster} is not Ready${since} (${ready.reason ?? 'no reason'}): ${rest}`,
    ...(old?.observedGeneration !== undefined ? { observedGeneration: old.observedGeneration } : {}),
  };
}

/**
 * Reconciles one key.
 * @throws ApiError when the write fails (409 when the status changed meanwhile: requeued, and re-read)
 */
export async function reconcilePlacedStatus(deps: PlacedStatusDeps, key: string): Promise<ReconcileResult> {
  const slash = key.indexOf('/');
  const kind = key.slice(0, slash) as PlacedKind;
  const objKey = key.slice(slash + 1);
  const obj = kind === 'HostedCluster' ? deps.hostedClusters.get(objKey) : deps.nodePools.get(objKey);
  const cluster = obj?.metadata.labels?.[LabelManagementCluster];
  const mc = cluster ? deps.managementClusters.get(cluster) : undefined;
  if (obj && cluster && !mc && obj.metadata.deletionTimestamp && heldBySyncer(obj)) {
    deps.marked.delete(key);
    await deps.releaseSyncerFinalizers?.(kind, obj, cluster, `management cluster ${cluster} no longer exists: released without tearing down its copy there (a syncer that comes back deletes it)`);
    return;
  }
  const ready = mc ? notReady(mc) : cluster ? GoneReady : undefined;
  // Being deleted and no longer held by a syncer: its copy is torn down (the syncer marked it
  // TornDown) and nothing of it is left on that cluster; only others' finalizers hold it.
  const released = !!obj?.metadata.deletionTimestamp && !heldBySyncer(obj);
  if (!obj || !cluster || !ready || released) {
    deps.marked.delete(key);
    return;
  }
  const deleting = !!obj.metadata.deletionTimestamp && heldBySyncer(obj);
  const episode = `${cluster}@${notReadyEpisode(ready)}${deleting ? '/deleting' : ''}`;
  // A cluster that is gone has no syncer left to trade writes with for long (a push syncer still
  // draining stops copying statuses once its heartbeat finds the cluster gone): a status written
  // back meanwhile is marked again.
  if (mc && deps.marked.get(key) === episode) return;
  const conditions = (obj.status as { conditions?: Condition[] } | undefined)?.conditions;
  const old = findCondition(conditions, MarkedCondition[kind]);
  // A report from there: any other condition (but the control center's own Scheduled), or the marked one set by someone else; a mark of
  // ours keeps what it said (the object may hold nothing else).
  const reported = (conditions ?? []).some((c) => c.type !== MarkedCondition[kind] && c.type !== ConditionScheduled) || (!!old && (old.reason !== ReasonManagementClusterNotReady || !!old.message?.endsWith(LastReport)));
  const cond = markCondition(kind, cluster, ready, old, reported);
  // Event messages carry no times, so a cluster that flaps folds into one Event per object (its
  // count), as kube's NodeNotReady Events do; the condition says since when.
  if (!conditionUpToDate(conditions, cond)) {
    try {
      await deps.writeConditions(kind, obj, setCondition(conditions, cond, deps.now()));
    } catch (err) {
      // Gone since the informer showed it (a NodePool deleted with its HostedCluster): nothing to mark.
      if (!isNotFound(err)) throw err;
      deps.marked.delete(key);
      return;
    }
    const what = mc ? `is not Ready (${ready.reason ?? 'no reason'})` : 'no longer exists';
    deps.recordEvent?.(obj, 'Warning', ReasonManagementClusterNotReady, `${cond.type}=Unknown: management cluster ${cluster} ${what}`);
  }
  if (deleting && !mc?.metadata.deletionTimestamp) {
    // `kubectl delete` waits for the syncer's finalizer: say what it waits for, and the way out
    // (nothing to advise once the cluster is being deleted: its retirement releases the object).
    const message = `Deletion waits for the syncer of management cluster ${cluster} to tear down the copy there; the cluster is not Ready (${ready.reason ?? 'no reason'}). If it is gone for good, retire it: kubectl delete managementcluster ${cluster} --wait=false`;
    deps.recordEvent?.(obj, 'Warning', ReasonWaitingForManagementCluster, message);
  }
  deps.marked.set(key, episode);
}
