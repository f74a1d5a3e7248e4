import { describe, expect, it } from 'vitest';
import { Backoff, retryWithBackoff } from './backoff.js';
import { FakeClock } from './clock.js';

describe('Backoff', () => {
  it.each([
    { name: 'doubles up to the cap, no jitter', input: { initialMs: 200, maxMs: 1000, random: () => 0, steps: 5 }, want: [200, 400, 800, 1000, 1000] },
    { name: 'full jitter adds 20% but never passes the cap', input: { initialMs: 200, maxMs: 1000, random: () => 0.999999, steps: 4 }, want: [240, 480, 960, 1000] },
    { name: 'defaults 200 ms → 30 s', input: { random: () => 0, steps: 9 }, want: [200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000] },
  ])('$name', ({ input, want }) => {
    const b = new Backoff(input);
    expect(Array.from({ length: input.steps }, () => b.next())).toEqual(want);
  });

  it('reset starts over', () => {
    const b = new Backoff({ initialMs: 10, random: () => 0 });
    b.next();
    b.next();
    b.reset();
    expect(b.next()).toBe(10);
  });
});

describe('retryWithBackoff', () => {
  it('retries failures after the backoff delays and returns the first success', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const errors: Array<[string, number]> = [];
    const p = retryWithBackoff(
      async () => {
        calls++;
        if (calls < 3) throw new Error(`fail ${calls}`);
        return 'ok';
      },
      { signal: new AbortController().signal, clock, backoff: { initialMs: 100, random: () => 0 }, onError: (err, ms) => errors.push([(err as Error).message, ms]) },
    );
    await clock.waitForWaiters(1);
    expect(calls).toBe(1);
    clock.step(99);
    expect(calls).toBe(1);
    clock.step(1);
    await clock.waitForWaiters(1);
    expect(calls).toBe(2);
    clock.step(200);
    await expect(p).resolves.toBe('ok');
    expect(calls).toBe(3);
    expect(errors).toEqual([['fail 1', 100], ['fail 2', 200]]);
  });

  it('resolves undefined once the signal aborts, mid-wait or before the first attempt', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    let calls = 0;
    const p = retryWithBackoff(async () => { calls++; throw new Error('down'); }, { signal: ac.signal, clock, onError: () => {} });
    await clock.waitForWaiters(1);
    ac.abort();
    await expect(p).resolves.toBeUndefined();
    expect(calls).toBe(1);
    await expect(retryWithBackoff(async () => 'never', { signal: ac.signal, clock, onError: () => {} })).resolves.toBeUndefined();
  });
});
