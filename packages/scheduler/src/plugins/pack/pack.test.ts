import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { pack } from './pack.js';

describe('Pack score', () => {
  it.each([
    { name: 'empty', input: { capacity: 10, placed: 0 }, want: 0 },
    { name: 'three quarters used', input: { capacity: 20, placed: 15 }, want: 75 },
    { name: 'last free slot', input: { capacity: 10, placed: 9 }, want: 90 },
    { name: 'no capacity set', input: { capacity: undefined, placed: 5 }, want: 0 },
  ])('$name', ({ input, want }) => {
    const mc = info('a', { placed: input.placed });
    expect(pack.score(hostedCluster(), { ...mc, capacity: input.capacity ?? Infinity })).toBe(want);
  });
});
