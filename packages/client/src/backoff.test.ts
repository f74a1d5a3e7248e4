import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff.js';

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
