/**
 * `startup`: `hcc up --management-clusters 2` (defaults otherwise) from spawn until it prints
 * `hcc is up` (every ManagementCluster Ready in the control center), with the time of each step
 * it reports (control center serving, management clusters serving, scheduler, syncers).
 * A warm-up start (disk cache, first compile) is not counted. Each start has a fresh state dir.
 *
 * Target: under 5 s.
 */
import path from 'node:path';
import { Scope } from '../lib/cleanup.mjs';
import { hccBin, startProcess, tempDir } from '../lib/procs.mjs';
import { median, percentile } from '../lib/stats.mjs';
import { nowMs, progress } from '../lib/progress.mjs';

export const description = 'hcc up with 2 management clusters until every ManagementCluster is Ready';

/** The steps of `hcc up` timed; each is done once every one of its lines has appeared in its output. */
const steps = [
  ['controlCenter', [/✓ control center serving/]],
  // Started together, in either order: both must be serving.
  ['managementClusters', [/✓ mgmt-1 serving/, /✓ mgmt-2 serving/]],
  ['scheduler', [/✓ scheduler running/]],
  ['ready', [/hcc is up/]],
];

/**
 * The steps done by the time `hcc up` printed `out` (its output so far).
 * @param {string} out
 * @returns {string[]} step names: controlCenter, managementClusters, scheduler, ready
 */
export function stepsDone(out) {
  return steps.filter(([, lines]) => lines.every((re) => re.test(out))).map(([k]) => k);
}

async function oneStart(ctx, label) {
  const scope = new Scope();
  try {
    const dir = tempDir(scope, 'startup');
    let out = '';
    const at = {};
    const t0 = nowMs();
    await startProcess(scope, {
      name: 'hcc up',
      script: hccBin,
      args: ['up', '--state-dir', dir, '--management-clusters', '2'],
      logFile: path.join(dir, 'up.log'),
      ready: 'hcc is up',
      timeoutMs: 120_000,
      onOutput: (text) => {
        out += text;
        const now = (nowMs() - t0) / 1000;
        for (const k of stepsDone(out)) at[k] ??= now;
      },
    });
    const total = (nowMs() - t0) / 1000;
    progress(`startup ${label}: ${total.toFixed(2)} s (control center ${at.controlCenter?.toFixed(2)} s, management clusters ${at.managementClusters?.toFixed(2)} s, scheduler ${at.scheduler?.toFixed(2)} s, Ready ${total.toFixed(2)} s)`);
    return { totalS: total, steps: at };
  } finally {
    await scope.close();
  }
}

export async function run(ctx) {
  const runs = ctx.longRuns;
  if (!ctx.quick) await oneStart(ctx, 'warm-up');
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await oneStart(ctx, `run ${i + 1}/${runs}`));
  const totals = Float64Array.from(results.map((r) => r.totalS)).sort();
  const med = median(results.map((r) => r.totalS));
  const stepMed = (k) => median(results.map((r) => r.steps[k]));
  return {
    rows: [
      {
        case: 'hcc up, 2 management clusters → all Ready',
        value: med,
        unit: 's',
        p50: med * 1000,
        p99: percentile(totals, 99) * 1000,
        target: '< 5 s',
        met: med < 5,
        valueBound: 5,
        note: `control center serving at ${stepMed('controlCenter').toFixed(1)} s, management clusters at ${stepMed('managementClusters').toFixed(1)} s, scheduler at ${stepMed('scheduler').toFixed(1)} s; p99 of ${runs} run${runs === 1 ? '' : 's'} = the slowest`,
      },
    ],
    data: { runs: results },
    latencies: [{ label: 'hcc up → all Ready', p50: med * 1000, p99: percentile(totals, 99) * 1000 }],
  };
}
