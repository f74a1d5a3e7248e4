#!/usr/bin/env node
/**
 * hcc's benchmark: `npm run bench [-- --scenario NAME] [-- --quick]`.
 *
 * Runs scenarios (bench/scenarios/<name>.mjs) against real hcc processes over loopback, with the
 * baselines (bare fastify, raw classic-level) measured in the same run, prints one table, and
 * writes bench/results/<timestamp>.json (the table's numbers, machine, settings, raw per-run
 * data), .md (the table in Markdown) and .svg (latency percentiles). Progress goes to stderr.
 *
 * Every scenario gets a Scope: the processes and temp dirs it started are stopped and removed
 * when it ends, fails, or the bench is interrupted (SIGINT/SIGTERM).
 */
import { rmdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWritableDir, numberArg, PreconditionError, UsageError } from './lib/args.mjs';
import { closeAllScopes, closeOnSignals, Scope } from './lib/cleanup.mjs';
import { failOnUnexpectedExit, otherLoadSampler, settings } from './lib/procs.mjs';
import { median } from './lib/stats.mjs';
import { codeInfo, codeLine, machineInfo, machineLine } from './lib/machine.mjs';
import { elapsedS, progress } from './lib/progress.mjs';
import { headlineRuns, latencySvg, markdownTable, otherLoadPct, otherLoadText, otherRunsNote, runsPerScenario, scenarioResult, textTable, writeResultJson } from './lib/report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The shortest `--duration`, in seconds. */
const MinDurationS = 0.1;
/** Most load-generator connections: each is an open file in the bench, the server and (watch) its client, and past a few thousand the per-process limit fails the run midway. */
const MaxConnections = 4096;
const order = ['baseline', 'api', 'watch', 'schedule', 'e2e', 'memory', 'startup'];

const usage = `usage: npm run bench [-- options]

  --scenario NAME[,NAME]  run only these (${order.join(', ')}; short: -s); repeatable. api also runs baseline.
  --quick                 small sizes, short runs (under 2 minutes in total); for smoke checks
  --no-tls                measure the control center and the fastify baseline over plain HTTP (default: HTTPS, as hcc serves by default);
                          e2e and startup run hcc up, which serves HTTPS either way
  --connections N         connections of the load generator (default 32, at most 4096)
  --runs N                timed runs per case after the warm-up (default 5; quick 2); schedule, e2e
                          and memory run at most 3 times, and with --quick (no --runs) they, watch
                          and startup run once
  --duration S            seconds per timed run (default 5; quick 1; at least 0.1)
  --data-dir DIR          where temporary data dirs go (default: the OS temp dir)
  --out DIR               where results go (default bench/results)
  --cpu-prof              run hcc processes with node --cpu-prof; profiles go to <out>/profiles-<timestamp>/
  --keep                  keep temp dirs and logs
  --wait-quiet MINUTES    first wait (at most MINUTES) until other processes use under 15% of a core for 10 s
  --help                  this text (short: -h)
`;

/** The bench's options (as npm_config_* names: `--data-dir` is npm_config_data_dir; `--no-tls` sets npm_config_tls). */
const optionNames = ['scenario', 'quick', 'tls', 'connections', 'runs', 'duration', 'data_dir', 'out', 'cpu_prof', 'keep', 'wait_quiet'];

/**
 * Refuses options npm took as its own: `npm run bench --quick` (no `--`) runs the bench without
 * them (the full 26-minute run) and leaves them in npm_config_* variables.
 * @throws UsageError naming them and the `--` form
 */
function refuseNpmOptions(env) {
  const eaten = optionNames.filter((n) => env[`npm_config_${n}`] !== undefined);
  if (!eaten.length) return;
  // npm takes `--scenario api` as `--scenario` (true) and an argument `api`: the value is lost.
  const takesValue = new Set(['scenario', 'connections', 'runs', 'duration', 'data_dir', 'out', 'wait_quiet']);
  const flag = (n) => {
    const v = env[`npm_config_${n}`];
    if (n === 'tls') return ['', 'false'].includes(v) ? '--no-tls' : '--tls';
    const name = `--${n.replace(/_/g, '-')}`;
    if (!['', 'true'].includes(v)) return `${name} ${v}`;
    return takesValue.has(n) ? `${name} <${n === 'scenario' ? 'name' : 'value'}>` : name;
  };
  const flags = eaten.map(flag).join(' ');
  throw new UsageError(`npm took ${flags} as its own option${eaten.length > 1 ? 's' : ''} (${eaten.map((n) => `npm_config_${n}`).join(', ')} set): put bench options after --, as in \`npm run bench -- ${flags}\``);
}

function parseArgs(args) {
  // `--flag=value` is `--flag value`, as node:util parseArgs (the tools') takes it.
  // A switch given a value (`--quick=yes`) is refused by name, not as a stray argument.
  const switches = new Set(['--quick', '--no-tls', '--cpu-prof', '--keep', '--help']);
  for (const a of args) {
    const m = /^(--[a-z-]+)=/.exec(a);
    if (m && switches.has(m[1])) throw new UsageError(`${m[1]} takes no value, got ${JSON.stringify(a)}`);
  }
  const argv = args.flatMap((a) => (/^--[a-z-]+=/.test(a) ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a]));
  const o = { scenarios: [], quick: false, tls: true, connections: 32, runs: undefined, duration: undefined, dataDir: os.tmpdir(), out: path.join(here, 'results'), cpuProf: false, keep: false, waitQuietMin: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      // A single-dash value is a flag mistyped more often than a name: `--out -x` would write ./-x.
      if (v.startsWith('-') && !/^-\d/.test(v)) throw new UsageError(`${a} needs a value, got ${JSON.stringify(v)} (a flag?); for a name starting with "-", write ./${v}`);
      if (v.trim() === '') throw new UsageError(`${a} needs a value, got an empty one`);
      return v;
    };
    if (a === '--') continue; // `npm run bench -- --scenario api -- --quick` passes the second `--` through
    else if (a === '--scenario' || a === '-s') {
      const v = val();
      if (v.split(',').some((n) => n.trim() === '')) throw new UsageError(`${a} ${JSON.stringify(v)} has an empty scenario name: separate names with single commas`);
      o.scenarios.push(...v.split(','));
    }
    else if (a === '--quick') o.quick = true;
    else if (a === '--no-tls') o.tls = false;
    else if (a === '--connections') o.connections = numberArg(a, val(), { integer: true, min: 0, minExclusive: true, max: MaxConnections });
    else if (a === '--runs') o.runs = numberArg(a, val(), { integer: true, min: 0, minExclusive: true });
    else if (a === '--duration') {
      const v = val();
      o.duration = numberArg(a, v, { min: 0, minExclusive: true });
      // Shorter runs send next to nothing (a watch run at 100 writes/s: no write at all).
      if (o.duration < MinDurationS) throw new UsageError(`--duration must be at least ${MinDurationS} (seconds), got ${JSON.stringify(v)}`);
    }
    else if (a === '--data-dir') o.dataDir = path.resolve(val());
    else if (a === '--out') o.out = path.resolve(val());
    else if (a === '--cpu-prof') o.cpuProf = true;
    else if (a === '--keep') o.keep = true;
    else if (a === '--wait-quiet') o.waitQuietMin = numberArg(a, val());
    else if (a === '--help' || a === '-h') {
      process.stdout.write(usage);
      process.exit(0);
    } else throw new UsageError(`unknown argument ${a} (npm run bench -- --help lists the options)`);
  }
  for (const s of o.scenarios) if (!order.includes(s)) throw new UsageError(`unknown scenario ${JSON.stringify(s)}; known: ${order.join(', ')}`);
  return o;
}

let opts;
const createdDirs = [];
try {
  refuseNpmOptions(process.env);
  opts = parseArgs(process.argv.slice(2));
  ensureWritableDir('--out', opts.out, createdDirs);
  ensureWritableDir('--data-dir', opts.dataDir, createdDirs);
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  for (const d of createdDirs.reverse()) rmdirSync(d); // created empty a moment ago
  process.stderr.write(`bench: ${err.message}\n`);
  process.exit(2);
}
const startedAt = new Date();
const stamp = startedAt.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
const stem = `${stamp}${opts.quick ? '-quick' : ''}`;
settings.dataRoot = opts.dataDir;
settings.keep = opts.keep;
if (opts.cpuProf) settings.cpuProfDir = path.join(opts.out, `profiles-${stem}`);

let selected = opts.scenarios.length ? order.filter((s) => opts.scenarios.includes(s)) : order;
if (selected.includes('api') && !selected.includes('baseline')) selected = ['baseline', ...selected];

const runs = opts.runs ?? (opts.quick ? 2 : 5);
// With --quick, schedule, e2e, memory, watch and startup run once unless --runs says how often.
const quickOnce = opts.quick && opts.runs === undefined;
const ctx = {
  quick: opts.quick,
  tls: opts.tls,
  connections: opts.connections,
  runs,
  /** Runs of schedule, e2e and memory (fresh processes per run): at most 3; with --quick 1 unless --runs is given. */
  fewRuns: quickOnce ? 1 : Math.min(runs, 3),
  /** Runs of watch and startup: --runs; with --quick 1 unless --runs is given. */
  longRuns: quickOnce ? 1 : runs,
  durationMs: (opts.duration ?? (opts.quick ? 1 : 5)) * 1000,
  warmupMs: opts.quick ? 300 : 2000,
  storageDurationMs: opts.quick ? 500 : 3000,
  results: {},
};

// Every open scope: a scenario's per-run scopes (startup, schedule, e2e, memory) hold processes too.
const interrupted = closeOnSignals(closeAllScopes, progress);

const machine = machineInfo(opts.dataDir);
const code = codeInfo(path.join(here, '..'));
progress(`hcc bench${opts.quick ? ' --quick' : ''}: ${selected.join(', ')}`);
progress(`machine: ${machineLine(machine)}`);
if (code.commit) progress(`code: ${codeLine(code)}`);
// e2e and startup measure `hcc up`, which serves HTTPS whatever --no-tls says.
const transportLabel = opts.tls ? 'HTTPS' : selected.some((s) => s === 'e2e' || s === 'startup') ? 'HTTP (e2e and startup: HTTPS, as hcc up serves)' : 'HTTP';
progress(`transport: ${opts.tls ? 'HTTPS (the control center default; baselines use its certificate)' : `plain HTTP (--no-tls)${transportLabel === 'HTTP' ? '' : '; e2e and startup: HTTPS, as hcc up serves'}`}, ${ctx.connections} connections, ${ctx.runs} run${ctx.runs === 1 ? '' : 's'} × ${ctx.durationMs / 1000} s after a ${ctx.warmupMs / 1000} s warm-up per HTTP or watch case (schedule, e2e, memory and startup say their own runs)`);

// A shared machine makes numbers noisy: measure what other processes use before and during the run.
if (opts.waitQuietMin > 0) {
  const sampler = otherLoadSampler(2000);
  const deadline = Date.now() + opts.waitQuietMin * 60_000;
  let quietSince;
  for (;;) {
    await new Promise((r) => setTimeout(r, 2000));
    const last = sampler.peek().at(-1) ?? 100;
    quietSince = last < 15 ? quietSince ?? Date.now() : undefined;
    if (quietSince && Date.now() - quietSince >= 10_000) break;
    if (Date.now() > deadline) {
      progress(`still busy after ${opts.waitQuietMin} min (other processes ${Math.round(last)}% of a core); running anyway`);
      break;
    }
    progress(`waiting for a quiet machine: other processes use ${Math.round(last)}% of a core`);
  }
  sampler.stop();
}
const before = otherLoadSampler(1000);
await new Promise((r) => setTimeout(r, 3000));
const idleLoad = median(before.stop());
progress(`other processes on this machine: ${Math.round(idleLoad)}% of a core before the run${idleLoad > 20 ? ' — numbers will be noisy; a quiet machine gives steadier ones' : ''}`);
const load = otherLoadSampler(2000);
const otherLoad = {};

const table = [];
const latencies = [];
const failures = [];
for (const name of selected) {
  const mod = await import(`./scenarios/${name}.mjs`);
  // A scenario's description may depend on ctx (the sizes --quick uses).
  const description = typeof mod.description === 'function' ? mod.description(ctx) : mod.description;
  progress(`── ${name}: ${description}${opts.quick ? ' (--quick: smaller sizes, shorter runs)' : ''}`);
  const scope = new Scope();
  const t0 = elapsedS();
  try {
    // A process of the scenario's that dies fails it at once (failOnUnexpectedExit), naming it.
    const res = await scenarioResult(name, (c) => failOnUnexpectedExit(mod.run(c)), { ...ctx, scope }, { quick: opts.quick });
    // An interrupted scenario fails on its closed clients: that is no result, and no failure.
    if (res.error !== undefined && interrupted()) break;
    if (res.data !== undefined) ctx.results[name] = { data: res.data };
    table.push(...res.rows);
    latencies.push(...res.latencies);
    if (res.error !== undefined) {
      progress(`${name} FAILED: ${res.thrown instanceof PreconditionError ? res.error : (res.thrown?.stack ?? res.error)}`);
      failures.push({ scenario: name, error: res.error });
    }
  } finally {
    progress(`${name}: cleaning up`);
    await scope.close();
    // A scenario failed early (a process died) may still run in the background with a per-run
    // scope open (processes waiting for placements, say): none may outlive its scenario.
    await closeAllScopes();
  }
  const samples = load.peek().slice(otherLoad.__n ?? 0);
  otherLoad.__n = (otherLoad.__n ?? 0) + samples.length;
  otherLoad[name] = { medianPct: otherLoadPct(samples), maxPct: samples.length ? Math.round(Math.max(...samples)) : null };
  progress(`── ${name} done in ${(elapsedS() - t0).toFixed(1)} s (${otherLoadText(samples)})`);
  if (interrupted()) break;
}

// Interrupted: the scenario's scope is closed (finally above); no results are written.
if (interrupted()) process.exit(130);

const totalS = elapsedS();
const allOther = load.stop();
delete otherLoad.__n;
const otherMedian = otherLoadPct(allOther);
const runsOf = Object.fromEntries(selected.map((n) => [n, runsPerScenario(n, ctx)]));
const mainRuns = headlineRuns(runsOf, ctx.runs);
const fewRuns = otherRunsNote(runsOf, mainRuns);
const heading =
  `hcc bench ${stamp}${opts.quick ? ' (quick)' : ''}${code.commit ? ` on ${codeLine(code)}` : ''}: ${machineLine(machine)}; ${transportLabel}, ${ctx.connections} connections; ` +
  `median of ${mainRuns} run${mainRuns === 1 ? "" : "s"}${fewRuns}; total ${totalS.toFixed(0)} s; ${otherLoadText(allOther, ' during the run')}`;
const text = textTable(table);
process.stdout.write(`\n${heading}\n\n${text}\n\n`);

const json = {
  // When the run started (its file name's and heading's time stamp), and when it ended.
  date: startedAt.toISOString(),
  finished: new Date().toISOString(),
  quick: opts.quick,
  code,
  machine,
  settings: { tls: opts.tls, transport: opts.tls ? 'HTTPS' : 'HTTP', hccUpTransport: 'HTTPS', connections: ctx.connections, runs: ctx.runs, runsPerScenario: runsOf, durationMs: ctx.durationMs, warmupMs: ctx.warmupMs, storageDurationMs: ctx.storageDurationMs, cpuProf: opts.cpuProf, scenarios: selected, loadGenerator: 'undici Pool, closed loop, pipelining 1' },
  totalSeconds: Math.round(totalS),
  otherProcessesCpuPct: { beforeRun: Math.round(idleLoad), duringRunMedian: otherMedian, perScenario: otherLoad },
  table,
  failures,
  details: Object.fromEntries(Object.entries(ctx.results).map(([k, v]) => [k, v.data])),
};
// A run that started in the same second (another shell) gets the next free name (`<stem>-2`).
const base = writeResultJson(opts.out, stem, `${JSON.stringify(json, null, 2)}\n`);
writeFileSync(`${base}.md`, `${heading}\n\n${markdownTable(table)}\n`);
if (latencies.length) writeFileSync(`${base}.svg`, latencySvg(latencies, `hcc bench ${stamp}${opts.quick ? ' (quick)' : ''}: latency p50 / p99 (ms)`));
const shown = path.relative(process.cwd(), base).startsWith('..') ? base : path.relative(process.cwd(), base);
progress(`wrote ${shown}.{json,md${latencies.length ? ',svg' : ''}}${settings.cpuProfDir ? `; CPU profiles in ${settings.cpuProfDir}` : ''}`);
process.exit(failures.length ? 1 : 0);
