/**
 * Registers this syncer's ManagementCluster in the control center (creating it with the
 * configured platforms and capacity when absent), then every heartbeat interval renews the
 * Lease `hcc-system/<cluster>` and writes the cluster's status. A failed registration is retried
 * with backoff (the control center may not be up yet, or restarting), a failed heartbeat at the
 * next tick; the scheduler marks the cluster not Ready if heartbeats stop for longer than the
 * Lease duration the status announces (`status.leaseDurationSeconds`, or its own
 * `--heartbeat-grace` when that is longer). A ManagementCluster being deleted (`deletionTimestamp`)
 * gets heartbeats like any other until it is gone.
 *
 * The Lease is owned by the ManagementCluster (an ownerReference with its uid, as a kubelet's
 * Lease in kube-node-lease is owned by its Node), so the control center's garbage collector
 * deletes it with the cluster. A Lease without that reference (written by an older syncer) or
 * naming an earlier ManagementCluster of the same name gets it on the next renewal.
 * @see https://kubernetes.io/docs/concepts/architecture/leases/#node-heart-beats
 */
import type { Logger } from 'pino';
import { ConfigError, isAlreadyExists, isConflict, isForbidden, isNotFound, problemText, retryWithBackoff, type Clock, type RestClient } from '@hcc/client';
import {
  AnnotationClusterID,
  ConditionDuplicateCluster,
  ConditionReady,
  ControlCenterAPIVersion,
  duplicateOf,
  findCondition,
  siblingsOf,
  LeaseResource,
  ManagementClusterResource,
  ReasonManagementClusterReady,
  ReasonManagementClusterUnreachable,
  SystemNamespace,
  type KubeObject,
  type ManagementCluster,
  type OwnerReference,
} from '@hcc/crds';
import { heartbeatStatus, unreachableStatus, type Observation } from './heartbeat-status.js';

/**
 * Options of {@link register}, {@link beat} and {@link runHeartbeats}. `cluster` is the ManagementCluster name;
 * `upstream` the control center's client; `identity` the Lease's `holderIdentity`; `syncerVersion` goes to
 * `status.syncerVersion`; the loop and the registration retries end when `signal` aborts.
 */
export interface HeartbeatOptions {
  cluster: string;
  upstream: RestClient;
  /** Observes the management cluster (counts), fresh for each heartbeat. */
  observe(): Promise<Observation>;
  /** spec for a ManagementCluster created by this syncer. */
  initialSpec: ManagementCluster['spec'];
  /** Labels for a ManagementCluster created by this syncer. */
  labels?: Record<string, string>;
  /**
   * Which of `initialSpec.capacity`, `initialSpec.platforms` and `labels` the operator gave
   * explicitly (flags, a Helm value): when the ManagementCluster exists with other values, a
   * warning says they are not applied. Default none.
   */
  explicit?: readonly ExplicitSetting[];
  identity: string;
  syncerVersion: string;
  /** Between heartbeats, in milliseconds (default 10 000). */
  intervalMs: number;
  /**
   * Lease duration written to the Lease and announced in the ManagementCluster's
   * `status.leaseDurationSeconds`, in seconds (an integer ≥ 1).
   */
  leaseDurationSeconds: number;
  /** Where lines go; it names the cluster (runSyncer binds `cluster`). */
  logger: Logger;
  signal: AbortSignal;
  /** Timers of the registration retries (tests inject a fake). Default the real clock. */
  clock?: Clock;
  /**
   * Create the ManagementCluster when it is absent, at registration and when a heartbeat finds it
   * deleted (default true: a pull syncer registers its cluster, and again after a delete). A push
   * syncer passes false: it serves only clusters that exist, so it must not bring back one whose
   * deletion completed before its push controller stopped it.
   */
  createIfMissing?: boolean;
  /**
   * Records an Event on the ManagementCluster: a Normal `ManagementClusterReady` when a heartbeat
   * makes it Ready while it was not (or had no Ready condition yet; saying what it was), as a
   * kubelet records `NodeReady`; a Warning `ManagementClusterUnreachable` when a heartbeat first finds the
   * management cluster's API unreachable (the scheduler's not-Ready marks have their own).
   * Absent: no Events.
   */
  recordEvent?(mc: ManagementCluster, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** Asks for heartbeats sooner than the interval (see {@link HeartbeatTrigger}). */
  trigger?: HeartbeatTrigger;
  /**
   * Told after each heartbeat which side answered it: `'upstream'` once its status reached the
   * control center, `'downstream'` when the management cluster's API answered the observation.
   * The syncer then has that side's informers retry a failed list or watch at once instead of
   * waiting out their backoff (up to 30 s after an outage).
   */
  onReached?(side: 'upstream' | 'downstream'): void;
  /**
   * Told after each heartbeat the names of the other live ManagementClusters of this management
   * cluster (@hcc/crds siblingsOf: one cluster under several names), whose syncers keep their own
   * copies of shared Secrets and ConfigMaps here.
   */
  onSiblings?(names: string[]): void;
  /**
   * Called when, after this syncer has served, a heartbeat finds the Lease held by another
   * management cluster's syncer ({@link leaseConflict}): the syncer should stop serving, as a
   * controller that lost its leader election does.
   */
  onLeaseLost?(err: SyncerConflictError): void;
  /**
   * Told why registration or a heartbeat before the first successful one failed (the control
   * center refused the syncer, another syncer holds the Lease, ...), and `undefined` once the
   * first heartbeat succeeded: what `/readyz` says while the syncer cannot serve.
   */
  onProblem?(why: string | undefined): void;
  /**
   * Told after every heartbeat how it went, for readiness and metrics: `undefined` when its status
   * reached the control center, else the error (a 409 retried at once is not told).
   */
  onBeat?(err: unknown): void;
  /**
   * Told when a heartbeat finds the ManagementCluster gone and, with `createIfMissing` false (a
   * push syncer), leaves it gone: the syncer only tears down what it made there from then on.
   */
  onManagementClusterGone?(): void;
}

/** Shortest time between the starts of two heartbeats that a {@link HeartbeatTrigger} asks for, in milliseconds. */
export const MinTriggeredBeatSpacingMs = 1000;

/**
 * Asks the heartbeat loop for a heartbeat soon, instead of at the next interval: when the
 * management cluster has room again (one of its HostedClusters is gone), the scheduler learns it
 * from the next report, and waiting for the interval would leave a waiting HostedCluster out for
 * up to that long. Requests coalesce: one heartbeat at most every
 * {@link MinTriggeredBeatSpacingMs}, never two at once. Before the loop runs, requests do nothing.
 */
export class HeartbeatTrigger {
  #fn: (() => void) | undefined;
  /** Asks for a heartbeat soon. */
  request(): void {
    this.#fn?.();
  }
  /** Connects the loop (runHeartbeats). */
  connect(fn: () => void): void {
    this.#fn = fn;
  }
}

/** A registration setting an operator can give explicitly (see {@link HeartbeatOptions.explicit}). */
export type ExplicitSetting = 'capacity' | 'platforms' | 'labels';

/**
 * The explicitly given settings an existing ManagementCluster holds other values of, as
 * `{setting: {given, current}}` (labels: only given keys whose value differs or is missing).
 * Empty when they all agree.
 */
export function settingsNotApplied(mc: ManagementCluster, opts: Pick<HeartbeatOptions, 'initialSpec' | 'labels' | 'explicit'>): Record<string, { given: unknown; current: unknown }> {
  const out: Record<string, { given: unknown; current: unknown }> = {};
  const spec = (mc.spec ?? {}) as Record<string, unknown>;
  const given = (opts.initialSpec ?? {}) as Record<string, unknown>;
  for (const k of opts.explicit ?? []) {
    if (k === 'labels') {
      const current = mc.metadata.labels ?? {};
      const differs = Object.entries(opts.labels ?? {}).filter(([lk, lv]) => current[lk] !== lv);
      if (differs.length) out.labels = { given: Object.fromEntries(differs), current: Object.fromEntries(differs.map(([lk]) => [lk, current[lk] ?? null])) };
    } else if (given[k] !== undefined && JSON.stringify(given[k]) !== JSON.stringify(spec[k])) {
      // Absent is a value too: no capacity is unbounded, no platforms is all of them.
      out[k] = { given: given[k], current: spec[k] ?? null };
    }
  }
  return out;
}

/**
 * Creates the ManagementCluster if absent; fills in its `spec.mode` if it lacks one. An existing one keeps its
 * spec and labels (the control center's copy is the one to edit, as a Node's spec is the API's
 * after kubelet registered it); explicitly given settings it holds other values of are logged as
 * a warning, once per registration. An absent one is created unless `createIfMissing` is false.
 * @returns the ManagementCluster as stored
 * @throws ApiError from the control center (404 NotFound when it is absent and `createIfMissing` is false)
 */
export async function register(opts: HeartbeatOptions): Promise<ManagementCluster> {
  try {
    const mc = await opts.upstream.get<ManagementCluster>(ManagementClusterResource, undefined, opts.cluster);
    const notApplied = settingsNotApplied(mc, opts);
    if (Object.keys(notApplied).length) {
      opts.logger.warn(
        { controller: 'heartbeat', notApplied },
        `the ManagementCluster exists, so ${Object.keys(notApplied).map((k) => `--${k}`).join(', ')} ${Object.keys(notApplied).length > 1 ? 'are' : 'is'} not applied (they only fill what a new one lacks); change it in the control center: kubectl edit managementcluster ${opts.cluster}`,
      );
    }
    checkMode(opts, mc);
    // Only the syncer's mode is filled in; capacity and platforms stay as they are, absent
    // included (absent platforms means all of them: filling them in would narrow the cluster).
    const mode = opts.initialSpec?.mode;
    if (mode !== undefined && mc.spec?.mode === undefined) {
      return await opts.upstream.patch<ManagementCluster>(ManagementClusterResource, undefined, opts.cluster, { spec: { mode } }, 'merge');
    }
    return mc;
  } catch (err) {
    if (!isNotFound(err) || opts.createIfMissing === false) throw err;
  }
  try {
    return await opts.upstream.create<ManagementCluster>(ManagementClusterResource, undefined, {
      apiVersion: ControlCenterAPIVersion,
      kind: 'ManagementCluster',
      metadata: { name: opts.cluster, labels: opts.labels ?? {} },
      spec: opts.initialSpec ?? {},
    });
  } catch (err) {
    if (isAlreadyExists(err)) return register(opts);
    // A create of a cluster-scoped object answered 404: the server does not serve the kind at
    // all (a management cluster's or another cluster's kubeconfig given as the control center's).
    if (isNotFound(err)) {
      throw new ConfigError(
        `the server --kubeconfig points at does not serve ManagementClusters (${ControlCenterAPIVersion}): --kubeconfig must be the control center's kubeconfig; this looks like a management cluster's or another server's (${problemText(err)})`,
        { cause: err },
      );
    }
    throw err;
  }
}

const microTime = (d: Date) => d.toISOString().replace(/Z$/, '000Z');

/**
 * The ownerReferences a Lease of this ManagementCluster should carry: any others it has, and one
 * to `mc` (its uid), replacing one to an earlier ManagementCluster of the same name. Like the
 * kubelet's reference from its Lease to its Node: neither `controller` nor `blockOwnerDeletion`.
 * @param current - the Lease's ownerReferences (absent on a Lease an older syncer created)
 * @param mc - the ManagementCluster as read; without a uid, `current` is returned unchanged
 */
export function leaseOwnerReferences(current: OwnerReference[] | undefined, mc: ManagementCluster): OwnerReference[] | undefined {
  const uid = mc.metadata.uid;
  if (!uid || !mc.metadata.name) return current;
  const others = (current ?? []).filter((r) => !(r.apiVersion === ControlCenterAPIVersion && r.kind === 'ManagementCluster'));
  return [...others, { apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster', name: mc.metadata.name, uid }];
}

/**
 * Renews the syncer's Lease `hcc-system/<cluster>` (creates it when absent), owned by `mc`.
 * @param now - the renewTime (and acquireTime when this syncer takes the Lease over)
 * @throws ApiError when a write fails (409: a concurrent writer; the next heartbeat retries)
 */
async function renewLease(opts: HeartbeatOptions, mc: ManagementCluster, now: Date, clusterID: string | undefined): Promise<void> {
  const spec = { holderIdentity: opts.identity, leaseDurationSeconds: opts.leaseDurationSeconds, renewTime: microTime(now) };
  const annotations = clusterID ? { [AnnotationClusterID]: clusterID } : undefined;
  try {
    const lease = await opts.upstream.get<KubeObject & { spec?: Record<string, unknown> }>(LeaseResource, SystemNamespace, opts.cluster);
    const conflict = leaseConflict(lease, opts.identity, clusterID, now);
    if (conflict) throw new SyncerConflictError(conflict);
    const ownerReferences = leaseOwnerReferences(lease.metadata.ownerReferences, mc);
    const kept = { ...(lease.metadata.annotations ?? {}), ...(annotations ?? {}) };
    await opts.upstream.update(LeaseResource, SystemNamespace, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: opts.cluster,
        namespace: SystemNamespace,
        resourceVersion: lease.metadata.resourceVersion,
        ...(ownerReferences ? { ownerReferences } : {}),
        ...(Object.keys(kept).length ? { annotations: kept } : {}),
      },
      spec: { ...(lease.spec ?? {}), ...spec, ...(lease.spec?.holderIdentity !== opts.identity ? { acquireTime: microTime(now) } : {}) },
    });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const ownerReferences = leaseOwnerReferences(undefined, mc);
    await opts.upstream.create(LeaseResource, SystemNamespace, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: opts.cluster, namespace: SystemNamespace, ...(ownerReferences ? { ownerReferences } : {}), ...(annotations ? { annotations } : {}) },
      spec: { ...spec, acquireTime: microTime(now) },
    });
  }
}

/**
 * Another syncer serves the ManagementCluster (another cluster's holds its Lease, or it is in Push
 * mode and this is a pull syncer): this one must not serve it.
 */
export class SyncerConflictError extends Error {
  /** True for the first heartbeat of a conflict episode ({@link beat} sets it): the one to say loudly. */
  first = true;
}

/**
 * A pull syncer does not serve a ManagementCluster in Push mode: `hcc syncer --push` does, and two
 * would copy the same HostedClusters. (karmada-agent sets a Cluster's syncMode to Pull when it
 * registers it; here the mode is the operator's, so the pull syncer waits for it.)
 * @throws SyncerConflictError saying how to switch the cluster to Pull
 */
function checkMode(opts: HeartbeatOptions, mc: ManagementCluster): void {
  if (opts.initialSpec?.mode !== 'Pull' || mc.spec?.mode !== 'Push') return;
  throw new SyncerConflictError(
    `ManagementCluster ${opts.cluster} is in Push mode (spec.mode: Push): hcc syncer --push serves it, so this pull syncer serves nothing; to serve it from here: kubectl patch mc ${opts.cluster} --type=merge -p '{"spec":{"mode":"Pull","kubeconfigSecretRef":null}}'`,
  );
}

/**
 * Why this syncer must not take over the Lease, or undefined when it may: the Lease is held by
 * another syncer that serves another management cluster (its cluster ID annotation differs from
 * ours), live or not, as Karmada refuses a cluster whose ID does not match the registered one: a
 * ManagementCluster name stays with the cluster that first held it, so an outage longer than the
 * Lease never hands it to another cluster's syncer. Our ID not known yet (our management cluster
 * cannot be reached) is not a match. A syncer of the same cluster (a restart, a second replica)
 * takes over at once, and a Lease without a cluster ID (an older syncer) is taken. An admin moves
 * the name to another cluster by deleting the Lease.
 * @param clusterID - our management cluster's ID (its kube-system namespace uid), if known
 */
export function leaseConflict(lease: KubeObject & { spec?: Record<string, unknown> }, identity: string, clusterID: string | undefined, now: Date): string | undefined {
  const holder = lease.spec?.holderIdentity;
  const theirs = lease.metadata.annotations?.[AnnotationClusterID];
  if (typeof holder !== 'string' || !holder || holder === identity || !theirs || theirs === clusterID) return undefined;
  const renewed = Date.parse(String(lease.spec?.renewTime ?? ''));
  const ago = Number.isFinite(renewed) ? `renewed ${Math.max(0, Math.round((now.getTime() - renewed) / 1000))}s ago` : 'never renewed';
  const name = lease.metadata.name ?? '';
  return clusterID
    ? `the syncer ${holder} of another management cluster (cluster ID ${theirs}; this one is ${clusterID}) holds Lease ${SystemNamespace}/${name} (${ago}): two syncers have the same --name, and this one serves nothing; if the management cluster behind ${name} really changed (rebuilt, or the name moved), delete the Lease and clear the cluster ID: kubectl delete lease -n ${SystemNamespace} ${name}; kubectl patch managementcluster ${name} --subresource=status --type=merge -p '{"status":{"clusterID":null}}'`
    : `the syncer ${holder} of management cluster ${theirs} holds Lease ${SystemNamespace}/${name} (${ago}), and this syncer cannot reach its own management cluster to tell whether it is the same one; it waits until it can`;
}

/** The Warning Event reason of a Lease held by another cluster's syncer. */
export const ReasonSyncerConflict = 'SyncerConflict';
/** The Warning Event reason of a heartbeat whose status write the control center refused (403). */
export const ReasonHeartbeatRefused = 'HeartbeatRefused';
/** Heartbeat loops (by their options) whose last status write was refused. */
const refused = new WeakSet<HeartbeatOptions>();
/** Heartbeat loops (by their options) whose last heartbeat met a {@link SyncerConflictError}. */
const conflicted = new WeakSet<HeartbeatOptions>();

/**
 * One heartbeat: read the ManagementCluster (registering it again when it was deleted, or, with
 * `createIfMissing` false, leaving it gone and writing nothing), renew the Lease it owns, look for
 * a live ManagementCluster registered earlier for the same management cluster (its
 * `status.clusterID`; then this one gets `DuplicateCluster=True`, with a Warning Event and a warn
 * line when it becomes so), then write its status (with a resourceVersion precondition). When the management cluster cannot be
 * observed, the status says so (`Ready=False`, `ManagementClusterUnreachable`) and the heartbeat
 * still fails with that error.
 * @throws ApiError when a read or write fails (409 on a concurrent status write: retried soon); the
 *   observation's error when the management cluster could not be observed
 */
export async function beat(opts: HeartbeatOptions): Promise<void> {
  let obs: Observation | undefined;
  let unreachable: unknown;
  try {
    obs = await opts.observe();
  } catch (err) {
    unreachable = err;
  }
  // The heartbeat's time is when it reports, not when it began: an observation that waited for an
  // unanswering API must not arrive already older than the scheduler's grace.
  const now = new Date();
  const mc = await opts.upstream.get<ManagementCluster>(ManagementClusterResource, undefined, opts.cluster).catch(async (err) => {
    if (!isNotFound(err)) throw err;
    if (opts.createIfMissing === false) return undefined;
    return register(opts); // deleted centrally: register again
  });
  if (!mc) {
    opts.logger.debug({ controller: 'heartbeat' }, 'ManagementCluster gone; not registering it again');
    opts.onManagementClusterGone?.();
    return;
  }
  try {
    checkMode(opts, mc);
    await renewLease(opts, mc, now, obs?.clusterID);
  } catch (err) {
    if (err instanceof SyncerConflictError && !opts.signal.aborted) {
      // Once per episode: the Event and the error line repeat only after the conflict cleared.
      err.first = !conflicted.has(opts);
      if (err.first) opts.recordEvent?.(mc, 'Warning', ReasonSyncerConflict, err.message);
      conflicted.add(opts);
    }
    throw err;
  }
  conflicted.delete(opts);
  const duplicate = obs ? await sameCluster(opts, mc, obs.clusterID) : undefined;
  const status = obs
    ? heartbeatStatus(mc, obs, now, opts.syncerVersion, opts.leaseDurationSeconds, duplicate)
    : unreachableStatus(mc, unreachable instanceof Error ? unreachable.message : String(unreachable), now, opts.syncerVersion, opts.leaseDurationSeconds);
  try {
    await opts.upstream.patch(ManagementClusterResource, undefined, opts.cluster, { metadata: { resourceVersion: mc.metadata.resourceVersion }, status }, 'merge', {
      subresource: 'status',
    });
  } catch (err) {
    // Refused (the cluster ID it reports is not this name's to report, say): the ManagementCluster
    // would only read HeartbeatExpired, so a Warning Event says why, once per episode.
    if (isForbidden(err) && !refused.has(opts)) {
      refused.add(opts);
      opts.recordEvent?.(mc, 'Warning', ReasonHeartbeatRefused, `The control center refuses the heartbeat of ${opts.cluster}'s syncer: ${err instanceof Error ? err.message : String(err)}`);
    }
    throw err;
  }
  refused.delete(opts);
  opts.onReached?.('upstream');
  if (obs) opts.onReached?.('downstream');
  const was = findCondition(mc.status?.conditions, ConditionReady);
  if (!obs && was?.reason !== ReasonManagementClusterUnreachable) {
    const cond = findCondition(status.conditions, ConditionReady);
    opts.recordEvent?.(mc, 'Warning', ReasonManagementClusterUnreachable, `Management cluster ${opts.cluster} is not Ready: ${cond?.message ?? ''}`);
  }
  if (duplicate && findCondition(mc.status?.conditions, ConditionDuplicateCluster)?.status !== 'True') {
    const message = findCondition(status.conditions, ConditionDuplicateCluster)?.message ?? '';
    opts.logger.warn({ controller: 'heartbeat', duplicateOf: duplicate, clusterID: obs?.clusterID }, message);
    opts.recordEvent?.(mc, 'Warning', ConditionDuplicateCluster, message);
  }
  if (obs && was?.status !== 'True') {
    // No times in the message: a cluster that flaps folds into one Event (its count).
    const before = was ? ` again (was ${was.status}${was.reason ? `, ${was.reason}` : ''})` : '';
    opts.recordEvent?.(mc, 'Normal', ReasonManagementClusterReady, `Management cluster ${opts.cluster} is Ready${before}: its syncer reaches it and reports`);
  }
  // Said on the ManagementCluster; still a failed heartbeat for the log and the first-heartbeat wait.
  if (!obs) throw unreachable;
}

/**
 * The name of the ManagementCluster registered before `mc` for the same management cluster
 * (@hcc/crds duplicateOf: a live one whose `status.clusterID` is `clusterID`), read from a LIST of
 * the fleet; `undefined` when there is none, the ID is unknown, or the LIST fails (logged at
 * debug: the scheduler applies the same rule to its own view, so nothing is placed twice then
 * either). Tells `onSiblings` the names of every other live ManagementCluster of this management
 * cluster (none when the ID is unknown or the LIST fails).
 */
async function sameCluster(opts: HeartbeatOptions, mc: ManagementCluster, clusterID: string | undefined): Promise<string | undefined> {
  if (!clusterID) {
    opts.onSiblings?.([]);
    return undefined;
  }
  try {
    const fleet = (await opts.upstream.list<ManagementCluster>(ManagementClusterResource)).items;
    opts.onSiblings?.(siblingsOf(mc, clusterID, fleet));
    return duplicateOf(mc, clusterID, fleet)?.metadata.name;
  } catch (err) {
    opts.logger.debug({ err, controller: 'heartbeat' }, 'listing ManagementClusters to check for this cluster under another name failed');
    opts.onSiblings?.([]);
    return undefined;
  }
}

/**
 * {@link register}, retried until it succeeds or the signal aborts, after 200 ms doubling up to
 * 30 s (with jitter), as a reflector retries its list: a control center that is not up yet, is
 * restarting or refuses the syncer's identity gets a warn line per attempt, not a syncer that
 * gives up. Resolves false when the signal aborted first.
 */
export async function registerWithRetries(opts: HeartbeatOptions): Promise<boolean> {
  const done = await retryWithBackoff(() => register(opts).then(() => true as const), {
    signal: opts.signal,
    clock: opts.clock,
    onError: (err, retryInMs) => {
      // A refusal (another syncer serves the name, or Push mode) is expected and says all in its
      // message: no stack trace.
      const said = err instanceof SyncerConflictError ? { refusal: err.message } : { err };
      opts.logger.warn({ ...said, controller: 'heartbeat', retryInMs }, 'registering the ManagementCluster failed; retrying');
      opts.onProblem?.(`registering the ManagementCluster failed (retrying): ${problemText(err)}`);
    },
  });
  return done === true;
}

/** Runs heartbeats until the signal aborts. Resolves after the first successful heartbeat (or the abort). */
export async function runHeartbeats(opts: HeartbeatOptions): Promise<void> {
  if (!(await registerWithRetries(opts))) return;
  let first = true;
  let resolveFirst!: () => void;
  const firstDone = new Promise<void>((r) => (resolveFirst = r));
  // One heartbeat at a time: one asked for while another runs follows it (see HeartbeatTrigger).
  let running = false;
  let again = false;
  let lastStartMs = -Infinity;
  let soon: ReturnType<typeof setTimeout> | undefined;
  // Whether the last heartbeat's refusal (403) was logged at warn already.
  let refusalSaid = false;
  const tick = async () => {
    if (opts.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    lastStartMs = Date.now();
    try {
      await beat(opts);
      opts.onBeat?.(undefined);
      if (first) {
        first = false;
        opts.onProblem?.(undefined);
        resolveFirst();
      }
      refusalSaid = false;
      opts.logger.debug({ controller: 'heartbeat' }, 'heartbeat');
    } catch (err) {
      if (!isConflict(err)) opts.onBeat?.(err);
      if (isConflict(err)) setTimeout(() => void tick(), 100);
      else if (err instanceof SyncerConflictError) {
        // Once per episode at error level (every heartbeat would repeat it), then at debug.
        opts.logger[err.first ? 'error' : 'debug']({ controller: 'heartbeat' }, err.message);
        if (first) opts.onProblem?.(err.message);
        // Serving already: another cluster's syncer took the Lease while ours had expired (we were
        // cut off for longer than its duration). Two must not serve one ManagementCluster.
        if (!first) opts.onLeaseLost?.(err);
      } else {
        // A refusal (403) repeats at every heartbeat until an admin acts: said once per episode
        // at warn (with the Event beat records), then at debug.
        const repeated = isForbidden(err) && refusalSaid;
        refusalSaid = isForbidden(err);
        opts.logger[repeated ? 'debug' : 'warn']({ err, controller: 'heartbeat' }, 'heartbeat failed');
        if (first) opts.onProblem?.(`heartbeat failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    } finally {
      running = false;
      if (again) {
        again = false;
        beatSoon();
      }
    }
  };
  const beatSoon = () => {
    if (soon || opts.signal.aborted) return;
    soon = setTimeout(() => {
      soon = undefined;
      void tick();
    }, Math.max(0, lastStartMs + MinTriggeredBeatSpacingMs - Date.now()));
  };
  opts.trigger?.connect(beatSoon);
  const timer = setInterval(() => void tick(), opts.intervalMs);
  opts.signal.addEventListener('abort', () => {
    clearInterval(timer);
    if (soon) clearTimeout(soon);
    resolveFirst();
  });
  await tick();
  await firstDone;
}
