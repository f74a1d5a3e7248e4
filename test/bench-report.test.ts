/**
 * The bench's report texts (bench/lib/report.mjs): what other processes used is said as a number
 * only when it was sampled (a run shorter than one sample says so instead of "NaN%").
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { otherLoadPct, otherLoadText, writeResultJson } from '../bench/lib/report.mjs';
import { tempDir } from './helpers/tools.js';

describe('bench report', () => {
  it('says other processes were not sampled rather than NaN%', () => {
    expect(otherLoadText([12.4, 30, 8], ' during the run')).toBe('other processes used 12% of a core (median) during the run');
    expect(otherLoadText([], ' during the run')).toBe("other processes' CPU not sampled during the run (shorter than one sample)");
    expect(otherLoadText([])).not.toContain('NaN');
    expect(otherLoadPct([])).toBeNull();
    expect(otherLoadPct([1, 2, 3, 4])).toBe(3);
  });
});

describe('bench results files', () => {
  it('never overwrite another run of the same second: the next one takes <stem>-2, -3, …', () => {
    const t = tempDir('hcc-bench-out-');
    try {
      const stem = '2026-12-04T13-53-45Z-quick';
      expect(writeResultJson(t.dir, stem, 'first\n')).toBe(path.join(t.dir, stem));
      expect(writeResultJson(t.dir, stem, 'second\n')).toBe(path.join(t.dir, `${stem}-2`));
      expect(writeResultJson(t.dir, stem, 'third\n')).toBe(path.join(t.dir, `${stem}-3`));
      expect([`${stem}.json`, `${stem}-2.json`, `${stem}-3.json`].map((f) => readFileSync(path.join(t.dir, f), 'utf8'))).toEqual(['first\n', 'second\n', 'third\n']);
      expect(() => writeResultJson(path.join(t.dir, 'missing'), stem, 'x')).toThrow(/ENOENT/);
      expect(existsSync(path.join(t.dir, 'missing'))).toBe(false);
    } finally {
      t.cleanup();
    }
  });
});
