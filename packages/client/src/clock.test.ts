import { describe, expect, it } from 'vitest';
import { FakeClock, sleep } from './clock.js';

describe('FakeClock', () => {
  it('fires due timers in time order and advances now', () => {
    const c = new FakeClock(1000);
    const fired: string[] = [];
    c.setTimeout(() => fired.push(`b@${c.now()}`), 20);
    c.setTimeout(() => fired.push(`a@${c.now()}`), 10);
    const h = c.setTimeout(() => fired.push('cleared'), 15);
    c.clearTimeout(h);
    c.step(15);
    expect(fired).toEqual(['a@1010']);
    expect(c.now()).toBe(1015);
    c.step(100);
    expect(fired).toEqual(['a@1010', 'b@1020']);
    expect(c.now()).toBe(1115);
    expect(c.pendingTimers()).toBe(0);
  });

  it('fires timers scheduled by a firing timer when they are due', () => {
    const c = new FakeClock(0);
    const fired: number[] = [];
    c.setTimeout(() => {
      fired.push(c.now());
      c.setTimeout(() => fired.push(c.now()), 5);
    }, 5);
    c.step(20);
    expect(fired).toEqual([5, 10]);
  });

  it('waitForWaiters resolves once enough timers are pending', async () => {
    const c = new FakeClock(0);
    const waiting = c.waitForWaiters(2);
    c.setTimeout(() => {}, 1);
    let done = false;
    void waiting.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    c.setTimeout(() => {}, 1);
    await waiting;
  });

  it('sleep resolves on time or on abort', async () => {
    const c = new FakeClock(0);
    const slept = sleep(c, 50);
    c.step(50);
    await slept;
    const ac = new AbortController();
    const aborted = sleep(c, 1_000_000, ac.signal);
    ac.abort();
    await aborted;
    expect(c.pendingTimers()).toBe(0);
  });
});
