/**
 * Baselines measured in the same run, so the scenarios' numbers read as ratios that survive a
 * noisy machine:
 * - HTTP limit: bare fastify (bench/lib/bare-fastify.mjs) answering a GET and a POST with a
 *   HostedCluster exactly as the control center returns it (fetched from a real control center
 *   first), over the same transport (HTTPS with the control center's own serving certificate,
 *   or plain HTTP with --no-tls), driven by the same load generator with the same connections.
 * - Storage limit: raw classic-level (bench/lib/raw-level.mjs) puts and gets of the same value
 *   the LevelStore persists, one at a time, C in flight, and batched by C, with `sync: true`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startControlCenter, startProcess, tempDir } from '../lib/procs.mjs';
import { call, endpointOf, ensureNamespace, HC_PATH, hostedCluster, poolFor } from '../lib/kube.mjs';
import { measureHttp, aggregate } from '../lib/measure.mjs';
import { progress } from '../lib/progress.mjs';
import { Scope } from '../lib/cleanup.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const description = 'bare fastify GET/POST and raw classic-level puts/gets (the limits the other scenarios are compared with)';

/** A stored HostedCluster and the serving certificate of a real control center (started briefly). */
async function sample(ctx, dir) {
  const scope = new Scope();
  try {
    const cc = await startControlCenter(scope, { tls: ctx.tls, dir });
    const ep = endpointOf(cc.kubeconfig);
    const pool = poolFor(ep, 1);
    await ensureNamespace(pool, ep, 'bench');
    await call(pool, ep, 'POST', HC_PATH('bench'), hostedCluster('bench', 'hc-000001'));
    const res = await pool.request({ method: 'GET', path: `${HC_PATH('bench')}/hc-000001`, headers: ep.headers });
    const text = await res.body.text();
    await pool.close();
    return { doc: text, createBody: JSON.stringify(hostedCluster('bench', 'hc-000001')), pki: path.join(dir, 'data', 'pki') };
  } finally {
    await scope.close();
  }
}

export async function run(ctx) {
  const dir = tempDir(ctx.scope, 'baseline');
  const { doc, createBody, pki } = await sample(ctx, dir);
  const docFile = path.join(dir, 'hostedcluster.json');
  writeFileSync(docFile, doc);

  // HTTP limit.
  const tlsArgs = ctx.tls ? [path.join(pki, 'server.key'), path.join(pki, 'server.crt')] : [];
  const srv = await startProcess(ctx.scope, {
    name: 'bare-fastify',
    script: path.join(here, '../lib/bare-fastify.mjs'),
    args: [docFile, ...tlsArgs],
    logFile: path.join(dir, 'bare-fastify.log'),
    ready: /"url":"[^"]+"/,
  });
  const url = JSON.parse(srv.matched.split('\n').find((l) => l.includes('"url"'))).url;
  const ep = { origin: url, tls: ctx.tls, ca: ctx.tls ? readFileSync(path.join(pki, 'ca.crt')) : undefined, headers: { accept: 'application/json' } };
  const pool = poolFor(ep, ctx.connections);
  ctx.scope.defer(() => pool.close());
  const common = { pool, connections: ctx.connections, durationMs: ctx.durationMs, warmupMs: ctx.warmupMs, runs: ctx.runs, serverPid: srv.pid };
  const get = await measureHttp('baseline fastify GET', { ...common, next: () => ({ method: 'GET', path: '/obj', headers: ep.headers }) });
  const postHeaders = { ...ep.headers, 'content-type': 'application/json' };
  const post = await measureHttp('baseline fastify POST', { ...common, next: () => ({ method: 'POST', path: '/obj', headers: postHeaders, body: createBody }) });
  await srv.stop();

  // Storage limit.
  progress('baseline raw classic-level: puts and gets with sync: true');
  const lvl = await startProcess(ctx.scope, {
    name: 'raw-level',
    script: path.join(here, '../lib/raw-level.mjs'),
    args: [path.join(dir, 'raw-level'), docFile, JSON.stringify({ connections: ctx.connections, durationMs: ctx.storageDurationMs, warmupMs: ctx.warmupMs, runs: ctx.runs })],
    logFile: path.join(dir, 'raw-level.log'),
    ready: /^\{"put-1".*\n/m,
    timeoutMs: 600_000,
  });
  const raw = JSON.parse(lvl.matched.split('\n').find((l) => l.startsWith('{"put-1"')));
  const storage = Object.fromEntries(Object.entries(raw).map(([k, runs]) => [k, aggregate(runs.map((r) => ({ rate: r.opsPerSec, p50: r.p50, p99: r.p99, n: r.n })))]));

  const transport = ctx.tls ? 'HTTPS' : 'HTTP';
  const C = ctx.connections;
  const rows = [
    { case: `bare fastify GET (${transport}, ${C} conns)`, rate: get.rate, unit: 'req/s', p50: get.p50, p99: get.p99 },
    { case: `bare fastify POST (${transport}, ${C} conns)`, rate: post.rate, unit: 'req/s', p50: post.p50, p99: post.p99 },
    { case: 'level put, 1 at a time, sync', rate: storage['put-1'].rate, unit: 'puts/s', p50: storage['put-1'].p50, p99: storage['put-1'].p99 },
    { case: `level put, ${C} in flight, sync`, rate: storage[`put-${C}`].rate, unit: 'puts/s', p50: storage[`put-${C}`].p50, p99: storage[`put-${C}`].p99 },
    { case: `level batch of ${C} puts, sync`, rate: storage[`batch-${C}`].rate, unit: 'puts/s', p50: storage[`batch-${C}`].p50, p99: storage[`batch-${C}`].p99, note: 'latency per batch' },
    { case: 'level get, 1 at a time', rate: storage['get-1'].rate, unit: 'gets/s', p50: storage['get-1'].p50, p99: storage['get-1'].p99 },
    { case: `level get, ${C} in flight`, rate: storage[`get-${C}`].rate, unit: 'gets/s', p50: storage[`get-${C}`].p50, p99: storage[`get-${C}`].p99 },
  ];
  return {
    rows,
    data: { transport, connections: C, hostedClusterBytes: Buffer.byteLength(doc), createBodyBytes: Buffer.byteLength(createBody), http: { get, post }, storage },
    latencies: [
      { label: 'fastify GET', p50: get.p50, p99: get.p99 },
      { label: 'fastify POST', p50: post.p50, p99: post.p99 },
    ],
  };
}
