/**
 * The Store for several control-center replicas: objects live in etcd (v3 API, via the `etcd3`
 * client), one key per object under a prefix (default `/hcc`), and each replica serves reads and
 * watches from an in-memory mirror kept current by one etcd watch (watch-cache.ts). This is
 * kube-apiserver's design: the etcd3 store for writes (k8s.io/apiserver/pkg/storage/etcd3/store.go)
 * and the cacher for reads and watches (k8s.io/apiserver/pkg/storage/cacher).
 *
 * Guaranteed (see store.ts):
 * - `resourceVersion` is the etcd `mod_revision`, so revisions are global across replicas; the
 *   value in etcd carries no resourceVersion (codec.ts).
 * - `transact` is linearizable per key across all replicas: an optimistic etcd transaction
 *   (compare `mod_revision`, then put or delete; on a failed compare the same round trip returns the
 *   current value and `fn` runs again). `fn` starts from the mirror's copy as a guess; a guess is
 *   never trusted for a result that writes nothing (`none`, a delete of nothing, or a thrown
 *   error): that is confirmed by a fresh read first, as GuaranteedUpdate does. Writes to one key
 *   through one replica are queued, so they never conflict with each other.
 * - A write resolves after etcd committed it (etcd fsyncs its raft log before answering) and after
 *   this replica's mirror, `get`/`list` and watchers have seen its revision.
 * - Watch events come in revision order with no gaps. When the etcd watch breaks, it resumes from
 *   the last revision seen. When etcd compacted past that revision, the store lists everything
 *   again and publishes the difference as events (changes at their `mod_revision`, deletions at
 *   the list's revision, an object deleted and created again as a DELETED then an ADDED), so
 *   watchers see the final state without a gap.
 * - A read that must be the most recent (`syncToLatest`, for a GET or LIST without
 *   resourceVersion) fails (503) when etcd does not answer, and otherwise, with an etcd that
 *   sends progress notifications in order (3.4.31+, 3.5.13+, 3.6+), sees every write committed
 *   before it by any replica: etcd's current revision, then progress notifications until the
 *   mirror has it (kube-apiserver's consistent reads from cache). With an older etcd it waits
 *   briefly for the watch to reach that revision, then reads what the prefix holds (its highest
 *   mod_revision and its count of keys) and waits until the mirror holds the same (504 when it
 *   does not within freshnessTimeoutMs): WatchCache.waitUntilFresh. A GET (`syncToLatest(key)`)
 *   reads its key's mod_revision with etcd's revision and waits only until the mirror's copy of
 *   that key is etcd's, with any etcd version: WatchCache.waitForRevisionWithProgress.
 *
 * Not guaranteed:
 * - Reads at resourceVersion "0" (any) are as fresh as this replica's watch, as the cache's are.
 * - Watch history starts when the replica opened: a watch from an older revision (e.g. a
 *   resourceVersion another replica returned earlier) gets RevisionCompactedError → 410.
 * - A transaction whose answer was lost (etcd unreachable mid-call) may or may not have applied;
 *   the caller gets 503 and is not retried here.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/etcd3/store.go
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/cacher/cacher.go
 */
import { Etcd3, isRecoverableError, type IKeyValue, type IOptions } from 'etcd3';
import { circuitBreaker, ConsecutiveBreaker, handleWhen } from 'cockatiel';
import pino, { type Logger } from 'pino';
import type { KubeObject } from '@hcc/crds';
import * as apierrors from '../../apierrors/status.js';
import { RevisionCompactedError, type CorruptValue, type Store, type StoredObject, type StoreEvent, type StoreWatch, type TransactOptions, type TransactResult } from '../store.js';
import { decodeKeyValue, encodeObject, KeySpace } from './codec.js';
import { WatchCache, withResourceVersion, type PrefixSummary } from './watch-cache.js';
import { etcdErrorMessage } from './error-message.js';

/** Options of {@link EtcdStore}. */
export interface EtcdStoreOptions {
  /** etcd client URLs, e.g. `http://127.0.0.1:2379` (https needs `tls`). */
  endpoints: string[];
  /** Key prefix of every object, e.g. `/hcc` (default). Replicas sharing state use the same one. */
  prefix?: string;
  /** TLS for https endpoints: CA bundle, and a client certificate and key when etcd asks for one (PEM). */
  tls?: { ca: Buffer; cert?: Buffer; key?: Buffer };
  /** How many events a watch can resume from (a count). Default 100,000. */
  historyCapacity?: number;
  /** Most JSON the watch history's events may hold together (string length). Default 64 MiB. */
  historyBytes?: number;
  /**
   * Failed compares (another replica wrote the key first) retried before giving up with 409.
   * Default 100: a key hammered through two replicas at once can lose many rounds in a row
   * (kube-apiserver's GuaranteedUpdate retries without bound).
   */
  maxConflictRetries?: number;
  /** Deadline of each etcd request, in milliseconds. Default 10,000. */
  requestTimeoutMs?: number;
  /** How long a committed write waits for the mirror to show it, in milliseconds. Default 30,000. */
  cacheWaitTimeoutMs?: number;
  /**
   * How long the watch may stay silent while a change etcd has waits to be shown, in
   * milliseconds, before it is re-created (a stuck member). Default 2,000 ({@link WatchStallMs}).
   */
  watchStallMs?: number;
  /** How long `open` keeps trying to reach etcd, in milliseconds. Default 30,000. */
  openTimeoutMs?: number;
  /**
   * How long a read that must be the most recent (no resourceVersion: {@link EtcdStore.syncToLatest})
   * and the health check wait for etcd, in milliseconds. Default 3,000 (kube-apiserver's wait
   * for a fresh cache; its etcd health check times out after 2 s).
   */
  freshnessTimeoutMs?: number;
  /**
   * Whether to ask etcd for progress notifications (WatchProgressRequest) to confirm the mirror is
   * current. Default: when etcd's version sends them in order with the events
   * ({@link supportsRequestProgress}); older ones can send one ahead of events still queued, and
   * trusting it would skip those events for good.
   */
  requestProgress?: boolean;
  /**
   * Called once when the store fails for good: etcd's revision went below what this replica has
   * seen (etcd restored from an older snapshot without `etcdutl snapshot restore --bump-revision
   * --mark-compacted`). From then on writes are refused and checkHealth reports it; the process
   * should exit so that a restart lists etcd again.
   */
  onFailure?: (err: unknown) => void;
  logger?: Logger;
}

/**
 * Whether an etcd server version sends requested progress notifications in order with the watch
 * events: 3.4.31+, 3.5.13+ and 3.6+, the versions kube-apiserver requires before it uses them
 * (etcd-io/etcd#15220: before the fix a requested notification could overtake queued events).
 * @param version - etcd's `version` from its status, e.g. `3.5.13`
 * @see https://github.com/etcd-io/etcd/pull/15237
 */
export function supportsRequestProgress(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

type Policy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/** How long, in milliseconds, a failed etcd call may be tried again after its first failure ({@link EtcdStore}'s call): 2 s. */
const CallRetryMs = 2_000;

/** The least time, in milliseconds, left before a most-recent read's deadline for another try: 250 ms. */
const MinRetryWindowMs = 250;

/**
 * Whether a failed etcd call provably never reached etcd, so that a write can be sent again
 * without being applied twice: gRPC had no connection to the member it picked (`No connection
 * established`), closed the channel while the call waited for one (`Channel closed before call
 * started`: the client drops the channel to a failing member), or its deadline passed while it
 * still waited for a connection (`Waiting for LB pick`); or the client's circuit breaker refused
 * it without sending (a member that failed three calls in a row, for 0.5 s). etcd's Go client
 * retries mutating calls under the same rule (its isSafeRetryMutableRPC).
 */
export function neverSent(err: unknown): boolean {
  if ((err as { isBrokenCircuitError?: boolean } | undefined)?.isBrokenCircuitError) return true;
  return /No connection established|Channel closed before call started|Waiting for LB pick/.test(errorMessage(err));
}

/**
 * A fault-handling policy that runs each call once. The client's default retries "recoverable"
 * errors, which would resend a transaction whose first attempt may have applied; EtcdStore
 * retries reads itself and never resends a write.
 */
const neverAborted = new AbortController().signal; // one for all calls: a fresh AbortController per call costs measurable CPU
const runOnce = {
  execute: async <T>(fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T) => fn({ signal: neverAborted }),
  onSuccess: () => ({ dispose: () => {} }),
  onFailure: () => ({ dispose: () => {} }),
} as unknown as Policy;

/**
 * The per-member policy: the client's default circuit breaker (3 consecutive connection failures
 * open it) that lets a call through again after 500 ms instead of 5 s, so a restarted etcd is used
 * within a second of coming back, while a dead member among several is still skipped at once.
 */
const hostBreaker = () => circuitBreaker(handleWhen(isRecoverableError), { halfOpenAfter: 500, breaker: new ConsecutiveBreaker(3) });

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const errorMessage = etcdErrorMessage;

/** Group/resource and name of a store key `/group/resource/[namespace/]name`, for Status messages. */
function describeKey(key: string): { gr: apierrors.GroupResource; name: string } {
  const [group = '', resource = '', ...rest] = key.split('/').slice(1);
  return { gr: { group: group === 'core' ? '' : group, resource }, name: rest[rest.length - 1] ?? key };
}

/**
 * A Store kept in etcd under one key prefix and served from an in-memory mirror; see the module
 * comment for what it guarantees. Several instances (one per control-center replica) on the same
 * endpoints and prefix share one linearizable history.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/etcd3/store.go
 */
export class EtcdStore implements Store {
  private readonly keys: KeySpace;
  private readonly log: Logger;
  private readonly maxConflictRetries: number;
  private readonly requestTimeoutMs: number;
  private readonly cacheWaitTimeoutMs: number;
  private readonly openTimeoutMs: number;
  private readonly freshnessTimeoutMs: number;
  private client!: Etcd3;
  private cache!: WatchCache;
  /** Tail of the queue of transactions per key on this replica. */
  private readonly keyQueues = new Map<string, Promise<unknown>>();
  private readonly inflight = new Set<Promise<unknown>>();
  private closed = false;
  /** Most-recent reads begun so far (syncToLatest calls: a count that numbers them). */
  private freshReads = 0;
  /** The last prefix summary sent for most-recent reads, and how many had begun when it was sent. */
  private lastSummary: { readsBegun: number; summary: Promise<PrefixSummary> } | undefined;
  /** Why the store failed for good (etcd's revision went backwards), or undefined. */
  private failed: Error | undefined;

  constructor(private readonly opts: EtcdStoreOptions) {
    if (opts.endpoints.length === 0) throw new Error('EtcdStore needs at least one etcd endpoint');
    if (!opts.tls && opts.endpoints.some((e) => e.startsWith('https://'))) throw new Error('https etcd endpoints need the tls option (CA bundle)');
    this.keys = new KeySpace(opts.prefix ?? '/hcc');
    this.log = opts.logger ?? pino({ name: 'etcd-store' });
    this.maxConflictRetries = opts.maxConflictRetries ?? 100;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.cacheWaitTimeoutMs = opts.cacheWaitTimeoutMs ?? 30_000;
    this.openTimeoutMs = opts.openTimeoutMs ?? 30_000;
    this.freshnessTimeoutMs = opts.freshnessTimeoutMs ?? 3_000;
  }

  /**
   * Connects, lists everything under the prefix into the mirror and starts the watch from the
   * list's revision + 1. Retries an unreachable etcd for `openTimeoutMs`.
   * @throws Error when etcd cannot be reached in time
   */
  async open(): Promise<void> {
    this.client = new Etcd3({
      hosts: this.opts.endpoints,
      ...(this.opts.tls ? { credentials: { rootCertificate: this.opts.tls.ca, certChain: this.opts.tls.cert, privateKey: this.opts.tls.key } } : {}),
      faultHandling: { global: runOnce, host: hostBreaker },
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + this.requestTimeoutMs }),
      grpcOptions: {
        'grpc.max_receive_message_length': 256 * 1024 * 1024,
        // Notice a dead etcd connection (and so a silent watch) within ~40 s, like kube-apiserver.
        'grpc.keepalive_time_ms': 30_000,
        'grpc.keepalive_timeout_ms': 10_000,
        'grpc.initial_reconnect_backoff_ms': 100,
        'grpc.max_reconnect_backoff_ms': 5_000,
      },
    });
    this.cache = new WatchCache({
      client: this.client,
      keys: this.keys,
      log: this.log,
      historyCapacity: this.opts.historyCapacity ?? 100_000,
      historyBytes: this.opts.historyBytes,
      listAll: () => this.rangeAll(),
      onRevisionRegression: (mirror, etcd) => void this.checkRegression(mirror, etcd),
      stallMs: this.opts.watchStallMs,
    });
    const deadline = Date.now() + this.openTimeoutMs;
    try {
      const { kvs, revision } = await this.retryUntil(deadline, () => this.rangeAll());
      let progress = this.opts.requestProgress;
      if (progress === undefined) {
        const { version } = await this.retryUntil(deadline, () => this.client.maintenance.status());
        progress = supportsRequestProgress(version);
        if (!progress) this.log.info({ etcdVersion: version }, 'etcd sends progress notifications out of order before 3.4.31/3.5.13: most-recent reads wait briefly for the watch instead');
      }
      this.cache.setProgressRequests(progress);
      await this.cache.start(kvs, revision, deadline);
    } catch (err) {
      this.closed = true;
      this.cache.stop();
      this.client.close();
      throw new Error(`etcd at ${this.opts.endpoints.join(',')} is unreachable: ${errorMessage(err)}`, { cause: err });
    }
    this.log.info({ endpoints: this.opts.endpoints, prefix: this.keys.prefix, revision: this.cache.currentRevision(), objects: this.cache.size() }, 'etcd store open');
  }

  /**
   * A re-created watch said etcd is at `etcd`, below the mirror's `mirror`: confirmed with a
   * linearizable read (a member that lags answers a little behind, and catches up), the store
   * fails for good, since every write etcd takes until its revision passes `mirror` would be
   * missed by the watch and unseen by reads here.
   */
  private async checkRegression(mirror: number, etcd: number): Promise<void> {
    let latest: number;
    try {
      latest = await this.latestRevision();
    } catch {
      return; // unconfirmed (etcd unreachable again): the next watch checks anew
    }
    this.log.debug({ mirror, etcd, latest }, 'etcd revision below the mirror on a new watch');
    if (latest >= mirror || this.failed || this.closed) return;
    this.failRegressed(mirror, latest);
  }

  /**
   * Fails the store for good: etcd's revision `etcd` is below `mirror`, which this replica saw.
   * Stops the watch and calls `onFailure` (once).
   * @returns the 503 every later transaction answers
   */
  private failRegressed(mirror: number, etcd: number): apierrors.StatusError {
    if (!this.failed) {
      this.failed = new Error(
        `etcd's revision went backwards from ${mirror} (seen by this control center) to ${etcd}: etcd lost its data or was restored from an older snapshot without \`etcdutl snapshot restore --bump-revision --mark-compacted\`; restart every control center so that each lists etcd again`,
      );
      this.log.error({ mirrorRevision: mirror, etcdRevision: etcd }, this.failed.message);
      if (!this.closed) this.cache.stop();
      this.opts.onFailure?.(this.failed);
    }
    return apierrors.serviceUnavailable(`storage (etcd) failed: ${this.failed.message}`);
  }

  /** Waits for transactions in flight (each bounded by the cache wait), then stops the watch and disconnects. */
  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.allSettled([...this.inflight]);
    this.closed = true;
    this.cache.stop();
    this.client.close();
  }

  currentRevision(): number {
    return this.cache.currentRevision();
  }

  oldestWatchableRevision(): number {
    return this.cache.oldestWatchableRevision();
  }

  /** Number of live watchers (for metrics). */
  watcherCount(): number {
    return this.cache.watcherCount();
  }

  /** Counters for tests and metrics: full re-lists after compaction, and watch reconnects. */
  stats(): { relists: number; watchRestarts: number } {
    return this.cache.stats();
  }

  get(key: string): StoredObject | undefined {
    return this.cache.get(key);
  }

  list(prefix: string): { items: StoredObject[]; revision: number } {
    return this.cache.list(prefix);
  }

  count(prefix: string): number {
    return this.cache.count(prefix);
  }

  /**
   * A consistent read from the mirror, as kube-apiserver's (ConsistentListFromCache): asks etcd
   * for its current revision (one linearizable range of one key), then waits until the mirror has
   * reached it (WatchCache.waitUntilFresh: with progress notifications where etcd sends them in
   * order). With `key` (a GET), the range is of that key and the wait ends as soon as the mirror's
   * copy of it is etcd's (WatchCache.waitForRevisionWithProgress with the key). A replica cut off from etcd therefore
   * answers a most-recent read with an error, never with what it last saw.
   * @param key - the store key a GET reads, when only it must be current
   * @throws StatusError 503 when etcd does not answer within freshnessTimeoutMs, 504 when the watch
   *   has not caught up by then
   */
  async syncToLatest(key?: string): Promise<void> {
    if (this.closed) throw apierrors.serviceUnavailable('storage (etcd) closed');
    if (this.failed) throw apierrors.serviceUnavailable(`storage (etcd) failed: ${this.failed.message}`);
    if (key !== undefined) {
      // One key: etcd's revision and that key's mod_revision in one linearizable range (keys only).
      const res = await this.freshnessRead(Date.now() + this.freshnessTimeoutMs, (deadline) => this.client.kv.range({ key: this.keys.etcdKey(key), keys_only: true }, { deadline }));
      const modRevision = res.kvs.length ? Number(res.kvs[0]!.mod_revision) : 0;
      return this.cache.waitForRevisionWithProgress(Number(res.header.revision), this.freshnessTimeoutMs, { key, modRevision });
    }
    const ticket = ++this.freshReads;
    const latest = await this.latestRevision();
    await this.cache.waitUntilFresh(latest, this.freshnessTimeoutMs, (deadline) => this.sharedPrefixSummary(ticket, deadline));
  }

  /**
   * {@link prefixSummary}, shared by the reads that need one: the read numbered `ticket` takes the
   * latest one sent (in flight or answered) when it was sent after that read began (etcd's answer
   * then reflects every write acknowledged before it began), else sends a new one. Bounds the
   * ranges of the whole prefix a burst of reads on a lagging replica makes to about one per
   * burst. A summary that failed is not handed on.
   */
  private sharedPrefixSummary(ticket: number, deadline: number): Promise<PrefixSummary> {
    const last = this.lastSummary;
    if (last && last.readsBegun >= ticket) return last.summary;
    const summary = this.prefixSummary(deadline);
    const entry = { readsBegun: this.freshReads, summary };
    this.lastSummary = entry;
    summary.catch(() => {
      if (this.lastSummary === entry) this.lastSummary = undefined;
    });
    return summary;
  }

  /**
   * The objects under prefix as they were at `revision`, read from etcd's MVCC in ranges of 1,000
   * keys at that revision: what a continue token or a `resourceVersionMatch=Exact` list from before
   * this replica started asks for (kube-apiserver's etcd3 store serves both from etcd, so they
   * work on any replica until etcd compacts the revision). A value that is no object is left out,
   * as `list` leaves it out.
   * @param fromKey - only keys at or after this one (a store key under prefix: a chunked list's next page)
   * @returns the objects sorted by key, and `revision`
   * @throws RevisionCompactedError when etcd compacted past revision; StatusError 503 when etcd
   *   does not answer within freshnessTimeoutMs
   */
  async listAtRevision(prefix: string, revision: number, fromKey?: string): Promise<{ items: StoredObject[]; revision: number }> {
    if (this.closed) throw apierrors.serviceUnavailable('storage (etcd) closed');
    const first = this.keys.etcdKey(prefix);
    // Store prefixes end with '/': the range ends just after every key that begins with it.
    const end = Buffer.from(first);
    end[end.length - 1]! += 1;
    const start = fromKey !== undefined && fromKey > prefix ? this.keys.etcdKey(fromKey) : first;
    let kvs: IKeyValue[];
    try {
      ({ kvs } = await this.rangePages(start, end, revision, Date.now() + this.freshnessTimeoutMs));
    } catch (err) {
      const why = errorMessage(err);
      if (/required revision has been compacted/.test(why)) throw new RevisionCompactedError(revision, this.oldestWatchableRevision());
      throw apierrors.serviceUnavailable(`storage (etcd) unavailable: ${why}`);
    }
    const items: StoredObject[] = [];
    for (const kv of kvs) {
      try {
        items.push(decodeKeyValue(this.keys, kv));
      } catch {
        // No JSON object (something else wrote it): left out, as list leaves it out.
      }
    }
    items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { items, revision };
  }

  /** @see WatchCache.requestProgress */
  requestProgress(): void {
    if (!this.closed) this.cache.requestProgress();
  }

  /**
   * etcd's health as this replica sees it, for /readyz: '' when a read of one key answers within
   * freshnessTimeoutMs and the watch is up, else why not (kube-apiserver's `etcd` check).
   */
  async checkHealth(): Promise<string> {
    if (this.closed) return 'etcd store closed';
    if (this.failed) return this.failed.message;
    try {
      await this.latestRevision();
    } catch (err) {
      return errorMessage(err);
    }
    return this.cache.isWatching() ? '' : 'the watch of etcd is reconnecting';
  }

  /**
   * etcd's current revision: the header of a linearizable range of one key, within a deadline of
   * freshnessTimeoutMs. A call refused by one endpoint (down, of several) is tried again up to
   * twice within that deadline, as the client then picks another: one dead member of three must
   * not fail reads or /readyz.
   * @throws StatusError 503 when etcd does not answer
   */
  private async latestRevision(): Promise<number> {
    const res = await this.freshnessRead(Date.now() + this.freshnessTimeoutMs, (deadline) => this.client.kv.range({ key: this.keys.rangeStart, count_only: true }, { deadline }));
    return Number(res.header.revision);
  }

  /**
   * What etcd holds under the prefix now (WatchCache's PrefixSummary): one linearizable range of
   * the whole prefix, keys only, sorted by mod_revision descending with limit 1, whose `count` is
   * every key in the range. etcd reads the whole range to sort it, so this is for the rare case of
   * a most-recent read the watch has not confirmed within its grace (older etcd).
   * @param deadline - epoch milliseconds
   * @throws StatusError 503 when etcd does not answer by the deadline
   */
  private async prefixSummary(deadline: number): Promise<PrefixSummary> {
    const res = await this.freshnessRead(deadline, (d) =>
      this.client.kv.range({ key: this.keys.rangeStart, range_end: this.keys.rangeEnd, sort_order: 'Descend', sort_target: 'Mod', limit: 1, keys_only: true }, { deadline: d }),
    );
    return { revision: Number(res.header.revision), maxModRevision: res.kvs.length ? Number(res.kvs[0]!.mod_revision) : 0, count: Number(res.count) };
  }

  /**
   * Runs a read for a freshness check, trying again (with backoff: 50, 100, 200, 400 ms…) a call
   * refused by one endpoint (down, of several) or failed during a leader election, until the
   * deadline (epoch ms), as the client then picks another member.
   * @throws StatusError 503 when etcd does not answer
   */
  private freshnessRead<T>(deadline: number, read: (deadline: number) => Promise<T>): Promise<T> {
    return this.retried(
      'etcd read for a most-recent answer',
      {},
      () => read(deadline),
      // Another try only with time for it (a call given a few milliseconds fails on its deadline
      // at any member, and its message would hide why the first one failed).
      (err, delay) => (isRecoverableError(err as Error) || neverSent(err)) && deadline - Date.now() - delay >= MinRetryWindowMs,
      (err, first, tries) => {
        const why = err === first ? errorMessage(err) : `${errorMessage(first)} (then, after ${tries - 1} more ${tries === 2 ? 'try' : 'tries'}: ${errorMessage(err)})`;
        return apierrors.serviceUnavailable(`storage (etcd) unavailable: ${why}; this server cannot confirm its copy is current`);
      },
    );
  }

  /**
   * Runs `fn`, and again after 50, 100, 200, 400, 500, 500… ms (logged at info as `<what> failed;
   * trying again`, with `fields`) while `again(error, next delay in ms)` says so and the store is
   * open.
   * @throws what `giveUp(last error, first error, tries made)` returns
   */
  private async retried<T>(
    what: string,
    fields: Record<string, unknown>,
    fn: () => Promise<T>,
    again: (err: unknown, delayMs: number) => boolean,
    giveUp: (err: unknown, first: unknown, tries: number) => Error,
  ): Promise<T> {
    let first: unknown;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        first ??= err;
        const delay = Math.min(50 * 2 ** (attempt - 1), 500);
        if (!this.closed && again(err, delay)) {
          this.log.info({ err: errorMessage(err), ...fields, attempt, retryInMs: delay }, `${what} failed; trying again`);
          await sleep(delay);
          continue;
        }
        throw giveUp(err, first, attempt);
      }
    }
  }

  /** @see WatchCache.watch (events at or below fromRevision from a lagging replica are dropped) */
  watch(prefix: string, fromRevision: number, onEvent: (ev: StoreEvent) => void): StoreWatch {
    return this.cache.watch(prefix, fromRevision, onEvent);
  }

  transact(key: string, fn: (current: KubeObject | undefined) => TransactResult, opts?: TransactOptions): Promise<StoredObject | undefined> {
    if (this.closed) return Promise.reject(new Error('etcd store closed'));
    if (this.failed) return Promise.reject(apierrors.serviceUnavailable(`storage (etcd) failed: ${this.failed.message}`));
    const previous = this.keyQueues.get(key) ?? Promise.resolve();
    const run = previous.then(() => this.transactNow(key, fn, opts?.onDeleted));
    const tail = run.then(
      () => {},
      () => {},
    );
    this.keyQueues.set(key, tail);
    this.inflight.add(tail);
    void tail.then(() => {
      this.inflight.delete(tail);
      if (this.keyQueues.get(key) === tail) this.keyQueues.delete(key);
    });
    return run;
  }

  corruptValue(key: string): CorruptValue | undefined {
    return this.cache.corruptValue(key);
  }

  corruptCount(): number {
    return this.cache.corruptCount();
  }

  /**
   * Deletes the value at key if it is still the corrupt one the mirror saw (compare its
   * mod_revision), then waits for the mirror to show the deletion.
   * @returns false when the key holds no corrupt value, or another value replaced it meanwhile
   * @throws StatusError 503 when etcd is unreachable
   */
  async deleteCorrupt(key: string): Promise<boolean> {
    const bad = this.cache.corruptValue(key);
    if (!bad || this.closed) return false;
    const etcdKey = this.keys.etcdKey(key);
    const txn = await this.call('write', () =>
      this.client.kv.txn({ compare: [{ key: etcdKey, target: 'Mod', result: 'Equal', mod_revision: bad.modRevision }], success: [{ request_delete_range: { key: etcdKey } }], failure: [] }),
    );
    if (!txn.succeeded) return false;
    this.log.warn({ key: bad.etcdKey, modRevision: bad.modRevision }, 'deleted a corrupt etcd value (ignoreStoreReadErrorWithClusterBreakingPotential)');
    await this.cache.waitForRevision(Number(txn.header.revision), this.cacheWaitTimeoutMs);
    return true;
  }

  /**
   * One transaction, run when the previous one on the same key (on this replica) finished.
   * @param onDeleted - told the revision of a delete (TransactOptions.onDeleted)
   */
  private async transactNow(key: string, fn: (current: KubeObject | undefined) => TransactResult, onDeleted?: (revision: number) => void): Promise<StoredObject | undefined> {
    // kube-apiserver's GuaranteedUpdate fails on a value it cannot decode: never written over blindly.
    const bad = this.cache.corruptValue(key);
    if (bad) throw apierrors.corruptObject(bad);
    const etcdKey = this.keys.etcdKey(key);
    let current = this.cache.get(key);
    let confirmed = false; // current came from etcd in this call, not from the mirror
    for (let conflicts = 0; ; ) {
      let res: TransactResult;
      try {
        res = fn(current?.object);
      } catch (err) {
        if (confirmed) throw err;
        current = await this.readKey(etcdKey);
        confirmed = true;
        continue;
      }
      if (res.op === 'none' || (res.op === 'delete' && !current)) {
        if (!confirmed) {
          current = await this.readKey(etcdKey);
          confirmed = true;
          continue;
        }
        return res.op === 'none' ? current : undefined;
      }
      const seenBefore = this.cache.currentRevision();
      const txn = await this.call('write', () =>
        this.client.kv.txn({
          compare: [{ key: etcdKey, target: 'Mod', result: 'Equal', mod_revision: current?.modRevision ?? 0 }],
          success: [res.op === 'put' ? { request_put: { key: etcdKey, value: encodeObject(res.object) } } : { request_delete_range: { key: etcdKey } }],
          failure: [{ request_range: { key: etcdKey } }],
        }),
      );
      if (!txn.succeeded) {
        // Another replica wrote first: the failure branch read the current value in the same round trip.
        if (++conflicts > this.maxConflictRetries) {
          const { gr, name } = describeKey(key);
          throw apierrors.conflict(gr, name, `storage: ${conflicts} concurrent writes by other control-center replicas won; please try again`);
        }
        const kv = txn.responses[0]?.response_range?.kvs[0];
        current = kv ? this.decodeOrFail(kv) : undefined;
        confirmed = true;
        continue;
      }
      const revision = Number(txn.header.revision);
      // etcd's revisions only grow: a write at or below one this replica saw before sending it means
      // etcd came back empty or from an older snapshot. Answering would hand out a resourceVersion
      // that already named other content, for a write the mirror (watching from above it) never sees.
      if (revision <= seenBefore) throw this.failRegressed(seenBefore, revision);
      const entry: StoredObject | undefined =
        res.op === 'put' ? { key, object: withResourceVersion(res.object, revision), createRevision: current?.createRevision ?? revision, modRevision: revision } : undefined;
      if (res.op === 'delete') onDeleted?.(revision);
      await this.cache.waitForRevision(revision, this.cacheWaitTimeoutMs);
      return entry;
    }
  }

  /** The current value of one key, read from etcd (linearizable). */
  private async readKey(etcdKey: Buffer): Promise<StoredObject | undefined> {
    const res = await this.call('read', () => this.client.kv.range({ key: etcdKey }));
    const kv = res.kvs[0];
    return kv ? this.decodeOrFail(kv) : undefined;
  }

  /**
   * Decodes a value a transaction must act on.
   * @throws StatusError 500 when it is not a JSON object (something else wrote it; never overwrite blindly)
   */
  private decodeOrFail(kv: IKeyValue): StoredObject {
    try {
      return decodeKeyValue(this.keys, kv);
    } catch (err) {
      this.log.error({ key: kv.key.toString('utf8'), err: errorMessage(err) }, 'etcd value is not a JSON object');
      throw apierrors.corruptObject({ etcdKey: kv.key.toString('utf8'), modRevision: Number(kv.mod_revision), error: errorMessage(err) });
    }
  }

  /**
   * Runs one etcd call. A read is tried again on connection errors, a write only when it never
   * left (see {@link neverSent}), for up to {@link CallRetryMs} after the first failure (with
   * backoff: 50, 100, 200, 400 ms…), so a leader election (about a second) or one member going
   * away does not fail it.
   * @throws StatusError 413 when etcd refuses the request as too large; 503 when etcd is
   *   unreachable or fails (saying whether a write may have been applied)
   */
  private call<T>(kind: 'read' | 'write', fn: () => Promise<T>): Promise<T> {
    let retryUntil: number | undefined;
    return this.retried(
      'etcd request',
      { kind },
      fn,
      (err, delay) => {
        retryUntil ??= Date.now() + CallRetryMs;
        const unsent = neverSent(err);
        return (kind === 'read' || unsent) && (unsent || isRecoverableError(err as Error)) && Date.now() + delay <= retryUntil;
      },
      (err, _first, tries) => {
        // etcd refuses a request over its --max-request-bytes (1.5 MiB by default; larger ones
        // its gRPC server already): a permanent answer about this object, not an outage, so a
        // 413 as kube-apiserver answers it, not a 503 a client would retry.
        if (/request is too large|received message larger than max/i.test(errorMessage(err))) return apierrors.requestEntityTooLarge(errorMessage(err));
        this.log.warn({ err: errorMessage(err), kind, attempts: tries }, 'etcd request failed');
        const hint = kind !== 'write' ? '' : neverSent(err) ? ' (the write was not sent to etcd: not applied)' : ' (the write may or may not have been applied)';
        return apierrors.serviceUnavailable(`storage (etcd) unavailable: ${errorMessage(err)}${hint}`);
      },
    );
  }

  /** Retries fn with backoff until deadline; rethrows the last error that came from etcd itself. */
  private async retryUntil<T>(deadline: number, fn: () => Promise<T>): Promise<T> {
    let cause: unknown;
    for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
      try {
        return await fn();
      } catch (err) {
        // The client's circuit breaker fails calls fast for a while after repeated errors; the error before says why.
        if (!(err as { isBrokenCircuitError?: boolean }).isBrokenCircuitError || cause === undefined) cause = err;
        if (Date.now() + delay > deadline) throw cause;
        this.log.info({ err: errorMessage(err), retryInMs: delay }, 'waiting for etcd');
        await sleep(delay);
      }
    }
  }

  /** Every key-value under the prefix at one revision, read in pages of 1,000 keys. */
  private rangeAll(): Promise<{ kvs: IKeyValue[]; revision: number }> {
    return this.rangePages(this.keys.rangeStart, this.keys.rangeEnd);
  }

  /**
   * Every key-value in [from, end) at one revision, read in pages of 1,000 keys: at `revision`, or
   * at the revision etcd answers the first page at.
   * @param deadline - epoch milliseconds each page's call must answer by (none: the client's own)
   */
  private async rangePages(from: Buffer, end: Buffer, revision = 0, deadline?: number): Promise<{ kvs: IKeyValue[]; revision: number }> {
    const kvs: IKeyValue[] = [];
    for (;;) {
      const res = await this.client.kv.range({ key: from, range_end: end, limit: 1000, ...(revision ? { revision } : {}) }, deadline === undefined ? undefined : { deadline });
      if (!revision) revision = Number(res.header.revision);
      kvs.push(...res.kvs);
      if (!res.more || res.kvs.length === 0) return { kvs, revision };
      from = Buffer.concat([res.kvs[res.kvs.length - 1]!.key, Buffer.from([0])]);
    }
  }
}
