/**
 * The bench's report texts (bench/lib/report.mjs): what other processes used is said as a number
 * only when it was sampled (a run shorter than one sample says so instead of "NaN%").
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { otherLoadPct, otherLoadText, tableRow, textTable, writeResultJson } from '../bench/lib/report.mjs';
import { stepsDone } from '../bench/scenarios/startup.mjs';
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

describe('bench table rows', () => {
  it('keep the decimals a row asks for, so a value just over its target does not print as the target', () => {
    const row = tableRow('schedule', { case: '100 clusters: all 10,000 placed in', value: 10.0149, digits: 2, unit: 's', target: '< 10 s', met: false });
    expect(row.value).toBe(10.01);
    expect(textTable([row])).toMatch(/10\.01 s\s+.*< 10 s\s+.*NO/);
    // Without digits: three significant digits, as before.
    expect(tableRow('x', { case: 'c', value: 10.0149, unit: 's' }).value).toBe(10);
    expect(tableRow('x', { case: 'c', rate: 18858.4, unit: 'req/s' }).value).toBe(18858);
  });
});

describe('bench startup steps', () => {
  it('count the management clusters up only once both are serving, in either order', () => {
    const cc = '✓ control center serving at https://127.0.0.1:1\n';
    expect(stepsDone(cc)).toEqual(['controlCenter']);
    expect(stepsDone(`${cc}✓ mgmt-2 serving at https://127.0.0.1:3\n`)).toEqual(['controlCenter']);
    expect(stepsDone(`${cc}✓ mgmt-2 serving at https://127.0.0.1:3\n✓ mgmt-1 serving at https://127.0.0.1:2\n`)).toEqual(['controlCenter', 'managementClusters']);
    expect(stepsDone(`${cc}✓ mgmt-1 serving at x\n✓ mgmt-2 serving at y\n✓ scheduler running\nhcc is up`)).toEqual(['controlCenter', 'managementClusters', 'scheduler', 'ready']);
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
