/**
 * Wiring of the scheduler process (the cluster controller): informers on ManagementClusters,
 * HostedClusters, NodePools, Secrets and ConfigMaps in the control center; three work queues
 * (scheduling, placement propagation, cluster health); leader election on the Lease
 * `hcc-system/hcc-scheduler` so only one replica acts. Decisions live in schedule-one.ts and
 * controllers/; this file only connects events to keys.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  EventRecorder,
  Informer,
  keyOf,
  deletedObject,
  runLeaderElection,
  WorkQueue,
  type RestClient,
} from '@hcc/client';
import {
  ConfigMapResource,
  HostedClusterResource,
  LabelManagementCluster,
  ManagementClusterResource,
  NodePoolResource,
  SecretResource,
  SystemNamespace,
  type Condition,
  type HostedCluster,
  type KubeObject,
  type ManagementCluster,
  type NodePool,
} from '@hcc/crds';
import { ClusterCache, clusterInfo } from './cache/cluster-cache.js';
import { scheduleOne, type ScheduleDeps } from './schedule-one.js';
import { defaultProfile } from './plugins/registry.js';
import { Indexes, reconcilePropagation, referencedKeys, type PropagationDeps } from './controllers/placement-propagation.js';
import { reconcileClusterHealth } from './controllers/cluster-health.js';
import { createSchedulerMetrics, type SchedulerMetrics } from './metrics.js';
import type { Profile } from './framework/types.js';

/** Options of {@link runScheduler}. */
export interface SchedulerOptions {
  client: RestClient;
  logger: Logger;
  /** Stops everything. */
  signal: AbortSignal;
  /** Run leader election (default true); false acts at once (single replica, tests). */
  leaderElect?: boolean;
  /** This replica's identity in the Lease. */
  identity?: string;
  /** A heartbeat older than this makes a cluster not ready, in milliseconds (default 40 000). */
  heartbeatGraceMs?: number;
  /** Concurrent scheduling workers (default 4). */
  workers?: number;
  profile?: Profile;
  metrics?: SchedulerMetrics;
  /** Source of randomness for tie-breaks (seed it in tests). */
  random?: () => number;
  /** Retry an unschedulable HostedCluster at least this often, in milliseconds (default 60 000). */
  unschedulableRetryMs?: number;
  /** Called whenever this replica starts or stops leading. */
  onLeading?: (leading: boolean) => void;
}

/** A running scheduler: readiness for /readyz and its metrics. */
export interface RunningScheduler {
  metrics: SchedulerMetrics;
  /** '' when ready (caches synced while leading, or standing by), else why not. */
  readiness(): string;
  /** Resolves when stopped. */
  done: Promise<void>;
}

/** Starts the scheduler; it runs until `signal` aborts. */
export function runScheduler(opts: SchedulerOptions): RunningScheduler {
  const metrics = opts.metrics ?? createSchedulerMetrics();
  const log = opts.logger;
  let state = 'starting';
  const done = (async () => {
    if (opts.leaderElect === false) {
      await lead(opts, metrics, opts.signal, (s) => (state = s));
      return;
    }
    const identity = opts.identity ?? `${hostname()}_${randomUUID()}`;
    while (!opts.signal.aborted) {
      state = 'standby';
      await runLeaderElection({
        client: opts.client,
        namespace: SystemNamespace,
        name: 'hcc-scheduler',
        identity,
        signal: opts.signal,
        logger: log,
        onStartedLeading: async (leading) => {
          log.info({ identity }, 'became leader');
          metrics.leader.set(1);
          opts.onLeading?.(true);
          await lead(opts, metrics, leading, (s) => (state = s));
        },
        onStoppedLeading: () => {
          metrics.leader.set(0);
          opts.onLeading?.(false);
          log.info({ identity }, 'stopped leading');
        },
        onNewLeader: (id) => log.info({ leader: id }, 'observed leader'),
      }).catch((err) => log.warn({ err }, 'leader election failed; retrying'));
    }
  })();
  return { metrics, readiness: () => (state === 'ready' || state === 'standby' ? '' : state), done };
}

/** Everything the leader does, until `signal` aborts. */
async function lead(opts: SchedulerOptions, metrics: SchedulerMetrics, signal: AbortSignal, setState: (s: string) => void): Promise<void> {
  const { client, logger: log } = opts;
  const graceMs = opts.heartbeatGraceMs ?? 40_000;
  const now = () => new Date();
  const informer = <T extends KubeObject>(ref: typeof HostedClusterResource) => new Informer<T>({ client, ref, logger: log });
  const mcs = informer<ManagementCluster>(ManagementClusterResource);
  const hcs = informer<HostedCluster>(HostedClusterResource);
  const nps = informer<NodePool>(NodePoolResource);
  const secrets = informer<KubeObject>(SecretResource);
  const cms = informer<KubeObject>(ConfigMapResource);
  hcs.addIndexer(Indexes.bySecret, (o) => referencedKeys(o, 'HostedCluster').secrets);
  hcs.addIndexer(Indexes.byConfigMap, (o) => referencedKeys(o, 'HostedCluster').configMaps);
  nps.addIndexer(Indexes.bySecret, (o) => referencedKeys(o, 'NodePool').secrets);
  nps.addIndexer(Indexes.byConfigMap, (o) => referencedKeys(o, 'NodePool').configMaps);
  nps.addIndexer(Indexes.byHostedCluster, (o) => [`${o.metadata.namespace}/${o.spec?.clusterName ?? ''}`]);

  const cache = new ClusterCache({ heartbeatGraceMs: graceMs, assumeTtlMs: 30_000, now: () => Date.now() });
  const scheduling = new WorkQueue();
  const propagation = new WorkQueue();
  const health = new WorkQueue();
  const unschedulable = new Set<string>();
  const recorder = new EventRecorder({ client, component: 'hcc-scheduler', logger: log });

  // Events → keys.
  const enqueueRefs = (o: HostedCluster | NodePool, kind: 'HostedCluster' | 'NodePool') => {
    const r = referencedKeys(o, kind);
    for (const k of r.secrets) propagation.add(`Secret/${k}`);
    for (const k of r.configMaps) propagation.add(`ConfigMap/${k}`);
  };
  const onHC = (o: HostedCluster, old?: HostedCluster) => {
    const key = keyOf(o);
    cache.observeHostedCluster(key, o);
    scheduling.add(key);
    if (old?.metadata.labels?.[LabelManagementCluster] !== o.metadata.labels?.[LabelManagementCluster]) {
      for (const np of nps.lister.byIndex(Indexes.byHostedCluster, key)) propagation.add(`NodePool/${keyOf(np)}`);
    }
    enqueueRefs(o, 'HostedCluster');
    if (old) enqueueRefs(old, 'HostedCluster');
  };
  hcs.addEventHandler({
    onAdd: (o) => onHC(o),
    onUpdate: (old, o) => onHC(o, old),
    onDelete: (d) => {
      const o = deletedObject(d);
      cache.observeHostedCluster(keyOf(o), undefined);
      scheduling.add(keyOf(o));
      enqueueRefs(o, 'HostedCluster');
    },
  });
  const onNP = (o: NodePool) => {
    propagation.add(`NodePool/${keyOf(o)}`);
    enqueueRefs(o, 'NodePool');
  };
  nps.addEventHandler({ onAdd: onNP, onUpdate: (old, o) => (onNP(o), enqueueRefs(old, 'NodePool')), onDelete: (d) => enqueueRefs(deletedObject(d), 'NodePool') });
  secrets.addEventHandler({ onAdd: (o) => propagation.add(`Secret/${keyOf(o)}`), onUpdate: (_old, o) => propagation.add(`Secret/${keyOf(o)}`) });
  cms.addEventHandler({ onAdd: (o) => propagation.add(`ConfigMap/${keyOf(o)}`), onUpdate: (_old, o) => propagation.add(`ConfigMap/${keyOf(o)}`) });
  // A fleet change that could make room re-queues what waits.
  const roomChanged = (old: ManagementCluster | undefined, o: ManagementCluster) => {
    if (!old) return true;
    const t = Date.now();
    const a = clusterInfo(old, 0, t, graceMs);
    const b = clusterInfo(o, 0, t, graceMs);
    return (
      b.freeSlots > a.freeSlots ||
      (b.ready && !a.ready) ||
      (!o.spec?.unschedulable && !!old.spec?.unschedulable) ||
      JSON.stringify(o.spec?.platforms) !== JSON.stringify(old.spec?.platforms) ||
      JSON.stringify(o.metadata.labels) !== JSON.stringify(old.metadata.labels) ||
      o.spec?.capacity !== old.spec?.capacity
    );
  };
  const onMC = (o: ManagementCluster, old?: ManagementCluster) => {
    health.add(o.metadata.name!);
    if (roomChanged(old, o)) for (const k of unschedulable) scheduling.add(k);
  };
  mcs.addEventHandler({ onAdd: (o) => onMC(o), onUpdate: (old, o) => onMC(o, old) });

  const informers = [mcs, hcs, nps, secrets, cms];
  setState('syncing caches');
  for (const i of informers) i.start();
  try {
    await Promise.all(informers.map((i) => i.waitForSync(signal)));
  } catch {
    await Promise.all(informers.map((i) => i.stop()));
    return;
  }
  setState('ready');
  log.info({ managementClusters: mcs.lister.list().length, hostedClusters: hcs.lister.list().length }, 'caches synced; scheduling');

  const writeStatusConditions = async (ref: typeof HostedClusterResource, obj: KubeObject, conditions: Condition[]) => {
    await client.patch(ref, obj.metadata.namespace, obj.metadata.name!, { metadata: { resourceVersion: obj.metadata.resourceVersion }, status: { conditions } }, 'merge', {
      subresource: 'status',
    });
  };
  const scheduleDeps: ScheduleDeps = {
    hostedClusters: hcs.lister,
    managementClusters: mcs.lister,
    cache,
    profile: opts.profile ?? defaultProfile(),
    random: opts.random ?? Math.random,
    now,
    bind: (hc, cluster) =>
      client.patch<HostedCluster>(HostedClusterResource, hc.metadata.namespace, hc.metadata.name!, {
        metadata: { resourceVersion: hc.metadata.resourceVersion, labels: { [LabelManagementCluster]: cluster } },
      }, 'merge'),
    writeConditions: (hc, c) => writeStatusConditions(HostedClusterResource, hc, c),
    recorder,
    metrics,
    unschedulable,
    unschedulableRetryMs: opts.unschedulableRetryMs ?? 60_000,
  };
  const propagationDeps: PropagationDeps = {
    hostedClusters: hcs.lister,
    nodePools: nps.lister,
    secrets: secrets.lister,
    configMaps: cms.lister,
    patchLabels: async (kind, ns, name, labels) => {
      const ref = kind === 'NodePool' ? NodePoolResource : kind === 'Secret' ? SecretResource : ConfigMapResource;
      await client.patch(ref, ns, name, { metadata: { labels } }, 'merge');
    },
  };
  const gauges = setInterval(() => {
    metrics.pending.set(unschedulable.size);
    metrics.queueDepth.set(scheduling.len());
    for (const c of cache.snapshot(mcs.lister.list())) metrics.freeSlots.set({ cluster: c.name }, Number.isFinite(c.freeSlots) ? c.freeSlots : -1);
  }, 1000);
  const quiet = (name: string) => ({ signal, logger: log, name, successLogLevel: 'debug' as const });
  try {
    await Promise.all([
      scheduling.runWorkers(opts.workers ?? 4, (key) => scheduleOne(scheduleDeps, key), quiet('scheduler')),
      propagation.runWorkers(2, (key) => reconcilePropagation(propagationDeps, key), quiet('placement-propagation')),
      health.runWorkers(1, (name) =>
        reconcileClusterHealth(
          { managementClusters: mcs.lister, now, heartbeatGraceMs: graceMs, writeConditions: (mc, c) => writeStatusConditions(ManagementClusterResource, mc, c) },
          name,
        ), quiet('cluster-health')),
    ]);
  } finally {
    clearInterval(gauges);
    await Promise.all(informers.map((i) => i.stop()));
  }
}
