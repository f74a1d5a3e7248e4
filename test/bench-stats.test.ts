/**
 * The bench's statistics (bench/lib/stats.mjs): nearest-rank percentiles and the median over
 * runs, on arrays whose answers are known by hand.
 */
import { describe, expect, it } from 'vitest';
import { median, percentile, summarize } from '../bench/lib/stats.mjs';

const range = (n: number) => Float64Array.from({ length: n }, (_, i) => i + 1);

describe('bench statistics', () => {
  it('takes nearest-rank percentiles, without floating-point rounding pushing a whole rank up', () => {
    expect(percentile(range(1000), 50)).toBe(500);
    expect(percentile(range(1000), 99)).toBe(990);
    // 0.999 × 1000 is 999.0000000000001 in floating point; the rank is 999.
    expect(percentile(range(1000), 99.9)).toBe(999);
    expect(percentile(range(2000), 99.9)).toBe(1998);
    expect(percentile(range(5), 99)).toBe(5);
    expect(percentile(range(7), 50)).toBe(4);
    expect(percentile(range(1), 0)).toBe(1);
    expect(percentile(new Float64Array(0), 50)).toBeNaN();
  });

  it('summarises samples and takes the median of runs', () => {
    const s = summarize([5, 1, 4, 2, 3]);
    expect(s.p50).toBe(3);
    expect(s.max).toBe(5);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });
});
