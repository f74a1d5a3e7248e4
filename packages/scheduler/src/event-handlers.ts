/**
 * Informer events → work-queue keys (and cache updates), nothing else: which change makes which
 * key worth another look. Decisions stay in schedule-one.ts and controllers/.
 *
 * - HostedCluster: the cache learns its placement; its key goes to the scheduling queue; its
 *   NodePools (when the placement changed) and referenced Secrets/ConfigMaps to propagation.
 *   A deleted HostedCluster re-queues the waiting ones: all of them when it was placed (its slot
 *   is free), else those that share its control-plane namespace name.
 * - NodePool, Secret, ConfigMap: propagation keys `<Kind>/<namespace>/<name>`; a HostedCluster's
 *   NodePools also when its `Scheduled` condition or deletion changes (their not-placed marks).
 * - ManagementCluster: its name goes to the health queue; a change that could let a waiting
 *   HostedCluster fit (see {@link fleetChangeMayHelp}) re-queues every waiting one; a change of
 *   its not-Ready episode (see controllers/placed-status.ts) sends what is placed on it to the
 *   placed-status queue, as does any change of a HostedCluster or NodePool placed on a cluster
 *   that is not Ready.
 */
import { deletedObject, keyOf, type Informer, type WorkQueue } from '@hcc/client';
import {
  ConditionReady,
  ConditionScheduled,
  findCondition,
  hasNotPlaced,
  LabelManagementCluster,
  type HostedCluster,
  type KubeObject,
  type ManagementCluster,
  type NodePool,
} from '@hcc/crds';
import { clusterInfo, controlPlaneNamespaceOfKey, type ClusterCache } from './cache/cluster-cache.js';
import { Indexes } from './controllers/placement-propagation.js';
import { ByManagementCluster, notReady, notReadyEpisode } from './controllers/placed-status.js';
import { clusterLabel, type ReferenceTracker } from './controllers/reference-tracker.js';

/** What the handlers feed. */
export interface EventHandlerDeps {
  /** Which clusters need which Secrets and ConfigMaps (kept here, from these events). */
  references: ReferenceTracker;
  managementClusters: Informer<ManagementCluster>;
  hostedClusters: Informer<HostedCluster>;
  nodePools: Informer<NodePool>;
  secrets: Informer<KubeObject>;
  configMaps: Informer<KubeObject>;
  cache: ClusterCache;
  scheduling: WorkQueue;
  propagation: WorkQueue;
  health: WorkQueue;
  /** Keys `<Kind>/<namespace>/<name>` of HostedClusters and NodePools whose status may need marking (controllers/placed-status.ts). */
  placedStatus: WorkQueue;
  /** Keys of HostedClusters waiting for a placement. */
  pending: ReadonlyMap<string, unknown>;
  /** The configured heartbeat grace, in milliseconds (each cluster's own may be longer: see cache/heartbeat-grace.ts). */
  heartbeatGraceMs: number;
  nowMs: () => number;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What decides a HostedCluster's NodePools' not-placed marks: deletion and its Scheduled condition's status and message. */
const notPlacedState = (hc: HostedCluster | undefined): string => {
  const c = findCondition(hc?.status?.conditions, ConditionScheduled);
  return `${!!hc?.metadata.deletionTimestamp}|${c?.status ?? ''}|${c?.message ?? ''}`;
};

/**
 * Whether a ManagementCluster change could let a waiting HostedCluster fit (or change why it
 * waits): a new cluster, more reported room, readiness flipped, or any change of labels, spec
 * (capacity, cordon, platforms, taints) or reported platforms/supported versions. Heartbeats that
 * only confirm or shrink the budget do not qualify, so a full fleet is not re-evaluated every
 * heartbeat. Free slots are counted with what the scheduler has placed there, reported or not: a
 * heartbeat that reports the same budget but catches up on a placement frees a slot.
 * @param placed - HostedClusters bound or assumed on the cluster (a count; the cache's)
 */
export function fleetChangeMayHelp(
  old: ManagementCluster | undefined,
  cur: ManagementCluster,
  nowMs: number,
  heartbeatGraceMs: number,
  placed = 0,
  seen: { old?: number; cur?: number } = {},
): boolean {
  if (!old) return true;
  const a = clusterInfo(old, placed, nowMs, heartbeatGraceMs, undefined, seen.old);
  const b = clusterInfo(cur, placed, nowMs, heartbeatGraceMs, undefined, seen.cur);
  return (
    b.freeSlots > a.freeSlots ||
    b.ready !== a.ready ||
    !same(cur.spec, old.spec) ||
    !same(cur.metadata.labels, old.metadata.labels) ||
    !same(cur.status?.supportedVersions, old.status?.supportedVersions) ||
    !same(cur.status?.platforms, old.status?.platforms)
  );
}

/** Registers every handler on the informers (before they start). */
export function registerEventHandlers(d: EventHandlerDeps): void {
  for (const i of [d.hostedClusters, d.nodePools] as Informer<KubeObject>[]) i.addIndexer(ByManagementCluster, (o) => (clusterLabel(o) ? [clusterLabel(o)] : []));
  /**
   * Queues a placed object for the placed-status controller when its cluster is not Ready, or is
   * gone (to mark it, or release it when it is being deleted); else there is nothing to do.
   */
  const checkPlaced = (kind: 'HostedCluster' | 'NodePool', o: KubeObject) => {
    const cluster = clusterLabel(o);
    if (!cluster) return;
    const mc = d.managementClusters.lister.get(cluster);
    if (!mc || notReady(mc)) d.placedStatus.add(`${kind}/${keyOf(o)}`);
  };
  /** Calls `fn` for each HostedCluster and NodePool placed on `cluster`. */
  const forEachPlaced = (cluster: string, fn: (kind: 'HostedCluster' | 'NodePool', o: KubeObject) => void) => {
    for (const hc of d.hostedClusters.lister.byIndex(ByManagementCluster, cluster)) fn('HostedCluster', hc);
    for (const np of d.nodePools.lister.byIndex(ByManagementCluster, cluster)) fn('NodePool', np);
  };
  const requeuePending = (match?: (key: string) => boolean) => {
    for (const k of d.pending.keys()) if (!match || match(k)) d.scheduling.add(k);
  };
  /** The cluster a NodePool belongs on: its own label, else its HostedCluster's. */
  const npCluster = (np: NodePool) => clusterLabel(np) || clusterLabel(d.hostedClusters.lister.get(`${np.metadata.namespace}/${np.spec?.clusterName ?? ''}`));
  const track = (kind: 'HostedCluster' | 'NodePool', key: string, o: HostedCluster | NodePool | undefined) => {
    const cluster = !o ? '' : kind === 'HostedCluster' ? clusterLabel(o) : npCluster(o as NodePool);
    for (const ref of d.references.observe(kind, key, o, cluster)) d.propagation.add(ref);
  };

  const onHC = (o: HostedCluster, old?: HostedCluster) => {
    const key = keyOf(o);
    if (o.metadata.deletionTimestamp && o.metadata.labels?.[LabelManagementCluster]) d.health.add(o.metadata.labels[LabelManagementCluster]);
    checkPlaced('HostedCluster', o);
    d.cache.observeHostedCluster(key, o);
    d.scheduling.add(key);
    track('HostedCluster', key, o);
    if (old?.metadata.labels?.[LabelManagementCluster] !== o.metadata.labels?.[LabelManagementCluster]) {
      for (const np of d.nodePools.lister.byIndex(Indexes.byHostedCluster, key)) {
        d.propagation.add(`NodePool/${keyOf(np)}`);
        track('NodePool', keyOf(np), np);
      }
    } else if (!old || notPlacedState(old) !== notPlacedState(o)) {
      // Its NodePools' not-placed marks follow the HostedCluster's Scheduled condition (and
      // a new one ends the "no HostedCluster" mark of NodePools created before it).
      for (const np of d.nodePools.lister.byIndex(Indexes.byHostedCluster, key)) d.propagation.add(`NodePool/${keyOf(np)}`);
    }
  };
  d.hostedClusters.addEventHandler({
    onAdd: (o) => onHC(o),
    onUpdate: (old, o) => onHC(o, old),
    onDelete: (tombstone) => {
      const o = deletedObject(tombstone);
      const key = keyOf(o);
      d.cache.observeHostedCluster(key, undefined);
      d.scheduling.add(key);
      const was = o.metadata.labels?.[LabelManagementCluster];
      if (was) d.health.add(was);
      checkPlaced('HostedCluster', o);
      track('HostedCluster', key, undefined);
      for (const np of d.nodePools.lister.byIndex(Indexes.byHostedCluster, key)) if (hasNotPlaced(np.status?.conditions, ConditionReady)) d.propagation.add(`NodePool/${keyOf(np)}`);
      // A placed one gone frees its slot in the cache at once (a placement the cluster never
      // reported frees it for good): every waiting one may fit now, as kube-scheduler moves its
      // unschedulable pods on an assigned pod's delete. Else only those its control-plane
      // namespace name kept out.
      if (was) requeuePending((k) => k !== key);
      else {
        const cp = controlPlaneNamespaceOfKey(key);
        requeuePending((k) => k !== key && controlPlaneNamespaceOfKey(k) === cp);
      }
    },
  });

  const onNP = (o: NodePool) => {
    if (!clusterLabel(o) || hasNotPlaced(o.status?.conditions, ConditionReady)) d.propagation.add(`NodePool/${keyOf(o)}`);
    checkPlaced('NodePool', o);
    track('NodePool', keyOf(o), o);
  };
  d.nodePools.addEventHandler({
    onAdd: onNP,
    onUpdate: (_old, o) => onNP(o),
    onDelete: (t) => {
      const o = deletedObject(t);
      checkPlaced('NodePool', o);
      track('NodePool', keyOf(o), undefined);
    },
  });
  d.secrets.addEventHandler({ onAdd: (o) => d.propagation.add(`Secret/${keyOf(o)}`), onUpdate: (_old, o) => d.propagation.add(`Secret/${keyOf(o)}`) });
  d.configMaps.addEventHandler({ onAdd: (o) => d.propagation.add(`ConfigMap/${keyOf(o)}`), onUpdate: (_old, o) => d.propagation.add(`ConfigMap/${keyOf(o)}`) });

  const onMC = (o: ManagementCluster, old?: ManagementCluster) => {
    // Stamped on arrival, by the scheduler's clock (the syncer's may be off): placementSeenMs
    // records the new heartbeat as it reads it.
    const before = old ? d.cache.heartbeats.placementSeenMs(old) : NaN;
    const seen = { old: before, cur: d.cache.heartbeats.placementSeenMs(o) };
    d.health.add(o.metadata.name!);
    if (notReadyEpisode(notReady(o)) !== notReadyEpisode(notReady(old))) forEachPlaced(o.metadata.name!, (kind, p) => d.placedStatus.add(`${kind}/${keyOf(p)}`));
    if (fleetChangeMayHelp(old, o, d.nowMs(), d.heartbeatGraceMs, d.cache.placedOn(o.metadata.name!), seen)) requeuePending();
  };
  d.managementClusters.addEventHandler({
    onAdd: (o) => onMC(o),
    onUpdate: (old, o) => onMC(o, old),
    // The "0/N management clusters" count changed: refresh the messages of what waits. What is
    // still placed there (its finalizer was removed by hand) may be waiting for a release.
    onDelete: (t) => {
      d.cache.heartbeats.forget(deletedObject(t).metadata.name!);
      requeuePending();
      forEachPlaced(deletedObject(t).metadata.name!, checkPlaced);
    },
  });
}
