/**
 * Push mode: one process next to the control center serves every ManagementCluster with
 * `spec.mode: Push`. For each, it reads the Secret named by `spec.kubeconfigSecretRef` (in the
 * control center; namespace `hcc-system` and key `kubeconfig` unless given), connects to the
 * management cluster with it, and runs the same syncer (heartbeat, downsync, upsync) as pull mode.
 * A changed Secret or spec restarts that cluster's syncer; a cluster leaving Push mode, losing its
 * `spec.kubeconfigSecretRef`, or gone, stops it. A cluster being deleted (`deletionTimestamp`)
 * keeps its syncer, as a pull syncer keeps running: it heartbeats and tears down the copies of
 * what is deleted there, and the scheduler's `controlcenter.hcc.dev/placements` finalizer holds
 * the cluster until nothing is placed on it (its kubeconfig Secret deleted meanwhile, as
 * `kubectl delete -f` of a file holding both does, does not stop it); once it is gone, its syncer runs on until the copies
 * that outlive what they served (Secrets, ConfigMaps, the namespaces it created) are gone too, at
 * most `drainMs`. A push syncer never creates a ManagementCluster, so a deleted one is not brought
 * back by a heartbeat. A missing Secret or key, or one that is not a kubeconfig, stops it too, and
 * a Warning Event on the ManagementCluster (`KubeconfigSecretNotFound`, `KubeconfigKeyMissing`,
 * `KubeconfigInvalid`; `kubectl describe mc`) names what to fix, besides the `Ready` condition
 * that follows (`HeartbeatExpired`, or `SyncerNeverReported` for a cluster never reached); one
 * that loads but leads nowhere gets `ManagementClusterUnreachable` once its syncer has not been
 * ready for `unreachableAfterMs`.
 * Level-triggered over a ManagementCluster informer and a work queue.
 */
import type { Logger } from 'pino';
import { deletedObject, EventRecorder, Informer, isNotFound, parseKubeconfig, RestClient, tlsProblem, WorkQueue, type ReconcileResult } from '@hcc/client';
import { kubeconfigRef, ManagementClusterResource, SecretResource, type KubeObject, type ManagementCluster } from '@hcc/crds';
import { runSyncer, type RunningSyncer, type SyncerOptions } from '../syncer.js';

/** Options of {@link runPushSyncers}; per-cluster options are shared by every pushed cluster. */
export interface PushOptions extends Pick<SyncerOptions, 'heartbeatIntervalMs' | 'workers' | 'pullCRDs' | 'metricsRegistry' | 'takeOverFrom'> {
  upstream: RestClient;
  logger: Logger;
  signal: AbortSignal;
  /** How often to re-read kubeconfig Secrets for changes, in milliseconds (default 30 000). */
  resyncMs?: number;
  /**
   * How long a pushed cluster's syncer may stay not ready after its start before a Warning Event
   * `ManagementClusterUnreachable` says so, in milliseconds (default 20 000).
   */
  unreachableAfterMs?: number;
  /**
   * How long a cluster's syncer keeps running after its ManagementCluster is gone, to remove what
   * it made there once nothing is placed on it (Secret and ConfigMap copies, the namespaces it
   * created), in milliseconds (default 60 000); it stops sooner when nothing is left.
   */
  drainMs?: number;
}

interface Running {
  /** uid/resourceVersion of the Secret and generation of the spec the syncer was started with. */
  fingerprint: string;
  abort: AbortController;
  syncer: RunningSyncer;
  downstream: RestClient;
  /** When the syncer was started, in ms since the epoch. */
  startedMs: number;
  /** When ManagementClusterUnreachable was last recorded for it, in ms since the epoch. */
  warnedMs?: number;
  /** When its ManagementCluster was first seen gone, in ms since the epoch. */
  goneMs?: number;
}

/** Serves every Push-mode ManagementCluster until the signal aborts. */
export function runPushSyncers(opts: PushOptions): { readiness(): string; done: Promise<void> } {
  const log = opts.logger.child({ controller: 'push' });
  // Another control center at the control center's address (a cluster's syncer saw its ID
  // change): every cluster's syncer stops, with nothing deleted, and so does this process, to be
  // started again for the new control center.
  const changed = new AbortController();
  const signal = AbortSignal.any([opts.signal, changed.signal]);
  const running = new Map<string, Running>();
  const mcs = new Informer<ManagementCluster>({ client: opts.upstream, ref: ManagementClusterResource, logger: log });
  const queue = new WorkQueue();
  const recorder = new EventRecorder({ client: opts.upstream, component: 'hcc-syncer/push', logger: log });
  mcs.addEventHandler({ onAdd: (o) => queue.add(o.metadata.name!), onUpdate: (_o, n) => queue.add(n.metadata.name!), onDelete: (d) => queue.add(deletedObject(d).metadata.name!) });
  let synced = false;

  const stop = async (name: string) => {
    const r = running.get(name);
    if (!r) return;
    running.delete(name);
    r.abort.abort();
    await r.syncer.done;
    r.downstream.close();
    log.info({ cluster: name }, 'stopped push syncer');
  };

  /**
   * A cluster whose ManagementCluster is gone: its deletion waited until nothing was placed on it
   * (the scheduler's placements finalizer), but the copies that outlive what they served — Secrets
   * and ConfigMaps, the namespaces the syncer created — go only after that. Keep the syncer until
   * they are gone (as a pull syncer keeps running), or `drainMs` passed.
   */
  const drain = async (name: string): Promise<ReconcileResult> => {
    const r = running.get(name);
    if (!r) return;
    r.goneMs ??= Date.now();
    let left: string;
    try {
      left = await r.syncer.leftovers();
    } catch (err) {
      left = `unknown (${(err as Error).message})`;
    }
    if (left && Date.now() - r.goneMs < (opts.drainMs ?? 60_000)) return { requeueAfterMs: 2000 };
    if (left) log.warn({ cluster: name, left }, 'ManagementCluster gone; stopping its push syncer with copies still in the management cluster');
    await stop(name);
    return;
  };

  const reconcile = async (name: string): Promise<ReconcileResult> => {
    const mc = mcs.lister.get(name);
    const ref = mc ? kubeconfigRef(mc) : undefined;
    // Not on deletionTimestamp: a cluster being deleted keeps its syncer, which tears down what it
    // hosts (else the scheduler releases them once the heartbeat expires and their copies leak).
    if (!mc) return drain(name);
    if (mc.spec?.mode !== 'Push' || !ref) {
      await stop(name);
      return;
    }
    let secret: KubeObject;
    try {
      secret = await opts.upstream.get<KubeObject>(SecretResource, ref.namespace, ref.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      if (mc.metadata.deletionTimestamp) {
        // Deleted with its cluster (`kubectl delete -f` of a file holding both): a running syncer
        // has the kubeconfig it needs to tear down what the cluster hosts, so it stays; without
        // one there is nothing to reach the cluster with, and nothing to warn about on a cluster
        // that is going away.
        log.info({ cluster: name, secret: `${ref.namespace}/${ref.name}`, running: running.has(name) }, 'kubeconfig Secret gone while its ManagementCluster is being deleted');
        return { requeueAfterMs: 5000 };
      }
      log.warn({ cluster: name, secret: `${ref.namespace}/${ref.name}` }, 'kubeconfig Secret not found; retrying');
      recorder.event(mc, 'Warning', 'KubeconfigSecretNotFound', `spec.kubeconfigSecretRef: Secret ${ref.namespace}/${ref.name} not found in the control center; the push syncer cannot reach this management cluster`);
      await stop(name);
      return { requeueAfterMs: 5000 };
    }
    const fingerprint = `${secret.metadata.uid}/${secret.metadata.resourceVersion}/${ref.key}/${mc.metadata.uid}`;
    const current = running.get(name);
    if (current?.fingerprint === fingerprint) {
      // Once it served, its heartbeats report trouble (ManagementClusterUnreachable on the cluster).
      const why = current.syncer.started() ? '' : current.syncer.readiness();
      if (!why) return { requeueAfterMs: opts.resyncMs ?? 30_000 };
      // Not ready long after its start: the kubeconfig loads but leads nowhere (a wrong server
      // URL, token or CA). Say so on the ManagementCluster, and look for a fixed Secret every 5 s.
      const afterMs = opts.unreachableAfterMs ?? 20_000;
      const now = Date.now();
      if (now - current.startedMs >= afterMs && now - (current.warnedMs ?? 0) >= 30_000) {
        current.warnedMs = now;
        // A stable message, so the recorder folds the repeats (one per 30 s) into one Event's count.
        recorder.event(mc, 'Warning', 'ManagementClusterUnreachable', `the push syncer has not reached this management cluster within ${Math.round(afterMs / 1000)}s of starting with the kubeconfig in Secret ${ref.namespace}/${ref.name} (still ${why}); check its server URL and credentials, and the push syncer's log`);
      }
      return { requeueAfterMs: 5000 };
    }
    await stop(name);
    const raw = (secret.data as Record<string, string> | undefined)?.[ref.key];
    if (!raw) {
      log.warn({ cluster: name, key: ref.key }, 'kubeconfig Secret has no such key');
      recorder.event(mc, 'Warning', 'KubeconfigKeyMissing', `spec.kubeconfigSecretRef: Secret ${ref.namespace}/${ref.name} has no key ${JSON.stringify(ref.key)}; the push syncer cannot reach this management cluster`);
      return { requeueAfterMs: 5000 };
    }
    let downstream: RestClient;
    try {
      const conn = parseKubeconfig(Buffer.from(raw, 'base64').toString('utf8'), `${ref.namespace}/${ref.name}`);
      const problem = tlsProblem(conn);
      if (problem) throw new Error(problem);
      downstream = new RestClient(conn, { userAgent: `hcc-syncer/${name} (push)`, logger: log });
    } catch (err) {
      // The first line of the message, without a code frame it announces with a colon, nor the
      // `kubeconfig <Secret>` the Event names already (`not valid YAML: ... at line 1, column 11`).
      const source = `kubeconfig ${ref.namespace}/${ref.name}`;
      let why = (err as Error).message.split('\n')[0]!.replace(/:\s*$/, '');
      if (why.startsWith(source)) why = why.slice(source.length).replace(/^:?\s*(is\s+)?/, '');
      log.warn({ cluster: name, secret: `${ref.namespace}/${ref.name}`, err }, 'kubeconfig Secret does not hold a usable kubeconfig');
      recorder.event(mc, 'Warning', 'KubeconfigInvalid', `spec.kubeconfigSecretRef: key ${JSON.stringify(ref.key)} of Secret ${ref.namespace}/${ref.name} is not a usable kubeconfig (${why}); the push syncer cannot reach this management cluster`);
      return { requeueAfterMs: 5000 };
    }
    const abort = new AbortController();
    const onParentAbort = () => abort.abort();
    signal.addEventListener('abort', onParentAbort, { once: true });
    const syncer = runSyncer({
      cluster: name,
      upstream: opts.upstream,
      downstream,
      logger: opts.logger.child({ mode: 'Push' }),
      signal: abort.signal,
      createManagementCluster: false,
      heartbeatIntervalMs: opts.heartbeatIntervalMs,
      workers: opts.workers,
      pullCRDs: opts.pullCRDs,
      takeOverFrom: opts.takeOverFrom,
      // Every cluster's series in the one registry, labelled with its cluster.
      metricsRegistry: opts.metricsRegistry,
      onControlCenterChanged: () => changed.abort(),
      managementKubeconfigSource: `the kubeconfig in Secret ${ref.namespace}/${ref.name} (spec.kubeconfigSecretRef)`,
    });
    running.set(name, { fingerprint, abort, syncer, downstream, startedMs: Date.now() });
    log.info({ cluster: name }, 'started push syncer');
    return { requeueAfterMs: opts.resyncMs ?? 30_000 };
  };

  const done = (async () => {
    mcs.start();
    await mcs.waitForSync(signal).catch(() => undefined);
    synced = true;
    // runWorkers names the controller on its lines itself.
    await queue.runWorkers(2, reconcile, { signal, logger: opts.logger, name: 'push', successLogLevel: 'debug' });
    await Promise.all([...running.keys()].map(stop));
    await mcs.stop();
  })();
  return {
    readiness: () => {
      if (!synced) return 'syncing ManagementClusters';
      for (const [name, r] of running) {
        const why = r.syncer.readiness();
        if (why) return `${name}: ${why}`;
      }
      return '';
    },
    done,
  };
}
