import { describe, expect, it } from 'vitest';
import { FakeClock, sleep, within } from './clock.js';

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

describe('within', () => {
  it('passes through what settles in time', async () => {
    const clock = new FakeClock();
    await expect(within(clock, Promise.resolve(7), 1000, () => 0)).resolves.toBe(7);
    await expect(within(clock, Promise.reject(new Error('refused')), 1000, () => 0)).rejects.toThrow('refused');
  });

  it("when time is up: late()'s value, or its error; what the promise does later is ignored", async () => {
    const clock = new FakeClock();
    let fail!: (e: Error) => void;
    const hung = new Promise<number>((_, reject) => (fail = reject));
    const value = within(clock, hung, 20, () => -1);
    const error = within(clock, hung, 20, () => {
      throw new Error('the API did not answer within 0.02s');
    });
    clock.step(20);
    await expect(value).resolves.toBe(-1);
    await expect(error).rejects.toThrow('the API did not answer within 0.02s');
    fail(new Error('timed out after 30000 ms')); // no unhandled rejection
    await new Promise((r) => setTimeout(r, 10));
  });
});
