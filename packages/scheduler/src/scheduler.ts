/**
 * Wiring of the scheduler process (the cluster controller): informers on ManagementClusters,
 * HostedClusters, NodePools, Secrets and ConfigMaps in the control center; three work queues
 * (scheduling, placement propagation, cluster health); the scale-out signal; leader election on
 * the Lease `hcc-system/hcc-scheduler` so only one replica acts. Decisions live in
 * schedule-one.ts, controllers/ and scale-out/; event-handlers.ts maps events to keys.
 *
 * Availability contract: replicas campaign for the Lease (client-go's rules, see
 * `@hcc/client` leader-election); the leader builds its caches from a fresh list before it
 * schedules, so a successor sees every placement its predecessor made, and every bind is guarded
 * by resourceVersion, so no HostedCluster is ever bound twice across a failover. A replica that
 * loses the Lease stops its workers and resets its gauges.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { EventRecorder, Informer, isConflict, isNotFound, leaseResource, realClock, resourcePath, runLeaderElection, sleep, WorkQueue, type InformerOptions, type RestClient } from '@hcc/client';
import {
  ControlCenterAPIVersion,
  ConfigMapResource,
  EventResource,
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
import { ClusterCache } from './cache/cluster-cache.js';
import { defaultSchedulerConfig, type SchedulerConfig } from './config/config.js';
import { reconcileClusterHealth } from './controllers/cluster-health.js';
import { ByManagementCluster, isSyncerFinalizer, reconcilePlacedStatus, resourceOf, type PlacedStatusDeps } from './controllers/placed-status.js';
import { Indexes, reconcilePropagation, type PropagationDeps } from './controllers/placement-propagation.js';
import { ReferenceTracker } from './controllers/reference-tracker.js';
import { registerEventHandlers } from './event-handlers.js';
import { createSchedulerMetrics, type SchedulerMetrics } from './metrics.js';
import type { PendingInfo } from './scale-out/scale-out.js';
import { createScaleOutController, EventReasonFleetOutOfBudget, lastSignalMs } from './scale-out/scale-out-controller.js';
import { scheduleOne, type ScheduleDeps } from './schedule-one.js';

/** Name of the scheduler's Lease in `hcc-system`. */
export const SchedulerLeaseName = 'hcc-scheduler';

/**
 * Default concurrent scheduling workers: how many HostedClusters may be between their decision
 * and the end of their bind at once. The decision itself is synchronous and serialised by the
 * assume cache; what a worker mostly waits on is the bind's round trip, so under a burst the
 * worker count, divided by the control center's answer time, bounds the placement rate.
 * kube-scheduler binds asynchronously, bounded only by its client; here each bind holds a worker,
 * and 64 is what the scheduler's REST client opens to one server (rest.ts `maxSockets`): the
 * Lease then needs a client of its own ({@link SchedulerOptions.leaseClient}).
 * Measured (`npm run bench -- --scenario schedule`, 10,000 HostedClusters, 100 clusters, 2 cores):
 * 16 workers placed ~1,700/s with create-to-bind p50 ~1.3 s (the binds queued behind the creates);
 * 64 place as fast as the creates come (~2,050/s), p50 ~30 ms.
 */
export const DefaultSchedulingWorkers = 64;

/**
 * Default concurrent placement-propagation workers: each reconcile is at most one label patch
 * (a NodePool, or a Secret or ConfigMap a placed HostedCluster references), waiting on the
 * control center's answer, and every placed set needs one per NodePool and per Secret before its
 * syncer copies them. Measured (`npm run bench -- --scenario e2e`, burst of 1,000 sets, 2 cores):
 * with 16 the NodePools' and Secrets' copies trailed their HostedCluster's (create-to-replicated
 * p99 2.8–3.7 s, the HostedCluster alone ~1.1 s); with 32–128 the sets follow their
 * HostedClusters (p99 1.6–2.1 s). 64, as for {@link DefaultSchedulingWorkers}.
 */
export const DefaultPropagationWorkers = 64;

/** Options of {@link runScheduler}. */
export interface SchedulerOptions {
  client: RestClient;
  /**
   * The client of the leader-election Lease (default: `client`). Give one with connections of its
   * own, as kube-scheduler builds its leader-election client apart from the one it schedules
   * with: `client`'s connections can all be taken by binds waiting on a slow control center (one
   * per worker), and a renewal queued behind them would miss the renew deadline, so the leader
   * would step down while its binds are still in flight and a standby would decide without them.
   */
  leaseClient?: RestClient;
  logger: Logger;
  /** Stops everything. */
  signal: AbortSignal;
  /** Profiles and scale-out settings (default: {@link defaultSchedulerConfig}). */
  config?: SchedulerConfig;
  /**
   * Run leader election (default true); false acts at once (single replica, tests), and holds
   * the Lease meanwhile as a leader would, without waiting for it, so that a scheduler started
   * beside it stands by instead of binding too.
   */
  leaderElect?: boolean;
  /** This replica's identity in the Lease (default `hostname_uuid`). */
  identity?: string;
  /** Lease validity after its last observed renewal, in seconds (default 15, client-go's). */
  leaseDurationSeconds?: number;
  /** A leader that cannot renew for this long steps down, in seconds (default 10). */
  renewDeadlineSeconds?: number;
  /** Between election attempts and renewals, in seconds (default 2). */
  retryPeriodSeconds?: number;
  /** A heartbeat older than this makes a cluster not ready, in milliseconds (default 40 000). */
  heartbeatGraceMs?: number;
  /** Concurrent scheduling workers (default {@link DefaultSchedulingWorkers}): decisions are serialised by the assume cache; binds and condition writes overlap. */
  workers?: number;
  /**
   * Concurrent placement-propagation workers (default {@link DefaultPropagationWorkers}): each
   * reconcile is at most one label patch, latency-bound, and every placed set needs one per
   * NodePool and per referenced Secret.
   */
  propagationWorkers?: number;
  metrics?: SchedulerMetrics;
  /** Source of randomness for tie-breaks in [0, 1) (seed it in tests: `seededRandom`). */
  random?: () => number;
  /** Retry an unschedulable HostedCluster at least this often, in milliseconds (default 60 000). */
  unschedulableRetryMs?: number;
  /** Called whenever this replica starts or stops leading. */
  onLeading?: (leading: boolean) => void;
}

/**
 * Checks leader-election durations the way client-go does: lease duration > renew deadline >
 * 1.2 × retry period > 0, all in seconds.
 * @returns '' when valid, else the problem (for a flag error)
 */
export function leaderElectionProblem(d: { leaseDurationSeconds: number; renewDeadlineSeconds: number; retryPeriodSeconds: number }): string {
  const { leaseDurationSeconds: l, renewDeadlineSeconds: r, retryPeriodSeconds: p } = d;
  if (!(p > 0)) return `retry period (${p}s) must be greater than 0`;
  if (!(l > r)) return `lease duration (${l}s) must be greater than the renew deadline (${r}s)`;
  if (!(r > 1.2 * p)) return `renew deadline (${r}s) must be greater than 1.2 × the retry period (${p}s)`;
  return '';
}

/** A running scheduler: readiness for /readyz and its metrics. */
export interface RunningScheduler {
  metrics: SchedulerMetrics;
  /** '' when ready (caches synced while leading, or standing by), else why not. */
  readiness(): string;
  /** Resolves when stopped. */
  done: Promise<void>;
}

/**
 * Starts the scheduler; it runs until `signal` aborts.
 * @throws Error at once for invalid leader-election durations (see `runLeaderElection`) or an
 *   empty `identity`
 */
export function runScheduler(opts: SchedulerOptions): RunningScheduler {
  const metrics = opts.metrics ?? createSchedulerMetrics();
  const log = opts.logger;
  let state = 'starting';
  const identity = opts.identity ?? `${hostname()}_${randomUUID()}`;
  const durations = {
    leaseDurationSeconds: opts.leaseDurationSeconds ?? 15,
    renewDeadlineSeconds: opts.renewDeadlineSeconds ?? 10,
    retryPeriodSeconds: opts.retryPeriodSeconds ?? 2,
  };
  const problem = leaderElectionProblem(durations);
  if (problem) throw new Error(problem);
  if (!identity.trim()) throw new Error('identity must not be empty');
  // An election attempt that fails at once (an error before it ever waits) is retried after the
  // retry period, never in a tight loop: that would starve the event loop (signals, logs) and grow.
  const retryLater = (what: string) => async (err: unknown) => {
    log.warn({ err }, `${what}; retrying in ${durations.retryPeriodSeconds} s`);
    await sleep(realClock, durations.retryPeriodSeconds * 1000, opts.signal);
  };
  const election = {
    client: opts.leaseClient ?? opts.client,
    namespace: SystemNamespace,
    name: SchedulerLeaseName,
    identity,
    ...durations,
    signal: opts.signal,
    logger: log,
  };
  const done = (async () => {
    if (opts.leaderElect === false) {
      // Hold the Lease while scheduling, without waiting for it: capacity is kept by the one
      // scheduler that binds, and a leader-electing scheduler started beside this one then
      // stands by (the CLI refuses to start this one while another holds the Lease).
      const holding = (async () => {
        while (!opts.signal.aborted) {
          await runLeaderElection({
            ...election,
            onStartedLeading: (held) => new Promise<void>((resolve) => (held.aborted ? resolve() : held.addEventListener('abort', () => resolve(), { once: true }))),
            onStoppedLeading: () => {},
            onNewLeader: (id) => id !== identity && log.warn({ leader: id }, 'another scheduler holds the Lease while this one runs without leader election'),
          }).catch(retryLater('holding the Lease failed'));
        }
      })();
      await lead(opts, metrics, opts.signal, (s) => (state = s));
      await holding;
      return;
    }
    while (!opts.signal.aborted) {
      state = 'standby';
      await runLeaderElection({
        ...election,
        onStartedLeading: async (leading, isLeading) => {
          log.info({ identity }, 'became leader');
          metrics.leader.set(1);
          opts.onLeading?.(true);
          await lead(opts, metrics, leading, (s) => (state = s), isLeading);
        },
        onStoppedLeading: () => {
          metrics.leader.set(0);
          opts.onLeading?.(false);
          log.info({ identity }, 'stopped leading');
        },
        onNewLeader: (id) => log.info({ leader: id }, 'observed leader'),
      }).catch(retryLater('leader election failed'));
    }
  })();
  return { metrics, readiness: () => (state === 'ready' || state === 'standby' ? '' : state), done };
}

/** Everything the leader does, until `signal` aborts. */
async function lead(opts: SchedulerOptions, metrics: SchedulerMetrics, signal: AbortSignal, setState: (s: string) => void, isLeading?: () => boolean): Promise<void> {
  const { client, logger: log } = opts;
  const config = opts.config ?? defaultSchedulerConfig();
  const graceMs = opts.heartbeatGraceMs ?? 40_000;
  const now = () => new Date();
  const informer = <T extends KubeObject>(ref: typeof HostedClusterResource, extra: Partial<InformerOptions<T>> = {}) => new Informer<T>({ client, ref, logger: log, ...extra });
  // Heartbeat ages stand still while this informer cannot see the server (see the connection
  // handler below), so it tries again at most 2 s apart instead of backing off to 30 s: once the
  // control center is back, the ages count again within 2 s (a dead cluster's included).
  const mcs = informer<ManagementCluster>(ManagementClusterResource, { maxBackoffMs: 2000 });
  const hcs = informer<HostedCluster>(HostedClusterResource);
  const nps = informer<NodePool>(NodePoolResource);
  const secrets = informer<KubeObject>(SecretResource);
  const cms = informer<KubeObject>(ConfigMapResource);
  nps.addIndexer(Indexes.byHostedCluster, (o) => [`${o.metadata.namespace}/${o.spec?.clusterName ?? ''}`]);

  const cache = new ClusterCache({ heartbeatGraceMs: graceMs, now: () => Date.now() });
  // Their syncers could not write a heartbeat while the scheduler could not read one either.
  mcs.addConnectionHandler({ onLost: (at) => cache.heartbeats.unseenFrom(at), onRestored: (at) => cache.heartbeats.seenAgain(at) });
  const scheduling = new WorkQueue();
  const propagation = new WorkQueue();
  const health = new WorkQueue();
  const placedStatus = new WorkQueue();
  const pending = new Map<string, PendingInfo>();
  const recorder = new EventRecorder({ client, component: 'hcc-scheduler', logger: log });
  const references = new ReferenceTracker();
  registerEventHandlers({
    references,
    managementClusters: mcs,
    hostedClusters: hcs,
    nodePools: nps,
    secrets,
    configMaps: cms,
    cache,
    scheduling,
    propagation,
    health,
    placedStatus,
    pending,
    heartbeatGraceMs: graceMs,
    nowMs: () => Date.now(),
  });

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
  log.info(
    { managementClusters: mcs.lister.size, hostedClusters: hcs.lister.size, profiles: config.profiles.map((p) => p.name) },
    'caches synced; scheduling',
  );

  const writeStatusConditions = async (ref: typeof HostedClusterResource, obj: KubeObject, conditions: Condition[]) => {
    await client.patch(ref, obj.metadata.namespace, obj.metadata.name!, { metadata: { resourceVersion: obj.metadata.resourceVersion }, status: { conditions } }, 'merge', {
      subresource: 'status',
    });
  };
  const scheduleDeps: ScheduleDeps = {
    hostedClusters: hcs.lister,
    managementClusters: mcs.lister,
    cache,
    config,
    random: opts.random ?? Math.random,
    now,
    bindHandle: {
      bind: async (hc, cluster) => {
        await client.raw('POST', `${resourcePath(HostedClusterResource, hc.metadata.namespace, hc.metadata.name!)}/binding`, {
          apiVersion: ControlCenterAPIVersion,
          kind: 'Binding',
          metadata: { name: hc.metadata.name, resourceVersion: hc.metadata.resourceVersion },
          target: { name: cluster },
        });
      },
      patchMetadata: (hc, metadata) =>
        client.patch<HostedCluster>(HostedClusterResource, hc.metadata.namespace, hc.metadata.name!, { metadata: { resourceVersion: hc.metadata.resourceVersion, ...metadata } }, 'merge'),
    },
    writeConditions: (hc, c) => writeStatusConditions(HostedClusterResource, hc, c),
    recorder,
    metrics,
    pending,
    unschedulableRetryMs: opts.unschedulableRetryMs ?? 60_000,
    ...(isLeading ? { mayBind: isLeading } : {}),
  };
  const propagationDeps: PropagationDeps = {
    hostedClusters: hcs.lister,
    nodePools: nps.lister,
    secrets: secrets.lister,
    configMaps: cms.lister,
    clustersFor: (refKey) => references.clustersFor(refKey),
    patchLabels: async (kind, ns, name, labels) => {
      const ref = kind === 'NodePool' ? NodePoolResource : kind === 'Secret' ? SecretResource : ConfigMapResource;
      await client.patch(ref, ns, name, { metadata: { labels } }, 'merge');
    },
    writeNodePoolConditions: (np, c) => writeStatusConditions(NodePoolResource, np, c),
    now,
  };
  const placedStatusDeps: PlacedStatusDeps = {
    managementClusters: mcs.lister,
    hostedClusters: hcs.lister,
    nodePools: nps.lister,
    writeConditions: (kind, obj, c) => writeStatusConditions(resourceOf(kind), obj, c),
    recordEvent: (obj, type, reason, message) => recorder.event(obj, type, reason, message),
    releaseSyncerFinalizers: (kind, obj, cluster, why) => releaseSyncerFinalizers(client, recorder, [[resourceOf(kind), [obj]]], cluster, why),
    marked: new Map(),
    now,
  };
  const scaleOut = createScaleOutController({
    settings: config.scaleOut,
    pending,
    snapshot: () => cache.snapshot(mcs.lister.list()),
    eventObject: async () => {
      const lease = await client.get<KubeObject>(leaseResource, SystemNamespace, SchedulerLeaseName).catch(() => undefined);
      return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: SchedulerLeaseName, namespace: SystemNamespace, uid: lease?.metadata.uid } };
    },
    recorder,
    metrics,
    logger: log,
    now,
    lastSignal: async () =>
      lastSignalMs(
        (await client.list<KubeObject>(EventResource, { namespace: SystemNamespace, fieldSelector: `reason=${EventReasonFleetOutOfBudget},involvedObject.name=${SchedulerLeaseName}` })).items,
        SchedulerLeaseName,
      ),
  });
  const tick = () => {
    metrics.queueDepth.set(scheduling.len());
    metrics.assumed.set(cache.assumedCount());
    for (const g of [metrics.freeSlots, metrics.placed, metrics.capacity, metrics.clusterReady]) g.reset();
    for (const c of cache.snapshot(mcs.lister.list())) {
      // Unbounded is +Inf (Prometheus' own), not a sentinel: a `< 5` alert or a sum() stays right.
      metrics.freeSlots.set({ cluster: c.name }, c.freeSlots);
      metrics.placed.set({ cluster: c.name }, c.placed);
      metrics.capacity.set({ cluster: c.name }, c.capacity);
      metrics.clusterReady.set({ cluster: c.name }, c.ready ? 1 : 0);
    }
    void scaleOut.tick()?.catch((err) => log.warn({ err }, 'scale-out signal failed'));
  };
  const gauges = setInterval(tick, 1000);
  tick();
  const quiet = (name: string) => ({ signal, logger: log, name, successLogLevel: 'debug' as const });
  /** The WaitingForHostedClusters message last recorded per ManagementCluster being deleted. */
  const waitingSaid = new Map<string, string>();
  try {
    await Promise.all([
      scheduling.runWorkers(opts.workers ?? DefaultSchedulingWorkers, (key) => scheduleOne(scheduleDeps, key), quiet('scheduler')),
      propagation.runWorkers(opts.propagationWorkers ?? DefaultPropagationWorkers, (key) => reconcilePropagation(propagationDeps, key), quiet('placement-propagation')),
      placedStatus.runWorkers(4, (key) => reconcilePlacedStatus(placedStatusDeps, key), quiet('placed-status')),
      health.runWorkers(
        1,
        (name) =>
          reconcileClusterHealth(
            {
              managementClusters: mcs.lister,
              now,
              heartbeatGraceMs: graceMs,
              heartbeatSeenMs: (mc) => cache.heartbeats.observe(mc),
              writeConditions: (mc, c) => writeStatusConditions(ManagementClusterResource, mc, c),
              recordEvent: (mc, type, reason, message) => recorder.event(mc, type, reason, message),
              waitingSaid,
              // HostedClusters (reservations included) and NodePools: the NodePools of a deleted
              // HostedCluster are deleted after it, and need the cluster (and its release) until then.
              placedOn: (c) => cache.placedOn(c) + nps.lister.byIndex(ByManagementCluster, c).length,
              writeFinalizers: async (mc, finalizers) => {
                await client.patch(ManagementClusterResource, undefined, mc.metadata.name!, { metadata: { resourceVersion: mc.metadata.resourceVersion, finalizers } }, 'merge');
              },
              releaseSyncerFinalizers: (cluster, why) => releaseSyncerFinalizers(client, recorder, [
                [HostedClusterResource, hcs.lister.list()],
                [NodePoolResource, nps.lister.list()],
              ], cluster, why),
            },
            name,
          ),
        quiet('cluster-health'),
      ),
    ]);
  } finally {
    clearInterval(gauges);
    for (const g of [metrics.freeSlots, metrics.placed, metrics.capacity, metrics.clusterReady]) g.reset();
    for (const g of [metrics.pending, metrics.missingSlots, metrics.queueDepth, metrics.assumed]) g.set(0);
    await Promise.all(informers.map((i) => i.stop()));
  }
}

/**
 * Removes the syncer's finalizer, and HyperShift's (`hypershift.openshift.io/finalizer`, which an
 * exported manifest brings and only the syncer removes after a teardown), from each object placed
 * on `cluster` that is being deleted (a merge patch with a resourceVersion precondition; a
 * conflict or a vanished object is skipped, the next pass sees it again), and records a Warning
 * `SyncerGone` Event on it saying why. Other finalizers are their owners' and stay.
 * @returns how many objects it released
 */
async function releaseSyncerFinalizers(
  client: RestClient,
  recorder: EventRecorder,
  kinds: [typeof HostedClusterResource, KubeObject[]][],
  cluster: string,
  why: string,
): Promise<number> {
  let released = 0;
  for (const [ref, objects] of kinds) {
    for (const o of objects) {
      const fins = o.metadata.finalizers ?? [];
      const keep = fins.filter((f) => !isSyncerFinalizer(f));
      if (!o.metadata.deletionTimestamp || o.metadata.labels?.[LabelManagementCluster] !== cluster || keep.length === fins.length) continue;
      try {
        await client.patch(ref, o.metadata.namespace, o.metadata.name!, { metadata: { resourceVersion: o.metadata.resourceVersion, finalizers: keep } }, 'merge');
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) continue;
        throw err;
      }
      recorder.event(o, 'Warning', 'SyncerGone', why);
      released++;
    }
  }
  return released;
}
