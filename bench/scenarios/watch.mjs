/**
 * `watch`: W concurrent watchers of hostedclusters (cluster-wide, as informers watch) while a
 * writer patches HostedClusters at a fixed rate. Each patch stamps the annotation
 * `bench.hcc.dev/sent` with its send time; delivery latency is the time from that send to the
 * event's arrival at a watcher (so it includes the write itself: decode, store, fsync, fan-out).
 * The patches' own latency (send to response) is reported beside it, so a reader can tell a
 * server too busy to take the writes from a slow fan-out.
 *
 * The watchers run in a child process (bench/lib/watch-client.mjs, raw sockets, no JSON parsing)
 * so their cost is small and measured; the writer runs in the bench process (open loop: a slow
 * server does not slow it down). Per W: warm-up, then timed runs; after each run the bench waits
 * until every watcher got every event (or 15 s pass). Latency is sampled on every watcher for
 * W ≤ 100 and on every 10th watcher above.
 *
 * Over HTTPS (the default) the 1,000-watcher case runs a second time against a control center
 * serving plain HTTP: the HTTPS watch client saturates its core first (see run()).
 *
 * Target: 1,000 watchers, 500 writes/s, p99 delivery under 100 ms.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PreconditionError } from '../lib/args.mjs';
import { trackChild } from '../lib/cleanup.mjs';
import { startControlCenter, memoryOf, tempDir, cpuTimeMsOf } from '../lib/procs.mjs';
import { call, endpointOf, ensureNamespace, HC_PATH, hostedCluster, poolFor, populate } from '../lib/kube.mjs';
import { fixedRate } from '../lib/load.mjs';
import { median, percentile, round } from '../lib/stats.mjs';
import { progress, sleep } from '../lib/progress.mjs';
import { cpuMeter } from '../lib/measure.mjs';
import { fmt } from '../lib/report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const description = '100 and 1,000 watchers of hostedclusters while writing at a fixed rate: delivery latency, throughput, memory';

/** Starts the watcher child and waits until every watch answered 200. */
async function startWatchers(scope, ep, count, sampleEvery, rv) {
  const cfg = {
    host: ep.host,
    port: ep.port,
    tls: ep.tls,
    ca: ep.ca?.toString(),
    headers: ep.headers,
    path: `/apis/hypershift.openshift.io/v1beta1/hostedclusters?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`,
    count,
    sampleEvery,
  };
  const child = fork(path.join(here, '../lib/watch-client.mjs'), [JSON.stringify(cfg)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  trackChild(child);
  scope.defer(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const waiters = [];
  child.on('message', (m) => waiters.shift()?.(m));
  const next = () => new Promise((resolve) => waiters.push(resolve));
  const ready = await Promise.race([
    next(),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`watch client exited with code ${code}`)))),
  ]);
  if (ready.type !== 'ready') throw new Error(`watch client: ${ready.message}`);
  /** Sends a command (with its fields) and resolves with the answer. */
  const ask = async (cmd, fields = {}) => {
    const p = next();
    child.send({ cmd, ...fields });
    return p;
  };
  return { child, ask, stop: () => child.kill('SIGKILL') };
}

/** "; every event delivered", or how many were missing and how many came twice (summed over runs). */
function deliveryNote({ missing, duplicates }) {
  if (!missing && !duplicates) return '; every event delivered';
  return `${missing ? `; ${missing} events missing` : ''}${duplicates ? `; ${duplicates} duplicate events` : ''}`;
}

/**
 * The open-file limit of this process (and of the processes it starts, which inherit it; Node
 * raises its soft limit to the hard one), from /proc/self/limits (`limits`: that file's text);
 * Infinity when unlimited or unreadable.
 */
export function openFileLimit(limits) {
  let text = limits;
  try {
    text ??= readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return Infinity;
  }
  const m = /^Max open files\s+(\S+)/m.exec(text);
  return !m || m[1] === 'unlimited' ? Infinity : Number(m[1]);
}

export async function run(ctx) {
  const counts = [100, 1000];
  // The watch client and the control center each hold one socket per watcher, and more.
  const needed = Math.max(...counts) + 500;
  const limit = openFileLimit();
  if (limit < needed) throw new PreconditionError(`watch: ${Math.max(...counts)} watchers need ~${needed} open files per process; the limit is ${limit} (ulimit -n 4096 raises it)`);
  // Filled case by case: a later case's failure keeps these (bench.mjs).
  const out = ctx.partial;
  await series(ctx, { tls: ctx.tls, counts, suffix: '' }, out);
  if (ctx.tls) {
    // The same 1,000 watchers over plain HTTP: over HTTPS the watch client (one process, one core)
    // saturates decrypting ~650 MB/s before the server does; this shows the server's own limit.
    const plainHttp = {};
    await series(ctx, { tls: false, counts: [1000], suffix: ' (plain HTTP)' }, { rows: out.rows, latencies: out.latencies, data: plainHttp });
    out.data.plainHttp = plainHttp;
  }
  return out;
}

/**
 * One control center (HTTPS or plain HTTP) and a run per watcher count; each count's rows,
 * latencies and data go into `sink` as it finishes.
 */
async function series(ctx, { tls, counts, suffix }, sink) {
  const dir = tempDir(ctx.scope, 'watch');
  const cc = await startControlCenter(ctx.scope, { tls, dir });
  const ep = endpointOf(cc.kubeconfig);
  const pool = poolFor(ep, 64);
  ctx.scope.defer(() => pool.destroy());
  await ensureNamespace(pool, ep, 'watch');
  const K = 100;
  await populate(pool, ep, 16, Array.from({ length: K }, (_, i) => ({ path: HC_PATH('watch'), body: hostedCluster('watch', `hc-${i}`) })));

  const rate = ctx.quick ? 100 : 500;
  const durationMs = ctx.durationMs;
  const runs = ctx.longRuns;
  const headers = { ...ep.headers, 'content-type': 'application/merge-patch+json' };
  const write = (i, sentAt) =>
    call(pool, ep, 'PATCH', `${HC_PATH('watch')}/hc-${i % K}`, { metadata: { annotations: { 'bench.hcc.dev/sent': sentAt.toFixed(3) } } }, headers['content-type']);

  const { rows, data, latencies } = sink;
  Object.assign(data, { writesPerSec: rate, objects: K });
  for (const W of counts) {
    const sampleEvery = W <= 100 ? 1 : 10;
    const { resourceVersion } = (await call(pool, ep, 'GET', `${HC_PATH('watch')}?limit=1`)).metadata;
    progress(`watch: opening ${W} watchers${suffix}`);
    const rssBefore = memoryOf(cc.pid).rssBytes;
    const watchers = await startWatchers(ctx.scope, ep, W, sampleEvery, resourceVersion);
    const rssOpen = memoryOf(cc.pid).rssBytes;
    const once = async (label, ms) => {
      await watchers.ask('reset');
      const cpu = cpuMeter(cc.pid);
      const clientCpu0 = cpuTimeMsOf(watchers.child.pid);
      const t0 = performance.now();
      const w = await fixedRate({ ratePerSec: rate, durationMs: ms, send: (i, sentAt) => write(i, sentAt) });
      if (w.failed) throw new Error(`watch: ${w.failed} writes failed; first: ${w.firstError}`);
      if (w.sent === 0) throw new Error(`watch: no write was sent in a run of ${ms} ms at ${rate}/s`);
      // Every watcher should get every write once: counted per watcher, so one watcher's
      // duplicates do not cancel another's missing events.
      const perWatcher = w.sent - w.failed;
      const expected = perWatcher * W;
      let rep;
      const drainDeadline = performance.now() + 15_000;
      for (;;) {
        rep = await watchers.ask('report', { expected: perWatcher });
        if (rep.missing === 0 || performance.now() > drainDeadline) break;
        await sleep(50);
      }
      const elapsedMs = performance.now() - t0;
      const c = cpu();
      const wl = w.latencies.sorted();
      const r = {
        writes: w.sent - w.failed,
        sentRate: w.sentRate,
        lastSendLagMs: w.lastSendLagMs,
        skipped: w.skipped,
        writeRate: w.achievedRate,
        expectedEvents: expected,
        events: rep.events,
        missing: rep.missing,
        duplicates: rep.duplicates,
        deliveredPerSec: (rep.events * 1000) / elapsedMs,
        drainMs: elapsedMs - ms,
        p50: rep.latency.p50,
        p90: rep.latency.p90,
        p99: rep.latency.p99,
        max: rep.latency.max,
        samples: rep.latency.n,
        writeP50: percentile(wl, 50),
        writeP99: percentile(wl, 99),
        closedWatches: rep.closed,
        serverCpuPct: c.serverCpuPct,
        watchClientCpuPct: ((cpuTimeMsOf(watchers.child.pid) - clientCpu0) / elapsedMs) * 100,
        writerCpuPct: c.clientCpuPct,
        otherCpuPct: Math.max(0, c.otherCpuPct - ((cpuTimeMsOf(watchers.child.pid) - clientCpu0) / elapsedMs) * 100),
        serverRssBytes: memoryOf(cc.pid).rssBytes,
      };
      progress(
        `watch ${W} watchers${suffix} ${label}: ${r.writes} writes (sent at ${Math.round(r.sentRate)}/s, completed at ${Math.round(r.writeRate)}/s), ${r.events}/${expected} events` +
          `${r.missing ? ` (${r.missing} missing)` : ''}${r.duplicates ? ` (${r.duplicates} duplicates)` : ''}, ${Math.round(r.deliveredPerSec)} events/s, ` +
          `p50 ${r.p50?.toFixed(1)} ms, p99 ${r.p99?.toFixed(1)} ms (${r.samples} samples; writes answered in p50 ${r.writeP50.toFixed(1)} ms, p99 ${r.writeP99.toFixed(1)} ms); CPU: server ${Math.round(r.serverCpuPct)}%, watchers ${Math.round(r.watchClientCpuPct)}%, writer ${Math.round(r.writerCpuPct)}%, other ${Math.round(r.otherCpuPct)}%` +
          `${r.closedWatches ? `; ${r.closedWatches} watches closed by the server` : ''}`,
      );
      return r;
    };
    await once('warm-up', ctx.quick ? 500 : ctx.warmupMs);
    const results = [];
    for (let i = 0; i < runs; i++) results.push(await once(`run ${i + 1}/${runs}`, durationMs));
    watchers.stop();
    await sleep(200);
    const agg = {
      rate: median(results.map((r) => r.deliveredPerSec)),
      sentRate: median(results.map((r) => r.sentRate)),
      lastSendLagMs: median(results.map((r) => r.lastSendLagMs)),
      writeRate: median(results.map((r) => r.writeRate)),
      drainMs: median(results.map((r) => r.drainMs)),
      serverCpuPct: median(results.map((r) => r.serverCpuPct)),
      clientCpuPct: median(results.map((r) => r.watchClientCpuPct)),
      p50: median(results.map((r) => r.p50)),
      p99: median(results.map((r) => r.p99)),
      writeP50: median(results.map((r) => r.writeP50)),
      writeP99: median(results.map((r) => r.writeP99)),
      missing: results.reduce((a, r) => a + r.missing, 0),
      duplicates: results.reduce((a, r) => a + r.duplicates, 0),
      closed: Math.max(...results.map((r) => r.closedWatches)),
      serverRssBytes: Math.max(...results.map((r) => r.serverRssBytes)),
      rssBeforeBytes: rssBefore,
      rssWatchersOpenBytes: rssOpen,
      runs: results,
    };
    data[`w${W}`] = agg;
    const isTarget = W === 1000 && rate === 500;
    rows.push({
      case: `${W.toLocaleString('en-US')} watchers, ${rate} writes/s${suffix}`,
      rate: agg.rate,
      unit: 'events/s',
      p50: agg.p50,
      p99: agg.p99,
      target: isTarget ? 'p99 < 100 ms at 500 writes/s' : '',
      met: isTarget ? agg.p99 < 100 && agg.missing === 0 && agg.duplicates === 0 && agg.closed === 0 : undefined,
      p99Bound: isTarget ? 100 : undefined,
      note:
        `writes sent at ${Math.round(agg.sentRate)} of ${rate}/s, completed at ${Math.round(agg.writeRate)}/s, answered in p50 ${fmt(round(agg.writeP50))} ms, p99 ${fmt(round(agg.writeP99))} ms; CPU: server ${Math.round(agg.serverCpuPct)}%, watch client ${Math.round(agg.clientCpuPct)}%; events/s over the run and its drain (${(agg.drainMs / 1000).toFixed(1)} s)` +
        `${deliveryNote(agg)}${agg.closed ? `; ${agg.closed} watches closed by the server` : ''}`,
    });
    rows.push({ case: `${W.toLocaleString('en-US')} watchers${suffix}: server RSS, peak`, value: agg.serverRssBytes / 1e6, unit: 'MB', note: `the largest after a run (${agg.runs.map((r) => Math.round(r.serverRssBytes / 1e6)).join(', ')} MB after each: the watch history keeps the events written, up to its bound, as kube-apiserver's watch cache); ${Math.round(rssBefore / 1e6)} MB before the watchers, ${Math.round(rssOpen / 1e6)} MB with them open and idle` });
    latencies.push({ label: `${W.toLocaleString('en-US')} watchers, ${rate} writes/s${suffix}`, p50: agg.p50, p99: agg.p99 });
  }
}
