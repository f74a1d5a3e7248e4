/**
 * The bench's statistics (bench/lib/stats.mjs): nearest-rank percentiles and the median over
 * runs, on arrays whose answers are known by hand.
 */
import { describe, expect, it } from 'vitest';
import { median, percentile, percentNear, round, roundNear, summarize } from '../bench/lib/stats.mjs';
import { tableRow } from '../bench/lib/report.mjs';

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

  it('never rounds a judged number onto or across its target, so the table cannot contradict its met column', () => {
    // Plain rounding would show these on the bound.
    expect(round(99.96)).toBe(100);
    expect(roundNear(99.96, 100)).toBe(99.96);
    expect(roundNear(999.7, 1000)).toBe(999.7);
    expect(roundNear(399.7, 400)).toBe(399.7);
    expect(roundNear(4.996, 5)).toBe(4.996);
    expect(roundNear(1999.6, 2000)).toBe(1999.6);
    expect(roundNear(2000.4, 2000)).toBe(2000.4);
    // Away from the bound, or exactly on it: the usual 3 significant digits.
    expect(roundNear(296.4, 100)).toBe(296);
    expect(roundNear(60.34, 100)).toBe(60.3);
    expect(roundNear(100, 100)).toBe(100);
    expect(roundNear(1639.2, 2000)).toBe(1639);
    expect(percentNear(0.54, 0.5)).toBe('54%');
    expect(percentNear(0.496, 0.5)).toBe('49.6%');
    expect(percentNear(0.4996, 0.5)).toBe('49.96%');
    expect(percentNear(0.2996, 0.3)).toBe('29.96%');
    expect(percentNear(0.5004, 0.5)).toBe('50.04%');
    expect(percentNear(0.5, 0.5)).toBe('50%');
    // Through the table row: p99 and value keep their side.
    const row = tableRow('watch', { case: 'w', rate: 1000, unit: 'events/s', p50: 50, p99: 99.96, p99Bound: 100, target: 'p99 < 100 ms', met: true });
    expect([row.p99, row.met]).toEqual([99.96, true]);
    const mem = tableRow('memory', { case: 'm', value: 399.7, unit: 'MB', valueBound: 400, target: '< 400 MB', met: true });
    expect(mem.value).toBe(399.7);
  });
});
