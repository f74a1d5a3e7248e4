/**
 * A keyed work queue for level-triggered controllers, after client-go's
 * `workqueue.TypedRateLimitingInterface` (queue + delaying queue + rate limiter in one).
 *
 * Guarantees:
 * - A key is queued at most once: `add` of a key that waits and has not started is a no-op.
 * - A key is never processed by two workers at once: `add` of a key being processed marks it
 *   dirty, and it is queued again when its processing calls `done`.
 * - Keys are handed out in FIFO order of their (first) add.
 * - `addAfter` keeps only the earliest pending time per key.
 * - After `shutdown()` new adds are ignored and delayed adds are dropped, but keys already queued
 *   are still handed out, so running workers drain the queue.
 *
 * Concurrency: `runWorkers(n)` runs n plain promise loops, each `get → reconcile → done`, exactly
 * like client-go's `for processNextWorkItem() {}` goroutines. p-queue is not used: its own
 * backlog would hold keys outside this queue's dirty/processing sets and defeat coalescing, and
 * its concurrency limit is what n loops already give, so it would only add a layer.
 * @see https://github.com/kubernetes/client-go/blob/master/util/workqueue/queue.go
 * @see https://github.com/kubernetes/client-go/blob/master/util/workqueue/rate_limiting_queue.go
 */
import type { Logger } from 'pino';
import { isConflict } from './api-errors.js';
import { realClock, type Clock, type TimerHandle } from './clock.js';

/** Decides how long a failing key waits before its next try. */
export interface RateLimiter {
  /** The delay before the key's next try, in milliseconds; counts one more failure. */
  when(key: string): number;
  /** Clears the key's failure count (after a success). */
  forget(key: string): void;
  /** How many times `when` was called for the key since the last `forget`. */
  numRequeues(key: string): number;
}

/** Options of `ExponentialRateLimiter`. */
export interface ExponentialRateLimiterOptions {
  /** Delay after the first failure, in milliseconds. Default 5. */
  baseDelayMs?: number;
  /** Largest delay, in milliseconds. Default 1 000 000 (1000 s). */
  maxDelayMs?: number;
}

/**
 * Per-key exponential backoff: `baseDelayMs * 2^failures`, capped at `maxDelayMs`.
 * client-go's `ItemExponentialFailureRateLimiter` with its controller defaults (5 ms, 1000 s).
 * @see https://github.com/kubernetes/client-go/blob/master/util/workqueue/default_rate_limiters.go
 */
export class ExponentialRateLimiter implements RateLimiter {
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #failures = new Map<string, number>();

  constructor(options: ExponentialRateLimiterOptions = {}) {
    this.#baseDelayMs = options.baseDelayMs ?? 5;
    this.#maxDelayMs = options.maxDelayMs ?? 1_000_000;
  }

  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    return Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** failures);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** Options of a `WorkQueue`. */
export interface WorkQueueOptions {
  /** Backoff for `addRateLimited`. Default: `ExponentialRateLimiter` with the defaults below. */
  rateLimiter?: RateLimiter;
  /** Used when no `rateLimiter` is given. Default 5. */
  baseDelayMs?: number;
  /** Used when no `rateLimiter` is given. Default 1 000 000. */
  maxDelayMs?: number;
  /** Timers for `addAfter` / `addRateLimited`. */
  clock?: Clock;
}

/** What a reconcile returns: nothing (done), or a request to look again later. */
export type ReconcileResult = void | { requeueAfterMs: number };

/**
 * What a reconcile returns when it found nothing to do and wrote nothing (the object already as
 * wanted, or gone): done, and its one line is logged at debug whatever `successLogLevel` says, as
 * STYLE.md §7 puts it ("skips go to debug") and kube controllers log an unchanged sync at a higher
 * verbosity. Compared by identity: return this constant.
 */
export const Skipped: Readonly<{ skipped: true }> = Object.freeze({ skipped: true });

/**
 * Reconciles one key. Resolve for success ({@link Skipped} when nothing was written),
 * `{ requeueAfterMs }` to look again later (e.g. to poll for a condition), throw for a transient
 * failure (retried with backoff).
 * @param signal - aborted when the workers are told to stop
 */
export type Reconcile = (key: string, signal: AbortSignal) => Promise<ReconcileResult | typeof Skipped>;

/** Options of `runWorkers`. */
export interface RunWorkersOptions {
  /** Stops the workers: the queue shuts down, queued keys drain, then `runWorkers` resolves. */
  signal?: AbortSignal;
  /** Gets one line per reconcile and a warn line per failure. */
  logger?: Logger;
  /** Controller name, logged as `controller`. */
  name?: string;
  /** Level of the one line per successful reconcile. Default `info` (see STYLE.md §7); a {@link Skipped} one is always debug. */
  successLogLevel?: 'info' | 'debug';
}

/** A FIFO of strings with O(1) push and shift. */
class Fifo {
  #items: string[] = [];
  #head = 0;
  get length(): number {
    return this.#items.length - this.#head;
  }
  push(item: string): void {
    this.#items.push(item);
  }
  shift(): string | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}

/** The keyed work queue; see the module comment. Keys are usually `namespace/name`. */
export class WorkQueue {
  readonly #queue = new Fifo();
  /** Keys that need processing (queued, or re-added while processing). */
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #delayed = new Map<string, { atMs: number; handle: TimerHandle }>();
  readonly #rateLimiter: RateLimiter;
  readonly #clock: Clock;
  #getters: ((key: string | undefined) => void)[] = [];
  #drainWaiters: (() => void)[] = [];
  #shuttingDown = false;
  #adds = 0;
  #retries = 0;

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#rateLimiter =
      options.rateLimiter ??
      new ExponentialRateLimiter({ baseDelayMs: options.baseDelayMs, maxDelayMs: options.maxDelayMs });
  }

  /** Keys waiting to be processed (the `depth` metric). */
  get depth(): number {
    return this.#queue.length;
  }

  /** Keys currently being processed. */
  get inFlight(): number {
    return this.#processing.size;
  }

  /** Adds that were not coalesced into a waiting key, since creation (the `adds` counter). */
  get adds(): number {
    return this.#adds;
  }

  /** Calls of `addRateLimited` since creation (the `retries` counter). */
  get retries(): number {
    return this.#retries;
  }

  /** Same as `depth`. */
  len(): number {
    return this.#queue.length;
  }

  /** True after `shutdown()`. */
  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Queues `key` unless it is already waiting; ignored after shutdown. */
  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#adds++;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return; // queued again by done()
    this.#queue.push(key);
    this.#handOut();
  }

  /** Queues `key` after `delayMs` milliseconds (at once when ≤ 0); an earlier pending time wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const atMs = this.#clock.now() + delayMs;
    const pending = this.#delayed.get(key);
    if (pending) {
      if (pending.atMs <= atMs) return;
      this.#clock.clearTimeout(pending.handle);
    }
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, delayMs);
    (handle as { unref?: () => void }).unref?.();
    this.#delayed.set(key, { atMs, handle });
  }

  /** Queues `key` after the rate limiter's delay for it (one more failure counted). */
  addRateLimited(key: string): void {
    if (this.#shuttingDown) return;
    this.#retries++;
    this.addAfter(key, this.#rateLimiter.when(key));
  }

  /** Resets the key's failure count; call after a success. Does not remove a queued key. */
  forget(key: string): void {
    this.#rateLimiter.forget(key);
  }

  /** Failures counted for the key since its last `forget`. */
  numRequeues(key: string): number {
    return this.#rateLimiter.numRequeues(key);
  }

  /**
   * Waits for the next key and marks it processing; the caller must call `done(key)` after.
   * Resolves `undefined` once the queue is shut down and empty.
   */
  get(): Promise<string | undefined> {
    const key = this.#take();
    if (key !== undefined) return Promise.resolve(key);
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Ends the processing of `key`; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key)) {
      this.#queue.push(key);
      this.#handOut();
    }
    this.#checkDrained();
  }

  /**
   * Stops accepting keys, drops delayed adds, and resolves once no key is queued or processing.
   * Queued keys are drained by whoever calls `get()` (normally `runWorkers`); with no consumer
   * and keys queued, the promise waits for one.
   */
  shutdown(): Promise<void> {
    if (!this.#shuttingDown) {
      this.#shuttingDown = true;
      for (const { handle } of this.#delayed.values()) this.#clock.clearTimeout(handle);
      this.#delayed.clear();
      this.#handOut();
    }
    return new Promise((resolve) => {
      this.#drainWaiters.push(resolve);
      this.#checkDrained();
    });
  }

  /**
   * Runs `n` workers until `options.signal` aborts (or `shutdown()` is called) and the queue has
   * drained. Per key: success → `forget`; `{ requeueAfterMs }` → `forget` + `addAfter`;
   * throw → `addRateLimited`, logged at warn with the error (debug for a 409 Conflict, which is
   * a normal requeue). Errors are logged here, not rethrown.
   * @returns resolves when every worker has exited
   */
  async runWorkers(n: number, reconcile: Reconcile, options: RunWorkersOptions = {}): Promise<void> {
    const signal = options.signal ?? new AbortController().signal;
    const stop = () => void this.shutdown();
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    const log = options.logger?.child({ controller: options.name ?? 'workqueue' });
    const level = options.successLogLevel ?? 'info';
    const worker = async () => {
      for (;;) {
        const key = await this.get();
        if (key === undefined) return;
        await this.#processOne(key, reconcile, signal, log, level);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.max(1, n) }, worker));
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  async #processOne(key: string, reconcile: Reconcile, signal: AbortSignal, log: Logger | undefined, level: 'info' | 'debug'): Promise<void> {
    const startedMs = performance.now();
    try {
      const result = await reconcile(key, signal);
      const durationMs = Math.round(performance.now() - startedMs);
      this.forget(key);
      if (result === Skipped) {
        log?.debug({ key, result: 'skipped', durationMs }, 'reconciled');
      } else if (result && 'requeueAfterMs' in result && typeof result.requeueAfterMs === 'number') {
        this.addAfter(key, result.requeueAfterMs);
        log?.[level]({ key, result: 'requeue', requeueAfterMs: result.requeueAfterMs, durationMs }, 'reconciled');
      } else {
        log?.[level]({ key, result: 'success', durationMs }, 'reconciled');
      }
    } catch (err) {
      const durationMs = Math.round(performance.now() - startedMs);
      this.addRateLimited(key);
      const retries = this.numRequeues(key);
      if (isConflict(err)) log?.debug({ key, result: 'conflict', retries, durationMs, reason: (err as Error).message }, 'reconcile conflict; requeued');
      else log?.warn({ key, result: 'error', retries, durationMs, err }, 'reconcile failed; requeued');
    } finally {
      this.done(key);
    }
  }

  #take(): string | undefined {
    const key = this.#queue.shift();
    if (key === undefined) return undefined;
    this.#processing.add(key);
    this.#dirty.delete(key);
    return key;
  }

  #handOut(): void {
    while (this.#getters.length > 0) {
      const key = this.#take();
      if (key === undefined) break;
      this.#getters.shift()!(key);
    }
    if (this.#shuttingDown && this.#queue.length === 0) {
      const getters = this.#getters;
      this.#getters = [];
      for (const g of getters) g(undefined);
    }
  }

  #checkDrained(): void {
    if (!this.#shuttingDown || this.#queue.length > 0 || this.#processing.size > 0) return;
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const w of waiters) w();
  }
}
