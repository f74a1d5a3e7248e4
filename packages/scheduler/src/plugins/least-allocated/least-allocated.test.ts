import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { leastAllocated } from './least-allocated.js';

describe('LeastAllocated score', () => {
  it.each([
    { name: 'empty', input: { capacity: 10, hosted: 0 }, want: 100 },
    { name: 'a quarter used', input: { capacity: 200, hosted: 50 }, want: 75 },
    { name: 'reservations not yet reported count', input: { capacity: 200, hosted: 0, placed: 50 }, want: 75 },
    { name: 'foreign HostedClusters the syncer reports count', input: { capacity: 10, hosted: 5, placed: 0 }, want: 50 },
    { name: 'full', input: { capacity: 10, hosted: 10 }, want: 0 },
    { name: 'over capacity clamps', input: { capacity: 10, hosted: 12 }, want: 0 },
  ])('$name', ({ input, want }) => {
    expect(leastAllocated.score(hostedCluster(), info('a', input))).toBe(want);
  });

  it('a cluster without capacity scores 100', () => {
    expect(leastAllocated.score(hostedCluster(), { ...info('a', { hosted: 1000 }), capacity: Infinity })).toBe(100);
  });

  it('prefers the emptier cluster by share, not by free slots', () => {
    const big = info('big', { capacity: 100, hosted: 60 }); // 40 free, 60 % used
    const small = info('small', { capacity: 10, hosted: 2 }); // 8 free, 20 % used
    expect(leastAllocated.score(hostedCluster(), small)).toBeGreaterThan(leastAllocated.score(hostedCluster(), big));
  });
});
