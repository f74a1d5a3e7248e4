import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { leastAllocated } from './least-allocated.js';

describe('LeastAllocated score', () => {
  it.each([
    { name: 'empty', input: { capacity: 10, placed: 0 }, want: 100 },
    { name: 'a quarter used', input: { capacity: 200, placed: 50 }, want: 75 },
    { name: 'full', input: { capacity: 10, placed: 10 }, want: 0 },
    { name: 'over capacity clamps', input: { capacity: 10, placed: 12 }, want: 0 },
    { name: 'no capacity set', input: { capacity: undefined, placed: 1000 }, want: 100 },
  ])('$name', ({ input, want }) => {
    const mc = info('a', { placed: input.placed });
    const cluster = { ...mc, capacity: input.capacity ?? Infinity };
    expect(leastAllocated.score(hostedCluster(), cluster)).toBe(want);
  });

  it('prefers the emptier cluster by share, not by free slots', () => {
    const big = info('big', { capacity: 100, placed: 60 }); // 40 free, 60 % used
    const small = info('small', { capacity: 10, placed: 2 }); // 8 free, 20 % used
    expect(leastAllocated.score(hostedCluster(), small)).toBeGreaterThan(leastAllocated.score(hostedCluster(), big));
  });
});
