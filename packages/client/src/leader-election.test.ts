import { afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { ApiError, RequestError } from './api-errors.js';
import { FakeClock } from './clock.js';
import { formatMicroTime, leaseResource, runLeaderElection, type Lease, type LeaderElectionOptions, type LeaseClient } from './leader-election.js';
import { RestClient } from './rest.js';
import { FakeApiServer } from './testing/fake-apiserver.js';
import type { KubeObject, ResourceRef } from './types.js';

/** One Lease in memory with resourceVersion semantics; `failing` makes every call a transport error. */
class MemoryLeases implements LeaseClient {
  lease: Lease | undefined;
  failing = false;
  calls: string[] = [];
  #rv = 0;

  async get<T = KubeObject>(_ref: ResourceRef, _ns: string | undefined, name: string): Promise<T> {
    this.#check('get');
    if (!this.lease) throw new ApiError(404, { kind: 'Status', code: 404, reason: 'NotFound', message: `leases "${name}" not found` });
    return structuredClone(this.lease) as T;
  }

  async create<T extends KubeObject = KubeObject>(_ref: ResourceRef, _ns: string | undefined, obj: T): Promise<T> {
    this.#check('create');
    if (this.lease) throw new ApiError(409, { kind: 'Status', code: 409, reason: 'AlreadyExists', message: 'exists' });
    return this.#store(obj) as T;
  }

  async update<T extends KubeObject = KubeObject>(_ref: ResourceRef, _ns: string | undefined, obj: T): Promise<T> {
    this.#check('update');
    if (!this.lease) throw new ApiError(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' });
    if (obj.metadata.resourceVersion !== this.lease.metadata.resourceVersion) {
      throw new ApiError(409, { kind: 'Status', code: 409, reason: 'Conflict', message: 'the object has been modified' });
    }
    return this.#store(obj) as T;
  }

  /** Another writer replaces the spec (bumps the resourceVersion). */
  overwrite(spec: Lease['spec']): void {
    this.#store({ ...(this.lease ?? { metadata: { namespace: 'hcc-system', name: 'sched' } }), spec });
  }

  #store(obj: KubeObject): KubeObject {
    this.lease = structuredClone({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.#rv) } }) as Lease;
    return structuredClone(this.lease);
  }

  #check(call: string): void {
    this.calls.push(call);
    if (this.failing) throw new RequestError(`${call}: connection refused`);
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

const T0 = Date.UTC(2024, 0, 1, 12, 0, 0);

function candidate(identity: string, leases: LeaseClient, clock: FakeClock, extra: Partial<LeaderElectionOptions> = {}) {
  const ac = new AbortController();
  const events: string[] = [];
  let leading: AbortSignal | undefined;
  let isLeading: (() => boolean) | undefined;
  const done = runLeaderElection({
    client: leases,
    namespace: 'hcc-system',
    name: 'sched',
    identity,
    clock,
    random: () => 0,
    signal: ac.signal,
    onStartedLeading: (signal, check) => {
      leading = signal;
      isLeading = check;
      events.push('started');
    },
    onStoppedLeading: () => events.push('stopped'),
    onNewLeader: (id) => events.push(`leader ${id}`),
    ...extra,
  });
  let finished = false;
  void done.then(() => (finished = true));
  return { ac, events, done, leading: () => leading, isLeading: () => isLeading?.() ?? false, finished: () => finished };
}

async function advance(clock: FakeClock, ms: number, stepMs = 1000) {
  for (let t = 0; t < ms; t += stepMs) {
    clock.step(Math.min(stepMs, ms - t));
    await flush();
  }
}

describe('runLeaderElection', () => {
  it('creates an absent Lease, renews it, and releases it on stop', async () => {
    const clock = new FakeClock(T0);
    const leases = new MemoryLeases();
    const a = candidate('a', leases, clock);
    await flush();
    expect(a.events).toEqual(['leader a', 'started']);
    expect(leases.lease?.spec).toEqual({ holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: '2024-01-01T12:00:00.000000Z', renewTime: '2024-01-01T12:00:00.000000Z', leaseTransitions: 0 });
    expect(leases.lease).toMatchObject({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { namespace: 'hcc-system', name: 'sched' } });

    leases.calls.length = 0;
    await advance(clock, 2000);
    expect(leases.lease?.spec).toMatchObject({ holderIdentity: 'a', acquireTime: '2024-01-01T12:00:00.000000Z', renewTime: '2024-01-01T12:00:02.000000Z', leaseTransitions: 0 });
    expect(leases.calls).toEqual(['update']); // renews without reading first

    a.ac.abort();
    await a.done;
    expect(a.leading()?.aborted).toBe(true);
    expect(a.events).toEqual(['leader a', 'started', 'stopped']);
    expect(leases.lease?.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
  });

  it('says at info, not as a warning, that a release found the API server stopping (429) or gone; any other failure warns', async () => {
    for (const [what, fail, level] of [
      ['429 shutting down', () => new ApiError(429, { kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'The apiserver is shutting down, please try again later.' }), 30],
      ['connection refused', () => new RequestError('PUT leases: connection refused'), 30],
      ['403', () => new ApiError(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' }), 40],
    ] as const) {
      const lines: { level: number; msg: string }[] = [];
      const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
      const clock = new FakeClock(T0);
      const leases = new MemoryLeases();
      const a = candidate('a', leases, clock, { logger });
      await flush();
      expect(a.events, what).toEqual(['leader a', 'started']);
      leases.update = async () => {
        throw fail();
      };
      a.ac.abort();
      await a.done;
      const release = lines.find((l) => /release the lease|failed to release lease/.test(l.msg));
      expect(release?.level, what).toBe(level);
    }
  });

  it('releases only after onStartedLeading has wound down', async () => {
    const clock = new FakeClock(T0);
    const leases = new MemoryLeases();
    const order: string[] = [];
    const a = candidate('a', leases, clock, {
      onStartedLeading: async (signal) => {
        await new Promise((r) => signal.addEventListener('abort', r));
        await flush();
        order.push(`work done, holder=${leases.lease?.spec?.holderIdentity}`);
      },
      onStoppedLeading: () => order.push(`stopped, holder=${leases.lease?.spec?.holderIdentity}`),
    });
    await flush();
    a.ac.abort();
    await a.done;
    expect(order).toEqual(['work done, holder=a', 'stopped, holder=']);
  });

  it('lets a waiting candidate take over right after a release, counting the transition', async () => {
    const clock = new FakeClock(T0);
    const leases = new MemoryLeases();
    const a = candidate('a', leases, clock);
    await flush();
    const b = candidate('b', leases, clock);
    await flush();
    expect(b.events).toEqual(['leader a']);
    a.ac.abort();
    await a.done;
    await advance(clock, 2000);
    expect(b.events).toEqual(['leader a', 'leader b', 'started']);
    expect(leases.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseDurationSeconds: 15, leaseTransitions: 1, acquireTime: '2024-01-01T12:00:02.000000Z' });
    b.ac.abort();
    await b.done;
  });

  it('judges expiry by when it last saw the record change, not by remote timestamps', async () => {
    const clock = new FakeClock(T0);
    const leases = new MemoryLeases();
    // Written by a host whose clock is far behind; by remote time this lease expired years ago.
    leases.overwrite({ holderIdentity: 'ghost', leaseDurationSeconds: 15, acquireTime: '2000-01-01T00:00:00.000000Z', renewTime: '2000-01-01T00:00:00.000000Z', leaseTransitions: 3 });
    const b = candidate('b', leases, clock);
    await flush();
    expect(b.events).toEqual(['leader ghost']);
    await advance(clock, 6000);
    // The ghost renews (its record changes); b sees that at its next retry (t = 8 s), and the
    // 15 s start over from there: expiry at t = 23 s.
    leases.overwrite({ ...leases.lease!.spec, renewTime: '2000-01-01T00:00:06.000000Z' });
    await advance(clock, 16_000); // t = 22 s
    expect(b.events).toEqual(['leader ghost']);
    await advance(clock, 2000); // t = 24 s: first retry after expiry
    expect(b.events).toEqual(['leader ghost', 'leader b', 'started']);
    expect(leases.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 4 });
    b.ac.abort();
    await b.done;
  });

  it('steps down at once when another holder took the Lease, without releasing it', async () => {
    const clock = new FakeClock(T0);
    const leases = new MemoryLeases();
    const a = candidate('a', leases, clock);
    await flush();
    leases.overwrite({ holderIdentity: 'usurper', leaseDurationSeconds: 15, renewTime: formatMicroTime(clock.now()), leaseTransitions: 1 });
    await advance(clock, 2000);
    await a.done;
    expect(a.events).toEqual(['leader a', 'started', 'leader usurper', 'stopped']);
    expect(a.leading()?.aborted).toBe(true);
    expect(leases.lease?.spec?.holderIdentity).toBe('usurper');
  });

  it('gives up when renewals fail for renewDeadlineSeconds', async () => {
    const clock = new FakeClock(T0);
    const leases = new MemoryLeases();
    const a = candidate('a', leases, clock);
    await flush();
    leases.failing = true;
    await advance(clock, 10_000); // the renew cycle began at t = 2 s; its deadline is t = 12 s
    expect(a.finished()).toBe(false);
    expect(a.leading()?.aborted).toBe(false);
    await advance(clock, 2000);
    await a.done;
    expect(a.events).toEqual(['leader a', 'started', 'stopped']);
    expect(leases.calls.filter((c) => c === 'update').length).toBeGreaterThanOrEqual(5);
  });

  it('isLeading turns false the moment the renew deadline passes without a renew (a frozen process), before the renew loop runs', async () => {
    const clock = new FakeClock(T0);
    const leases = new MemoryLeases();
    const a = candidate('a', leases, clock);
    await flush();
    expect(a.isLeading()).toBe(true);
    // Frozen for 11 s: no timer ran, no renew happened; another candidate could hold it by now.
    clock.step(11_000);
    expect(a.isLeading()).toBe(false);
    // Thawed: the renew loop runs, renews (nobody took it here), and it leads surely again.
    await flush();
    await advance(clock, 2000);
    expect(a.isLeading()).toBe(true);
    a.ac.abort();
    await a.done;
    expect(a.isLeading()).toBe(false);
  });

  it('returns without leading when stopped while waiting', async () => {
    const clock = new FakeClock(T0);
    const leases = new MemoryLeases();
    leases.overwrite({ holderIdentity: 'other', leaseDurationSeconds: 15 });
    const b = candidate('b', leases, clock);
    await flush();
    b.ac.abort();
    await b.done;
    expect(b.events).toEqual(['leader other']);
  });

  it.each([
    { name: 'lease not longer than the renew deadline', input: { leaseDurationSeconds: 10, renewDeadlineSeconds: 10 }, want: /leaseDurationSeconds must be greater/ },
    { name: 'renew deadline too close to the retry period', input: { renewDeadlineSeconds: 2, retryPeriodSeconds: 2 }, want: /renewDeadlineSeconds must be greater/ },
    { name: 'empty identity', input: { identity: '' }, want: /identity/ },
  ])('rejects $name', async ({ input, want }) => {
    const opts = { client: new MemoryLeases(), namespace: 'ns', name: 'l', identity: 'x', onStartedLeading: () => {}, onStoppedLeading: () => {}, ...input };
    await expect(runLeaderElection(opts)).rejects.toThrow(want);
  });
});

describe('runLeaderElection against the fake API server', { timeout: 10_000 }, () => {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  it('hands leadership over through a real Lease', async () => {
    const api = await FakeApiServer.start([{ ...leaseResource, kind: 'Lease' }]);
    const client = new RestClient({ server: api.url });
    cleanup.push(() => api.close(), () => client.close());
    const fast = { leaseDurationSeconds: 1, renewDeadlineSeconds: 0.5, retryPeriodSeconds: 0.02 };
    const started: string[] = [];
    const run = (identity: string, signal: AbortSignal) =>
      runLeaderElection({ client, namespace: 'hcc-system', name: 'sched', identity, ...fast, signal, onStartedLeading: () => void started.push(identity), onStoppedLeading: () => {} });
    const a = new AbortController();
    const b = new AbortController();
    const aDone = run('a', a.signal);
    await vi.waitFor(() => expect(started).toEqual(['a']), { interval: 5 });
    const bDone = run('b', b.signal);
    await new Promise((r) => setTimeout(r, 100));
    expect(started).toEqual(['a']);
    a.abort();
    await aDone;
    await vi.waitFor(() => expect(started).toEqual(['a', 'b']), { interval: 5 });
    expect(api.getObject(leaseResource, 'hcc-system/sched')).toMatchObject({ spec: { holderIdentity: 'b', leaseTransitions: 1 } });
    b.abort();
    await bDone;
    expect(api.getObject(leaseResource, 'hcc-system/sched')).toMatchObject({ spec: { holderIdentity: '', leaseTransitions: 1 } });
  });
});
