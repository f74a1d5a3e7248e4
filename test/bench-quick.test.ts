/**
 * The benchmark harness as a user runs it (`node bench/bench.mjs --quick`, what `npm run bench --
 * --quick` runs after the build), on three scenarios that start every kind of process it drives
 * (bare fastify and raw level baselines, a control center with 1,000 raw-socket watchers, `hcc up`):
 * it exits 0, and the JSON it writes holds exactly the table of the .md, with the machine and
 * settings; the SVG charts the latencies. Bad flags get one line and exit code 2 before anything
 * runs. No time is asserted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, tempDir } from './helpers/tools.js';

const bench = path.join(repoRoot, 'bench', 'bench.mjs');

/** Runs the bench; killed (code null) when it has not exited within timeoutMs. */
function run(args: string[], { env = process.env, timeoutMs = 0 }: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [bench, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    const timer = timeoutMs ? setTimeout(() => p.kill('SIGKILL'), timeoutMs) : undefined;
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Expects the one-line refusal of a bad command line: exit code 2, no stack. */
function expectRefused(r: { code: number | null; stderr: string }, message: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

interface Row {
  scenario: string;
  case: string;
  value: number | null;
  unit: string;
  text?: string;
  p50: number | null;
  p99: number | null;
  met: boolean | null;
  note: string;
}

describe('npm run bench -- --quick', () => {
  const out = tempDir('hcc-bench-out-');
  const data = tempDir('hcc-bench-data-');
  afterAll(() => {
    out.cleanup();
    data.cleanup();
  });

  it('refuses bad flags with one line and exit code 2, before running anything', async () => {
    for (const [args, message] of [
      [['--runs', '0'], '--runs must be a positive integer, got "0"'],
      [['--duration', 'abc'], '--duration must be a positive number, got "abc"'],
      [['--connections', '5000'], '--connections must be at most 4096, got "5000"'],
      [['--duration', '0.001'], '--duration must be at least 0.1 (seconds), got "0.001"'],
      [['--scenario', 'nope'], 'unknown scenario "nope"'],
      [['--out', '/etc/passwd/x'], '--out /etc/passwd/x'],
      [['--out', ''], '--out needs a value, got an empty one'],
      [['--out='], '--out needs a value, got an empty one'],
      [['--duration=abc'], '--duration must be a positive number, got "abc"'],
      [['--bogus'], 'unknown argument --bogus (npm run bench -- --help lists the options)'],
      [['--quick=yes'], '--quick takes no value, got "--quick=yes"'],
      [['--scenario', 'api,'], '--scenario "api," has an empty scenario name: separate names with single commas'],
    ] as const) {
      expectRefused(await run(['--quick', ...args]), message);
    }
  });

  it("names in its progress the sizes a scenario runs at (--quick's smaller ones)", async () => {
    const api = (await import('../bench/scenarios/api.mjs')) as { description: (ctx: { quick: boolean }) => string };
    const memory = (await import('../bench/scenarios/memory.mjs')) as { description: (ctx: { quick: boolean }) => string };
    expect(api.description({ quick: false })).toContain('list (1,000 / 10,000,');
    expect(api.description({ quick: true })).toContain('list (1,000 / 2,000,');
    expect(memory.description({ quick: false })).toContain('10,000 HostedClusters + 10,000 Secrets');
    expect(memory.description({ quick: true })).toContain('1,000 HostedClusters + 1,000 Secrets');
  });

  it('refuses bench options npm took as its own (`npm run bench --quick`, no --) instead of a full run', async () => {
    for (const [vars, message] of [
      [{ npm_config_quick: 'true' }, 'npm took --quick as its own option (npm_config_quick set): put bench options after --, as in `npm run bench -- --quick`'],
      [{ npm_config_scenario: 'api', npm_config_tls: '' }, '`npm run bench -- --scenario api --no-tls`'],
      [{ npm_config_data_dir: '/tmp' }, '--data-dir /tmp'],
      // `npm run bench --scenario api`: npm sets npm_config_scenario=true and passes `api` on.
      [{ npm_config_scenario: 'true' }, '`npm run bench -- --scenario <name>`'],
    ] as const) {
      expectRefused(await run([], { env: { ...process.env, ...vars }, timeoutMs: 20_000 }), message);
    }
  });

  it('refuses a --data-dir it cannot create or write, quickly and writing nothing', async () => {
    const t = tempDir('hcc-bench-bad-data-');
    try {
      const file = path.join(t.dir, 'a-file');
      writeFileSync(file, '');
      const results = path.join(t.dir, 'results');
      // Under /proc, a recursive mkdir used to spin forever; a file used to fail the scenario and still write results.
      for (const [dir, message] of [
        ['/proc/hcc-bench-nope', '--data-dir /proc/hcc-bench-nope: cannot write there'],
        [file, `--data-dir ${file}: ${file} is not a directory`],
        [path.join(file, 'sub'), `--data-dir ${path.join(file, 'sub')}`],
      ] as const) {
        expectRefused(await run(['--quick', '--scenario', 'startup', '--out', results, '--data-dir', dir], { timeoutMs: 20_000 }), message);
        expect(existsSync(results), 'the results dir it made is removed again').toBe(false);
      }
    } finally {
      t.cleanup();
    }
  });

  it('stops every process and removes every temp dir when interrupted in the middle of a run (startup starts hcc up per run)', async () => {
    const d = tempDir('hcc-bench-int-data-');
    const o = tempDir('hcc-bench-int-out-');
    try {
      const p = spawn(process.execPath, [bench, '--quick', '--scenario', 'startup', '--runs', '3', '--data-dir', d.dir, '--out', o.dir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      const exited = new Promise<number | null>((resolve) => p.once('exit', (code) => resolve(code)));
      const deadline = Date.now() + 120_000;
      while (!stderr.includes('startup run 1/3:') && Date.now() < deadline && p.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      expect(stderr, stderr.slice(-2000)).toContain('startup run 1/3:');
      // Run 2's hcc up is starting its fleet now.
      await new Promise((r) => setTimeout(r, 1000));
      p.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(readdirSync(d.dir), 'no temp dir is left').toEqual([]);
      expect(readdirSync(o.dir), 'no results are written').toEqual([]);
      // No process of the run is left (each had the data dir on its command line).
      const left = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).filter((n) => {
        try {
          return readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(d.dir);
        } catch {
          return false;
        }
      });
      expect(left).toEqual([]);
    } finally {
      d.cleanup();
      o.cleanup();
    }
  }, 180_000);

  it('runs baseline, watch and startup and writes a JSON that holds the table', async () => {
    const r = await run(['--quick', '--scenario', 'baseline,watch,startup', '--out', out.dir, '--data-dir', data.dir]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const files = readdirSync(out.dir);
    const stem = files.find((f) => f.endsWith('-quick.json'))!.slice(0, -'.json'.length);
    expect(files.sort()).toEqual([`${stem}.json`, `${stem}.md`, `${stem}.svg`]);
    const json = JSON.parse(readFileSync(path.join(out.dir, `${stem}.json`), 'utf8')) as {
      quick: boolean;
      code: { commit: string | null; dirty: boolean | null };
      machine: { logicalCores: number; node: string };
      settings: { scenarios: string[] };
      table: Row[];
      failures: unknown[];
      details: { watch: { w100: { writeP50: number; runs: { writeP50: number; writeP99: number }[] } } };
    };
    expect(json.quick).toBe(true);
    // The measured code is named: the checkout's commit, in the JSON and the .md heading.
    const head = execFileSync('git', ['-C', repoRoot, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(json.code.commit).toBe(head);
    expect(readFileSync(path.join(out.dir, `${stem}.md`), 'utf8').split('\n')[0]).toContain(`(quick) on commit ${head.slice(0, 7)}`);
    // The heading names only the scenarios that ran with fewer runs.
    expect(readFileSync(path.join(out.dir, `${stem}.md`), 'utf8').split('\n')[0]).toContain('median of 2 runs (1 for watch and startup); total');
    expect(json.failures).toEqual([]);
    expect(json.machine.logicalCores).toBeGreaterThan(0);
    expect(json.machine.node).toBe(process.version);
    expect(json.settings.scenarios).toEqual(['baseline', 'watch', 'startup']);
    expect(new Set(json.table.map((t) => t.scenario))).toEqual(new Set(['baseline', 'watch', 'startup']));
    // The .md table is the JSON's table, row by row.
    const md = readFileSync(path.join(out.dir, `${stem}.md`), 'utf8');
    const mdRows = md
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| scenario') && !l.startsWith('| ---'))
      .map((l) => l.slice(2, -2).split(' | '));
    expect(mdRows.map((c) => [c[0], c[1]])).toEqual(json.table.map((t) => [t.scenario, t.case]));
    const num = (s: string) => (s === '' ? null : Number(s.replace(/,/g, '')));
    json.table.forEach((t, i) => {
      const c = mdRows[i]!;
      if (t.value !== null) expect(num(c[2]!.split(' ')[0]!), `${t.case}: ${c[2]}`).toBe(t.value);
      expect(num(c[3]!), `${t.case} p50`).toBe(t.p50);
      expect(num(c[4]!), `${t.case} p99`).toBe(t.p99);
      expect(t.met).toBeNull(); // --quick shows targets without judging them
    });
    // Every watcher got every event.
    for (const t of json.table.filter((x) => x.scenario === 'watch' && x.unit === 'events/s')) {
      expect(t.note).toContain('every event delivered');
      // The offered load and the rate the server completed it at are told apart.
      expect(t.note).toMatch(/writes sent at \d+ of 100\/s, completed at \d+\/s, answered in p50 [\d.,]+ ms, p99 [\d.,]+ ms/);
    }
    // The writes' own latency is recorded per run, and the note's figures are the runs' medians.
    const w100 = json.details.watch.w100;
    expect(w100.runs[0].writeP99).toBeGreaterThan(0);
    expect(w100.runs[0].writeP99).toBeGreaterThanOrEqual(w100.runs[0].writeP50);
    expect(w100.writeP50).toBe(w100.runs[0].writeP50);
    // The printed table is the same table.
    for (const t of json.table) expect(r.stdout).toContain(t.case);
    const svg = readFileSync(path.join(out.dir, `${stem}.svg`), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('watch');
    // Nothing left behind in the data dir.
    expect(existsSync(data.dir) ? readdirSync(data.dir) : []).toEqual([]);
  }, 300_000);
});
