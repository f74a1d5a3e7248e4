/**
 * Wiring of one syncer: the upstream side (the control center, where it watches only what is
 * placed on its management cluster) and the downstream side (the management cluster). Informers
 * feed two keyed work queues: downsync (copies and deletions downstream) and upsync (status and
 * status-referenced Secrets upstream). Heartbeats register the ManagementCluster and report its
 * budget. Decisions live in controllers/; this file only connects events to keys.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import client from 'prom-client';
import {
  ConfigError,
  deletedObject,
  EventRecorder,
  Informer,
  isAlreadyExists,
  isForbidden,
  isConflict,
  isNotFound,
  keyOf,
  NamespaceIndex,
  namespaceIndexFunc,
  problemText,
  retryWithBackoff,
  realClock,
  RequestError,
  within,
  WorkQueue,
  type RestClient,
} from '@hcc/client';
import {
  ControlCenterAPIVersion,
  ManagementClusterResource,
  AnnotationUpstreamUID,
  ConfigMapResource,
  controlPlaneNamespaceName,
  hostedClusterReferences,
  HostedClusterResource,
  LabelManagementCluster,
  LabelSyncedBy,
  LabelUpsyncedFrom,
  NamespaceResource,
  nodePoolReferences,
  NodePoolResource,
  stateLabelKey,
  StateSync,
  SystemNamespace,
  type HostedCluster,
  type KubeObject,
  type ManagementCluster,
  type NodePool,
  type References,
} from '@hcc/crds';
import { foreignControlPlaneNamespace } from './controllers/downsync/control-plane-namespace.js';
import { downsyncSteps, reconcileDownsync } from './controllers/downsync/downsync-reconcile.js';
import { isOurs, ReasonCopyDeleted } from './controllers/downsync/downsync-reconcile-apply.js';
import { referenceGraceMs } from './controllers/downsync/downsync-reconcile-delete.js';
import type { DownsyncDeps, ReferencingObject, SyncKind } from './controllers/downsync/types.js';
import { StillReferenced } from './controllers/downsync/still-referenced.js';
import { liveUsersHere } from './controllers/downsync/live-users.js';
import { reconcileUpsync, SecretsDueNow, type UpsyncDeps } from './controllers/upsync/upsync-reconcile.js';
import { HeartbeatTrigger, runHeartbeats, type ExplicitSetting } from './controllers/heartbeat/heartbeat-controller.js';
import { pullAllowed, pullCRDsOnce, pullNotAllowedMessage } from './controllers/crd-puller/crd-puller.js';
import { sweepNamespaces, type KeptBy } from './controllers/namespace-gc/namespace-gc.js';
import { OwnWrites } from '@hcc/client';
import { PresenceGraceDurations, PresenceRenewer, presences, presenceWriteProblem, type Presence } from './controllers/presence/presence.js';
import { TakeOver, TakeOverFromFlag } from './controllers/presence/take-over.js';
import { controlCenterStamp, copyMaker, namespaceSealSubject, isControlCenterID, isOwnCopy, otherControlCenter, readControlCenterID, stampedID } from './control-center-identity.js';
import { apiVersions, refs, sideWriter as writer } from './side-writer.js';
import { ControlCenterIDGuard, type ControlCenterChangedError } from './control-center-id-guard.js';

/** Index of the downstream HostedClusters by HyperShift's control-plane namespace, `<namespace>-<name>`. */
const ControlPlaneNamespaceIndex = 'controlPlaneNamespace';

/**
 * Index of the HostedClusters and NodePools (both sides) by the Secrets and ConfigMaps they
 * reference, as `Secret/<namespace>/<name>` and `ConfigMap/<namespace>/<name>` (references.ts), so
 * the users of one Secret are found without computing the references of every HostedCluster.
 */
const ReferenceIndex = 'references';

/** The Secrets and ConfigMaps a HostedCluster or NodePool references (references.ts). */
const referencesOfKind = (kind: 'HostedCluster' | 'NodePool', o: KubeObject): References =>
  kind === 'HostedCluster' ? hostedClusterReferences(o as HostedCluster) : nodePoolReferences(o as NodePool);

/** The {@link ReferenceIndex} values of a HostedCluster or NodePool. */
const referenceIndexFunc =
  (kind: 'HostedCluster' | 'NodePool') =>
  (o: KubeObject): string[] => {
    const r = referencesOfKind(kind, o);
    const ns = o.metadata.namespace ?? '';
    return [...r.secrets.map((n) => `Secret/${ns}/${n}`), ...r.configMaps.map((n) => `ConfigMap/${ns}/${n}`)];
  };

/** Index of the upstream NodePools by their HostedCluster, `<namespace>/<spec.clusterName>`. */
const NodePoolClusterIndex = 'nodePoolCluster';

/** The syncer's version, reported in ManagementCluster status. */
export const SyncerVersion = '0.1.0';

const kinds = Object.keys(refs) as SyncKind[];

/** Options of {@link runSyncer}. */
export interface SyncerOptions {
  /** The ManagementCluster name (a DNS label). */
  cluster: string;
  /** Client of the control center. */
  upstream: RestClient;
  /** Client of the management cluster. */
  downstream: RestClient;
  logger: Logger;
  signal: AbortSignal;
  /** spec of the ManagementCluster when this syncer creates it. */
  initialSpec?: ManagementCluster['spec'];
  /** Labels of the ManagementCluster when this syncer creates it (region, provider, ...). */
  labels?: Record<string, string>;
  /** Which of capacity, platforms and labels were given explicitly (see HeartbeatOptions.explicit). */
  explicit?: readonly ExplicitSetting[];
  /**
   * Create the ManagementCluster when it is absent, at start and when it is deleted while this
   * syncer runs (default true, pull mode). Push mode passes false: it serves existing clusters only.
   */
  createManagementCluster?: boolean;
  /** Between heartbeats, in milliseconds (default 10 000). */
  heartbeatIntervalMs?: number;
  /** Concurrent workers per queue (default 16). */
  workers?: number;
  /** Namespace of the operator's supported-versions ConfigMap (default `hypershift`). */
  operatorNamespace?: string;
  metricsRegistry?: client.Registry;
  /**
   * Copy newer HostedCluster/NodePool CRDs from the management cluster up (at start, then every
   * `crdPullIntervalMs`) while an admin sets `spec.pullCRDs` on the ManagementCluster.
   */
  pullCRDs?: boolean;
  /** Between CRD pulls, in milliseconds (default 300 000). */
  crdPullIntervalMs?: number;
  /** Between sweeps for namespaces hcc created that nothing uses any more, in milliseconds (default: 3 heartbeats, at least 5 s). */
  namespaceSweepIntervalMs?: number;
  /**
   * IDs of other control centers (the uid of their kube-system namespace) whose copies in the
   * management cluster this syncer takes as its own: this control center replaces that one
   * (restored on a new data dir). Copies of any other control center are left as they are
   * (control-center-identity.ts).
   */
  takeOverFrom?: readonly string[];
  /**
   * Namespace in the management cluster of this syncer's presence Lease (presence.ts), created
   * when missing; default `hcc-system` (in a cluster: the namespace the syncer runs in).
   */
  presenceNamespace?: string;
  /**
   * Called when another control center answers at the control center's address (its ID changed:
   * control-center-id-guard.ts), just before this syncer stops without deleting anything. The push
   * syncer stops all its clusters then; a pull syncer's process exits when its syncer stops.
   */
  onControlCenterChanged?(err: ControlCenterChangedError): void;
  /** What messages call the management cluster's kubeconfig (default `--management-kubeconfig`; the push syncer names its Secret). */
  managementKubeconfigSource?: string;
}

/** A running syncer. */
export interface RunningSyncer {
  /** '' when ready, else why not: the step it is at, or once it served, heartbeats failing for longer than its Lease or a management cluster whose API does not answer. */
  readiness(): string;
  /** Whether it got through registration, its first heartbeat and its caches' sync (it serves). */
  started(): boolean;
  /**
   * What hcc made in the management cluster for this cluster is still there: copies labelled
   * `controlcenter.hcc.dev/synced-by: <cluster>` (ones being deleted included), then, after a
   * namespace sweep run now, namespaces hcc created that nothing foreign keeps.
   * @returns '' when nothing is left (or the syncer never got ready, so it cannot tell), else what
   * is left, e.g. `2 copies (Secret r/rx-pull-secret, ...)` or `namespaces r`
   * @throws the downstream client's error when the sweep or the namespace list fails
   */
  leftovers(): Promise<string>;
  done: Promise<void>;
}

/** Starts a syncer; it runs until `signal` aborts. */
export function runSyncer(opts: SyncerOptions): RunningSyncer {
  let state = 'starting';
  const hooks: Hooks = {};
  const done = run(opts, (s) => (state = s), hooks);
  // What keeps it from serving, when something does: a refused registration, another syncer's Lease.
  // The state, and what went wrong in it (a problem that names its step, as `reading the control
  // center ID failed (retrying): 401 Unauthorized`, is not prefixed with the step again).
  // Once ready, what keeps it from working: heartbeats failing for longer than its Lease lasts, or
  // a management cluster whose API does not answer.
  const readiness = () => (state === 'ready' ? (hooks.health?.() ?? '') : hooks.problem ? (hooks.problem.startsWith(state) ? hooks.problem : `${state}; ${hooks.problem}`) : state);
  return { readiness, started: () => state === 'ready', leftovers: () => hooks.leftovers?.() ?? Promise.resolve(''), done };
}

/** What {@link run} exposes once its caches are synced. */
interface Hooks {
  leftovers?: () => Promise<string>;
  /** Why registration or the first heartbeat fails (for /readyz), until the first heartbeat succeeds. */
  problem?: string;
  /** Once ready: '' while it works, else why not (for /readyz). */
  health?: () => string;
}

/** The first three of `items`, comma-separated, with `, ...` when there are more (for messages that count them). */
const firstFew = (items: string[]): string => `${items.slice(0, 3).join(', ')}${items.length > 3 ? ', ...' : ''}`;

/** Warning Event on a ManagementCluster whose management cluster holds copies another control center's syncer made under its name. */
export const ReasonOtherControlCenter = 'OtherControlCenter';
/** Warning Event on a ManagementCluster whose syncer cannot write its presence Lease in the management cluster. */
export const ReasonPresenceFailed = 'PresenceFailed';

/**
 * Why the management cluster is the control center itself (its ID, the kube-system uid, is the
 * control center's), or undefined when it is not or either ID is unknown.
 */
export function pointsAtControlCenter(managementClusterID: string | undefined, controlCenterID: string | undefined, source = '--management-kubeconfig'): string | undefined {
  if (!managementClusterID || managementClusterID !== controlCenterID) return undefined;
  return `${source} points at the control center itself (both have the ID ${controlCenterID}, the uid of their kube-system namespace): it must be the kubeconfig of the management cluster where the HyperShift operator runs; the syncer stops`;
}

/** The syncer's first step, as /readyz names it while it lasts. */
const ReadingControlCenterID = 'reading the control center ID';

/**
 * Reads the control center's ID (control-center-identity.ts) until it answers or `signal` aborts,
 * retried after 200 ms doubling up to 30 s (with jitter), as registration is: a warn line per
 * failed attempt, and `onProblem` told why (a 403 names the policy rule the syncer needs).
 * @returns the ID, or undefined when aborted first
 */
async function controlCenterID(upstream: RestClient, signal: AbortSignal, log: Logger, onProblem: (why: string | undefined) => void): Promise<string | undefined> {
  const read = async () => {
    let id: string;
    try {
      id = await readControlCenterID(upstream);
    } catch (err) {
      // Refused by a server that does not serve ManagementClusters at all: --kubeconfig holds a
      // management cluster's identity (its in-cluster ServiceAccount's, say), not the control
      // center's; the control center's policy is not what to change.
      if (isForbidden(err) && !(await servesManagementClusters(upstream))) {
        throw new ConfigError(
          `the server --kubeconfig points at does not serve ManagementClusters (${ControlCenterAPIVersion}) and refuses this identity the read of its kube-system namespace: --kubeconfig must be the control center's kubeconfig; this looks like a management cluster's or another server's (${problemText(err)})`,
        );
      }
      throw err;
    }
    // Any server has a kube-system namespace: a management cluster's kubeconfig given as
    // --kubeconfig reads one too, and its uid is no control center's ID.
    if (!(await servesManagementClusters(upstream))) {
      throw new ConfigError(`the server --kubeconfig points at does not serve ManagementClusters (${ControlCenterAPIVersion}): --kubeconfig must be the control center's kubeconfig; this looks like a management cluster's or another server's`);
    }
    return id;
  };
  const id = await retryWithBackoff(read, {
    signal,
    onError: (err, retryInMs) => {
      if (err instanceof ConfigError) {
        log.warn({ err, retryInMs }, 'the control center ID cannot be read; retrying');
        onProblem(`${ReadingControlCenterID} failed (retrying): ${err.message}`);
        return;
      }
      const forbidden = isForbidden(err);
      const msg = forbidden
        ? "the control center refuses this syncer the read of its kube-system namespace, whose uid is the control center's ID that every copy carries: give the syncer get on namespaces named kube-system (the rule in deploy/control-center/syncer-policy.yaml); retrying"
        : "reading the control center's ID (its kube-system namespace) failed; retrying";
      log.warn({ ...(forbidden ? { err: (err as Error).message } : { err }), retryInMs }, msg);
      onProblem(forbidden ? `${msg}: ${(err as Error).message}` : `${ReadingControlCenterID} failed (retrying): ${problemText(err)}`);
    },
  });
  if (id !== undefined) onProblem(undefined);
  return id;
}

/**
 * Whether the server serves the control center's API group (`GET /apis/controlcenter.hcc.dev/v1alpha1`):
 * false only for a 404; true when it answers or cannot tell (refused, unreachable), so a doubt
 * never turns a control center's refusal into the wrong hint.
 */
async function servesManagementClusters(upstream: RestClient): Promise<boolean> {
  try {
    await upstream.raw('GET', `/apis/${ControlCenterAPIVersion}`);
    return true;
  } catch (err) {
    return !isNotFound(err);
  }
}

/**
 * The syncer's metrics in `registry`, registered once and shared by every syncer using it (a push
 * syncer runs one per Push-mode cluster in one process), each series labelled with its `cluster`:
 * `hcc_syncer_queue_depth` (keys waiting, per queue), `hcc_syncer_queue_adds_total` and
 * `hcc_syncer_queue_retries_total` (counters since start, as client-go's `workqueue_adds_total`
 * and `workqueue_retries_total`), `hcc_syncer_cached_objects` (informer cache sizes by side and kind),
 * `hcc_syncer_heartbeats_total{result}` (`success`, `failure`) and
 * `hcc_syncer_last_heartbeat_success_timestamp_seconds` (Unix time of the last heartbeat that reached
 * the control center: alert on its age, as on a kubelet's Lease).
 */
function syncerMetrics(registry: client.Registry) {
  const get = <T>(name: string, make: () => T): T => (registry.getSingleMetric(name) as T | undefined) ?? make();
  return {
    queueDepth: get('hcc_syncer_queue_depth', () => new client.Gauge({ name: 'hcc_syncer_queue_depth', help: 'Keys waiting per queue.', labelNames: ['cluster', 'queue'], registers: [registry] })),
    queueAdds: get('hcc_syncer_queue_adds_total', () => new client.Counter({ name: 'hcc_syncer_queue_adds_total', help: 'Keys added per queue since start.', labelNames: ['cluster', 'queue'], registers: [registry] })),
    queueRetries: get('hcc_syncer_queue_retries_total', () => new client.Counter({ name: 'hcc_syncer_queue_retries_total', help: 'Rate-limited retries per queue since start.', labelNames: ['cluster', 'queue'], registers: [registry] })),
    cached: get('hcc_syncer_cached_objects', () => new client.Gauge({ name: 'hcc_syncer_cached_objects', help: 'Objects in the informer caches, by side and kind.', labelNames: ['cluster', 'side', 'kind'], registers: [registry] })),
    heartbeats: get('hcc_syncer_heartbeats_total', () => new client.Counter({ name: 'hcc_syncer_heartbeats_total', help: 'Heartbeats since start, by result (success: the status reached the control center).', labelNames: ['cluster', 'result'], registers: [registry] })),
    lastHeartbeat: get('hcc_syncer_last_heartbeat_success_timestamp_seconds', () => new client.Gauge({ name: 'hcc_syncer_last_heartbeat_success_timestamp_seconds', help: 'Unix time of the last heartbeat that reached the control center.', labelNames: ['cluster'], registers: [registry] })),
  };
}

async function run(opts: SyncerOptions, setState: (s: string) => void, hooks: Hooks): Promise<void> {
  const { cluster, upstream, downstream } = opts;
  // Aborted when another management cluster's syncer takes this cluster's Lease while this one
  // serves, or another control center answers at the control center's address: everything below
  // stops, and the process exits (to wait for the Lease, or to serve the new control center, when
  // restarted).
  const stopSelf = new AbortController();
  const signal = AbortSignal.any([opts.signal, stopSelf.signal]);
  // Every line names the cluster (a push syncer serves several in one process).
  const log = opts.logger.child({ cluster });
  const registry = opts.metricsRegistry ?? new client.Registry();
  const upInformers = {} as Record<SyncKind, Informer<KubeObject>>;
  const downInformers = {} as Record<SyncKind, Informer<KubeObject>>;
  const placed = `${LabelManagementCluster}=${cluster}`;
  const state = `${stateLabelKey(cluster)}=${StateSync}`;
  const ours = `${LabelSyncedBy}=${cluster}`;
  for (const k of kinds) {
    const workload = k === 'HostedCluster' || k === 'NodePool';
    upInformers[k] = new Informer({ client: upstream, ref: refs[k], labelSelector: workload ? placed : state, logger: log });
    // Downstream HostedClusters and NodePools are watched whole: every HostedCluster counts against the budget.
    downInformers[k] = new Informer({ client: downstream, ref: refs[k], labelSelector: workload ? undefined : ours, logger: log });
    upInformers[k].addIndexer(NamespaceIndex, namespaceIndexFunc);
    downInformers[k].addIndexer(NamespaceIndex, namespaceIndexFunc);
    if (workload) {
      upInformers[k].addIndexer(ReferenceIndex, referenceIndexFunc(k));
      downInformers[k].addIndexer(ReferenceIndex, referenceIndexFunc(k));
    }
  }
  upInformers.NodePool.addIndexer(NodePoolClusterIndex, (np) => [`${np.metadata.namespace ?? ''}/${(np.spec as { clusterName?: string } | undefined)?.clusterName ?? ''}`]);
  // HyperShift's control-plane namespace of each HostedCluster in the management cluster (`<namespace>-<name>`).
  downInformers.HostedCluster.addIndexer(ControlPlaneNamespaceIndex, (hc) => [controlPlaneNamespaceName(hc.metadata.namespace ?? '', hc.metadata.name ?? '')]);
  const downsync = new WorkQueue();
  const upsync = new WorkQueue();
  for (const k of kinds) {
    const toKey = (o: KubeObject | Parameters<typeof deletedObject>[0]) => `${k}/${keyOf(o as KubeObject)}`;
    const both = (o: KubeObject) => {
      downsync.add(toKey(o));
      if (k === 'HostedCluster' || k === 'NodePool') upsync.add(toKey(o));
    };
    upInformers[k].addEventHandler({ onAdd: both, onUpdate: (_o, n) => both(n), onDelete: (d) => downsync.add(toKey(deletedObject(d))) });
    downInformers[k].addEventHandler({ onAdd: both, onUpdate: (_o, n) => both(n), onDelete: (d) => downsync.add(toKey(deletedObject(d))) });
  }
  // Whether a NodePool, Secret or ConfigMap may be copied depends on its HostedCluster (blocked by
  // a foreign one, or not: blockedByForeign below): look at them again when it changes on either
  // side, instead of at their next recheck a minute later.
  const wakeDependents = (hc: KubeObject) => {
    const ns = hc.metadata.namespace ?? '';
    const name = hc.metadata.name ?? '';
    const up = upInformers.HostedCluster.lister.get(`${ns}/${name}`);
    if (!up) return;
    const refs = hostedClusterReferences(up as HostedCluster);
    for (const s of refs.secrets) downsync.add(`Secret/${ns}/${s}`);
    for (const c of refs.configMaps) downsync.add(`ConfigMap/${ns}/${c}`);
    for (const np of upInformers.NodePool.lister.byIndex(NodePoolClusterIndex, `${ns}/${name}`)) {
      downsync.add(`NodePool/${ns}/${np.metadata.name}`);
      const npRefs = nodePoolReferences(np as NodePool);
      for (const s of npRefs.secrets) downsync.add(`Secret/${ns}/${s}`);
      for (const c of npRefs.configMaps) downsync.add(`ConfigMap/${ns}/${c}`);
    }
  };
  // Only on what can change it: a HostedCluster placed here or gone, a foreign one appearing or
  // going downstream, or an upstream HostedCluster whose references changed (status writes and
  // other updates wake nothing).
  const refsKey = (o: KubeObject) => JSON.stringify(hostedClusterReferences(o as HostedCluster));
  upInformers.HostedCluster.addEventHandler({
    onAdd: wakeDependents,
    onUpdate: (o, n) => refsKey(o) !== refsKey(n) && wakeDependents(n),
    onDelete: (d) => wakeDependents(deletedObject(d)),
  });
  downInformers.HostedCluster.addEventHandler({ onAdd: wakeDependents, onDelete: (d) => wakeDependents(deletedObject(d)) });
  // A Secret or ConfigMap copy kept because a copy here references it (stillReferenced) is looked
  // at again when that copy goes or stops referencing it.
  const wakeReferencedByCopy = (kind: 'HostedCluster' | 'NodePool', o: KubeObject) => {
    const ns = o.metadata.namespace ?? '';
    const r = referencesOfKind(kind, o);
    for (const s of r.secrets) downsync.add(`Secret/${ns}/${s}`);
    for (const c of r.configMaps) downsync.add(`ConfigMap/${ns}/${c}`);
  };
  for (const kind of ['HostedCluster', 'NodePool'] as const) {
    downInformers[kind].addEventHandler({
      onUpdate: (o, n) => JSON.stringify(referencesOfKind(kind, o)) !== JSON.stringify(referencesOfKind(kind, n)) && wakeReferencedByCopy(kind, o),
      onDelete: (d) => wakeReferencedByCopy(kind, deletedObject(d)),
    });
  }
  /** The HostedClusters, then the NodePools, in `ns` that one side's informers show referencing Secret or ConfigMap ns/name. */
  function* referencing(informers: Record<SyncKind, Informer<KubeObject>>, kind: SyncKind, ns: string, name: string): Generator<ReferencingObject> {
    const value = `${kind}/${ns}/${name}`;
    for (const hc of informers.HostedCluster.lister.byIndex(ReferenceIndex, value)) yield { kind: 'HostedCluster', obj: hc };
    for (const np of informers.NodePool.lister.byIndex(ReferenceIndex, value)) yield { kind: 'NodePool', obj: np };
  }
  /**
   * The HostedClusters placed here (names in `ns`) that reference Secret or ConfigMap ns/name,
   * directly or through one of their NodePools (a NodePool counts for its `spec.clusterName`).
   */
  const referencingClusters = (kind: SyncKind, ns: string, name: string): Set<string> => {
    const users = new Set<string>();
    for (const u of referencing(upInformers, kind, ns, name)) users.add((u.kind === 'HostedCluster' ? u.obj.metadata.name : (u.obj as NodePool).spec?.clusterName) ?? '');
    return users;
  };
  /** Whether a downstream object is one hcc made (its label, or the upstream uid it carries). */
  /** Other live ManagementCluster names of this management cluster (the heartbeat's fleet view). */
  let siblings = new Set<string>();
  /** Whether a copy here is one the syncer of such another name made. */
  const bySibling = (o: KubeObject) => siblings.has(o.metadata.labels?.[LabelSyncedBy] ?? '') && otherControlCenter(deps.controlCenter, o) === undefined;
  /** Whether a downstream object is one this control center's syncers made (its label, or the upstream uid it carries; never another control center's). */
  const madeByHcc = (o: KubeObject) => (o.metadata.labels?.[LabelSyncedBy] === cluster || !!o.metadata.annotations?.[AnnotationUpstreamUID]) && otherControlCenter(deps.controlCenter, o) === undefined;
  const stillReferenced = new StillReferenced({
    upstreamNow: (kind, ns, name) => upInformers[kind].lister.get(`${ns}/${name}`),
    copiesReferencing: (kind, ns, name) => referencing(downInformers, kind, ns, name),
    answersFor: (o) => madeByHcc(o) && !bySibling(o),
    referencedHere: (kind, ns, name) => referencingClusters(kind, ns, name).size > 0,
    readUpstream: (kind, ns, name) => writer(upstream).get(kind, ns, name),
    graceMs: referenceGraceMs,
    now: Date.now,
  });
  for (const k of ['Secret', 'ConfigMap'] as const) {
    const seen = (o: KubeObject) => stillReferenced.seen(k, o.metadata.namespace ?? '', o.metadata.name ?? '');
    upInformers[k].addEventHandler({ onAdd: seen, onUpdate: (_, n) => seen(n) });
  }
  const knownNamespaces = new Set<string>();
  /** Whether the warning that namespaces cannot be listed (so control-plane namespaces go unchecked) was logged. */
  let cpCheckForbiddenLogged = false;
  const ownWrites = new OwnWrites();
  const recorder = new EventRecorder({ client: upstream, component: `hcc-syncer/${cluster}`, logger: log });
  const deps: DownsyncDeps = {
    cluster,
    rememberedKeys: new Map(),
    getUpstream: (k, key) => upInformers[k].lister.get(key),
    getDownstream: (k, key) => downInformers[k].lister.get(key),
    upstream: writer(upstream),
    downstream: {
      ...writer(downstream),
      // A create that fails because its namespace is gone or terminating makes the namespace be ensured again.
      create: async (kind, obj, onWarning) => {
        try {
          return await writer(downstream).create(kind, obj, onWarning);
        } catch (err) {
          if (isNotFound(err) || (err as { code?: number }).code === 403) knownNamespaces.delete(obj.metadata.namespace ?? '');
          throw err;
        }
      },
    },
    updateUpstreamStatus: (k, obj) => upstream.updateStatus(refs[k], obj.metadata.namespace, { ...obj, apiVersion: apiVersions[k], kind: k }),
    deleteUpstreamNodePools: async (ns, clusterName, uid, from) => {
      // Read live: the informer may still show a HostedCluster deleted while this syncer was away,
      // whose name a new HostedCluster now has; that one's NodePools are not to be deleted.
      const hc = await writer(upstream).get('HostedCluster', ns, clusterName);
      if (!hc || hc.metadata.uid !== uid || !hc.metadata.deletionTimestamp) return;
      // The informer holds the NodePools placed here, found by their HostedCluster (an index);
      // a live list of the namespace (every NodePool in it: its cost grows with the namespace)
      // also finds one not placed yet, and runs once per HostedCluster, before its finalizer goes.
      const nps = from === 'cache' ? upInformers.NodePool.lister.byIndex(NodePoolClusterIndex, `${ns}/${clusterName}`) : (await upstream.list<KubeObject>(NodePoolResource, { namespace: ns })).items;
      for (const np of nps) {
        if ((np.spec as { clusterName?: string } | undefined)?.clusterName !== clusterName || np.metadata.deletionTimestamp) continue;
        // The uid precondition: not a NodePool of that name created since the list (409, skipped).
        try {
          await writer(upstream).delete('NodePool', ns, np.metadata.name!, { uid: np.metadata.uid });
        } catch (err) {
          if (!isConflict(err) && !isNotFound(err)) throw err;
        }
      }
    },
    blockedByControlPlane: (kind, up) => {
      const ns = up.metadata.namespace ?? '';
      const owner = downInformers.HostedCluster.lister.byIndex(ControlPlaneNamespaceIndex, ns)[0];
      if (owner) return `namespace ${ns} is the control-plane namespace of HostedCluster ${owner.metadata.namespace}/${owner.metadata.name} here, deleted with it`;
      if (kind !== 'HostedCluster') return undefined;
      const cp = controlPlaneNamespaceName(ns, up.metadata.name ?? '');
      const tenant = kinds.map((k) => downInformers[k].lister.byIndex(NamespaceIndex, cp)[0]).find((o) => o !== undefined);
      return tenant ? `its control-plane namespace ${cp} holds ${tenant.kind ?? 'objects'} ${cp}/${tenant.metadata.name} here, which its control plane's deletion would take along` : undefined;
    },
    foreignControlPlaneNamespace: (up) =>
      foreignControlPlaneNamespace(
        // A list by name: the syncer's role lists namespaces, it does not get them.
        async (name) => (await downstream.list<KubeObject>(NamespaceResource, { fieldSelector: `metadata.name=${name}` })).items[0],
        up,
        (err) => {
          if (!cpCheckForbiddenLogged) log.warn({ err }, "cannot list namespaces in the management cluster: a HostedCluster's control-plane namespace is not checked for someone else's before its copy is made");
          cpCheckForbiddenLogged = true;
        },
      ),
    blockedByForeign: (kind, up) => {
      const ns = up.metadata.namespace ?? '';
      /**
       * What blocks the HostedCluster ns/name placed here, or undefined: a same-named one
       * downstream that hcc did not create, another control center's copy of that name, or this
       * syncer's own copy of an earlier HostedCluster of that name (another uid: deleted and
       * created again), which goes first.
       */
      const blocker = (hcName: string): string | undefined => {
        const upHC = upInformers.HostedCluster.lister.get(`${ns}/${hcName}`);
        const downHC = downInformers.HostedCluster.lister.get(`${ns}/${hcName}`);
        if (!upHC || !downHC || isOurs(deps, 'HostedCluster', upHC, downHC)) return undefined;
        const other = otherControlCenter(deps.controlCenter, downHC, upHC);
        if (other) return `the copy ${copyMaker(other)} made of the same name`;
        if (downHC.metadata.labels?.[LabelSyncedBy] === cluster) return 'the copy of an earlier HostedCluster of that name, which is removed first';
        return 'one of the same name that hcc did not create';
      };
      if (kind === 'NodePool') {
        const hcName = (up.spec as { clusterName?: string } | undefined)?.clusterName;
        const by = hcName ? blocker(hcName) : undefined;
        return by ? `its HostedCluster ${ns}/${hcName} is blocked by ${by}` : undefined;
      }
      const users = [...referencingClusters(kind, ns, up.metadata.name ?? '')].sort();
      const blockers = users.map(blocker);
      if (users.length === 0 || blockers.some((b) => b === undefined)) return undefined;
      if (new Set(blockers).size === 1) return `its HostedCluster ${users.map((u) => `${ns}/${u}`).join(', ')} is blocked by ${blockers[0]}`;
      return `its HostedClusters are blocked: ${users.map((u, i) => `${ns}/${u} by ${blockers[i]}`).join('; ')}`;
    },
    referencedHere: (kind, ns, name) => liveUsersHere(referencing(upInformers, kind, ns, name), (hc) => upInformers.HostedCluster.lister.get(`${ns}/${hc}`)).size > 0,
    isSibling: (name) => siblings.has(name),
    usedBySibling: (kind, ns, name) => {
      for (const u of referencing(downInformers, kind, ns, name)) if (bySibling(u.obj) && !u.obj.metadata.deletionTimestamp) return true;
      return false;
    },
    usersHere: (kind, ns, name) => [...referencing(upInformers, kind, ns, name)].map((u) => u.obj),
    usedByOtherControlCenter: (kind, ns, name) => {
      for (const u of referencing(downInformers, kind, ns, name)) {
        const other = u.obj.metadata.deletionTimestamp ? undefined : otherControlCenter(deps.controlCenter, u.obj);
        if (other) return `${u.kind} ${ns}/${u.obj.metadata.name} of the control center ${other}`;
      }
      return undefined;
    },
    usedByForeign: (kind, ns, name) => {
      for (const u of referencing(downInformers, kind, ns, name)) if (!madeByHcc(u.obj)) return `${u.kind} ${ns}/${u.obj.metadata.name}`;
      return undefined;
    },
    stillReferenced: (kind, ns, name) => stillReferenced.check(kind, ns, name),
    ensureDownstreamNamespace: async (ns) => {
      if (knownNamespaces.has(ns)) return;
      try {
        const annotations = deps.controlCenter ? controlCenterStamp(deps.controlCenter.id, namespaceSealSubject(ns)) : undefined;
        await downstream.create(NamespaceResource, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { [LabelSyncedBy]: cluster }, ...(annotations ? { annotations } : {}) } });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      knownNamespaces.add(ns);
    },
    ownWrites,
    downWrites: new OwnWrites(),
    recentCreates: new Map(),
    namespaceWaits: new Map(),
    now: Date.now,
    warn: (obj, reason, message) => recorder.event(obj, 'Warning', reason, message),
    log,
  };
  const upW = writer(upstream);
  const downW = writer(downstream);
  // Whether the management cluster's API answers the heartbeats: the last one reached it, and none
  // has waited longer than an interval. A heartbeat gives up on it after ObserveTimeoutMs (or an
  // interval, when longer; half the Lease, when shorter) instead of the 30 s request timeout, so
  // the heartbeat says so in time.
  // While it does not answer, the downstream caches are stale and upsync copies nothing up (the
  // scheduler marks the statuses unknown meanwhile; see upsync-reconcile.ts).
  const heartbeatIntervalMs = opts.heartbeatIntervalMs ?? 10_000;
  // At most half the Lease (4 intervals): a heartbeat that waited for an unanswering API still
  // lands before the Lease runs out, so the cluster reads Unreachable, not HeartbeatExpired and
  // Unreachable in turn (with --heartbeat-interval 1, a 2 s wait).
  const observeTimeoutMs = Math.min(Math.max(heartbeatIntervalMs, ObserveTimeoutMs), 2 * heartbeatIntervalMs);
  let lastObserveOk = true;
  let lastObserveError = '';
  let managementClusterGone = false;
  const observing = new Set<{ startedMs: number }>(); // observations not answered yet, with when each started (ms since the epoch)
  const upsyncDeps: UpsyncDeps = {
    cluster,
    // Nothing is copied up either once the ManagementCluster is gone (removed by force while this
    // push syncer drains): the scheduler marks what was placed there Unknown, "no longer exists".
    downstreamReachable: () => !managementClusterGone && lastObserveOk && ![...observing].some((o) => Date.now() - o.startedMs > heartbeatIntervalMs),
    unreachableRecheckMs: heartbeatIntervalMs,
    secretsCheckedAt: new Map(),
    warn: (obj, reason, message) => recorder.event(obj, 'Warning', reason, message),
    ownWrites,
    getUpstream: deps.getUpstream,
    getDownstream: deps.getDownstream,
    updateUpstreamStatus: deps.updateUpstreamStatus!,
    patchUpstream: (k, ns, name, patch) => upW.patch(k, ns, name, patch),
    log,
    getDownstreamSecret: (ns, name) => downW.get('Secret', ns, name),
    getUpstreamSecret: (ns, name) => upW.get('Secret', ns, name),
    createUpstreamSecret: async (obj) => {
      await upW.create('Secret', obj);
    },
    deleteUpstreamSecret: (ns, name, preconditions) => upW.delete('Secret', ns, name, preconditions),
    updateUpstreamSecret: async (obj) => {
      await upW.update('Secret', obj);
    },
  };

  const { queueDepth, queueAdds, queueRetries, cached, heartbeats, lastHeartbeat } = syncerMetrics(registry);
  const counted = { downsync: { adds: 0, retries: 0 }, upsync: { adds: 0, retries: 0 } };
  const gauges = setInterval(() => {
    for (const [q, wq] of [['downsync', downsync], ['upsync', upsync]] as const) {
      queueDepth.set({ cluster, queue: q }, wq.len());
      queueAdds.inc({ cluster, queue: q }, wq.adds - counted[q].adds);
      queueRetries.inc({ cluster, queue: q }, wq.retries - counted[q].retries);
      counted[q] = { adds: wq.adds, retries: wq.retries };
    }
    for (const k of kinds) {
      cached.set({ cluster, side: 'upstream', kind: k }, upInformers[k].lister.size);
      cached.set({ cluster, side: 'downstream', kind: k }, downInformers[k].lister.size);
    }
  }, 1000);
  // A push syncer's clusters come and go in one process: a stopped one's series go with it.
  const dropSeries = () => {
    for (const queue of ['downsync', 'upsync']) for (const m of [queueDepth, queueAdds, queueRetries]) m.remove({ cluster, queue });
    for (const side of ['upstream', 'downstream']) for (const kind of kinds) cached.remove({ cluster, side, kind });
  };

  /** The management cluster's ID (read at start, else by the first heartbeat that can; it never changes). */
  let clusterID: string | undefined;
  /** The management cluster's ID, as Karmada's: its kube-system namespace's uid (listed by name: the syncer may list namespaces, not get them). */
  async function managementClusterID(): Promise<string | undefined> {
    return (await downstream.list(NamespaceResource, { fieldSelector: 'metadata.name=kube-system' })).items[0]?.metadata.uid;
  }
  /** Whether the management cluster is the control center itself ({@link pointsAtControlCenter}); if so, says why (log, /readyz). */
  function selfLoopStops(managementID: string | undefined, controlCenterID: string | undefined): boolean {
    const why = pointsAtControlCenter(managementID, controlCenterID, opts.managementKubeconfigSource);
    if (!why) return false;
    log.error({ controlCenter: controlCenterID }, why);
    hooks.problem = why;
    return true;
  }

  // Every copy carries the control center's ID, so a syncer of another control center under the
  // same ManagementCluster name neither deletes nor overwrites them (control-center-identity.ts).
  setState(ReadingControlCenterID);
  const id = await controlCenterID(upstream, signal, log, (why) => (hooks.problem = why));
  if (id === undefined) {
    clearInterval(gauges);
    dropSeries();
    return;
  }
  // --management-kubeconfig pointing at the control center itself: it would register the control
  // center as a management cluster of its own (counting its HostedClusters as hosted), be placed
  // on, and call the user's own objects foreign copies. Checked when the cluster answers now, and
  // at the first heartbeat that reads its ID (observe) when it does not.
  clusterID = await managementClusterID().catch(() => undefined);
  if (selfLoopStops(clusterID, id)) {
    clearInterval(gauges);
    dropSeries();
    return;
  }
  const requested = new Set(opts.takeOverFrom ?? []);
  if (requested.delete(id)) log.warn({ controlCenter: id }, `${TakeOverFromFlag} names this control center itself: ignored`);
  // Which of them are taken over now: decided at each heartbeat from the presence Leases (observe).
  const takeOver = new TakeOver(requested, (level, controlCenter, message, reason) => {
    log[level]({ controlCenter }, message);
    if (reason) warnOnManagementCluster(reason, message);
  });
  deps.controlCenter = { id, takeOverFrom: takeOver.active };
  // Read again before any copy is deleted or replaced, and whenever the control center is seen
  // again after an outage: another control center at this address stops this syncer, with
  // nothing deleted (control-center-id-guard.ts).
  const idGuard = new ControlCenterIDGuard(id, () => readControlCenterID(upstream), (err) => {
    log.error({ controlCenter: err.was, now: err.now }, err.message);
    hooks.problem = err.message;
    opts.onControlCenterChanged?.(err);
    stopSelf.abort();
  });
  deps.confirmControlCenter = () => idGuard.confirm();
  // The informer hands a relist's objects to the queues, then says it sees the server again: the
  // workers, which run after that, wait for the ID read it starts (settled below). While the
  // control center is out of sight the copies are kept to the caches' last view, as before.
  for (const k of kinds) upInformers[k].addConnectionHandler({
    onRestored: () => {
      idGuard.suspect();
      idGuard.check(log);
    },
  });
  log.info({ controlCenter: id, ...(requested.size ? { takeOverFrom: [...requested] } : {}) }, 'serving the control center of this ID');
  const holder = `${hostname()}_${randomUUID()}`;
  const leaseDurationSeconds = Math.ceil(((opts.heartbeatIntervalMs ?? 10_000) * 4) / 1000);
  setState('registering');
  // A HostedCluster gone from the management cluster is room for the next one: report it now.
  const heartbeatTrigger = new HeartbeatTrigger();
  downInformers.HostedCluster.addEventHandler({ onDelete: () => heartbeatTrigger.request() });
  // A copy someone deleted in the management cluster (its object still placed here, not being
  // deleted, and its HostedCluster neither): made again by the downsync, and said in a Warning
  // Event on the object, as with HyperShift that tore a hosted control plane down (a Karmada user
  // sees such drift on the resource template too).
  for (const k of ['HostedCluster', 'NodePool'] as const) {
    downInformers[k].addEventHandler({
      onDelete: (d) => {
        const copy = deletedObject(d);
        const up = upInformers[k].lister.get(keyOf(copy));
        if (!up?.metadata.uid || up.metadata.deletionTimestamp || up.metadata.labels?.[LabelManagementCluster] !== cluster) return;
        if (copy.metadata.annotations?.[AnnotationUpstreamUID] !== up.metadata.uid || !isOwnCopy(cluster, deps.controlCenter, copy, up)) return;
        if (k === 'NodePool') {
          const hc = upInformers.HostedCluster.lister.get(`${up.metadata.namespace ?? ''}/${(up.spec as { clusterName?: string } | undefined)?.clusterName ?? ''}`);
          if (!hc || hc.metadata.deletionTimestamp) return;
        }
        const message = `its copy in management cluster ${cluster} was deleted there, not through the control center; hcc makes it again${k === 'HostedCluster' ? ' (HyperShift tears its hosted control plane down with the copy and builds a new one)' : ''}`;
        log.warn({ kind: k, key: keyOf(copy) }, message);
        recorder.event(up, 'Warning', ReasonCopyDeleted, message);
      },
    });
  }
  // The last heartbeat that reached the control center, and why the ones since failed.
  let lastBeatOkMs: number | undefined;
  let lastBeatError = '';
  hooks.health = () => {
    const leaseMs = leaseDurationSeconds * 1000;
    if (lastBeatOkMs !== undefined && Date.now() - lastBeatOkMs > leaseMs) {
      return `heartbeats have failed for ${Math.round((Date.now() - lastBeatOkMs) / 1000)}s, longer than the ${leaseDurationSeconds}s Lease, so the control center takes ${cluster} as not ready: ${lastBeatError || 'the heartbeat in flight has had no answer from the control center yet'}`;
    }
    if (!lastObserveOk) return `the management cluster's API does not answer (the control center shows ${cluster} not ready): ${lastObserveError}`;
    return '';
  };
  const heartbeat = runHeartbeats({
    trigger: heartbeatTrigger,
    cluster,
    upstream,
    initialSpec: opts.initialSpec ?? {},
    labels: opts.labels,
    ...(opts.explicit ? { explicit: opts.explicit } : {}),
    createIfMissing: opts.createManagementCluster ?? true,
    identity: holder,
    syncerVersion: SyncerVersion,
    intervalMs: opts.heartbeatIntervalMs ?? 10_000,
    leaseDurationSeconds,
    logger: log,
    signal,
    recordEvent: (mc, type, reason, message) => recorder.event(mc, type, reason, message),
    onProblem: (why) => (hooks.problem = why),
    onBeat: (err) => {
      heartbeats.inc({ cluster, result: err === undefined ? 'success' : 'failure' });
      if (err === undefined) {
        lastBeatOkMs = Date.now();
        lastBeatError = '';
        lastHeartbeat.set({ cluster }, lastBeatOkMs / 1000);
      } else lastBeatError = problemText(err);
    },
    onSiblings: (names) => (siblings = new Set(names)),
    onManagementClusterGone: () => (managementClusterGone = true),
    onLeaseLost: () => {
      log.error({ controller: 'heartbeat' }, 'another management cluster\'s syncer holds this ManagementCluster\'s Lease: stopping');
      stopSelf.abort();
    },
    // A side that answers a heartbeat answers informers too: those waiting out a backoff after an
    // outage (up to 30 s) list or watch again now.
    onReached: (side) => {
      for (const i of Object.values(side === 'upstream' ? upInformers : downInformers)) i.retryNow();
    },
    observe: async () => {
      const started = { startedMs: Date.now() };
      observing.add(started);
      try {
        const pending = observe().then((o) => ({ o }));
        // A timer that fires far later than set means this process itself was stopped (SIGSTOP,
        // a paused VM, a long GC) and every due timer fires at once on resume, before the API's
        // answer is even read: the API had no time to answer. Wait once more before blaming it.
        for (let waits = 0; ; waits++) {
          const from = Date.now();
          const answered = await within(realClock, pending, observeTimeoutMs, () => undefined);
          if (answered) {
            lastObserveOk = true;
            return answered.o;
          }
          if (waits > 0 || Date.now() - from < 2 * observeTimeoutMs) throw new RequestError(`the management cluster's API did not answer within ${observeTimeoutMs / 1000}s`);
        }
      } catch (err) {
        lastObserveOk = false;
        lastObserveError = problemText(err);
        throw err;
      } finally {
        observing.delete(started);
      }
    },
  });

  /**
   * Says so (a warning in the log and a Warning Event `OtherControlCenter` on the ManagementCluster)
   * when the management cluster holds copies labelled with this cluster's name that another
   * control center's syncer made: two control centers serve this cluster under one name, and this
   * syncer leaves those copies alone. Once, when the caches have synced.
   */
  function reportOtherControlCenters(): void {
    const others = new Map<string, string[]>();
    for (const k of kinds) {
      for (const o of downInformers[k].lister.list()) {
        const other = o.metadata.labels?.[LabelSyncedBy] === cluster ? otherControlCenter(deps.controlCenter, o) : undefined;
        if (other && requested.has(other)) continue; // named in --take-over-from: TakeOver reports on it
        if (other) others.set(other, [...(others.get(other) ?? []), `${k} ${keyOf(o)}`]);
      }
    }
    for (const [other, copies] of others) {
      const advice = isControlCenterID(other)
        ? `two control centers must not serve one management cluster under one name (give it another name in one of them), or, if this control center replaces that one, start this syncer with ${TakeOverFromFlag} ${other}`
        : 'put back what was edited, or delete them there';
      const message = `this management cluster holds ${copies.length} copies labelled ${LabelSyncedBy}=${cluster} that ${copyMaker(other)} made (${firstFew(copies)}); this syncer leaves them alone: ${advice}`;
      log.warn({ controlCenter: other, copies: copies.length }, message);
      warnOnManagementCluster(ReasonOtherControlCenter, message);
    }
  }

  /** Records a Warning Event on this syncer's ManagementCluster (read first: the Event names its uid); a failure is logged. */
  function warnOnManagementCluster(reason: string, message: string): void {
    void upstream
      .get<KubeObject>(ManagementClusterResource, undefined, cluster)
      .then((mc) => recorder.event({ ...mc, apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster' }, 'Warning', reason, message))
      .catch((err: Error) => log.warn({ err: err.message, reason }, 'could not record an Event on the ManagementCluster'));
  }

  /**
   * With `--take-over-from`: a copy that carries a taken-over control center's ID and appears, or
   * gets that ID, after this syncer's caches synced shows that control center's syncer still runs
   * here (it made the copy again after this one deleted it). Taking over from it stops at once, so
   * the two do not delete each other's copies without end (each HostedCluster copy deleted tears a
   * control plane down): its copies are that control center's again, an error in the log and a
   * Warning Event `TakeOverStopped` on the ManagementCluster say so.
   */
  function watchTakenOver(): void {
    if (!requested.size) return;
    let replaying = true; // addEventHandler replays the cache as adds first
    const check = (kind: SyncKind, o: KubeObject, how: string) => {
      const other = stampedID(o);
      if (!replaying && other) takeOver.stop(other, `it ${how} ${kind} ${keyOf(o)}`);
    };
    for (const k of kinds) {
      downInformers[k].addEventHandler({
        onAdd: (o) => check(k, o, 'made'),
        onUpdate: (old, o) => stampedID(old) !== stampedID(o) && check(k, o, 'stamped'),
      });
    }
    replaying = false;
  }

  /** Control centers whose syncer was said to run here under this name (OtherControlCenter, once each). */
  const toldRunning = new Set<string>();
  let presenceProblem = '';
  const presenceRenewer = new PresenceRenewer(downstream);
  /** The error of the last failed list of presence Leases ('' after one that worked). */
  let presenceListProblem = '';
  /**
   * At each heartbeat: renews this syncer's presence Lease in the management cluster, reads the
   * others' (presence.ts), decides what `--take-over-from` takes over now (take-over.ts), and says
   * once per control center when another one's syncer runs here under this name. A failure is
   * logged (once per message) and leaves the take-over waiting; the heartbeat goes on.
   */
  async function observePresence(): Promise<void> {
    const nowMs = Date.now();
    const namespace = opts.presenceNamespace ?? SystemNamespace;
    try {
      await presenceRenewer.renew({ namespace, cluster, controlCenter: id!, holder, durationSeconds: leaseDurationSeconds, nowMs });
      presenceProblem = '';
    } catch (err) {
      const why = (err as Error).message;
      if (why !== presenceProblem) {
        // Without it, another control center's syncer with --take-over-from cannot tell this one runs.
        const message = presenceWriteProblem(namespace, err);
        log.warn({ controller: 'presence' }, message);
        warnOnManagementCluster(ReasonPresenceFailed, message);
      }
      presenceProblem = why;
    }
    let seen: Map<string, Presence> | undefined;
    try {
      seen = await presences(downstream, cluster);
      presenceListProblem = '';
    } catch (err) {
      // Said once per cause (a role without the cluster-wide list repeats it at every heartbeat), then at debug.
      const why = (err as Error).message;
      const message = isForbidden(err)
        ? "the presence Leases of the management cluster cannot be listed: the syncer's role there lacks list on leases.coordination.k8s.io in every namespace (deploy/syncer/rbac.yaml's read-only list rule grants it), so another control center's syncer serving this cluster under the same name goes unnoticed"
        : 'the presence Leases of the management cluster cannot be listed';
      log[why === presenceListProblem ? 'debug' : 'warn']({ err: why, controller: 'presence' }, message);
      presenceListProblem = why;
    }
    // Copies of a control center taken over from now on are this syncer's: look at each again.
    for (const taken of takeOver.observe(seen, nowMs, PresenceGraceDurations * leaseDurationSeconds * 1000)) {
      for (const k of kinds) for (const o of downInformers[k].lister.list()) if (stampedID(o) === taken) downsync.add(`${k}/${keyOf(o)}`);
    }
    for (const [other, p] of seen ?? []) {
      if (other === id || requested.has(other) || !takeOver.isLive(other, nowMs) || toldRunning.has(other)) continue;
      toldRunning.add(other);
      const message = `the syncer of another control center (ID ${other}) also serves this management cluster under the name ${cluster} (its Lease ${p.lease} is being renewed); each leaves the other's copies alone, but two control centers must not serve one management cluster under one name: give it another name in one of them`;
      log.warn({ controlCenter: other }, message);
      warnOnManagementCluster(ReasonOtherControlCenter, message);
    }
  }

  /** What a heartbeat reports about the management cluster; rejects when its API cannot be reached. */
  async function observe() {
    const nsList = await downstream.list(NamespaceResource, { limit: 1 });
    await observePresence();
    // The cluster's ID, as Karmada's: the kube-system namespace's uid (listed by name: the syncer
    // may list namespaces, not get them). Read until known; it never changes.
    if (!clusterID) {
      clusterID = await managementClusterID().catch(() => undefined);
      if (selfLoopStops(clusterID, deps.controlCenter?.id)) {
        stopSelf.abort();
        throw new Error(hooks.problem);
      }
    }
    const namespaces = (nsList.metadata.remainingItemCount ?? 0) + nsList.items.length;
    let supportedVersions: string[] = [];
    try {
      const cm = await downstream.get<KubeObject>(ConfigMapResource, opts.operatorNamespace ?? 'hypershift', 'supported-versions');
      const raw = (cm.data as Record<string, string> | undefined)?.['supported-versions'];
      if (raw) supportedVersions = (JSON.parse(raw) as { versions?: string[] }).versions ?? [];
    } catch {
      // No operator ConfigMap (yet): nothing to report.
    }
    const hcs = downInformers.HostedCluster.hasSynced() ? downInformers.HostedCluster.lister.list() : (await downstream.list<KubeObject>(HostedClusterResource, {})).items;
    // The copies this syncer made, apart from HostedClusters created in the cluster directly: the
    // scheduler counts its placements against these.
    const synced = hcs.filter((h) => isOwnCopy(cluster, deps.controlCenter, h)).length;
    return { namespaces, hostedClusters: hcs.length, syncedHostedClusters: synced, supportedVersions, ...(clusterID ? { clusterID } : {}) };
  }

  // The status Secrets this syncer copied up (labelled upsynced-from=<cluster>): one deleted or
  // edited in the control center is copied again at once (the owner HostedCluster's upsync key,
  // its Secrets due now), as HyperShift's operator restores the kubeconfig Secret it owns, instead
  // of at the next re-check (DefaultSecretRecheckMs, 5 minutes).
  const statusCopies = new Informer<KubeObject>({ client: upstream, ref: refs.Secret, labelSelector: `${LabelUpsyncedFrom}=${cluster}`, logger: log });
  const copyAgain = (secret: KubeObject, before?: KubeObject) => {
    // The owners it has and had: a copy whose ownerReference was removed is still its HostedCluster's to restore.
    for (const owner of [...(secret.metadata.ownerReferences ?? []), ...(before?.metadata.ownerReferences ?? [])]) {
      if (owner.kind !== 'HostedCluster') continue;
      // Not for a HostedCluster being deleted (a foreground delete removes its Secrets first) or gone.
      const hc = upInformers.HostedCluster.lister.get(`${secret.metadata.namespace ?? ''}/${owner.name}`);
      if (!hc || hc.metadata.uid !== owner.uid || hc.metadata.deletionTimestamp) continue;
      const key = `HostedCluster/${secret.metadata.namespace ?? ''}/${owner.name}`;
      // Due now: not forgotten, which would count as a first look after a start and wait.
      upsyncDeps.secretsCheckedAt.set(key, SecretsDueNow);
      upsync.add(key);
    }
  };
  // A re-check of a copy the cache shows as wanted needs no GET in the control center.
  upsyncDeps.getUpstreamSecretCopy = (ns, name) => statusCopies.lister.get(`${ns}/${name}`);
  // (A Secret's type cannot be updated: one replaced with another type comes as a delete.)
  statusCopies.addEventHandler({
    onUpdate: (o, n) => (!isDeepStrictEqual(o.data, n.data) || !isDeepStrictEqual(o.metadata.ownerReferences, n.metadata.ownerReferences)) && copyAgain(n, o),
    onDelete: (d) => copyAgain(deletedObject(d)),
  });

  const all = [...Object.values(upInformers), ...Object.values(downInformers), statusCopies];
  for (const i of all) i.start();
  setState('syncing caches');
  let started = false;
  try {
    await Promise.all([...all.map((i) => i.waitForSync(signal)), heartbeat]);
    // Stopped before it registered (or synced), waitForSync and the heartbeat resolve as on success:
    // a syncer that never registered must copy nothing (its cluster may not be its own).
    started = !signal.aborted;
  } catch (err) {
    if (!signal.aborted) log.error({ err }, 'syncer failed to start');
  }
  if (!started) {
    await Promise.all(all.map((i) => i.stop()));
    clearInterval(gauges);
    dropSeries();
    return;
  }
  setState('ready');
  log.info('syncer ready');
  reportOtherControlCenters();
  watchTakenOver();
  let crdTimer: NodeJS.Timeout | undefined;
  if (opts.pullCRDs) {
    // Every crdPullIntervalMs while the admin allows it (spec.pullCRDs); until then the
    // ManagementCluster is read again every heartbeat interval, so allowing it takes effect soon.
    let told = false;
    const pull = async () => {
      let nextMs = opts.crdPullIntervalMs ?? 300_000;
      try {
        if (await pullAllowed(upstream, cluster)) {
          told = false;
          await pullCRDsOnce({ cluster, upstream, downstream, log });
        } else {
          nextMs = heartbeatIntervalMs;
          if (!told) log.warn({ controller: 'crd-puller' }, pullNotAllowedMessage(cluster));
          told = true;
        }
      } catch (err) {
        log.warn({ err, controller: 'crd-puller' }, 'CRD pull failed');
      }
      if (!signal.aborted) crdTimer = setTimeout(() => void pull(), nextMs);
    };
    void pull();
  }
  const inUse = (ns: string) =>
    kinds.some(
      (k) =>
        upInformers[k].lister.byIndex(NamespaceIndex, ns).length > 0 ||
        downInformers[k].lister.byIndex(NamespaceIndex, ns).some((o) => o.metadata.labels?.[LabelSyncedBy] === cluster),
    );
  const keptNamespaces = new Map<string, KeptBy>();
  /** Why each namespace was last said to be kept (logged at info once per reason). */
  const keptNamespaceReasons = new Map<string, string>();
  const sweep = async () => (await sweepNamespaces({ cluster, controlCenter: deps.controlCenter, downstream, inUse, kept: keptNamespaces, keptReasons: keptNamespaceReasons, log })).forEach((n) => knownNamespaces.delete(n));
  const nsTimer = setInterval(() => {
    void sweep().catch((err) => log.warn({ err, controller: 'namespace-gc' }, 'namespace sweep failed'));
  }, opts.namespaceSweepIntervalMs ?? Math.max(5_000, 3 * (opts.heartbeatIntervalMs ?? 10_000)));
  hooks.leftovers = async () => {
    const copies = kinds.flatMap((k) => downInformers[k].lister.list().filter((o) => isOwnCopy(cluster, deps.controlCenter, o)).map((o) => `${k} ${keyOf(o)}`));
    if (copies.length) return `${copies.length} copies (${firstFew(copies)})`;
    await sweep();
    const nsList = await downstream.list<KubeObject>(NamespaceResource, { labelSelector: ours });
    const left = nsList.items.filter((n) => isOwnCopy(cluster, deps.controlCenter, n)).map((n) => n.metadata.name!).filter((n) => !keptNamespaces.has(n));
    return left.length ? `namespaces ${left.join(', ')}` : '';
  };
  const steps = downsyncSteps(deps);
  const workers = opts.workers ?? 16;
  try {
    await Promise.all([
      // After the control center was out of sight, nothing is copied down or reported up until
      // its ID is confirmed (another control center may answer at its address now).
      downsync.runWorkers(workers, async (key) => (await idGuard.settled(), reconcileDownsync(deps, steps, key)), { signal, logger: log, name: 'downsync' }),
      upsync.runWorkers(workers, async (key) => (await idGuard.settled(), reconcileUpsync(upsyncDeps, key)), { signal, logger: log, name: 'upsync', successLogLevel: 'debug' }),
    ]);
  } finally {
    clearInterval(gauges);
    dropSeries();
    clearTimeout(crdTimer);
    clearInterval(nsTimer);
    await Promise.all(all.map((i) => i.stop()));
  }
}

/**
 * How long a heartbeat waits for the management cluster's API to answer its observation (a list
 * of one namespace, a ConfigMap read), in milliseconds, when the heartbeat interval is shorter:
 * longer than a busy API server takes for so little, shorter than the 30 s request timeout.
 */
export const ObserveTimeoutMs = 5000;
