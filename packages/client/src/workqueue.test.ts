import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-errors.js';
import { FakeClock } from './clock.js';
import { ExponentialRateLimiter, Skipped, WorkQueue } from './workqueue.js';

/** A pino logger whose lines land in `lines`. */
function captureLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('ExponentialRateLimiter', () => {
  it.each([
    { name: 'client-go defaults: 5 ms doubling', input: { options: {}, failures: 5 }, want: [5, 10, 20, 40, 80] },
    { name: 'capped at maxDelayMs', input: { options: { baseDelayMs: 100, maxDelayMs: 350 }, failures: 4 }, want: [100, 200, 350, 350] },
    { name: 'default cap 1000 s', input: { options: {}, failures: 30 }, want: [...[5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960, 81920, 163840, 327680, 655360], ...Array(12).fill(1_000_000)] },
  ])('$name', ({ input, want }) => {
    const r = new ExponentialRateLimiter(input.options);
    expect(Array.from({ length: input.failures }, () => r.when('k'))).toEqual(want);
    expect(r.numRequeues('k')).toBe(input.failures);
    r.forget('k');
    expect(r.numRequeues('k')).toBe(0);
  });
});

describe('WorkQueue', () => {
  it('coalesces keys that wait, keeps FIFO order, counts adds', async () => {
    const q = new WorkQueue();
    for (const k of ['a', 'b', 'a', 'c', 'b']) q.add(k);
    expect(q.len()).toBe(3);
    expect(q.adds).toBe(3);
    expect([await q.get(), await q.get(), await q.get()]).toEqual(['a', 'b', 'c']);
    expect(q.depth).toBe(0);
  });

  it('re-queues a key added while processing only after done, never handing it out twice', async () => {
    const q = new WorkQueue();
    q.add('a');
    const key = await q.get();
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await flush();
    expect(second).toBeUndefined();
    q.done(key!);
    await flush();
    expect(second).toBe('a');
  });

  it('addAfter fires on the clock and keeps the earliest time per key', () => {
    const clock = new FakeClock(0);
    const q = new WorkQueue({ clock });
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    q.addAfter('a', 500);
    q.addAfter('b', 0);
    expect(q.len()).toBe(1);
    clock.step(49);
    expect(q.len()).toBe(1);
    clock.step(1);
    expect(q.len()).toBe(2);
    clock.step(1000);
    expect(q.len()).toBe(2);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('addRateLimited backs off per key and forget resets', () => {
    const clock = new FakeClock(0);
    const q = new WorkQueue({ clock, baseDelayMs: 10 });
    q.addRateLimited('a');
    clock.step(9);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    q.addRateLimited('b');
    q.addRateLimited('b');
    expect(q.numRequeues('b')).toBe(2);
    expect(q.retries).toBe(3);
    q.forget('b');
    expect(q.numRequeues('b')).toBe(0);
  });

  it('shutdown ignores new adds, drops delayed ones, drains queued keys, then get() yields undefined', async () => {
    const clock = new FakeClock(0);
    const q = new WorkQueue({ clock });
    q.add('a');
    q.addAfter('later', 10);
    let drained = false;
    const shutdown = q.shutdown().then(() => (drained = true));
    q.add('b');
    expect(clock.pendingTimers()).toBe(0);
    expect(await q.get()).toBe('a');
    await flush();
    expect(drained).toBe(false);
    q.done('a');
    await shutdown;
    expect(await q.get()).toBeUndefined();
  });
});

describe('WorkQueue.runWorkers', () => {
  it('processes keys concurrently but never one key twice at once', async () => {
    const q = new WorkQueue();
    const running = new Set<string>();
    let maxParallel = 0;
    let overlaps = 0;
    const seen: string[] = [];
    const ac = new AbortController();
    const workers = q.runWorkers(
      4,
      async (key) => {
        if (running.has(key)) overlaps++;
        running.add(key);
        maxParallel = Math.max(maxParallel, running.size);
        seen.push(key);
        await flush();
        if (seen.filter((k) => k === key).length === 1) q.add(key); // re-added while processing
        running.delete(key);
      },
      { signal: ac.signal },
    );
    for (const k of ['a', 'b', 'c', 'd']) q.add(k);
    while (seen.length < 8) await flush();
    ac.abort();
    await workers;
    expect(overlaps).toBe(0);
    expect(maxParallel).toBe(4);
  });

  it('maps results to forget / addAfter / addRateLimited and logs each once', async () => {
    const clock = new FakeClock(0);
    const q = new WorkQueue({ clock, baseDelayMs: 10 });
    const { logger, lines } = captureLogger();
    const calls: string[] = [];
    const ac = new AbortController();
    const workers = q.runWorkers(
      2,
      async (key) => {
        calls.push(key);
        if (key === 'ok') return;
        if (key === 'unchanged') return Skipped;
        if (key === 'poll') return { requeueAfterMs: 1000 };
        if (key === 'conflict') throw new ApiError(409, { kind: 'Status', code: 409, reason: 'Conflict', message: 'the object has been modified' });
        throw new Error('boom');
      },
      { signal: ac.signal, logger, name: 'test-ctrl' },
    );
    for (const k of ['ok', 'unchanged', 'poll', 'conflict', 'fail']) q.add(k);
    while (q.inFlight > 0 || q.len() > 0) await flush();

    expect(q.numRequeues('ok')).toBe(0);
    expect(q.numRequeues('unchanged')).toBe(0);
    expect(q.numRequeues('poll')).toBe(0);
    expect(q.numRequeues('conflict')).toBe(1);
    expect(q.numRequeues('fail')).toBe(1);
    const byKey = Object.fromEntries(lines.map((l) => [l.key, l]));
    expect(byKey.ok).toMatchObject({ level: 30, controller: 'test-ctrl', result: 'success' });
    // A pass that wrote nothing: done, its line at debug (STYLE.md: skips go to debug).
    expect(byKey.unchanged).toMatchObject({ level: 20, controller: 'test-ctrl', result: 'skipped' });
    expect(byKey.poll).toMatchObject({ level: 30, result: 'requeue', requeueAfterMs: 1000 });
    expect(byKey.conflict).toMatchObject({ level: 20, result: 'conflict' });
    expect(byKey.fail).toMatchObject({ level: 40, result: 'error', err: { message: 'boom' } });
    expect(lines).toHaveLength(5);

    clock.step(10); // rate-limited retries of conflict and fail
    while (calls.length < 7) await flush();
    expect(calls.slice(5).sort()).toEqual(['conflict', 'fail']);
    while (q.inFlight > 0) await flush();
    expect(q.numRequeues('fail')).toBe(2);
    clock.step(1000); // poll's requeue (fail's 20 ms retry too)
    while (calls.length < 10) await flush();
    expect(calls.filter((k) => k === 'poll')).toHaveLength(2);
    expect(calls.filter((k) => k === 'unchanged')).toHaveLength(1);

    ac.abort();
    await workers;
    expect(q.shuttingDown()).toBe(true);
  });

  it('drains queued keys after the signal aborts, then resolves', async () => {
    const q = new WorkQueue();
    const done: string[] = [];
    const ac = new AbortController();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const workers = q.runWorkers(
      1,
      async (key, signal) => {
        if (key === 'first') await gate;
        done.push(`${key}${signal.aborted ? ' (aborted)' : ''}`);
      },
      { signal: ac.signal },
    );
    q.add('first');
    await flush();
    q.add('second');
    ac.abort();
    q.add('third'); // refused after shutdown
    release();
    await workers;
    expect(done).toEqual(['first (aborted)', 'second (aborted)']);
  });
});
