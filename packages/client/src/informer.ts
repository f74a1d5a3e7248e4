/**
 * An informer: a reflector that mirrors one resource (optionally narrowed by namespace and
 * selectors) into a `Store`, and tells event handlers what changed. client-go's
 * `SharedIndexInformer` semantics, without the DeltaFIFO: events are applied to the store and
 * then handed to the handlers synchronously, in order.
 *
 * Guarantees:
 * - First a paginated list (`limit`, `continue`), then a watch from the list's resourceVersion with
 *   bookmarks. A watch the server ends normally is resumed from the last resourceVersion seen
 *   (an event's or a bookmark's), so no change is missed and none is replayed.
 * - A 410 (`Expired`/`Gone`, as an HTTP answer or an `ERROR` event), any other `ERROR` event, or
 *   a 504 `Too large resource version` (the server's storage went back, e.g. etcd restored from a
 *   snapshot without a revision bump: watching on would miss every write until it caught up)
 *   relists; the new list is diffed against the cache: `onAdd` for new keys, `onUpdate` for
 *   changed resourceVersions, `onDelete` with a `DeletedFinalStateUnknown` tombstone for keys
 *   that vanished while the watch was down.
 * - Transport errors are retried forever with exponential backoff and jitter (200 ms → 30 s by
 *   default) until `stop()`; a watch is retried from the last resourceVersion, a list from scratch.
 *   `retryNow()` cuts a wait short.
 * - When a handler runs, the store already reflects the event. Handlers must not block or throw
 *   (a throw is logged and swallowed); they should enqueue keys, not act on payloads.
 * - Cached objects are shared and read-only: see `store.ts`. `clone()` before mutating.
 *
 * Not guaranteed: handlers see every intermediate state (a relist collapses changes), or any
 * order across keys.
 * @see https://github.com/kubernetes/client-go/blob/master/tools/cache/reflector.go
 * @see https://github.com/kubernetes/client-go/blob/master/tools/cache/shared_informer.go
 */
import { pino, type Logger } from 'pino';
import { isGone, isTooLargeResourceVersion, ApiError } from './api-errors.js';
import { Backoff } from './backoff.js';
import { realClock, sleep, type Clock, type TimerHandle } from './clock.js';
import type { RestClient } from './rest.js';
import { DeletedFinalStateUnknown, keyOf, Store, type IndexFunc, type Lister } from './store.js';
import type { KubeList, KubeObject, KubeStatus, ResourceRef, WatchEvent } from './types.js';

/** The two calls an informer makes; a `RestClient` fits. */
export type ListWatchClient = Pick<RestClient, 'list' | 'watch'>;

/** Callbacks of an informer. All optional; called synchronously after the store was updated. */
export interface EventHandler<T extends KubeObject> {
  /** A key appeared (initial list, watch ADDED, or a relist found it). */
  onAdd?(obj: T): void;
  /** A key changed; on a periodic resync `oldObj === newObj`. */
  onUpdate?(oldObj: T, newObj: T): void;
  /** A key went away: the final state from a DELETED event, or a tombstone after a relist. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

/**
 * Told when an informer stops seeing the server and when it sees it again, for a caller that
 * judges how long something went unchanged (the scheduler's heartbeat ages): time while the
 * informer was blind is time it could not have seen a change. client-go's reflector has the first
 * half as `SetWatchErrorHandler`.
 */
export interface ConnectionHandler {
  /**
   * A list or watch failed and the informer is about to wait and retry (a transport error, an
   * error answer, a watch that ended at once; not the 410 that relists at once). Once per outage.
   * @param atMs - the informer's clock, ms since the epoch: from then on changes may go unseen
   */
  onLost?(atMs: number, err: unknown): void;
  /**
   * After `onLost`, a list completed or a watch opened: changes are seen again (a watch resumed
   * from the last resourceVersion delivers what happened meanwhile right after this).
   * @param atMs - the informer's clock, ms since the epoch
   * @param lostAtMs - when the outage began (the `atMs` of `onLost`)
   */
  onRestored?(atMs: number, lostAtMs: number): void;
}

/** Options of an `Informer`. */
export interface InformerOptions<T extends KubeObject = KubeObject> {
  client: ListWatchClient;
  ref: ResourceRef;
  /** Only this namespace; omit for all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Items per list page. Default 500. */
  pageSize?: number;
  /** Re-deliver every cached object to `onUpdate` this often, in milliseconds. 0 (default) = never. */
  resyncPeriodMs?: number;
  /** Server-side timeout of each watch. Default: random in [300, 600) like the reflector. */
  watchTimeoutSeconds?: number;
  /** First retry delay after an error, in milliseconds. Default 200. */
  initialBackoffMs?: number;
  /** Longest retry delay, in milliseconds. Default 30 000. */
  maxBackoffMs?: number;
  /** Debug lines for lists and watches, warn lines for relists and retries. Default: silent. */
  logger?: Logger;
  clock?: Clock;
  /** Randomness for jitter and the watch timeout, in [0, 1). Default Math.random. */
  random?: () => number;
  /**
   * Called on every listed object and every watch event's object before it reaches the cache and
   * the handlers; returns the object to keep (it may change the one it is given, which is this
   * informer's own, fresh from the server). client-go's `TransformFunc` (SharedInformer
   * `SetTransform`): to trim what is cached, or to give an object the shape a typed client would
   * decode it to. It must not throw.
   * @see https://github.com/kubernetes/client-go/blob/master/tools/cache/controller.go (TransformFunc)
   */
  transform?: (obj: T) => T;
}

/** A watch that ended normally this soon without any event is treated as an error (client-go's "very short watch"). */
const minWatchDurationMs = 1000;

/**
 * Mirrors one resource into a cache; see the module comment. Typical use:
 * ```ts
 * const hcs = new Informer<HostedCluster>({ client, ref: hostedClusters, logger });
 * hcs.addIndexer('byCluster', (hc) => [hc.metadata.labels?.[PlacementLabel] ?? '']);
 * hcs.addEventHandler({ onAdd: (o) => queue.add(keyOf(o)), ... });
 * hcs.start();
 * await hcs.waitForSync(signal);
 * ```
 */
export class Informer<T extends KubeObject = KubeObject> {
  readonly #options: InformerOptions<T>;
  readonly #store = new Store<T>();
  readonly #handlers: EventHandler<T>[] = [];
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #backoff: Backoff;
  readonly #stop = new AbortController();
  #running: Promise<void> | undefined;
  #synced = false;
  #syncWaiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  #lastRV = '';
  #resyncTimer: TimerHandle | undefined;
  /** Aborted by `retryNow()` to cut short the backoff wait under way, if any. */
  #wake: AbortController | undefined;
  readonly #connectionHandlers: ConnectionHandler[] = [];
  /** When the outage under way began (clock ms), or undefined while the informer sees the server. */
  #lostAtMs: number | undefined;

  constructor(options: InformerOptions<T>) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#logger = (options.logger ?? pino({ enabled: false })).child({
      informer: options.ref.group ? `${options.ref.resource}.${options.ref.group}` : options.ref.resource,
    });
    this.#backoff = new Backoff({
      initialMs: options.initialBackoffMs ?? 200,
      maxMs: options.maxBackoffMs ?? 30_000,
      random: this.#random,
    });
  }

  /** Read access to the cache (shared, read-only objects). */
  get lister(): Lister<T> {
    return this.#store;
  }

  /**
   * Adds an index to the cache, queried with `lister.byIndex(name, value)`.
   * @throws Error after `start()` or when the name is taken
   */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.#running) throw new Error(`informer already started; add indexer "${name}" before start()`);
    this.#store.addIndexer(name, fn);
  }

  /** Registers handlers. Added after the cache filled, they first get `onAdd` for every cached object. */
  addEventHandler(handler: EventHandler<T>): void {
    this.#handlers.push(handler);
    for (const obj of this.#store.list()) this.#call(handler, 'onAdd', obj);
  }

  /**
   * Registers a handler told when the informer stops seeing the server and when it sees it again
   * (see {@link ConnectionHandler}). Added during an outage, it is told of that outage's end only.
   */
  addConnectionHandler(handler: ConnectionHandler): void {
    this.#connectionHandlers.push(handler);
  }

  /** Starts listing and watching in the background. Calling it again does nothing. */
  start(): void {
    if (this.#running || this.#stop.signal.aborted) return;
    this.#running = this.#run();
    this.#scheduleResync();
  }

  /**
   * Stops the watch and any retry; resolves when the loop has exited. No handler runs afterwards.
   * Pending `waitForSync` calls reject. An informer cannot be restarted.
   */
  async stop(): Promise<void> {
    this.#stop.abort();
    if (this.#resyncTimer !== undefined) this.#clock.clearTimeout(this.#resyncTimer);
    this.#rejectSyncWaiters(new Error('informer stopped before it synced'));
    await this.#running;
  }

  /**
   * Cuts short the backoff wait after a failed list or watch, if one is under way, so the next
   * attempt starts now; does nothing otherwise. For a caller that learnt the server answers again
   * (the syncer's heartbeat reached it) and should not wait out a delay of up to `maxBackoffMs`.
   * The delay sequence is not reset: one that fails again waits longer, as before.
   */
  retryNow(): void {
    this.#wake?.abort();
  }

  /** True once the first list has been delivered to the store and the handlers. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /**
   * Resolves when `hasSynced()` becomes true.
   * @throws the signal's reason when `signal` aborts first; Error when the informer stops first
   */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#stop.signal.aborted) return Promise.reject(new Error('informer stopped before it synced'));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#syncWaiters = this.#syncWaiters.filter((w) => w !== waiter);
        reject(signal!.reason);
      };
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (err: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      this.#syncWaiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The resourceVersion of the last list, event or bookmark seen (`''` before the first list). */
  lastSyncResourceVersion(): string {
    return this.#lastRV;
  }

  /** Delivers every cached object to `onUpdate(obj, obj)` now (what the resync timer does). */
  resync(): void {
    for (const obj of this.#store.list()) this.#dispatchUpdate(obj, obj);
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    let needList = true;
    // One 410 after progress relists at once; a 410 right after a relist backs off (no hot loop).
    let relistNow = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.#listAndReplace();
          needList = false;
          this.#backoff.reset();
        }
        if (signal.aborted) break;
        const progressed = await this.#watchOnce();
        if (progressed) {
          relistNow = true;
          this.#backoff.reset();
          continue;
        }
        throw new Error(`very short watch: ended within ${minWatchDurationMs} ms without an event`);
      } catch (err) {
        if (signal.aborted) break;
        // A resourceVersion the server has not reached (its storage went back): watching on from
        // it would miss everything until the server's revision passes it again. List afresh.
        const errorEvent = err instanceof WatchErrorEvent || isTooLargeResourceVersion(err);
        if (isGone(err) || errorEvent) {
          needList = true;
          if (isGone(err) && !isTooLargeResourceVersion(err)) {
            // Expected after a server restart or a long disconnect (the watch history is bounded):
            // client-go's reflector logs it at V(4), not as a warning.
            this.#logger.info({ resourceVersion: this.#lastRV, reason: (err as Error).message }, 'resourceVersion expired; relisting');
          } else {
            this.#logger.warn({ err, resourceVersion: this.#lastRV }, isTooLargeResourceVersion(err) ? 'resourceVersion too large for the server; relisting' : 'watch error event; relisting');
          }
          if (isGone(err) && relistNow) {
            relistNow = false;
            continue;
          }
        }
        this.#lost(err);
        const delayMs = this.#backoff.next();
        if (!(isGone(err) || errorEvent)) {
          this.#logger.warn({ err, delayMs, phase: needList ? 'list' : 'watch' }, 'list/watch failed; retrying');
        }
        const wake = (this.#wake = new AbortController());
        await sleep(this.#clock, delayMs, AbortSignal.any([signal, wake.signal]));
        this.#wake = undefined;
      }
    }
    this.#logger.debug('informer stopped');
  }

  /** Lists all pages, then replaces the cache with the result (diffing). */
  async #listAndReplace(): Promise<void> {
    const { client, ref, namespace, labelSelector, fieldSelector } = this.#options;
    const base = { namespace, labelSelector, fieldSelector };
    const items = new Map<string, T>();
    let resourceVersion = '';
    let cont: string | undefined;
    let pages = 0;
    do {
      let page: KubeList<T>;
      try {
        page = await client.list<T>(ref, { ...base, limit: this.#options.pageSize ?? 500, continue: cont });
      } catch (err) {
        if (!cont || !isGone(err)) throw err;
        // The continue token expired mid-list: read everything in one go (client-go's pager does the same).
        this.#logger.warn({ pages }, 'list continue token expired; listing without pagination');
        items.clear();
        page = await client.list<T>(ref, base);
      }
      if (this.#stop.signal.aborted) return;
      pages++;
      const itemKind = page.kind?.endsWith('List') ? page.kind.slice(0, -4) : undefined;
      for (const item of page.items ?? []) {
        // List items of built-in types come without apiVersion/kind; watch events carry them.
        if (itemKind && !item.kind) item.kind = itemKind;
        if (page.apiVersion && !item.apiVersion) item.apiVersion = page.apiVersion;
        items.set(keyOf(item), this.#options.transform ? this.#options.transform(item) : item);
      }
      resourceVersion = page.metadata?.resourceVersion ?? '';
      cont = page.metadata?.continue || undefined;
    } while (cont);
    this.#replace(items, resourceVersion);
    this.#restored();
    this.#logger.debug({ items: items.size, pages, resourceVersion }, 'listed');
  }

  #replace(items: Map<string, T>, resourceVersion: string): void {
    for (const [key, obj] of items) {
      const old = this.#store.get(key);
      if (!old) {
        this.#store.set(key, obj);
        this.#dispatchAdd(obj);
      } else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) {
        this.#store.set(key, obj);
        this.#dispatchUpdate(old, obj);
      }
    }
    for (const key of this.#store.keys()) {
      if (items.has(key)) continue;
      const old = this.#store.delete(key)!;
      this.#dispatchDelete(new DeletedFinalStateUnknown(key, old));
    }
    this.#lastRV = resourceVersion;
    if (!this.#synced) {
      this.#synced = true;
      const waiters = this.#syncWaiters;
      this.#syncWaiters = [];
      for (const w of waiters) w.resolve();
    }
  }

  /**
   * One watch from the last resourceVersion until the server ends it.
   * @returns whether it made progress (saw an event, or lasted at least `minWatchDurationMs`)
   */
  async #watchOnce(): Promise<boolean> {
    const { client, ref, namespace, labelSelector, fieldSelector } = this.#options;
    const timeoutSeconds = this.#options.watchTimeoutSeconds ?? Math.floor(300 * (1 + this.#random()));
    const startedMs = this.#clock.now();
    let events = 0;
    this.#logger.debug({ resourceVersion: this.#lastRV, timeoutSeconds }, 'watching');
    await client.watch<T>(
      ref,
      { namespace, labelSelector, fieldSelector, resourceVersion: this.#lastRV, allowWatchBookmarks: true, timeoutSeconds, onOpen: () => this.#restored() },
      (event) => {
        if (events++ === 0) this.#restored();
        this.#apply(event);
      },
      this.#stop.signal,
    );
    const elapsedMs = this.#clock.now() - startedMs;
    this.#logger.debug({ events, elapsedMs, resourceVersion: this.#lastRV }, 'watch ended');
    return events > 0 || elapsedMs >= minWatchDurationMs || this.#stop.signal.aborted;
  }

  #apply(event: WatchEvent<T>): void {
    if (this.#stop.signal.aborted) return;
    if (event.type === 'ERROR') throw new WatchErrorEvent(event.object);
    const transform = this.#options.transform;
    const obj = transform && event.type !== 'BOOKMARK' && event.object ? transform(event.object) : event.object;
    const rv = obj?.metadata?.resourceVersion;
    if (event.type === 'BOOKMARK') {
      if (rv) this.#lastRV = rv;
      return;
    }
    let key: string;
    try {
      key = keyOf(obj);
    } catch (err) {
      this.#logger.warn({ err, type: event.type }, 'ignoring watch event without a name');
      return;
    }
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED': {
        const old = this.#store.set(key, obj);
        if (old) this.#dispatchUpdate(old, obj);
        else this.#dispatchAdd(obj);
        break;
      }
      case 'DELETED': {
        this.#store.delete(key);
        this.#dispatchDelete(obj);
        break;
      }
      default:
        this.#logger.warn({ type: (event as { type: unknown }).type }, 'ignoring watch event of unknown type');
        return;
    }
    if (rv) this.#lastRV = rv;
  }

  #lost(err: unknown): void {
    if (this.#lostAtMs !== undefined || this.#stop.signal.aborted) return;
    const atMs = (this.#lostAtMs = this.#clock.now());
    for (const h of this.#connectionHandlers) this.#callConnection(() => h.onLost?.(atMs, err));
  }

  #restored(): void {
    const lostAtMs = this.#lostAtMs;
    if (lostAtMs === undefined || this.#stop.signal.aborted) return;
    this.#lostAtMs = undefined;
    const atMs = this.#clock.now();
    for (const h of this.#connectionHandlers) this.#callConnection(() => h.onRestored?.(atMs, lostAtMs));
  }

  #callConnection(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#logger.warn({ err }, 'connection handler threw; ignored');
    }
  }

  #scheduleResync(): void {
    const periodMs = this.#options.resyncPeriodMs ?? 0;
    if (periodMs <= 0 || this.#stop.signal.aborted) return;
    this.#resyncTimer = this.#clock.setTimeout(() => {
      if (this.#stop.signal.aborted) return;
      if (this.#synced) this.resync();
      this.#scheduleResync();
    }, periodMs);
    (this.#resyncTimer as { unref?: () => void }).unref?.();
  }

  #dispatchAdd(obj: T): void {
    for (const h of this.#handlers) this.#call(h, 'onAdd', obj);
  }

  #dispatchUpdate(oldObj: T, newObj: T): void {
    for (const h of this.#handlers) this.#call(h, 'onUpdate', oldObj, newObj);
  }

  #dispatchDelete(obj: T | DeletedFinalStateUnknown<T>): void {
    for (const h of this.#handlers) this.#call(h, 'onDelete', obj);
  }

  #call(handler: EventHandler<T>, which: keyof EventHandler<T>, ...args: unknown[]): void {
    try {
      (handler[which] as ((...a: unknown[]) => void) | undefined)?.apply(handler, args);
    } catch (err) {
      this.#logger.warn({ err, handler: which }, 'event handler threw; ignored');
    }
  }

  #rejectSyncWaiters(err: Error): void {
    const waiters = this.#syncWaiters;
    this.#syncWaiters = [];
    for (const w of waiters) w.reject(err);
  }
}

/** A watch `ERROR` event, raised as an ApiError carrying its Status. */
class WatchErrorEvent extends ApiError {
  constructor(status: KubeStatus) {
    super(status?.code ?? 500, status, 'watch ERROR event');
  }
}
