import { realClock, sleep, type Clock } from './clock.js';

/**
 * Exponential backoff with jitter, after k8s.io/apimachinery's `wait.Backoff` as the reflector
 * uses it: each `next()` returns the current delay (plus up to `jitter` of it, at random) and
 * multiplies the delay by `factor`, up to `maxMs`; `reset()` starts over after a success.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/util/wait/backoff.go
 */
export interface BackoffOptions {
  /** First delay, in milliseconds. Default 200. */
  initialMs?: number;
  /** Largest delay (jitter included), in milliseconds. Default 30 000. */
  maxMs?: number;
  /** Growth per step. Default 2. */
  factor?: number;
  /** Fraction of the delay added at random, 0..1. Default 0.2. */
  jitter?: number;
  /** Source of randomness in [0, 1) (inject for deterministic tests). Default Math.random. */
  random?: () => number;
}

/** A backoff sequence; see the module comment. */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #factor: number;
  readonly #jitter: number;
  readonly #random: () => number;
  #currentMs: number;

  constructor(options: BackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? 200;
    this.#maxMs = options.maxMs ?? 30_000;
    this.#factor = options.factor ?? 2;
    this.#jitter = options.jitter ?? 0.2;
    this.#random = options.random ?? Math.random;
    this.#currentMs = this.#initialMs;
  }

  /** The next delay in milliseconds; advances the sequence. */
  next(): number {
    const base = this.#currentMs;
    this.#currentMs = Math.min(this.#maxMs, this.#currentMs * this.#factor);
    return Math.min(this.#maxMs, Math.round(base * (1 + this.#jitter * this.#random())));
  }

  /** Starts the sequence over at `initialMs`. */
  reset(): void {
    this.#currentMs = this.#initialMs;
  }
}

/** How {@link retryWithBackoff} waits and says why it retries. */
export interface RetryOptions {
  /** Stops the retries: the promise resolves undefined once it aborts (an attempt running then is not awaited further). */
  signal: AbortSignal;
  /** Called after each failed attempt, before the wait: the error and the wait that follows, in milliseconds. */
  onError: (err: unknown, retryInMs: number) => void;
  /** The delays. Default 200 ms doubling up to 30 s, with 20% jitter (a reflector's list retries). */
  backoff?: BackoffOptions;
  /** Default {@link realClock}. */
  clock?: Clock;
}

/**
 * Runs `attempt` until it resolves or `signal` aborts, waiting a {@link Backoff} delay after each
 * failure, as a reflector retries its list: a server that is not up yet, restarts or refuses gets
 * an `onError` per attempt, not a caller that gives up.
 * @returns what `attempt` resolved to, or undefined when the signal aborted first
 */
export async function retryWithBackoff<T>(attempt: () => Promise<T>, opts: RetryOptions): Promise<T | undefined> {
  const backoff = new Backoff(opts.backoff);
  while (!opts.signal.aborted) {
    try {
      return await attempt();
    } catch (err) {
      if (opts.signal.aborted) break;
      const retryInMs = backoff.next();
      opts.onError(err, retryInMs);
      await sleep(opts.clock ?? realClock, retryInMs, opts.signal);
    }
  }
  return undefined;
}
