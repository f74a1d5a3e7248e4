/**
 * bench/tools/history.mjs, as the README's "Earlier runs" table is made with it: one row per
 * full run in a results directory (quick runs, single-scenario runs, runs with other than the
 * default settings and runs with a FAILED scenario left out), each number
 * read from the run's own table, `–` for a case the run did not measure; a bad flag is one line
 * and exit code 2.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, tempDir } from './helpers/tools.js';

const tool = path.join(repoRoot, 'bench', 'tools', 'history.mjs');
const ALL = ['baseline', 'api', 'watch', 'schedule', 'e2e', 'memory', 'startup'];

/** A results file; `settings` and `failures` default to those of `npm run bench` that went well. */
function result(scenarios: string[], quick: boolean, table: object[], { settings = {}, failures = [] }: { settings?: object; failures?: object[] } = {}): object {
  return {
    quick,
    code: { commit: 'abcdef0123456789', dirty: false },
    machine: { os: 'Linux 6.18.44-fc-v1045 x64' },
    settings: { tls: true, transport: 'HTTPS', connections: 32, runs: 5, durationMs: 5000, warmupMs: 2000, cpuProf: false, scenarios, ...settings },
    table,
    failures,
  };
}

const row = (scenario: string, c: string, value: number | null, extra: object = {}) => ({ scenario, case: c, value, p50: null, p99: null, vsBaseline: '', ...extra });

describe('bench history', () => {
  it('prints one row per full run with the numbers of its table', () => {
    const { dir, cleanup } = tempDir('hcc-history-');
    onTestFinished(cleanup);
    const full = [
      row('api', 'bare fastify POST (HTTPS, 32 conns)', 17871),
      row('api', 'create', 3012, { vsBaseline: '17% of POST (paired runs), 14% of level batch' }),
      row('api', 'get', 7507, { vsBaseline: '52% of GET (paired runs)' }),
      row('schedule', '100 clusters, 10,000 HostedClusters: placements', 992),
      row('schedule', '100 clusters: all 10,000 placed in', 10.1),
      row('watch', '1,000 watchers, 500 writes/s', 306613, { p99: 3112 }),
      row('e2e', '1,000 HC+NP+Secret, paced 10/s: create → replicated', 102, { p99: 284 }),
      row('memory', '10,000 HC + 10,000 Secrets: RSS after writes', 303),
      row('startup', 'hcc up, 2 management clusters → all Ready', 3.7),
    ];
    writeFileSync(path.join(dir, '2026-12-01T20-31-39Z.json'), JSON.stringify(result(ALL, false, full)));
    writeFileSync(path.join(dir, '2026-12-01T19-37-16Z-quick.json'), JSON.stringify(result(ALL, true, full)));
    writeFileSync(path.join(dir, '2026-12-01T09-46-18Z.json'), JSON.stringify(result(['startup'], false, full)));
    // Every scenario, but not with the default settings, or with a scenario that failed: no full run either.
    const notFull = [
      { settings: { tls: false, transport: 'HTTP' } },
      { settings: { connections: 8 } },
      { settings: { runs: 2 } },
      { settings: { durationMs: 1000 } },
      { settings: { cpuProf: true } },
      { failures: [{ scenario: 'e2e', error: 'boom' }] },
    ];
    notFull.forEach((o, i) => writeFileSync(path.join(dir, `2026-12-01T1${i}-00-00Z.json`), JSON.stringify(result(ALL, false, full, o))));
    writeFileSync(path.join(dir, '2026-12-01T16-00-00Z.json'), JSON.stringify(result(ALL, false, [...full, row('e2e', 'FAILED', null, { text: 'boom' })])));
    const out = spawnSync(process.execPath, [tool, '--dir', dir], { encoding: 'utf8' });
    expect(out.status).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toHaveLength(3); // header, rule, one run
    const cells = lines[2]!.split('|').slice(1, -1).map((c) => c.trim());
    expect(cells).toEqual(['2026-12-01T20-31-39Z', 'abcdef0', 'fc-v1045', '17,871', '17%', '52%', '992', '10.1', '3,112', '–', '284', '–', '–', '303', '3.7']);
    const since = spawnSync(process.execPath, [tool, '--dir', dir, '--since', '2026-12-02'], { encoding: 'utf8' });
    expect(since.stdout.trim().split('\n')).toHaveLength(2);
    // Runs finished under one second's name (bench.mjs's `-2`, `-3`, …) are listed in run order.
    for (const f of ['2026-12-03T08-00-00Z-10.json', '2026-12-03T08-00-00Z-2.json', '2026-12-03T08-00-00Z.json']) writeFileSync(path.join(dir, f), JSON.stringify(result(ALL, false, full)));
    const same = spawnSync(process.execPath, [tool, '--dir', dir, '--since', '2026-12-03'], { encoding: 'utf8' });
    expect(same.stdout.trim().split('\n').slice(2).map((l) => l.split('|')[1]!.trim())).toEqual(['2026-12-03T08-00-00Z', '2026-12-03T08-00-00Z-2', '2026-12-03T08-00-00Z-10']);
  });

  it("is the README's Earlier runs table, made from bench/results/", () => {
    const out = spawnSync(process.execPath, [tool], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Earlier runs'));
    const table = section.split('\n').filter((l, i, all) => l.startsWith('|') && all.slice(0, i).every((x) => !x.startsWith('**')));
    expect(table.join('\n')).toBe(out.stdout.trim());
  });

  it("is the README's Latest run table: the table of the results file it names, rendered from that JSON", async () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Latest run'), readme.indexOf('### What limits the missed targets'));
    const named = /`bench\/results\/([0-9TZ-]+)\.json`/.exec(section);
    expect(named, 'the Latest run section names its results file').not.toBeNull();
    const base = path.join(repoRoot, 'bench', 'results', named![1]!);
    const json = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as { quick: boolean; table: object[]; failures: object[] };
    expect(json.quick).toBe(false);
    expect(json.failures).toEqual([]);
    const { markdownTable } = (await import(path.join(repoRoot, 'bench', 'lib', 'report.mjs'))) as { markdownTable: (rows: object[]) => string };
    const table = section.split('\n').filter((l) => l.startsWith('|')).join('\n');
    expect(table).toBe(markdownTable(json.table));
    expect(readFileSync(`${base}.md`, 'utf8')).toContain(table);
  });

  it('refuses a bad flag with one line and exit code 2', () => {
    const out = spawnSync(process.execPath, [tool, '--runs', '3'], { encoding: 'utf8' });
    expect(out.status).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/^history: Unknown option '--runs'/);
  });
});
