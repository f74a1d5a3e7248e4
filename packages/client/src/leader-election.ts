/**
 * Leader election on a `coordination.k8s.io/v1` Lease, after client-go's
 * `tools/leaderelection` with a `LeaseLock`.
 *
 * Contract:
 * - Acquire when the Lease is absent, released (empty `holderIdentity`) or expired; renew every
 *   `retryPeriodSeconds`; a renew cycle that has not succeeded within `renewDeadlineSeconds`
 *   loses leadership. Writes are PUTs carrying the read `resourceVersion`, so of two candidates
 *   only one wins (the other gets 409).
 * - Expiry uses the observed-time rule: a Lease is expired when *our* clock says
 *   `leaseDurationSeconds` passed since we last saw its record change. Remote timestamps are
 *   written for humans and other clients, never compared, so clock skew between hosts is harmless.
 * - With `leaseDurationSeconds > renewDeadlineSeconds`, a leader gives up before any other
 *   candidate can consider its Lease expired; the gap is the safety margin for skewed *rates*.
 * - On `signal` abort the leader stops its work, waits for `onStartedLeading`'s promise, then
 *   releases the Lease (empty holder, `leaseDurationSeconds: 1`) so a successor takes over at
 *   its next retry instead of after a full lease duration.
 * Deviation from client-go: a leader that sees another valid holder steps down at once instead of
 * waiting for its renew deadline, and `onStoppedLeading` runs only if we actually led.
 * @see https://github.com/kubernetes/client-go/blob/master/tools/leaderelection/leaderelection.go
 */
import { pino, type Logger } from 'pino';
import { ApiError, isConflict, isNotFound, problemText, RequestError } from './api-errors.js';
import { realClock, sleep, within, type Clock } from './clock.js';
import type { RestClient } from './rest.js';
import type { KubeObject, ResourceRef } from './types.js';

/** The Lease resource. */
export const leaseResource: ResourceRef = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true };

/** coordination.k8s.io/v1 Lease as JSON. Times are RFC 3339 MicroTime. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** The calls leader election makes; a `RestClient` fits. */
export type LeaseClient = Pick<RestClient, 'get' | 'create' | 'update'>;

/** Options of `runLeaderElection`. Durations mirror client-go's and keep its units (seconds). */
export interface LeaderElectionOptions {
  client: LeaseClient;
  /** Namespace and name of the Lease (e.g. `hcc-system` / `hcc-scheduler`). */
  namespace: string;
  name: string;
  /** This candidate's unique id, e.g. `hostname_uuid`. */
  identity: string;
  /** How long a Lease stays valid after its last observed change. Default 15. */
  leaseDurationSeconds?: number;
  /** How long a leader keeps retrying a failing renew before it gives up. Default 10. */
  renewDeadlineSeconds?: number;
  /** Time between tries (acquire attempts get up to 1.2x jitter on top). Default 2. */
  retryPeriodSeconds?: number;
  /**
   * Called when this candidate becomes leader. `signal` aborts when leadership ends. May return
   * a promise: on a voluntary stop the Lease is released only after it settles. `isLeading()`
   * says whether the Lease is still surely ours right now: the last successful renew began less
   * than `renewDeadlineSeconds` ago (by this process's clock), so no other candidate can have
   * taken it (that needs `leaseDurationSeconds` without a renew). A process frozen for longer
   * (SIGSTOP, a long pause) learns it before its renew loop notices: check it before each action
   * that two leaders must not both take (client-go's `Check`).
   */
  onStartedLeading(signal: AbortSignal, isLeading: () => boolean): void | Promise<void>;
  /** Called once after leading ended (lost, or stopped through `signal`). */
  onStoppedLeading(): void;
  /** Called when the observed holder changes (including to ourselves); never for an empty holder. */
  onNewLeader?(identity: string): void;
  /** Stops the election (releasing the Lease if we hold it). */
  signal?: AbortSignal;
  /** Release the Lease on stop. Default true. */
  releaseOnCancel?: boolean;
  clock?: Clock;
  /** Randomness in [0, 1) for the acquire jitter. Default Math.random. */
  random?: () => number;
  logger?: Logger;
}

/** Formats milliseconds since the epoch as metav1.MicroTime: `2006-01-02T15:04:05.000000Z`. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const jitterFactor = 1.2;

/**
 * Campaigns for the Lease and runs `onStartedLeading` while holding it; see the module comment.
 * Resolves when leadership ended (lost or stopped), or when `signal` aborts before we won.
 * Rerun it to campaign again; most processes exit instead.
 * @throws Error for invalid durations (`leaseDurationSeconds` must exceed `renewDeadlineSeconds`,
 *   which must exceed 1.2 × `retryPeriodSeconds`); API errors never escape, they are retried
 */
export async function runLeaderElection(options: LeaderElectionOptions): Promise<void> {
  await new LeaderElector(options).run();
}

class LeaderElector {
  readonly #o: LeaderElectionOptions;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #log: Logger;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  /** Last Lease read or written (for its resourceVersion). */
  #lease: Lease | undefined;
  #observedRecord = '';
  #observedHolder = '';
  #observedDurationMs = 0;
  #observedTimeMs = 0;
  #reportedLeader = '';
  #finished = false;
  /** When the last successful acquire or renew began (ms, this process's clock). */
  #lastRenewMs = -Infinity;

  constructor(options: LeaderElectionOptions) {
    const leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
    const renewDeadlineSeconds = options.renewDeadlineSeconds ?? 10;
    const retryPeriodSeconds = options.retryPeriodSeconds ?? 2;
    if (leaseDurationSeconds <= renewDeadlineSeconds) throw new Error('leaseDurationSeconds must be greater than renewDeadlineSeconds');
    if (renewDeadlineSeconds <= jitterFactor * retryPeriodSeconds) throw new Error('renewDeadlineSeconds must be greater than 1.2 × retryPeriodSeconds');
    if (retryPeriodSeconds <= 0) throw new Error('retryPeriodSeconds must be greater than 0');
    if (!options.identity) throw new Error('identity must not be empty');
    this.#o = options;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#log = (options.logger ?? pino({ enabled: false })).child({ lease: `${options.namespace}/${options.name}`, identity: options.identity });
    this.#leaseDurationMs = leaseDurationSeconds * 1000;
    this.#renewDeadlineMs = renewDeadlineSeconds * 1000;
    this.#retryPeriodMs = retryPeriodSeconds * 1000;
  }

  async run(): Promise<void> {
    const stop = this.#o.signal;
    try {
      if (!(await this.#acquire(stop))) return;
      this.#log.info('acquired lease; leading');
      const leading = new AbortController();
      const isLeading = () => !leading.signal.aborted && this.#clock.now() - this.#lastRenewMs < this.#renewDeadlineMs;
      const work = (async () => this.#o.onStartedLeading(leading.signal, isLeading))().catch((err: unknown) => {
        this.#log.error({ err }, 'onStartedLeading failed');
      });
      const lost = await this.#renewLoop(stop);
      leading.abort();
      if (lost) {
        this.#log.warn('lost lease; stopped leading');
      } else if (this.#o.releaseOnCancel ?? true) {
        await work;
        await this.#release();
      }
      this.#o.onStoppedLeading();
    } finally {
      this.#finished = true;
    }
  }

  /** Tries until we hold the Lease (true) or `stop` aborts (false). */
  async #acquire(stop: AbortSignal | undefined): Promise<boolean> {
    for (;;) {
      if (stop?.aborted) return false;
      if (await this.#tryAcquireOrRenew()) return true;
      if (stop?.aborted) return false;
      this.#log.debug({ holder: this.#observedHolder }, 'lease held elsewhere; retrying');
      await sleep(this.#clock, this.#retryPeriodMs * (1 + jitterFactor * this.#random()), stop);
    }
  }

  /** Renews until a cycle misses its deadline or another holder shows up (true), or `stop` aborts (false). */
  async #renewLoop(stop: AbortSignal | undefined): Promise<boolean> {
    for (;;) {
      await sleep(this.#clock, this.#retryPeriodMs, stop);
      if (stop?.aborted) return false;
      const deadlineMs = this.#clock.now() + this.#renewDeadlineMs;
      let renewed = false;
      for (;;) {
        const remainingMs = deadlineMs - this.#clock.now();
        if (remainingMs <= 0) break;
        // False when the deadline passes first (the attempt is abandoned).
        renewed = await within(this.#clock, this.#tryAcquireOrRenew(), remainingMs, () => false);
        if (renewed || stop?.aborted) break;
        if (this.#heldByOther()) {
          this.#log.warn({ holder: this.#observedHolder }, 'lease taken by another holder');
          return true;
        }
        await sleep(this.#clock, Math.min(this.#retryPeriodMs, deadlineMs - this.#clock.now()), stop);
        if (stop?.aborted) break;
      }
      if (stop?.aborted) return false;
      if (!renewed) {
        this.#log.warn({ renewDeadlineSeconds: this.#renewDeadlineMs / 1000 }, 'failed to renew lease within the deadline');
        return true;
      }
    }
  }

  /** One acquire-or-renew attempt; false on any failure (logged), true when we hold the Lease. */
  async #tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name, identity } = this.#o;
    const nowMs = this.#clock.now();

    // Fast path: as leader, renew from the Lease we last wrote without reading it first.
    if (this.#lease && this.#observedHolder === identity) {
      try {
        this.#observe(await client.update<Lease>(leaseResource, namespace, this.#desired(this.#lease, nowMs)));
        this.#lastRenewMs = nowMs;
        return true;
      } catch (err) {
        if (!isConflict(err)) return this.#failed(err, 'renew');
      }
    }

    let current: Lease;
    try {
      current = await client.get<Lease>(leaseResource, namespace, name);
    } catch (err) {
      if (!isNotFound(err)) return this.#failed(err, 'get');
      const t = formatMicroTime(nowMs);
      const lease: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { namespace, name },
        spec: { holderIdentity: identity, leaseDurationSeconds: this.#leaseDurationMs / 1000, acquireTime: t, renewTime: t, leaseTransitions: 0 },
      };
      try {
        this.#observe(await client.create<Lease>(leaseResource, namespace, lease));
        this.#lastRenewMs = nowMs;
        return true;
      } catch (createErr) {
        return this.#failed(createErr, 'create');
      }
    }
    this.#observe(current);
    if (this.#heldByOther()) return false;
    try {
      this.#observe(await client.update<Lease>(leaseResource, namespace, this.#desired(current, this.#clock.now())));
      this.#lastRenewMs = nowMs;
      return true;
    } catch (err) {
      return this.#failed(err, 'update');
    }
  }

  /** The Lease with us as holder: keeps acquireTime and transitions if we already held it. */
  #desired(lease: Lease, nowMs: number): Lease {
    const old = lease.spec ?? {};
    const t = formatMicroTime(nowMs);
    const ours = old.holderIdentity === this.#o.identity;
    return {
      ...lease,
      metadata: { ...lease.metadata },
      spec: {
        ...old,
        holderIdentity: this.#o.identity,
        leaseDurationSeconds: this.#leaseDurationMs / 1000,
        acquireTime: ours && old.acquireTime ? old.acquireTime : t,
        renewTime: t,
        leaseTransitions: ours ? (old.leaseTransitions ?? 0) : (old.leaseTransitions ?? 0) + 1,
      },
    };
  }

  /** Records a Lease read or written; restarts the expiry clock when its record changed. */
  #observe(lease: Lease): void {
    if (this.#finished) return;
    this.#lease = lease;
    const s = lease.spec ?? {};
    const record = JSON.stringify([s.holderIdentity ?? '', s.leaseDurationSeconds, s.acquireTime, s.renewTime, s.leaseTransitions]);
    if (record === this.#observedRecord) return;
    this.#observedRecord = record;
    this.#observedTimeMs = this.#clock.now();
    this.#observedHolder = s.holderIdentity ?? '';
    this.#observedDurationMs = (s.leaseDurationSeconds ?? this.#leaseDurationMs / 1000) * 1000;
    if (this.#observedHolder && this.#observedHolder !== this.#reportedLeader) {
      this.#reportedLeader = this.#observedHolder;
      this.#log.info({ leader: this.#observedHolder }, 'new leader observed');
      try {
        this.#o.onNewLeader?.(this.#observedHolder);
      } catch (err) {
        this.#log.warn({ err }, 'onNewLeader threw; ignored');
      }
    }
  }

  /** Someone else holds a Lease that has not expired by our observation. */
  #heldByOther(): boolean {
    const h = this.#observedHolder;
    return h !== '' && h !== this.#o.identity && this.#clock.now() < this.#observedTimeMs + this.#observedDurationMs;
  }

  #failed(err: unknown, op: string): false {
    if (isConflict(err)) this.#log.debug({ op }, 'lease write conflict');
    else this.#log.warn({ err, op }, 'lease request failed');
    return false;
  }

  /** Gives the Lease up: empty holder and a 1 s duration, so successors need not wait. */
  async #release(): Promise<void> {
    const { client, namespace, name, identity } = this.#o;
    const release = async (lease: Lease) => {
      const t = formatMicroTime(this.#clock.now());
      await client.update<Lease>(leaseResource, namespace, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: t, renewTime: t, leaseTransitions: lease.spec?.leaseTransitions ?? 0 },
      });
    };
    try {
      if (!this.#lease) return;
      try {
        await release(this.#lease);
      } catch (err) {
        if (!isConflict(err)) throw err;
        const current = await client.get<Lease>(leaseResource, namespace, name);
        if (current.spec?.holderIdentity === identity) await release(current);
      }
      this.#log.info('released lease');
    } catch (err) {
      // Stopped with the API server (`hcc up` stops everything at once; its graceful shutdown
      // answers 429) or cut off from it: nothing is wrong, the Lease just runs out.
      const stopping = (err instanceof ApiError && err.code === 429) || err instanceof RequestError;
      if (stopping) this.#log.info({ err: problemText(err), leaseDurationSeconds: this.#lease?.spec?.leaseDurationSeconds }, 'could not release the lease (the API server is stopping or unreachable); it expires after its duration');
      else this.#log.warn({ err }, 'failed to release lease');
    }
  }
}
