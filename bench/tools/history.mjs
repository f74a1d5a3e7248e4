#!/usr/bin/env node
/**
 * The bench's history: one Markdown table row per full run (every scenario, not `--quick`, the
 * default settings, no scenario FAILED: isFullRun()) in bench/results/*.json, with the numbers
 * issue 6's targets are judged on, read from each run's `table` exactly as the run printed them. A case a run did not measure (older runs paced e2e at
 * 50 sets/s and had no plain-HTTP watch case) is shown as `–`.
 *
 * Columns: the run (its JSON's timestamp), the commit (short; `?` before the JSON recorded it,
 * `+` when the tree was dirty), the kernel build (which VM), bare fastify POST req/s, create and
 * get as % of the bare rate (paired runs), placements/s and seconds for 10,000 with 100
 * clusters, 1,000-watcher p99 ms over HTTPS and plain HTTP, e2e create-to-replicated p99 ms at
 * 10 sets/s, 20 sets/s and in the burst, memory RSS MB and startup seconds.
 *
 * Usage: node bench/tools/history.mjs [--dir bench/results] [--since 2026-12-01T00-00-00Z]
 * Prints the table to stdout; exits 2 on a bad flag or an unreadable directory.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { toolArgs, usageOf } from '../lib/args.mjs';

/** What is wrong with a `--since` value: a run's time stamp, or a prefix of one down to the day, of a real date. */
function sinceProblem(v) {
  const m = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}(-\d{2}(-\d{2}Z?)?)?)?$/.exec(v);
  const day = m && new Date(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`);
  if (!m || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== `${m[1]}-${m[2]}-${m[3]}`) {
    return 'must be a run time stamp such as 2026-12-01T00-00-00Z, or its start (2026-12-01, 2026-12-01T06)';
  }
  return undefined;
}

const {
  values: { dir, since },
} = toolArgs('history', { dir: { default: path.join(import.meta.dirname, '..', 'results') }, since: { default: '', check: sinceProblem } }, { usage: usageOf(import.meta.url) });
let files;
try {
  // In run order: by time stamp, then `<stamp>` before `<stamp>-2` before `<stamp>-10` (runs of one second).
  const order = (f) => {
    const m = /^(.*Z)(?:-(\d+))?\.json$/.exec(f);
    return [m[1], Number(m[2] ?? 1)];
  };
  files = readdirSync(dir)
    .filter((f) => /^\d{4}-\d\d-\d\dT[\d-]+Z(-\d+)?\.json$/.test(f))
    .sort((a, b) => {
      const [sa, na] = order(a);
      const [sb, nb] = order(b);
      return sa < sb ? -1 : sa > sb ? 1 : na - nb;
    });
} catch (err) {
  console.error(`history: cannot read ${dir}: ${err.message}`);
  process.exit(2);
}

const ALL = ['baseline', 'api', 'watch', 'schedule', 'e2e', 'memory', 'startup'];
/** The settings of `npm run bench` without options (bench.mjs's defaults). */
const DEFAULTS = { tls: true, connections: 32, runs: 5, durationMs: 5000 };

/**
 * Whether a results file is of a full run: not --quick, every scenario, the default settings
 * (HTTPS, 32 connections, 5 runs of 5 s, no --cpu-prof) and no scenario FAILED.
 */
function isFullRun(d) {
  if (d.quick || !Array.isArray(d.table) || !ALL.every((s) => d.settings?.scenarios?.includes(s))) return false;
  if (!Object.entries(DEFAULTS).every(([k, v]) => d.settings[k] === v) || d.settings.cpuProf) return false;
  return !d.failures?.length && !d.table.some((r) => r.case === 'FAILED');
}
/** The row of `table` whose scenario is `s` and whose case matches `re`, or undefined. */
const find = (table, s, re) => table.find((r) => r.scenario === s && re.test(r.case));
const num = (v) => (typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: 2 }) : '–');
/** "17% of POST (paired runs)" → "17%". */
const pct = (row, of) => {
  const m = row && new RegExp(`(\\d+)% of ${of}`).exec(row.vsBaseline ?? '');
  return m ? `${m[1]}%` : '–';
};

const header = ['run', 'commit', 'kernel', 'bare POST req/s', 'create % POST', 'get % GET', 'placed/s (100)', '10,000 placed s', 'watch p99 ms HTTPS', 'watch p99 ms plain', 'e2e p99 ms 10/s', 'e2e p99 ms 20/s', 'e2e p99 ms burst', 'RSS MB', 'startup s'];
const rows = [];
for (const f of files) {
  const stamp = f.replace(/\.json$/, '');
  if (since && stamp < since) continue;
  let d;
  try {
    d = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
  } catch {
    continue; // not a results file
  }
  if (!isFullRun(d)) continue;
  const t = d.table;
  const commit = d.code?.commit ? d.code.commit.slice(0, 7) + (d.code.dirty ? '+' : '') : '?';
  const kernel = /(fc-v\d+)/.exec(d.machine?.os ?? '')?.[1] ?? d.machine?.os ?? '?';
  rows.push([
    stamp,
    commit,
    kernel,
    num(find(t, 'api', /^bare fastify POST/)?.value),
    pct(find(t, 'api', /^create$/), 'POST'),
    pct(find(t, 'api', /^get$/), 'GET'),
    num(find(t, 'schedule', /^100 clusters, .*placements$/)?.value),
    num(find(t, 'schedule', /^100 clusters: all .* placed in$/)?.value),
    num(find(t, 'watch', /^1,000 watchers, 500 writes\/s$/)?.p99),
    num(find(t, 'watch', /^1,000 watchers, 500 writes\/s \(plain HTTP\)$/)?.p99),
    num(find(t, 'e2e', /paced 10\/s: create → replicated$/)?.p99),
    num(find(t, 'e2e', /paced 20\/s: create → replicated$/)?.p99),
    num(find(t, 'e2e', /burst .*: create → replicated$/)?.p99),
    num(find(t, 'memory', /RSS after writes$/)?.value),
    num(find(t, 'startup', /all Ready$/)?.value),
  ]);
}
const line = (cells) => `| ${cells.join(' | ')} |`;
console.log(line(header));
console.log(line(header.map((_, i) => (i < 3 ? '---' : '---:'))));
for (const r of rows) console.log(line(r));
