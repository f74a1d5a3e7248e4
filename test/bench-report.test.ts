/**
 * The bench's report texts (bench/lib/report.mjs): what other processes used is said as a number
 * only when it was sampled (a run shorter than one sample says so instead of "NaN%").
 */
import { describe, expect, it } from 'vitest';
import { otherLoadPct, otherLoadText } from '../bench/lib/report.mjs';

describe('bench report', () => {
  it('says other processes were not sampled rather than NaN%', () => {
    expect(otherLoadText([12.4, 30, 8], ' during the run')).toBe('other processes used 12% of a core (median) during the run');
    expect(otherLoadText([], ' during the run')).toBe("other processes' CPU not sampled during the run (shorter than one sample)");
    expect(otherLoadText([])).not.toContain('NaN');
    expect(otherLoadPct([])).toBeNull();
    expect(otherLoadPct([1, 2, 3, 4])).toBe(3);
  });
});
