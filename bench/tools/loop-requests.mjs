#!/usr/bin/env node
/**
 * Counts what the whole loop asks of each API server for a number of HostedCluster sets: starts
 * `hcc up` with 3 embedded management clusters, creates N sets (pull Secret, HostedCluster,
 * NodePool) at a fixed rate, waits, then prints each process's CPU (% of one core over the run)
 * and, from each API server's `apiserver_request_total`, its requests, writes and 409 conflicts —
 * in total and per set. Conflicts and requests per set are the numbers to watch when changing
 * the syncer, scheduler or hypershift-sim: they do not depend on the machine's speed.
 *
 * Usage: node bench/tools/loop-requests.mjs [--sets N (200)] [--rate SETS_PER_S (20)]
 *        [--settle SECONDS (5)] [--idle SECONDS (0)] [--by-verb] [--cpu-prof DIR] [--keep]
 *   --idle     then also measures each process's CPU and each API server's requests over that
 *              many seconds with nothing created (what the settled fleet costs at rest)
 *   --by-verb  also prints each API server's counts per verb, resource and code (with --idle,
 *              also those counted at rest)
 */
import path from 'node:path';
import { toolArgs, usageOf } from '../lib/args.mjs';
import { closeAllScopes, closeOnSignals, Scope } from '../lib/cleanup.mjs';
import { settings, hccBin, startProcess, tempDir, cpuTimeMsOf, childPidsOf, hccProcessName } from '../lib/procs.mjs';
import { createSet, endpointOf, ensureNamespace, poolFor } from '../lib/kube.mjs';
import { fixedRate } from '../lib/load.mjs';

const { values: a } = toolArgs('loop-requests', {
  sets: { default: 200, number: { integer: true, min: 0, minExclusive: true } },
  rate: { default: 20, number: { min: 0, minExclusive: true } },
  settle: { default: 5, number: {} },
  idle: { default: 0, number: {} },
  'by-verb': { type: 'boolean', default: false },
  'cpu-prof': { dir: true },
  keep: { type: 'boolean', default: false },
}, { usage: usageOf(import.meta.url) });
const { sets: N, rate } = a;
const settleMs = a.settle * 1000;
const idleMs = a.idle * 1000;
if (a.keep) settings.keep = true;
if (a['cpu-prof'] !== undefined) settings.cpuProfDir = a['cpu-prof'];
const NS = 'loop';
const servers = ['admin.kubeconfig', ...[1, 2, 3].map((i) => `management-clusters/mgmt-${i}.kubeconfig`)];
const serverName = (k) => (k === 'admin.kubeconfig' ? 'control center' : path.basename(k, '.kubeconfig'));

const scope = new Scope();
closeOnSignals(closeAllScopes); // as bench.mjs: Ctrl-C stops the processes and removes the temp dir
try {
  const dir = tempDir(scope, 'loop');
  const up = await startProcess(scope, {
    name: 'hcc up',
    script: hccBin,
    args: ['up', '--state-dir', dir, '--management-clusters', '3', '--capacity', String(Math.ceil(N / 3) + 50), '--heartbeat-interval', '2', '--available-delay', '1000'],
    logFile: path.join(dir, 'up.log'),
    ready: 'hcc is up',
    timeoutMs: 180_000,
  });
  const ep = endpointOf(path.join(dir, 'admin.kubeconfig'));
  const pool = poolFor(ep, 8);
  scope.defer(() => pool.destroy());
  await ensureNamespace(pool, ep, NS);
  const pids = [up.pid, ...childPidsOf(up.pid)];
  const names = pids.map((p) => (p === up.pid ? 'up' : hccProcessName(p)));
  const cpu0 = pids.map(cpuTimeMsOf);
  const t0 = Date.now();
  process.stderr.write(`creating ${N} sets at ${rate}/s, then ${settleMs / 1000} s to settle\n`);
  const r = await fixedRate({
    ratePerSec: rate,
    durationMs: (N / rate) * 1000,
    send: (i) => (i < N ? createSet(pool, ep, NS, i) : undefined),
  });
  if (r.failed) throw new Error(`${r.failed} sets failed; first: ${r.firstError}`);
  await new Promise((res) => setTimeout(res, settleMs));
  const secs = (Date.now() - t0) / 1000;
  console.log(`${N} sets at ${rate}/s; CPU over ${secs.toFixed(1)} s (% of one core):`);
  pids.forEach((p, k) => console.log(`  ${names[k].padEnd(28)} ${((cpuTimeMsOf(p) - cpu0[k]) / 10 / secs).toFixed(0).padStart(4)}%`));
  console.log('API requests (apiserver_request_total):');
  /** The apiserver_request_total lines of one API server's /metrics. */
  const requestLines = async (k) => {
    const e = endpointOf(path.join(dir, k));
    const p = poolFor(e, 1);
    const res = await p.request({ method: 'GET', path: '/metrics', headers: e.headers });
    const text = await res.body.text();
    await p.destroy();
    return text.split('\n').filter((l) => l.startsWith('apiserver_request_total'));
  };
  const sumOf = (lines, f = () => true) => lines.filter(f).reduce((a, l) => a + Number(l.split(' ').pop()), 0);
  for (const k of servers) {
    const lines = await requestLines(k);
    const sum = (f) => sumOf(lines, f);
    const total = sum(() => true);
    const writes = sum((l) => /verb="(create|update|patch|delete)"/.test(l));
    const conflicts = sum((l) => l.includes('code="409"'));
    const who = serverName(k);
    const per = k === 'admin.kubeconfig' ? N : N / 3;
    console.log(`  ${who.padEnd(15)} requests ${String(total).padStart(6)} (${(total / per).toFixed(1)}/set)  writes ${String(writes).padStart(6)}  409s ${String(conflicts).padStart(5)} (${(conflicts / per).toFixed(2)}/set)`);
    if (a['by-verb']) {
      for (const l of lines.filter((x) => !x.endsWith(' 0'))) console.log(`    ${l.replace('apiserver_request_total', '')}`);
    }
  }
  if (idleMs > 0) {
    const linesNow = () => Promise.all(servers.map((k) => requestLines(k)));
    const c0 = pids.map(cpuTimeMsOf);
    const l0 = await linesNow();
    await new Promise((res) => setTimeout(res, idleMs));
    const c1 = pids.map(cpuTimeMsOf);
    const l1 = await linesNow();
    const r0 = l0.map((lines) => sumOf(lines));
    const r1 = l1.map((lines) => sumOf(lines));
    console.log(`at rest for ${idleMs / 1000} s with ${N} sets: CPU (% of one core) and requests/s (the metrics reads themselves included)`);
    pids.forEach((p, k) => console.log(`  ${names[k].padEnd(28)} ${((c1[k] - c0[k]) / idleMs * 100).toFixed(1).padStart(5)}%`));
    servers.forEach((k, i) => {
      console.log(`  ${serverName(k).padEnd(28)} ${((r1[i] - r0[i]) / (idleMs / 1000)).toFixed(1).padStart(5)} requests/s`);
      if (!a['by-verb']) return;
      // The counters that moved at rest, as counts over the idle time.
      const before = new Map(l0[i].map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.split(' ').pop())]));
      for (const l of l1[i]) {
        const key = l.slice(0, l.lastIndexOf(' '));
        const d = Number(l.split(' ').pop()) - (before.get(key) ?? 0);
        if (d > 0) console.log(`    ${key.replace('apiserver_request_total', '')} ${d}`);
      }
    });
  }
  if (settings.keep) console.log(`state dir kept: ${dir}`);
} finally {
  await scope.close();
}
