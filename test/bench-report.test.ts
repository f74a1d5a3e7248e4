/**
 * The bench's report texts (bench/lib/report.mjs): what other processes used is said as a number
 * only when it was sampled (a run shorter than one sample says so instead of "NaN%").
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { headlineRuns, otherLoadPct, otherLoadText, otherRunsNote, runsPerScenario, scenarioResult, tableRow, textTable, writeResultJson } from '../bench/lib/report.mjs';
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

describe('bench scenario results', () => {
  const row = (c: string, met?: boolean) => ({ case: c, rate: 1234.5, unit: 'x/s', p50: 1.234, p99: 5.678, target: 't', met });

  it('keep the cases a scenario finished before it failed, then a FAILED row with the error', async () => {
    const res = await scenarioResult('watch', async (ctx: { partial: { rows: unknown[]; latencies: unknown[]; data: Record<string, unknown> } }) => {
      ctx.partial.rows.push(row('100 watchers', true));
      ctx.partial.latencies.push({ label: '100 watchers', p50: 1, p99: 2 });
      ctx.partial.data.w100 = { p99: 2 };
      throw new Error('watch: 3 writes failed; first: ECONNRESET\nsecond line');
    }, {});
    expect(res.error).toBe('watch: 3 writes failed; first: ECONNRESET\nsecond line');
    expect(res.rows.map((r: { case: string }) => r.case)).toEqual(['100 watchers', 'FAILED']);
    expect(res.rows[0]).toMatchObject({ scenario: 'watch', value: 1235, p50: 1.23, p99: 5.68, met: true });
    expect(res.rows[1]).toMatchObject({ scenario: 'watch', value: null, text: 'watch: 3 writes failed; first: ECONNRESET' });
    expect(res.latencies).toEqual([{ label: 'watch: 100 watchers', p50: 1, p99: 2 }]);
    expect(res.data).toEqual({ w100: { p99: 2 } });
  });

  it('give a scenario that failed before any case only its FAILED row and no details', async () => {
    const res = await scenarioResult('e2e', async () => {
      throw new Error('hcc up did not start');
    }, {});
    expect(res.rows.map((r: { case: string }) => r.case)).toEqual(['FAILED']);
    expect(res.data).toBeUndefined();
    expect(res.latencies).toEqual([]);
  });

  it('show targets unjudged with --quick and pass the context through', async () => {
    let seen: Record<string, unknown> = {};
    const res = await scenarioResult('api', async (ctx: Record<string, unknown>) => {
      seen = ctx;
      return { rows: [row('get', false)], data: { get: 1 } };
    }, { runs: 2 }, { quick: true });
    expect(seen.runs).toBe(2);
    expect(res.error).toBeUndefined();
    expect(res.rows[0]).toMatchObject({ case: 'get', met: null, target: 't' });
    expect(res.data).toEqual({ get: 1 });
  });
});

describe('bench runs per scenario', () => {
  it('name the scenarios that ran another number of times than --runs', () => {
    // --quick without --runs: 2 runs per case, watch/startup/schedule/e2e/memory once.
    const quick = { runs: 2, fewRuns: 1, longRuns: 1 };
    const all = ['baseline', 'api', 'watch', 'schedule', 'e2e', 'memory', 'startup'];
    const of = (ctx: typeof quick, names = all) => Object.fromEntries(names.map((n) => [n, runsPerScenario(n, ctx)]));
    expect(otherRunsNote(of(quick), 2)).toBe(' (1 for watch, schedule, e2e, memory and startup)');
    expect(otherRunsNote(of(quick, ['baseline', 'watch', 'startup']), 2)).toBe(' (1 for watch and startup)');
    // --quick --runs 2: every scenario twice.
    expect(otherRunsNote(of({ runs: 2, fewRuns: 2, longRuns: 2 }), 2)).toBe('');
    // The default: 5 runs, at most 3 for those that start fresh processes per run.
    expect(otherRunsNote(of({ runs: 5, fewRuns: 3, longRuns: 5 }), 5)).toBe(' (3 for schedule, e2e and memory)');
    expect(otherRunsNote(of({ runs: 5, fewRuns: 3, longRuns: 5 }, ['api', 'e2e']), 5)).toBe(' (3 for e2e)');
    // Two other counts, ascending.
    expect(otherRunsNote({ watch: 1, e2e: 3, api: 5 }, 5)).toBe(' (1 for watch; 3 for e2e)');
    // The heading's count is one that ran: `--quick --scenario startup,memory` ran each once.
    expect(headlineRuns(of(quick, ['startup', 'memory']), 2)).toBe(1);
    expect(headlineRuns(of(quick, ['api', 'startup']), 2)).toBe(2);
    expect(headlineRuns({ watch: 5, e2e: 3, memory: 3 }, 4)).toBe(3);
    expect(headlineRuns({ watch: 5, e2e: 3 }, 4)).toBe(3);
  });
});
