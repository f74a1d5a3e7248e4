/**
 * The hypershift-sim: a stand-in for the HyperShift operator's observable behaviour on one
 * management cluster, for the demo and tests where no real operator runs. Wiring only: it writes
 * the supported-versions ConfigMap, starts five informers (HostedClusters, NodePools, Secrets,
 * ConfigMaps, control-plane Namespaces), and runs the HostedCluster and NodePool controllers on them.
 *
 * What it imitates (see the controllers' reconcile files): finalizers, clusterID/infraID defaults,
 * the control-plane namespace `<namespace>-<name>`, the admin kubeconfig and kubeadmin password
 * Secrets, conditions and version history with a timed rollout (`availableDelayMs`), upgrades,
 * NodePool replicas and versions, timed teardown on delete (`deleteDelayMs`), and the reconcile
 * error of a missing referenced Secret or ConfigMap (pull secret, SSH key, encryption key, trust
 * bundle, ...). No pods, no
 * real control plane: the kubeconfig points at a host that does not exist.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Informer, realClock, type Clock, type KubeObject, type RestClient } from '@hcc/client';
import type { HostedCluster, NodePool } from '@hcc/crds';
import { HostedClusterController } from './controllers/hostedcluster/hostedcluster-controller.js';
import { NodePoolController } from './controllers/nodepool/nodepool-controller.js';
import { NodePoolsByHostedCluster, nodePoolsByHostedCluster } from './controllers/nodepool/nodepool-indexes.js';
import { DefaultSupportedVersions, LabelHostedControlPlane } from './names.js';
import { configMapsRef, hostedClustersRef, namespacesRef, nodePoolsRef, secretsRef } from './resources.js';
import { ensureSupportedVersions } from './supported-versions.js';
import { withSpec } from './zero-spec.js';

/** Options of {@link startHyperShiftSim}. */
export interface HyperShiftSimOptions {
  /** Client for the management cluster's API server. */
  client: RestClient;
  logger: Logger;
  /** Time from a rollout's start to its completion (and for NodePool changes), in milliseconds. Default 2000. */
  availableDelayMs?: number;
  /** Least time from `deletionTimestamp` to a finalizer's removal, in milliseconds. Default 500. */
  deleteDelayMs?: number;
  /** Supported OCP minors, newest first. Default 4.22 down to 4.14 (DefaultSupportedVersions). */
  supportedVersions?: readonly string[];
  /** Stops the sim when aborted (like calling `stop()`). */
  signal?: AbortSignal;
  /** Time source (tests). Default: the process clock. */
  clock?: Clock;
  /** Workers per controller. Default 2. */
  workers?: number;
  /** Randomness in [0, 1) for infraIDs and passwords (tests). Default Math.random. */
  random?: () => number;
}

/** One controller's work queue, as client-go's workqueue metrics count it. */
export interface SimQueueStats {
  /** Keys waiting now. */
  depth: number;
  /** Keys added since start (a counter). */
  adds: number;
  /** Rate-limited retries since start (a counter: failed reconciles, requeued with backoff). */
  retries: number;
}

/** What {@link HyperShiftSim.stats} reports, for `/metrics`. */
export interface SimStats {
  queues: { hostedcluster: SimQueueStats; nodepool: SimQueueStats };
  /** Objects in each informer cache (HostedCluster, NodePool, Secret, ConfigMap, Namespace: control-plane namespaces only). */
  cached: Record<'HostedCluster' | 'NodePool' | 'Secret' | 'ConfigMap' | 'Namespace', number>;
}

/** A running sim. */
export interface HyperShiftSim {
  /** Stops the controllers (letting running passes finish) and the informers. Idempotent. */
  stop(): Promise<void>;
  /** Its controllers' queues and informer cache sizes now (cheap: counts, no copies). */
  stats(): SimStats;
}

/**
 * Starts the sim and resolves once its caches are synced and its workers run.
 * @throws when the supported-versions ConfigMap cannot be written, or `signal` aborts before the caches sync
 */
export async function startHyperShiftSim(options: HyperShiftSimOptions): Promise<HyperShiftSim> {
  const { client, logger } = options; // its lines carry `controller` (hostedcluster, nodepool) or `informer`
  const clock = options.clock ?? realClock;
  const availableDelayMs = options.availableDelayMs ?? 2000;
  const deleteDelayMs = options.deleteDelayMs ?? 500;
  const supportedVersions = options.supportedVersions ?? DefaultSupportedVersions;

  await ensureSupportedVersions(client, supportedVersions);

  // A HostedCluster or NodePool may come without `spec` (upstream's is `json:"spec,omitempty"`, not
  // required): the operator's typed client decodes it as the zero struct, and so the sim sees `{}`.
  const hostedClusters = new Informer<HostedCluster>({ client, ref: hostedClustersRef, logger, clock, transform: withSpec });
  const nodePools = new Informer<NodePool>({ client, ref: nodePoolsRef, logger, clock, transform: withSpec });
  const secrets = new Informer<KubeObject>({ client, ref: secretsRef, logger, clock });
  const configMaps = new Informer<KubeObject>({ client, ref: configMapsRef, logger, clock });
  const namespaces = new Informer<KubeObject>({ client, ref: namespacesRef, labelSelector: `${LabelHostedControlPlane}=true`, logger, clock });
  const informers = [hostedClusters, nodePools, secrets, configMaps, namespaces];
  nodePools.addIndexer(NodePoolsByHostedCluster, nodePoolsByHostedCluster); // used by both controllers

  const hostedClusterController = new HostedClusterController({
    client,
    hostedClusters,
    nodePools,
    secrets,
    configMaps,
    namespaces,
    logger,
    clock,
    availableDelayMs,
    deleteDelayMs,
    supportedVersions,
    random: options.random ?? Math.random,
    newUUID: randomUUID,
  });
  const nodePoolController = new NodePoolController({ client, hostedClusters, nodePools, configMaps, logger, clock, availableDelayMs, deleteDelayMs });

  for (const informer of informers) informer.start();
  const stopInformers = () => Promise.all(informers.map((i) => i.stop()));
  try {
    await Promise.all(informers.map((i) => i.waitForSync(options.signal)));
  } catch (err) {
    await stopInformers();
    throw err;
  }

  const stopWorkers = new AbortController();
  const workers = options.workers ?? 2;
  const running = Promise.all([hostedClusterController.run(stopWorkers.signal, workers), nodePoolController.run(stopWorkers.signal, workers)]);
  logger.info({ availableDelayMs, deleteDelayMs, supportedVersions }, 'hypershift-sim running');

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      options.signal?.removeEventListener('abort', onAbort);
      stopWorkers.abort();
      await running;
      await stopInformers();
      logger.info('hypershift-sim stopped');
    })());
  const onAbort = () => void stop();
  if (options.signal?.aborted) await stop();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const queueStats = (q: { len(): number; adds: number; retries: number }): SimQueueStats => ({ depth: q.len(), adds: q.adds, retries: q.retries });
  const stats = (): SimStats => ({
    queues: { hostedcluster: queueStats(hostedClusterController.queue), nodepool: queueStats(nodePoolController.queue) },
    cached: {
      HostedCluster: hostedClusters.lister.size,
      NodePool: nodePools.lister.size,
      Secret: secrets.lister.size,
      ConfigMap: configMaps.lister.size,
      Namespace: namespaces.lister.size,
    },
  });
  return { stop, stats };
}
