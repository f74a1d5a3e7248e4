/**
 * The read side of EtcdStore, after kube-apiserver's cacher: a mirror of everything under the
 * prefix (mirror.ts) plus an event history (../history.ts), both fed by ONE etcd watch that starts
 * at the revision of the initial list + 1. `get`, `list`, `count` and `watch` are served from
 * memory; writers wait with `waitForRevision` until the watch has shown their write.
 *
 * Guaranteed: the mirror and the history change only in etcd revision order, with no gaps. When
 * the watch stream breaks (etcd restarted, network cut, keepalive timeout) it is re-created from
 * the last applied revision + 1 with backoff (100 ms doubling to 5 s). When etcd has compacted past
 * that revision, everything is listed again and the difference is published as events: changes
 * and additions at their `mod_revision`, deletions at the list's revision (intermediate states
 * between the two lists are not replayed, as with a relisting informer).
 * Not guaranteed: freshness. Between a write (by any replica) and its watch event, reads here
 * return the previous state.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/cacher/watch_cache.go
 */
import type { Etcd3, IDuplexStream, IEvent, IKeyValue, IWatchRequest, IWatchResponse } from 'etcd3';
import type { Logger } from 'pino';
import type { KubeObject } from '@hcc/crds';
import * as apierrors from '../../apierrors/status.js';
import { EventHistory } from '../history.js';
import type { CorruptValue, StoredObject, StoreEvent, StoreWatch } from '../store.js';
import { decodeOrSkip, type KeySpace } from './codec.js';
import { Mirror } from '../mirror.js';
import { etcdErrorMessage } from './error-message.js';

/** What the cache needs from its store. */
export interface WatchCacheDeps {
  client: Etcd3;
  keys: KeySpace;
  log: Logger;
  /** How many events a watch can resume from (a count). */
  historyCapacity: number;
  /** Most JSON the history's events may hold together (string length); default 64 MiB. */
  historyBytes?: number;
  /** Lists every key-value under the prefix at one revision (again after a compaction). */
  listAll: () => Promise<{ kvs: IKeyValue[]; revision: number }>;
  /**
   * Called when a re-created watch reports an etcd revision below the mirror's: etcd may have
   * been restored from an older snapshot without `--bump-revision`, and the watch would then miss
   * every write until etcd's revision passes the mirror's. The mirror stops applying events.
   * @param mirror - the revision the mirror reached; @param etcd - the one etcd reported
   */
  onRevisionRegression?: (mirror: number, etcd: number) => void;
  /**
   * How long the watch may stay silent, in milliseconds, while something waits for a change etcd
   * has (a write's committed revision, a read's newer state) before it is taken for stuck and
   * re-created (default {@link WatchStallMs}).
   */
  stallMs?: number;
}

/**
 * Default {@link WatchCacheDeps.stallMs}: 2 s. A watch whose etcd member stopped answering (frozen,
 * its host overloaded or cut off without the TCP connection closing) stays open, silent, until
 * gRPC keepalive gives up on the connection (tens of seconds), while the other members go on
 * committing writes; every write through this replica waits for the watch to show it. A watch
 * with something to deliver answers within milliseconds, so 2 s of silence while a change is
 * known to be there means its member is not answering: the watch is re-created (on a member the
 * client picks again), from the mirror's revision, and nothing is skipped or seen twice.
 */
export const WatchStallMs = 2_000;

/**
 * What etcd holds under the prefix at one revision, as one linearizable range shows it: enough to
 * tell whether the mirror, at an older revision, already holds the same state.
 */
export interface PrefixSummary {
  /** etcd's revision when it answered (the range's header). */
  revision: number;
  /** The highest `mod_revision` of a key under the prefix (0 when there is none). */
  maxModRevision: number;
  /** How many keys are under the prefix (a count). */
  count: number;
}

/** One key as etcd has it at some revision: its `mod_revision`, 0 when absent. */
export interface KeyState {
  key: string;
  modRevision: number;
}

/** A write or a read waiting for the mirror to reach a revision (or a state). */
interface RevisionWaiter {
  revision: number;
  /** Also resolved as soon as the mirror holds the state this summary describes. */
  summary?: PrefixSummary;
  /** Also resolved as soon as the mirror's copy of this key is the one etcd has (its mod_revision, 0: absent). */
  keyState?: KeyState;
  resolve: () => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
  /** When it began to wait (performance.now(), ms). */
  since: number;
}

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const errorMessage = etcdErrorMessage;

/** Returns object with `metadata.resourceVersion` set to revision (a copy). */
export const withResourceVersion = (object: KubeObject, revision: number): KubeObject => ({ ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } });

/**
 * How long a most-recent read waits for the watch to reach etcd's revision when progress
 * notifications cannot be used (older etcd), in milliseconds: enough for the watch's usual lag,
 * short enough that a revision advanced only by writes outside the prefix costs little.
 */
export const WatchLagGraceMs = 200;

/**
 * The mirror, history and etcd watch of one EtcdStore (see above): {@link WatchCache.start} once with the initial list,
 * then reads and {@link WatchCache.waitForRevision}; {@link WatchCache.stop} ends the watch and rejects every waiter.
 */
export class WatchCache {
  private readonly mirror = new Mirror();
  private history!: EventHistory;
  /** The revision the mirror reflects: every event under the prefix up to it is applied. */
  private revision = 0;
  private readonly waiters: RevisionWaiter[] = [];
  private stream: WatchStream | undefined;
  private watching = false;
  private progressRequests = false;
  private retryMs = 100;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private relists = 0;
  private watchRestarts = 0;
  /** When the current stream last answered, or was opened (performance.now(), ms). */
  private lastResponseAt = 0;
  /** Checks for a silent watch while waiters wait (see WatchStallMs). */
  private stallCheck: NodeJS.Timeout | undefined;
  /**
   * Keys whose latest value does not decode (something else wrote it). The mirror keeps the last
   * object that did, if any, as kube-apiserver's cache keeps serving it: a corrupt write must not
   * look like a deletion to watchers (a syncer would tear the HostedCluster down).
   */
  private readonly corrupt = new Map<string, CorruptValue>();
  private readonly markCorrupt = (key: string, bad: CorruptValue) => this.corrupt.set(key, bad);
  /**
   * How many etcd keys under the prefix the mirror's revision has: objects plus corrupt values the
   * mirror holds no object for (compared with etcd's count in {@link waitUntilFresh}).
   */
  private keyCount = 0;
  /**
   * The last prefix summary the mirror was found to hold below its revision: the mirror's state
   * at `mirrorRevision` is etcd's at `etcdRevision` (waitUntilFresh).
   */
  private confirmed: { etcdRevision: number; mirrorRevision: number } | undefined;
  /** Whether the last prefix summary found etcd's revision moved only by writes outside the prefix. */
  private laggingOutside = false;

  constructor(private readonly deps: WatchCacheDeps) {}

  /** Why the latest value at a store key does not decode, or undefined when it does (or is absent). */
  corruptValue(key: string): CorruptValue | undefined {
    return this.corrupt.size ? this.corrupt.get(key) : undefined;
  }

  /** How many keys hold a value that does not decode (for metrics). */
  corruptCount(): number {
    return this.corrupt.size;
  }

  /**
   * Fills the mirror from a list taken at revision, then watches from revision + 1.
   * @throws Error when etcd has not confirmed the watch by deadline (epoch milliseconds)
   */
  async start(kvs: IKeyValue[], revision: number, deadline: number): Promise<void> {
    this.keyCount = kvs.length;
    for (const kv of kvs) {
      const entry = decodeOrSkip(this.deps.keys, kv, this.deps.log, this.markCorrupt);
      if (entry) this.mirror.set(entry.key, entry);
    }
    this.revision = revision;
    this.history = new EventHistory(this.deps.historyCapacity, revision, this.deps.historyBytes);
    this.connect();
    while (!this.watching) {
      if (Date.now() > deadline) throw new Error('etcd did not confirm the watch in time');
      await sleep(5);
    }
  }

  /** Stops the watch; pending `waitForRevision` calls reject. */
  stop(): void {
    this.stopped = true;
    this.disconnect();
    clearInterval(this.stallCheck);
    this.stallCheck = undefined;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new Error('etcd store closed'));
    }
  }

  currentRevision(): number {
    return this.revision;
  }

  /**
   * Turns {@link requestProgress} on (an etcd that sends requested progress notifications in order
   * with the events) or off (the default: older etcd can send one ahead of queued events, and the
   * mirror would skip those for good).
   */
  setProgressRequests(on: boolean): void {
    this.progressRequests = on;
  }

  /** Whether the etcd watch is up (created and not broken since). */
  isWatching(): boolean {
    return this.watching && !!this.stream;
  }

  oldestWatchableRevision(): number {
    return this.history.oldestWatchableRevision();
  }

  watcherCount(): number {
    return this.history.watcherCount();
  }

  /** Objects under the prefix (for `count('')`). */
  size(): number {
    let n = 0;
    for (const _ of this.mirror.entries()) n++;
    return n;
  }

  stats(): { relists: number; watchRestarts: number } {
    return { relists: this.relists, watchRestarts: this.watchRestarts };
  }

  get(key: string): StoredObject | undefined {
    return this.mirror.get(key);
  }

  list(prefix: string): { items: StoredObject[]; revision: number } {
    return { items: this.mirror.list(prefix), revision: this.revision };
  }

  count(prefix: string): number {
    return this.mirror.count(prefix);
  }

  /**
   * Delivers events under prefix after fromRevision from the history, then live. Live events at or
   * below fromRevision are dropped: a client may bring a revision from a replica that is ahead of
   * this one, and must not see older events again.
   * @throws RevisionCompactedError when fromRevision is older than the kept history
   */
  watch(prefix: string, fromRevision: number, onEvent: (ev: StoreEvent) => void): StoreWatch {
    return this.history.watch(prefix, fromRevision, (ev) => {
      if (ev.revision > fromRevision) onEvent(ev);
    });
  }

  /**
   * Resolves once the mirror reflects revision, or with `summary`, once it holds that state
   * ({@link holds}).
   * @param timeoutMs - how long to wait, in milliseconds
   * @throws StatusError 504 after timeoutMs (the write is committed; this replica lags)
   */
  waitForRevision(revision: number, timeoutMs: number, summary?: PrefixSummary, keyState?: KeyState): Promise<void> {
    if (this.revision >= revision || (summary && this.holds(summary)) || (keyState && this.hasKey(keyState))) return Promise.resolve();
    if (this.stopped) return Promise.reject(new Error('etcd store closed'));
    return new Promise((resolve, reject) => {
      const waiter: RevisionWaiter = {
        revision,
        summary,
        keyState,
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(apierrors.timeout(`the write was committed at revision ${revision}, but this server's watch of etcd has not shown it within ${timeoutMs} ms`));
        }, timeoutMs),
        since: performance.now(),
      };
      this.waiters.push(waiter);
      this.watchForStall();
    });
  }

  /**
   * Asks etcd for a progress notification on the watch stream (WatchProgressRequest, etcd 3.4+):
   * once every event under the prefix up to etcd's current revision was sent, etcd answers with
   * that revision and the mirror moves to it (onResponse). etcd drops the request while the
   * stream is not synced, so callers that wait ask again. A no-op while the watch is down.
   */
  requestProgress(): void {
    if (!this.progressRequests || !this.stream || !this.watching) return;
    try {
      this.stream.write({ progress_request: {} });
    } catch {
      // the stream is breaking; onBroken reconnects
    }
  }

  /**
   * Resolves once the mirror reflects `revision`, asking etcd for progress now and every 100 ms
   * meanwhile ({@link requestProgress}, a no-op with progress requests off): the way to confirm a
   * revision that writes outside the prefix advanced, as kube-apiserver's watch cache does before
   * a consistent read. With `keyState` (a GET without resourceVersion, with any etcd version)
   * also as soon as the mirror's copy of that key is the one etcd had at `revision` (read in the
   * same linearizable range): the answer is then exactly etcd's at that revision, whatever else
   * under the prefix the watch has still to show, so a GET needs no grace and no range of the
   * whole prefix.
   * @param timeoutMs - how long to wait, in milliseconds
   * @throws StatusError 504 after timeoutMs (this replica's watch of etcd is behind or down)
   */
  async waitForRevisionWithProgress(revision: number, timeoutMs: number, keyState?: KeyState): Promise<void> {
    if (this.revision >= revision || (keyState && this.hasKey(keyState))) return;
    this.requestProgress();
    const ask = setInterval(() => this.requestProgress(), 100);
    try {
      await this.waitForRevision(revision, timeoutMs, undefined, keyState);
    } catch (err) {
      if (this.stopped) throw err;
      const what = keyState ? `the latest change of ${keyState.key}` : 'it';
      throw apierrors.timeout(`etcd is at revision ${revision}, but this server's watch of etcd has not shown ${what} within ${timeoutMs} ms (the watch is behind or reconnecting); retry`);
    } finally {
      clearInterval(ask);
    }
  }

  /**
   * Resolves once the mirror may answer a read that must be as new as etcd's `revision` (a GET,
   * LIST or watch without resourceVersion). With progress requests on, once it has reached it
   * ({@link waitForRevisionWithProgress}). Without them (etcd before 3.4.31/3.5.13) nothing
   * moves the mirror to a revision that only writes outside the prefix advanced, so it waits up
   * to {@link WatchLagGraceMs} for the watch's usual lag, and then asks etcd what the prefix
   * holds now (`summarize`, one linearizable range) and waits until the mirror holds that state
   * ({@link holds}): a watch still behind with writes under the prefix is waited for (an object
   * another replica created or deleted is never answered in its older state), while a revision
   * advanced only outside the prefix is confirmed at once. kube-apiserver without consistent
   * reads from cache reads etcd itself instead; this keeps reads served from memory.
   * @param timeoutMs - how long to wait in all, in milliseconds
   * @param summarize - reads {@link PrefixSummary} from etcd before the given deadline (epoch ms)
   * @throws StatusError 504 when the mirror has not reached `revision` (or the summarized state)
   *   within timeoutMs: the watch is behind or reconnecting; 503 from summarize
   */
  async waitUntilFresh(revision: number, timeoutMs: number, summarize: (deadline: number) => Promise<PrefixSummary>): Promise<void> {
    if (this.progressRequests) return this.waitForRevisionWithProgress(revision, timeoutMs);
    if (this.revision >= revision) return;
    // Nothing changed anywhere since a summary confirmed the mirror's state, and the mirror has
    // not moved since (an event it showed since may be one etcd's state at that revision no
    // longer has): current.
    const c = this.confirmed;
    if (c && revision <= c.etcdRevision && this.revision === c.mirrorRevision) return;
    const deadline = Date.now() + timeoutMs;
    // The grace only when the last summary found the watch behind: after writes outside the prefix
    // it would be spent in vain on every read.
    if (!this.laggingOutside) {
      try {
        await this.waitForRevision(revision, Math.min(WatchLagGraceMs, timeoutMs));
        return;
      } catch (err) {
        if (!(err instanceof apierrors.StatusError) || this.stopped) throw err;
      }
    }
    const summary = await summarize(deadline);
    this.laggingOutside = this.revision < summary.revision && this.holds(summary);
    try {
      await this.waitForRevision(summary.revision, Math.max(0, deadline - Date.now()), summary);
    } catch (err) {
      if (this.stopped) throw err;
      const why = this.isWatching() ? 'is behind' : 'is reconnecting';
      throw apierrors.timeout(`etcd is at revision ${summary.revision}, but this server's watch of etcd ${why}: at revision ${this.revision} it has not shown every change under its prefix within ${timeoutMs} ms; retry`);
    }
  }

  /** Whether the mirror's copy of a key is the one `state` describes (a corrupt value counts by its mod_revision). */
  private hasKey(state: KeyState): boolean {
    const modRevision = this.corrupt.size ? this.corrupt.get(state.key)?.modRevision : undefined;
    return (modRevision ?? this.mirror.get(state.key)?.modRevision ?? 0) === state.modRevision;
  }

  /**
   * Whether the mirror holds the state `summary` describes, though its revision may be older: it
   * has every key under the prefix up to the highest mod_revision etcd reported, and as many keys.
   * Sound because after that mod_revision etcd only deleted keys under the prefix (a put would
   * raise it), and every key etcd still holds was written at or before it, so the mirror holds it
   * with that value; equal counts then leave no key etcd deleted that the mirror still has.
   * When true below the summary's revision, remembers it (`confirmed`) for later reads.
   */
  private holds(summary: PrefixSummary): boolean {
    if (this.revision < summary.maxModRevision || this.keyCount !== summary.count) return false;
    // Remembered where it is true, at this revision of the mirror (not after later events).
    const c = this.confirmed;
    if (this.revision < summary.revision && !(c && c.mirrorRevision === this.revision && c.etcdRevision >= summary.revision)) {
      this.confirmed = { etcdRevision: summary.revision, mirrorRevision: this.revision };
    }
    return true;
  }

  private resolveWaiters(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (w.revision <= this.revision || (w.summary && this.holds(w.summary)) || (w.keyState && this.hasKey(w.keyState))) {
        this.waiters.splice(i, 1);
        clearTimeout(w.timer);
        w.resolve();
      }
    }
  }

  /**
   * While waiters wait, re-creates a watch stream that has not answered for `stallMs` since the
   * oldest waiter began to wait (see {@link WatchStallMs}). Runs until no waiter is left.
   */
  private watchForStall(): void {
    if (this.stallCheck || this.stopped) return;
    const stallMs = this.deps.stallMs ?? WatchStallMs;
    const silentFor = () => {
      const oldest = this.waiters.reduce((m, w) => Math.min(m, w.since), Infinity);
      return performance.now() - Math.max(this.lastResponseAt, oldest);
    };
    this.stallCheck = setInterval(() => {
      if (this.waiters.length === 0 || this.stopped) {
        clearInterval(this.stallCheck);
        this.stallCheck = undefined;
        return;
      }
      const stream = this.stream;
      if (!stream || silentFor() < stallMs) return;
      // After a long busy turn this timer may run before the socket's waiting data is read:
      // check again once the poll phase has handled what arrived.
      setImmediate(() => {
        if (stream !== this.stream || this.waiters.length === 0 || silentFor() < stallMs) return;
        const wanted = this.waiters.reduce((m, w) => Math.max(m, w.revision), 0);
        this.onBroken(stream, new Error(`no answer for ${Math.round(silentFor())} ms while etcd has changes it has not shown (up to revision ${wanted}, the mirror is at ${this.revision}): its etcd member is not answering`));
      });
    }, Math.max(10, stallMs / 4));
    this.stallCheck.unref();
  }

  /** Opens a watch stream from the mirror's revision + 1. Failures schedule a retry. */
  private connect(): void {
    this.reconnectTimer = undefined;
    if (this.stopped) return;
    const { keys } = this.deps;
    this.deps.client.watchClient.watch().then(
      (stream) => {
        if (this.stopped) {
          stream.cancel();
          return;
        }
        this.stream = stream;
        this.lastResponseAt = performance.now();
        stream.on('data', (res) => this.onResponse(stream, res));
        stream.on('error', (err) => this.onBroken(stream, err));
        stream.on('end', () => this.onBroken(stream, new Error('watch stream ended')));
        stream.write({ create_request: { key: keys.rangeStart, range_end: keys.rangeEnd, start_revision: this.revision + 1, progress_notify: true } });
      },
      (err: unknown) => this.onBroken(undefined, err),
    );
  }

  private disconnect(): void {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const stream = this.stream;
    this.stream = undefined;
    this.watching = false;
    try {
      stream?.cancel();
    } catch {
      // already gone
    }
  }

  /** The watch stream failed or ended: resume from the mirror's revision after a backoff. */
  private onBroken(stream: WatchStream | undefined, err: unknown): void {
    if (stream !== this.stream || this.stopped) return; // a stream already replaced or closed
    this.disconnect();
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 5_000);
    this.watchRestarts++;
    this.deps.log.warn({ err: errorMessage(err), revision: this.revision, retryInMs: delay }, 'etcd watch broken; resuming');
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private onResponse(stream: WatchStream, res: IWatchResponse): void {
    if (stream !== this.stream) return;
    this.lastResponseAt = performance.now();
    const compacted = Number(res.compact_revision);
    if (compacted > 0) {
      this.disconnect();
      this.deps.log.warn({ revision: this.revision, compactRevision: compacted }, 'etcd compacted past the watch; listing again');
      void this.relist();
      return;
    }
    if (res.canceled) {
      this.onBroken(stream, new Error(`watch canceled by etcd: ${res.cancel_reason || 'no reason given'}`));
      return;
    }
    if (res.created) {
      const etcdRevision = Number(res.header.revision);
      if (etcdRevision < this.revision && this.deps.onRevisionRegression) {
        // Confirmed or dismissed by the store (a lagging member can answer a little behind).
        this.deps.onRevisionRegression(this.revision, etcdRevision);
      }
      this.watching = true;
      this.retryMs = 100;
      return;
    }
    if (res.events.length === 0) {
      // A progress notification: etcd sends it only when every event up to its revision was sent.
      const revision = Number(res.header.revision);
      if (revision > this.revision) {
        this.revision = revision;
        this.resolveWaiters();
      }
      return;
    }
    this.apply(res.events);
  }

  /** Applies one watch response's events to the mirror and publishes them, in order. */
  private apply(events: IEvent[]): void {
    // Events of one etcd transaction share a revision and arrive in one response; skip only what an
    // earlier response (or a re-list) already covered.
    const floor = this.revision;
    for (const ev of events) {
      const revision = Number(ev.kv.mod_revision);
      if (revision <= floor) continue;
      const key = this.deps.keys.storeKey(ev.kv.key);
      const prev = this.mirror.get(key);
      const present = prev !== undefined || this.corrupt.has(key);
      this.revision = revision;
      if (ev.type === 'Put') {
        if (!present) this.keyCount++;
        const entry = decodeOrSkip(this.deps.keys, ev.kv, this.deps.log, this.markCorrupt);
        if (!entry) continue; // the last object that decoded, if any, stays
        this.corrupt.delete(key);
        this.mirror.set(key, entry);
        this.history.publish(prev ? { type: 'MODIFIED', key, revision, object: entry.object, prevObject: prev.object } : { type: 'ADDED', key, revision, object: entry.object });
      } else {
        if (present) this.keyCount--;
        this.corrupt.delete(key);
        if (!prev) continue;
        this.mirror.set(key, undefined);
        this.history.publish({ type: 'DELETED', key, revision, object: withResourceVersion(prev.object, revision), prevObject: prev.object });
      }
    }
    this.resolveWaiters();
  }

  /** Lists everything again after etcd compacted past the watch, publishes the difference, then watches again. */
  private async relist(): Promise<void> {
    for (let delay = 100; !this.stopped; delay = Math.min(delay * 2, 5_000)) {
      try {
        const { kvs, revision } = await this.deps.listAll();
        if (this.stopped) return;
        this.replace(kvs, revision);
        this.relists++;
        break;
      } catch (err) {
        this.deps.log.warn({ err: errorMessage(err), retryInMs: delay }, 'etcd re-list failed');
        await sleep(delay);
      }
    }
    this.connect();
  }

  /** Moves the mirror to a fresh list, publishing each difference as an event in revision order. */
  private replace(kvs: IKeyValue[], revision: number): void {
    const fresh = new Map<string, StoredObject>();
    this.corrupt.clear();
    this.keyCount = kvs.length;
    for (const kv of kvs) {
      const entry = decodeOrSkip(this.deps.keys, kv, this.deps.log, this.markCorrupt);
      if (entry) fresh.set(entry.key, entry);
      else {
        // Corrupt now: the object it held stays, as on the watch (no DELETED for it).
        const old = this.mirror.get(this.deps.keys.storeKey(kv.key));
        if (old) fresh.set(old.key, old);
      }
    }
    const events: StoreEvent[] = [];
    for (const old of this.mirror.entries()) {
      if (!fresh.has(old.key)) events.push({ type: 'DELETED', key: old.key, revision, object: withResourceVersion(old.object, revision), prevObject: old.object });
    }
    for (const entry of fresh.values()) {
      const old = this.mirror.get(entry.key);
      if (old?.modRevision === entry.modRevision) continue;
      // Deleted and created again meanwhile (another uid): a DELETED of the old object before the
      // ADDED of the new one, both at the new one's creation, so a uid-keyed client sees both.
      if (old && old.object.metadata.uid !== entry.object.metadata.uid) {
        events.push({ type: 'DELETED', key: entry.key, revision: entry.createRevision, object: withResourceVersion(old.object, entry.createRevision), prevObject: old.object });
        events.push({ type: 'ADDED', key: entry.key, revision: entry.modRevision, object: entry.object });
        continue;
      }
      events.push(
        old
          ? { type: 'MODIFIED', key: entry.key, revision: entry.modRevision, object: entry.object, prevObject: old.object }
          : { type: 'ADDED', key: entry.key, revision: entry.modRevision, object: entry.object },
      );
    }
    events.sort((a, b) => a.revision - b.revision); // stable: a DELETED stays before its ADDED
    for (const ev of events) {
      this.revision = Math.max(this.revision, ev.revision);
      this.mirror.set(ev.key, ev.type === 'DELETED' ? undefined : fresh.get(ev.key));
      this.history.publish({ ...ev, relisted: true });
    }
    this.revision = Math.max(this.revision, revision);
    // The events above were made up from two states: they bring live watchers up to date but are
    // not the history between them. Watches and exact reads from before the re-list get 410.
    this.history.restartAt(this.revision);
    this.deps.log.info({ revision, changed: events.length }, 'etcd store re-listed');
    this.resolveWaiters();
  }
}
