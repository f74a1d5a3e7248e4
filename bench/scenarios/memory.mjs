/**
 * `memory`: the control center's memory with 10,000 HostedClusters and 10,000 Secrets stored
 * (pull secrets with ~2 KiB of data, the size of a real registry pull secret). RSS from
 * /proc/<pid>/status, heap from the control center's own /metrics (prom-client's
 * nodejs_heap_size_used_bytes):
 * - after the writes, once the process has been idle for 5 s (1 s with --quick), and the peak
 *   (VmHWM) during the writes;
 * - after a restart on the same data dir (what a restarted control center holds), with the time
 *   the restart took.
 *
 * Target: under 400 MB RSS (MB = 10^6 bytes) for 10,000 HostedClusters + 10,000 Secrets.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Scope } from '../lib/cleanup.mjs';
import { memoryOf, startControlCenter, tempDir } from '../lib/procs.mjs';
import { endpointOf, ensureNamespace, HC_PATH, hostedCluster, poolFor, populate, pullSecret, SECRET_PATH } from '../lib/kube.mjs';
import { median } from '../lib/stats.mjs';
import { nowMs, progress, withTicker } from '../lib/progress.mjs';

/** @param {{ quick: boolean }} ctx */
export const description = (ctx) => `control center RSS and heap with ${ctx.quick ? '1,000 HostedClusters + 1,000 Secrets' : '10,000 HostedClusters + 10,000 Secrets'}`;

const MB = 1e6;

async function heapUsed(ep, pool) {
  const res = await pool.request({ method: 'GET', path: '/metrics', headers: ep.headers });
  const text = await res.body.text();
  return Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? NaN);
}

async function oneRun(ctx, N, label) {
  const scope = new Scope();
  try {
    const dir = tempDir(scope, 'memory');
    const cc = await startControlCenter(scope, { tls: ctx.tls, dir });
    const ep = endpointOf(cc.kubeconfig);
    const pool = poolFor(ep, ctx.connections);
    scope.defer(() => pool.destroy());
    const empty = memoryOf(cc.pid).rssBytes;
    await ensureNamespace(pool, ep, 'mem');
    const n = N.toLocaleString('en-US');
    let phase = `${n} Secrets`;
    const writes = (async () => {
      await populate(pool, ep, ctx.connections, Array.from({ length: N }, (_, i) => ({ path: SECRET_PATH('mem'), body: pullSecret('mem', `ps-${i}`, 2048) })));
      phase = `${n} HostedClusters`;
      await populate(pool, ep, ctx.connections, Array.from({ length: N }, (_, i) => ({ path: HC_PATH('mem'), body: hostedCluster('mem', `hc-${i}`, { pullSecret: `ps-${i}` }) })));
    })();
    await withTicker(writes, () => `memory ${label}: writing ${phase}; RSS ${Math.round(memoryOf(cc.pid).rssBytes / MB)} MB`, 5000);
    await sleep(ctx.quick ? 1000 : 5000);
    // The peak (VmHWM) after the idle wait, so it is never below the RSS measured with it.
    const { rssBytes: steady, peakRssBytes: peak } = memoryOf(cc.pid);
    const heap = await heapUsed(ep, pool);
    await pool.destroy();
    await cc.stop();
    const t0 = nowMs();
    const cc2 = await startControlCenter(scope, { tls: ctx.tls, dir, name: 'control-center-restarted' });
    const restartS = (nowMs() - t0) / 1000;
    const ep2 = endpointOf(cc2.kubeconfig);
    const pool2 = poolFor(ep2, 1);
    scope.defer(() => pool2.destroy());
    await sleep(ctx.quick ? 1000 : 5000);
    const restarted = memoryOf(cc2.pid).rssBytes;
    const heap2 = await heapUsed(ep2, pool2);
    const r = { emptyRssBytes: empty, rssBytes: steady, peakRssBytes: peak, heapUsedBytes: heap, restartedRssBytes: restarted, restartedHeapUsedBytes: heap2, restartS };
    progress(
      `memory ${label}: RSS empty ${Math.round(empty / MB)} MB, after writes ${Math.round(steady / MB)} MB (peak ${Math.round(peak / MB)} MB, heap ${Math.round(heap / MB)} MB); ` +
        `restarted in ${restartS.toFixed(1)} s: RSS ${Math.round(restarted / MB)} MB, heap ${Math.round(heap2 / MB)} MB`,
    );
    return r;
  } finally {
    await scope.close();
  }
}

export async function run(ctx) {
  const N = ctx.quick ? 1000 : 10_000;
  const runs = ctx.fewRuns;
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await oneRun(ctx, N, `run ${i + 1}/${runs}`));
  const m = (k) => median(results.map((r) => r[k]));
  const n = N.toLocaleString('en-US');
  const what = `${n} HC + ${n} Secrets`;
  const rows = [
    { case: `${what}: RSS after writes`, value: m('rssBytes') / MB, unit: 'MB', target: '< 400 MB', met: N === 10_000 ? m('rssBytes') < 400 * MB : undefined, valueBound: 400, note: `peak ${Math.round(m('peakRssBytes') / MB)} MB, heap used ${Math.round(m('heapUsedBytes') / MB)} MB, empty server ${Math.round(m('emptyRssBytes') / MB)} MB` },
    { case: `${what}: RSS after restart`, value: m('restartedRssBytes') / MB, unit: 'MB', note: `heap used ${Math.round(m('restartedHeapUsedBytes') / MB)} MB; restart took ${m('restartS').toFixed(1)} s` },
  ];
  return { rows, data: { objects: { hostedClusters: N, secrets: N, secretDataBytes: 2048 }, runs: results } };
}
