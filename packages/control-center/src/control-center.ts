/**
 * Starts a control center API server: opens the store, serves the built-in resources and the
 * CRDs in it, installs the CRDs it is given, makes the initial namespaces, listens, and writes
 * an admin kubeconfig. The same server, with other CRDs, is an embedded management cluster.
 */
import { isIP } from 'node:net';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { KubeObject } from '@hcc/crds';
import { writeKubeconfig, ensureDir } from '@hcc/client';
import { LevelStore } from './storage/level/level-store.js';
import type { Store } from './storage/store.js';
import { ReadTransformStore } from './storage/read-transform.js';
import { Registry } from './registry/registry.js';
import { buildServer } from './server.js';
import { ValidationPool } from './registry/schema/validation-pool.js';
import type { Registry as MetricsRegistry } from 'prom-client';
import { createMetrics } from './metrics.js';
import { ensureServingCerts } from './pki.js';
import { parseTokenFile, readOrCreateToken, readToken } from './pipeline/tokens.js';
import { SchedulersGroup } from './pipeline/admit/validating/placement.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { CRDNamingController } from './controllers/crd-naming.js';
import { DefaultEventTTLMs, EventTTLController } from './controllers/event-ttl.js';
import { NodePoolCleanup } from './controllers/nodepool-cleanup.js';
import { DeletionController } from './controllers/namespace-lifecycle.js';
import { createObject, updateObject } from './handlers/object-ops.js';
import { reviewKinds } from './handlers/self-review.js';
import { namespaces } from './registry/builtin/namespaces.js';
import { customresourcedefinitions, defaultCRDSpec, keepStoredVersions, type CRDSpec } from './registry/builtin/customresourcedefinitions.js';
import { storageKey, systemContext } from './registry/types.js';
import * as apierrors from './apierrors/status.js';
import type { UserInfo } from './pipeline/authenticate.js';
import { allowAllRules, MastersGroup, type Authorizer } from './pipeline/authorize.js';
import type { WatchOptions } from './handlers/watch.js';

/** Lets the scheduler's group do everything, and asks `a` about everyone else. */
const withSchedulers = (a: Authorizer): Authorizer => {
  const out: Authorizer = (user, ri) => (user.groups.includes(SchedulersGroup) ? { allowed: true } : a(user, ri));
  out.rules = (user, namespace) => (user.groups.includes(SchedulersGroup) || !a.rules ? allowAllRules(user, namespace) : a.rules(user, namespace));
  return out;
};

/** Options of {@link startControlCenter}. */
export interface ControlCenterOptions {
  /** Directory for the level database (created when missing). */
  dataDir: string;
  /** How long a client may take to send a whole request, in milliseconds (default 60 s, as kube-apiserver's `--request-timeout`); a stalled one gets 408. */
  requestTimeoutMs?: number;
  /**
   * This server is the control center: its HostedClusters and NodePools are virtual, no operator
   * runs on them (a delete of an unplaced one drops HyperShift's finalizer, and a deleted one's
   * NodePools are deleted: controllers/nodepool-cleanup.ts). Default false: an embedded
   * management cluster, where the operator does both.
   */
  virtualHostedClusters?: boolean;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port to listen on; 0 picks a free one (default 0). */
  port?: number;
  /** Where to write the admin kubeconfig (optional). */
  kubeconfigPath?: string;
  /** Server URL written into the kubeconfig instead of the listen address (e.g. what other machines reach). */
  kubeconfigServer?: string;
  /** Name of the cluster/context in the kubeconfig (default `hcc`). */
  contextName?: string;
  /** Admin bearer token; generated when absent. Written into the kubeconfig. */
  adminToken?: string;
  /** Accept requests without credentials, with full rights (default false; loopback experiments only). */
  allowAnonymous?: boolean;
  /** The scheduler's bearer token (group `hcc:schedulers`); kept in `<dataDir>/pki/scheduler.token` when absent. */
  schedulerToken?: string;
  /** Where to write the scheduler's kubeconfig (optional). */
  schedulerKubeconfigPath?: string;
  /** Static token file with more users (`token,user,uid,"group1,group2"`). */
  tokenFile?: string;
  /**
   * Decides what each user may do (e.g. `rbacAuthorizer`); the admin (`system:masters`) and the
   * scheduler (group `hcc:schedulers`) keep every right. Default: every authenticated user may do
   * everything.
   */
  authorizer?: Authorizer;
  /** CRDs to install (created, or updated when they differ) before serving. */
  crds?: readonly object[];
  /**
   * Namespaces to create at start besides default, kube-system and kube-public; like those, they
   * may not be deleted (the control center's own objects live there: hcc-system's Leases and Push
   * kubeconfig Secrets).
   */
  namespaces?: string[];
  logger?: Logger;
  /** Watch tunables (bookmark interval, ...). */
  watch?: Partial<WatchOptions>;
  /** Events a watch can resume from (a count). */
  historyCapacity?: number;
  /** Most JSON the watch history may hold (string length of its events' objects; default 64 MiB). */
  historyBytes?: number;
  /** Use this store instead of a LevelStore in dataDir (tests, etcd). */
  store?: Store;
  /**
   * Called once when the store fails for good: the LevelStore in dataDir failed to persist a
   * batch (disk full, I/O error), or etcd's revision went backwards (restored from an older
   * snapshot without --bump-revision). From then on it refuses every write and /healthz and
   * /readyz fail, so the process should exit and be restarted, which reopens the data (see
   * LevelStore, EtcdStore).
   */
  onStorageFailure?: (err: unknown) => void;
  /**
   * Open the LevelStore in dataDir even when it shows lost or damaged committed writes, serving
   * what is left (LevelStoreOptions.acceptLoss); without it such a start is refused.
   */
  acceptStorageLoss?: boolean;
  /**
   * Keep state in etcd instead of a level database in dataDir, so several control centers can
   * serve the same objects (`endpoints`: client URLs; `prefix`: key prefix, default `/hcc`).
   * dataDir then holds only the TLS files.
   */
  etcd?: { endpoints: string[]; prefix?: string };
  /** Serve HTTPS with a CA and serving certificate kept in `<dataDir>/pki` (default true). */
  tls?: boolean;
  /** Extra DNS names or IPs for the serving certificate (beyond localhost, 127.0.0.1, the hostname). */
  tlsSANs?: string[];
  /**
   * How long an Event lives after its last write, in milliseconds (kube-apiserver's `--event-ttl`;
   * default one hour). 0 keeps Events forever.
   */
  eventTTLMs?: number;
  /**
   * Worker threads that run the schema checks (structural validation, CEL rules) of new custom
   * resources, off the thread that serves requests (default 0: in-process). See
   * `defaultValidationWorkers` for what `hcc control-center` uses.
   */
  validationWorkers?: number;
}

/** A running control center. */
export interface RunningControlCenter {
  url: string;
  port: number;
  adminToken: string;
  app: FastifyInstance;
  store: Store;
  registry: Registry;
  /** The prom-client registry its `/metrics` serves: an embedding process (the management cluster's simulated operator) may add its own series. */
  metricsRegistry: MetricsRegistry;
  close(): Promise<void>;
}


/**
 * Installs a CRD; another control center on the same etcd may install it at the same moment, so
 * AlreadyExists and Conflict mean "look again" (a few times), not failure.
 */
async function installCRDConcurrently(store: Store, crd: KubeObject): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await installCRD(store, crd);
    } catch (e) {
      if (attempt >= 5 || !(apierrors.isAlreadyExists(e) || apierrors.isConflict(e))) throw e;
      await new Promise((r) => setTimeout(r, 50 * attempt)); // let this replica's watch catch up
    }
  }
}

/**
 * Creates a CRD, or updates it when its spec differs from what is stored (with apiextensions' defaults,
 * and the versions objects may still be stored in kept unserved: {@link keepStoredVersions}).
 */
async function installCRD(store: Store, crd: KubeObject): Promise<void> {
  const obj = structuredClone(crd);
  // Compared as stored: with apiextensions' defaults (else every start would rewrite it).
  defaultCRDSpec(obj.spec);
  obj.apiVersion = 'apiextensions.k8s.io/v1';
  obj.kind = 'CustomResourceDefinition';
  const existing = store.get(storageKey(customresourcedefinitions, '', obj.metadata.name!));
  if (!existing) {
    await createObject(store, customresourcedefinitions, '', obj, systemContext(), { dryRun: false });
    return;
  }
  obj.spec = keepStoredVersions(obj.spec as CRDSpec, existing.object);
  if (isDeepStrictEqual(existing.object.spec, obj.spec)) return;
  // A CRD a syncer pulled from a management cluster (`--pull-crds`) is the operator's own schema: keep it.
  if (existing.object.metadata.annotations?.['controlcenter.hcc.dev/pulled-from']) return;
  await updateObject(store, customresourcedefinitions, '', obj.metadata.name!, (cur) => ({ ...cur!, spec: obj.spec }), systemContext(), { dryRun: false, subresource: '' });
}

async function ensureNamespace(store: Store, name: string): Promise<void> {
  if (store.get(storageKey(namespaces, '', name))) return;
  try {
    await createObject(store, namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, systemContext(), { dryRun: false });
  } catch (e) {
    if (!apierrors.isAlreadyExists(e)) throw e;
  }
}

/**
 * Starts a control center and resolves once it listens.
 * @throws when the data directory cannot be opened or the port is taken
 */
export async function startControlCenter(opts: ControlCenterOptions): Promise<RunningControlCenter> {
  const logger = opts.logger ?? pino({ name: 'control-center' });
  // The token file first: a bad one stops the start before anything is written (naming the flag).
  const fileTokens = opts.tokenFile ? parseTokenFile(readFileSync(opts.tokenFile, 'utf8'), `--token-file ${opts.tokenFile}`) : new Map<string, UserInfo>();
  const pki = path.join(opts.dataDir, 'pki');
  // One token is one identity: a token shared by two would silently be the admin's (or the
  // scheduler's). Checked against the tokens given or kept before any is generated (a generated
  // one is random): a refused start writes nothing.
  const givenAdmin = opts.adminToken ?? readToken(path.join(pki, 'admin.token'));
  const givenScheduler = opts.schedulerToken ?? readToken(path.join(pki, 'scheduler.token'));
  if (givenScheduler !== undefined && givenScheduler === givenAdmin) throw new Error("the scheduler's token is the admin's token: give --scheduler-token (or <data-dir>/pki/scheduler.token) another value");
  for (const [token, user] of fileTokens) {
    if (token === givenAdmin || token === givenScheduler) {
      throw new Error(`--token-file ${opts.tokenFile}: the token of user ${user.name} is the ${token === givenAdmin ? 'admin' : "scheduler's"} token; give it another one`);
    }
  }
  // The data dir holds every Secret in plain JSON: only its owner may enter it, as etcd asks of
  // its data dir (an existing one is tightened, with a line saying so).
  try {
    ensureDir(opts.dataDir, 0o700);
  } catch (err) {
    // Named, with the flag: a container whose working directory is read-only fails here first.
    throw new Error(`the data dir ${opts.dataDir} cannot be created (${(err as Error).message}): give a writable one with --data-dir (and --kubeconfig)`, { cause: err });
  }
  const dirStat = statSync(opts.dataDir);
  const mode = dirStat.mode & 0o777;
  if (mode & 0o077 && dirStat.uid === process.getuid?.()) {
    chmodSync(opts.dataDir, 0o700);
    logger.warn({ dataDir: opts.dataDir, was: mode.toString(8) }, 'data dir was readable by others (it holds every Secret): its permissions are now 700');
  }
  const adminToken = givenAdmin ?? readOrCreateToken(path.join(pki, 'admin.token'));
  const schedulerToken = givenScheduler ?? readOrCreateToken(path.join(pki, 'scheduler.token'));
  // etcd's client (gRPC, protobuf) is loaded only when etcd is the store: ~150 ms less to start.
  const backend =
    opts.store ??
    (opts.etcd
      ? new (await import('./storage/etcd/etcd-store.js')).EtcdStore({ endpoints: opts.etcd.endpoints, prefix: opts.etcd.prefix, historyCapacity: opts.historyCapacity, historyBytes: opts.historyBytes, onFailure: opts.onStorageFailure, logger: logger.child({ storage: 'etcd' }) })
      : new LevelStore({ dir: opts.dataDir, historyCapacity: opts.historyCapacity, historyBytes: opts.historyBytes, onFailure: opts.onStorageFailure, acceptLoss: opts.acceptStorageLoss }));
  // Reads of custom resources show their CRD's current schema (defaults, pruning), as kube's storage decoder.
  const store = new ReadTransformStore(backend);
  await store.open();
  const accepted = backend instanceof LevelStore ? backend.acceptedLoss : undefined;
  if (accepted) logger.warn({ dataDir: opts.dataDir, problems: accepted.problems, revision: accepted.revision }, 'started on lost or damaged data (--accept-storage-loss): serving what is left; resourceVersions continue past every one handed out before, and older ones are 410 Expired');
  const registry = new Registry({ virtualHostedClusters: opts.virtualHostedClusters, reserved: reviewKinds });
  registry.start(store, store);
  for (const [version, reason] of registry.unservable) logger.warn({ crd: version, reason }, 'a stored CustomResourceDefinition version cannot be served: left out (fix or delete the CRD)');
  let ready = false;
  const tokens = new Map<string, UserInfo>([
    ...fileTokens,
    [schedulerToken, { name: 'system:hcc:scheduler', groups: [SchedulersGroup] }],
    [adminToken, { name: 'admin', groups: [MastersGroup] }],
  ]);
  const metrics = createMetrics();
  const validation = new ValidationPool(opts.validationWorkers ?? 0, logger.child({ component: 'validation' }), {
    onChecked: (where) => metrics.validationChecks.inc({ where }),
    onWorkers: (live) => metrics.validationWorkers.set(live),
  });
  const certs = opts.tls === false ? undefined : await ensureServingCerts(path.join(opts.dataDir, 'pki'), [...(opts.tlsSANs ?? []), ...(opts.host && opts.host !== '0.0.0.0' ? [opts.host] : [])]);
  const app = await buildServer({
    https: certs,
    // Always the pool: with no worker it checks in-process, and counts it.
    schemaChecker: validation,
    store,
    registry,
    logger,
    metrics,
    authentication: { tokens, allowAnonymous: opts.allowAnonymous ?? false },
    // The scheduler's own identity keeps its rights, as kube-apiserver's bootstrap policy keeps its components'.
    ...(opts.authorizer ? { authorizer: withSchedulers(opts.authorizer) } : {}),
    watch: opts.watch,
    immortalNamespaces: opts.namespaces ?? [],
    ready: () => ready,
    ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
  });
  for (const ns of ['default', 'kube-system', 'kube-public', ...(opts.namespaces ?? [])]) await ensureNamespace(store, ns);
  for (const crd of opts.crds ?? []) await installCRDConcurrently(store, crd as KubeObject);
  const deletion = new DeletionController(store, registry, logger);
  deletion.start();
  const gc = new GarbageCollector(store, registry, logger);
  gc.start();
  const crdNaming = new CRDNamingController(store, logger);
  crdNaming.start();
  const eventTTLMs = opts.eventTTLMs ?? DefaultEventTTLMs;
  const eventTTL = eventTTLMs > 0 ? new EventTTLController(store, eventTTLMs, logger) : undefined;
  eventTTL?.start();
  // Only where HostedClusters are virtual: in a management cluster the operator deletes NodePools.
  const nodePoolCleanup = opts.virtualHostedClusters ? new NodePoolCleanup(store, registry, logger) : undefined;
  nodePoolCleanup?.start();
  await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  // The address clients use: loopback for a wildcard listen; an IPv6 literal in brackets (RFC 3986).
  const host = !opts.host || opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host === '::' ? '::1' : opts.host;
  const url = `${certs ? 'https' : 'http'}://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  const writeFor = (what: string, file: string, token: string, contextName: string) => {
    try {
      writeKubeconfig(file, {
        server: opts.kubeconfigServer ?? url,
        token,
        contextName,
        // Plain HTTP is only for loopback tests; clients such as @kubernetes/client-node refuse it without this flag.
        ...(certs ? { ca: Buffer.from(certs.ca) } : { insecureSkipTLSVerify: true }),
      });
    } catch (err) {
      throw new Error(`cannot write the ${what} kubeconfig ${file}: ${(err as Error).message}`, { cause: err });
    }
  };
  // The admin's first: when its path cannot be written, the start fails with nothing written.
  if (opts.kubeconfigPath) writeFor('admin', opts.kubeconfigPath, adminToken, opts.contextName ?? 'hcc');
  if (opts.schedulerKubeconfigPath) writeFor("scheduler's", opts.schedulerKubeconfigPath, schedulerToken, 'hcc-scheduler');
  ready = true;
  logger.info({ url, dataDir: opts.dataDir, revision: store.currentRevision() }, opts.virtualHostedClusters ? 'control center serving' : 'API server serving');
  return {
    url,
    port,
    adminToken,
    app,
    store,
    registry,
    metricsRegistry: metrics.registry,
    async close() {
      ready = false;
      deletion.stop();
      gc.stop();
      crdNaming.stop();
      eventTTL?.stop();
      nodePoolCleanup?.stop();
      await app.close();
      registry.stop();
      await validation.close();
      await store.close();
    },
  };
}
