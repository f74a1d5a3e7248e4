import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { pack } from './pack.js';

describe('Pack score', () => {
  it.each([
    { name: 'empty', input: { capacity: 10, hosted: 0 }, want: 0 },
    { name: 'three quarters used', input: { capacity: 20, hosted: 15 }, want: 75 },
    { name: 'last free slot', input: { capacity: 10, hosted: 9 }, want: 90 },
    { name: 'reservations count', input: { capacity: 10, hosted: 0, placed: 9 }, want: 90 },
  ])('$name', ({ input, want }) => {
    expect(pack.score(hostedCluster(), info('a', input))).toBe(want);
  });

  it('a cluster without capacity scores 0', () => {
    expect(pack.score(hostedCluster(), { ...info('a', { hosted: 5 }), capacity: Infinity })).toBe(0);
  });

  it('prefers the fuller cluster by share', () => {
    expect(pack.score(hostedCluster(), info('a', { capacity: 100, hosted: 90 }))).toBeGreaterThan(pack.score(hostedCluster(), info('b', { capacity: 10, hosted: 5 })));
  });
});
