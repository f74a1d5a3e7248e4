/**
 * Time as an injectable dependency, after k8s.io/utils/clock: production code takes a `Clock`,
 * tests pass a `FakeClock` and move time with `step(ms)` instead of sleeping.
 * @see https://github.com/kubernetes/utils/blob/master/clock/testing/fake_clock.go
 */

/** An opaque timer handle returned by `Clock.setTimeout`. */
export type TimerHandle = unknown;

/** Wall-clock milliseconds and one-shot timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fn` once after `delayMs` milliseconds; returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer; unknown or already fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** The process clock (`Date.now` and the global timers). */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, delayMs) => setTimeout(fn, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Resolves after `delayMs` on `clock`, or early (still resolving, never rejecting) when
 * `signal` aborts. Callers check `signal.aborted` afterwards.
 */
export function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clock.clearTimeout(handle);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const handle = clock.setTimeout(done, Math.max(0, delayMs));
    signal?.addEventListener('abort', done, { once: true });
  });
}

interface FakeTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A manual clock for tests. Time moves only through `step(ms)` / `setTime(ms)`, which fire the
 * due timers in time order. `waitForWaiters(n)` resolves once at least `n` timers are pending,
 * so a test can wait for code under test to go to sleep before moving time.
 */
export class FakeClock implements Clock {
  #nowMs: number;
  #timers: FakeTimer[] = [];
  #nextId = 1;
  #waiters: { n: number; resolve: () => void }[] = [];

  /** @param startMs - initial time in milliseconds since the epoch (default 2024-01-01T00:00:00Z) */
  constructor(startMs = Date.UTC(2024, 0, 1)) {
    this.#nowMs = startMs;
  }

  now(): number {
    return this.#nowMs;
  }

  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.#nextId++, at: this.#nowMs + Math.max(0, delayMs), fn };
    this.#timers.push(timer);
    this.#notifyWaiters();
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle);
  }

  /** Number of timers not yet fired or cleared. */
  pendingTimers(): number {
    return this.#timers.length;
  }

  /** Resolves once at least `n` timers are pending (immediately if they already are). */
  waitForWaiters(n = 1): Promise<void> {
    if (this.#timers.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }

  /** Moves time forward by `deltaMs`, firing every timer due on the way, earliest first. */
  step(deltaMs: number): void {
    this.setTime(this.#nowMs + deltaMs);
  }

  /** Moves time to `ms` (never backwards for timers: timers due at or before `ms` fire). */
  setTime(ms: number): void {
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= ms).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#nowMs = Math.max(this.#nowMs, due.at);
      due.fn();
    }
    this.#nowMs = ms;
  }

  #notifyWaiters(): void {
    const ready = this.#waiters.filter((w) => this.#timers.length >= w.n);
    this.#waiters = this.#waiters.filter((w) => this.#timers.length < w.n);
    for (const w of ready) w.resolve();
  }
}

/**
 * The longest delay a Node timer takes, in milliseconds (2^31−1, about 24.8 days): setTimeout and
 * setInterval fire a longer one after 1 ms (with a TimeoutOverflowWarning).
 */
export const MaxTimerMs = 2 ** 31 - 1;

/** {@link MaxTimerMs} in whole seconds (2,147,483, about 24.8 days): the most a seconds setting that becomes a timer may hold. */
export const MaxTimerSeconds = Math.floor(MaxTimerMs / 1000);

/**
 * `p`'s outcome, or `late()`'s when `ms` milliseconds pass on `clock` first: then `p` is abandoned
 * (a rejection it settles with later is ignored). `late` returns the value to resolve with, or
 * throws the error to reject with.
 */
export async function within<T>(clock: Clock, p: Promise<T>, ms: number, late: () => T): Promise<T> {
  let handle: TimerHandle;
  const timeout = new Promise<T>((resolve, reject) => {
    handle = clock.setTimeout(() => {
      try {
        resolve(late());
      } catch (err) {
        reject(err);
      }
    }, ms);
  });
  p.catch(() => {});
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clock.clearTimeout(handle);
  }
}
