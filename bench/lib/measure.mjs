/**
 * Repeated measurement: a warm-up run (discarded), then `runs` timed runs; each run gives a rate
 * and latency percentiles, and the case reports the median of each over the runs. Progress goes
 * to stderr after every run.
 */
import { closedLoop } from './load.mjs';
import { median, summarize } from './stats.mjs';
import { progress } from './progress.mjs';
import { cpuTimeMsOf, machineBusyMs } from './procs.mjs';

/**
 * CPU use between cpuMeter() and the call of what it returns, in % of one core: this process
 * (the load generator), serverPid, and everything else on the machine (other processes; a
 * shared machine shows here).
 */
export function cpuMeter(serverPid) {
  const m0 = machineBusyMs();
  const c0 = process.cpuUsage();
  const s0 = serverPid ? cpuTimeMsOf(serverPid) : 0;
  const t0 = performance.now();
  return () => {
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const clientCpuPct = ((c.user + c.system) / 1000 / wall) * 100;
    const serverCpuPct = serverPid ? ((cpuTimeMsOf(serverPid) - s0) / wall) * 100 : undefined;
    const machineCpuPct = ((machineBusyMs() - m0) / wall) * 100;
    return { clientCpuPct, serverCpuPct, otherCpuPct: Math.max(0, machineCpuPct - clientCpuPct - (serverCpuPct ?? 0)) };
  };
}

/** Median over runs of rate, p50 and p99, plus the spread of the rate. */
export function aggregate(runs) {
  const rates = runs.map((r) => r.rate);
  return {
    rate: median(rates),
    rateMin: Math.min(...rates),
    rateMax: Math.max(...rates),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    clientCpuPct: median(runs.map((r) => r.clientCpuPct)),
    serverCpuPct: median(runs.map((r) => r.serverCpuPct)),
    otherCpuPct: median(runs.map((r) => r.otherCpuPct)),
    runs,
  };
}

/**
 * Measures one HTTP case with the closed-loop load generator.
 * @param label - for progress lines, e.g. `api create`
 * @param o.next - (i, worker, run) → request; `run` is -1 for the warm-up
 * @param o.count - requests per run instead of (or besides) a duration; a number or (run) → number
 * @param o.onBody, o.onOk - as in closedLoop, with the run index (-1: warm-up) as last argument
 * @param o.serverPid - the server process, whose CPU use is recorded with the load generator's
 * @returns aggregate() of the timed runs; each run has rate (req/s), p50, p90, p99, p999 (ms), requests, errors
 * @throws when a run has errors (the first error is in the message)
 */
export async function measureHttp(label, { pool, connections, durationMs, warmupMs, runs, count, warmupCount, next, onBody, onOk, ok, allowErrors = false, serverPid, runOffset = 0 }) {
  const once = async (run) => {
    const cpu = cpuMeter(serverPid);
    const r = await closedLoop({
      pool,
      connections,
      durationMs: run < 0 ? warmupMs ?? durationMs : durationMs,
      count: typeof count === 'function' ? count(run) : run < 0 ? warmupCount ?? count : count,
      next: (i, w) => next(i, w, run),
      onBody: onBody && ((text, i, w, req) => onBody(text, i, w, req, run)),
      onOk: onOk && ((req, i, w) => onOk(req, i, w, run)),
      ok,
    });
    if (r.errors && !allowErrors) throw new Error(`${label}: ${r.errors} failed requests; first: ${r.firstError}`);
    const s = summarize(r.latencies);
    return { ...cpu(), rate: r.rps, p50: s.p50, p90: s.p90, p99: s.p99, p999: s.p999, max: s.max, requests: r.requests, errors: r.errors, elapsedMs: r.elapsedMs };
  };
  if ((warmupMs ?? 1) > 0 && (warmupCount ?? 1) > 0) {
    const w = await once(-1);
    progress(`${label}: warm-up ${Math.round(w.rate)} req/s`);
  }
  const results = [];
  for (let run = runOffset; run < runOffset + runs; run++) {
    const r = await once(run);
    results.push(r);
    progress(`${label}: ${runs > 1 ? `run ${run + 1}/${runs} ` : ''}${Math.round(r.rate)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms; CPU: load generator ${Math.round(r.clientCpuPct)}%${r.serverCpuPct !== undefined ? `, server ${Math.round(r.serverCpuPct)}%` : ''}, other processes ${Math.round(r.otherCpuPct)}%`);
  }
  return aggregate(results);
}

/**
 * Measures two HTTP cases in alternation — warm-up of each, then A, B, A, B, ... — so that both
 * see the same background load on a shared machine, and reports each case's aggregate plus the
 * median of the per-pair ratios B/A (rate of B over rate of A).
 */
export async function measurePaired(a, b, runs) {
  const ra = [];
  const rb = [];
  await measureHttp(a.label, { ...a, runs: 0 });
  await measureHttp(b.label, { ...b, runs: 0 });
  for (let r = 0; r < runs; r++) {
    ra.push((await measureHttp(`${a.label} [pair ${r + 1}/${runs}]`, { ...a, warmupMs: 0, warmupCount: 0, runs: 1, runOffset: r })).runs[0]);
    rb.push((await measureHttp(`${b.label} [pair ${r + 1}/${runs}]`, { ...b, warmupMs: 0, warmupCount: 0, runs: 1, runOffset: r })).runs[0]);
  }
  return { a: aggregate(ra), b: aggregate(rb), ratio: median(rb.map((x, i) => x.rate / ra[i].rate)) };
}
