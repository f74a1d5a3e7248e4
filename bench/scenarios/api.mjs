/**
 * `api`: the control center's request path for HostedClusters, one verb at a time, driven by
 * the same load generator and connection count as the bare-fastify baseline (the HTTP limit),
 * which runs here too: its GET and POST runs alternate with the control center's get and create
 * runs, and the ratios are medians of those pairs, so a busy machine skews both alike.
 *
 * Cases (each: warm-up, then timed runs): create; delete (count-based: run r deletes what create
 * run r made); get (random names among 1,000); list of 1,000 and of 10,000 objects in a namespace,
 * each also with a label selector matching 10% of them; update (PUT of the whole object with a
 * changed annotation, read-modify-write on objects each connection owns); status update (PUT
 * .../status). Then a durability check on a second control center: creates under load, SIGKILL,
 * restart on the same data dir, and every acknowledged create must be there.
 *
 * Targets: get ≥ 50% of the bare-fastify GET rate; create ≥ 30% of the bare-fastify POST rate,
 * with writes durable before the response.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startBareFastify, startControlCenter, killProcess, tempDir } from '../lib/procs.mjs';
import { call, endpointOf, ensureNamespace, HC_PATH, hostedCluster, poolFor, populate } from '../lib/kube.mjs';
import { closedLoop } from '../lib/load.mjs';
import { measureHttp, measurePaired } from '../lib/measure.mjs';
import { progress } from '../lib/progress.mjs';
import { percentNear } from '../lib/stats.mjs';

/** @param {{ quick: boolean }} ctx */
export const description = (ctx) => `create, get, list (1,000 / ${ctx.quick ? '2,000' : '10,000'}, with and without label selector), update, status update, delete of HostedClusters`;

const ShardLabel = 'bench.hcc.dev/shard';
const pct = (a, b) => `${Math.round((a / b) * 100)}%`;

export async function run(ctx) {
  const C = ctx.connections;
  const dir = tempDir(ctx.scope, 'api');
  const cc = await startControlCenter(ctx.scope, { tls: ctx.tls, dir });
  const ep = endpointOf(cc.kubeconfig);
  const pool = poolFor(ep, C);
  ctx.scope.defer(() => pool.destroy());
  const jsonHeaders = { ...ep.headers, 'content-type': 'application/json' };
  for (const ns of ['sample', 'create', 'list-1k', 'list-10k', 'update', 'status']) await ensureNamespace(pool, ep, ns);
  const common = { pool, connections: C, durationMs: ctx.durationMs, warmupMs: ctx.warmupMs, runs: ctx.runs, serverPid: cc.pid };
  const results = {};

  // The HTTP limit: bare fastify answering the same HostedCluster JSON (as this control center
  // returns it), with this control center's serving certificate, same load generator and
  // connections; measured in alternation with the control center's runs.
  const createBody = JSON.stringify(hostedCluster('sample', 'hc-000001'));
  await call(pool, ep, 'POST', HC_PATH('sample'), JSON.parse(createBody));
  const doc = await (await pool.request({ method: 'GET', path: `${HC_PATH('sample')}/hc-000001`, headers: ep.headers })).body.text();
  const docFile = path.join(dir, 'hostedcluster.json');
  writeFileSync(docFile, doc);
  const bare = await startBareFastify(ctx.scope, { tls: ctx.tls, docFile, pkiDir: path.join(dir, 'data', 'pki'), logFile: path.join(dir, 'logs', 'bare-fastify.log') });
  const barePool = poolFor(bare.ep, C);
  ctx.scope.defer(() => barePool.destroy());
  const bareCommon = { pool: barePool, connections: C, durationMs: ctx.durationMs, warmupMs: ctx.warmupMs, serverPid: bare.pid };
  const bareJson = { ...bare.ep.headers, 'content-type': 'application/json' };

  // create (paired with bare POST): unique names; remember what each run made for the delete runs.
  const made = new Map(); // run → names
  const createPair = await measurePaired(
    { ...bareCommon, label: 'baseline fastify POST', next: () => ({ method: 'POST', path: '/obj', headers: bareJson, body: createBody }) },
    {
      ...common,
      label: 'api create',
      next: (i, _w, run) => {
        const name = `r${run + 1}-${i}`;
        return { method: 'POST', path: HC_PATH('create'), headers: jsonHeaders, body: JSON.stringify(hostedCluster('create', name)), name };
      },
      onOk: (req, _i, _w, run) => {
        if (!made.has(run)) made.set(run, []);
        made.get(run).push(req.name);
      },
    },
    ctx.runs,
  );
  results.barePost = createPair.a;
  results.create = createPair.b;

  // delete: run r deletes what create run r made (the warm-up deletes the warm-up's objects).
  results.delete = await measureHttp('api delete', {
    ...common,
    durationMs: Infinity,
    warmupMs: Infinity,
    count: (run) => made.get(run)?.length ?? 0,
    next: (i, _w, run) => ({ method: 'DELETE', path: `${HC_PATH('create')}/${made.get(run)[i]}`, headers: ep.headers }),
  });

  // Objects for reads and updates.
  const nList10k = ctx.quick ? 2000 : 10_000;
  // At least one object per connection: each connection owns a slice of them (rmw below).
  const nRmw = Math.max(ctx.quick ? 256 : 1000, C);
  const big = nList10k.toLocaleString('en-US');
  progress(`api: creating 1,000 + ${big} HostedClusters to list, ${nRmw} to update, ${nRmw} to update status`);
  const labeled = (ns, i) => hostedCluster(ns, `hc-${String(i).padStart(5, '0')}`, { labels: { [ShardLabel]: String(i % 10) } });
  await populate(pool, ep, C, Array.from({ length: 1000 }, (_, i) => ({ path: HC_PATH('list-1k'), body: labeled('list-1k', i) })));
  await populate(pool, ep, C, Array.from({ length: nList10k }, (_, i) => ({ path: HC_PATH('list-10k'), body: labeled('list-10k', i) })));
  const objects = { update: new Map(), status: new Map() };
  for (const ns of ['update', 'status']) {
    await populate(pool, ep, C, Array.from({ length: nRmw }, (_, i) => ({ path: HC_PATH(ns), body: hostedCluster(ns, `hc-${i}`) })), (_i, o) => objects[ns].set(o.metadata.name, o));
  }

  // get (paired with bare GET): random names among the 1,000.
  const getPair = await measurePaired(
    { ...bareCommon, label: 'baseline fastify GET', next: () => ({ method: 'GET', path: '/obj', headers: bare.ep.headers }) },
    {
      ...common,
      label: 'api get',
      next: () => ({ method: 'GET', path: `${HC_PATH('list-1k')}/hc-${String(Math.floor(Math.random() * 1000)).padStart(5, '0')}`, headers: ep.headers }),
    },
    ctx.runs,
  );
  results.bareGet = getPair.a;
  results.get = getPair.b;
  await bare.stop();

  // lists: whole namespace, and 10% by label selector; fewer connections (a list of 10,000 takes
  // long enough that 32 in flight only measure queueing).
  const listConns = Math.min(C, 4);
  const listPool = poolFor(ep, listConns);
  ctx.scope.defer(() => listPool.destroy());
  const listBytes = {};
  for (const [key, ns, selector] of [
    ['list1k', 'list-1k', ''],
    ['list1kSel', 'list-1k', `?labelSelector=${encodeURIComponent(`${ShardLabel}=3`)}`],
    ['list10k', 'list-10k', ''],
    ['list10kSel', 'list-10k', `?labelSelector=${encodeURIComponent(`${ShardLabel}=3`)}`],
  ]) {
    const path = `${HC_PATH(ns)}${selector}`;
    const sample = await call(pool, ep, 'GET', path);
    listBytes[key] = { items: sample.items.length, bytes: Buffer.byteLength(JSON.stringify(sample)) };
    results[key] = await measureHttp(`api list ${ns}${selector ? ' with selector' : ''} (${sample.items.length} items, ${listConns} conns)`, {
      ...common,
      pool: listPool,
      connections: listConns,
      next: () => ({ method: 'GET', path, headers: ep.headers }),
    });
  }

  // update and status update: each connection owns a slice of the objects and PUTs them in turn,
  // with the resourceVersion of its last answer (no conflicts, no extra GET).
  const rmw = (ns, subresource, mutate) => {
    const names = [...objects[ns].keys()];
    const owned = Array.from({ length: C }, (_, w) => names.filter((_, k) => k % C === w));
    const cursor = new Array(C).fill(0);
    return {
      next: (i, w) => {
        const name = owned[w][cursor[w]++ % owned[w].length];
        const obj = mutate(structuredClone(objects[ns].get(name)), i);
        return { method: 'PUT', path: `${HC_PATH(ns)}/${name}${subresource}`, headers: jsonHeaders, body: JSON.stringify(obj), name };
      },
      onBody: (text, _i, _w, req) => objects[ns].set(req.name, JSON.parse(text)),
    };
  };
  results.update = await measureHttp('api update', {
    ...common,
    ...rmw('update', '', (o, i) => ((o.metadata.annotations = { ...o.metadata.annotations, 'bench.hcc.dev/seq': String(i) }), o)),
  });
  results.status = await measureHttp('api status update', {
    ...common,
    ...rmw('status', '/status', (o, i) => {
      o.status = {
        conditions: [{ type: 'Available', status: 'False', reason: 'Bench', message: `update ${i}`, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), observedGeneration: 1 }],
      };
      return o;
    }),
  });

  await pool.destroy();
  await cc.stop(); // a graceful stop (CPU profiles are written then)

  // Durability, on a control center of its own: creates under load, SIGKILL mid-stream, restart
  // on the same data dir, and every acknowledged create must be there.
  progress('api: durability check (SIGKILL during creates, restart, count acknowledged creates)');
  const durDir = tempDir(ctx.scope, 'api-durable');
  const dcc = await startControlCenter(ctx.scope, { tls: ctx.tls, dir: durDir });
  const dep = endpointOf(dcc.kubeconfig);
  const dpool = poolFor(dep, C);
  ctx.scope.defer(() => dpool.destroy());
  await ensureNamespace(dpool, dep, 'durable');
  const dHeaders = { ...dep.headers, 'content-type': 'application/json' };
  const acked = [];
  let killed = false;
  const burst = closedLoop({
    stop: () => killed,
    pool: dpool,
    connections: C,
    durationMs: 10_000,
    next: (i) => ({ method: 'POST', path: HC_PATH('durable'), headers: dHeaders, body: JSON.stringify(hostedCluster('durable', `d-${i}`)), name: `d-${i}` }),
    onOk: (req) => acked.push(req.name),
  });
  await delay(ctx.quick ? 500 : 1500);
  await killProcess(dcc.proc, 'SIGKILL');
  killed = true;
  await burst;
  const cc2 = await startControlCenter(ctx.scope, { tls: ctx.tls, dir: durDir, name: 'control-center-restarted' });
  const ep2 = endpointOf(cc2.kubeconfig);
  const pool2 = poolFor(ep2, 2);
  ctx.scope.defer(() => pool2.destroy());
  const present = new Set((await call(pool2, ep2, 'GET', HC_PATH('durable'))).items.map((o) => o.metadata.name));
  const lost = acked.filter((n) => !present.has(n));
  progress(`api: ${acked.length} creates acknowledged before SIGKILL, ${present.size} present after restart, ${lost.length} lost`);

  const storage = ctx.results.baseline?.data?.storage?.[`batch-${C}`];
  // A get is served from the control center's cache, not LevelDB: this ratio says how near the raw store's reads it comes.
  const storageGet = ctx.results.baseline?.data?.storage?.[`get-${C}`];
  // Ratios of medians (these cases do not alternate with the baseline runs); create and get are
  // medians of paired runs, which is why they can differ from dividing the rates in the table.
  const vsPost = (r) => `${pct(r.rate, results.barePost.rate)} of POST (medians)`;
  const row = (name, r, extra) => ({ case: name, rate: r.rate, unit: 'req/s', p50: r.p50, p99: r.p99, ...extra });
  const cpuNote = (r) => `CPU: server ${Math.round(r.serverCpuPct)}%, load generator ${Math.round(r.clientCpuPct)}%, other ${Math.round(r.otherCpuPct)}%`;
  const transport = ctx.tls ? 'HTTPS' : 'HTTP';
  const rows = [
    row(`bare fastify GET (${transport}, ${C} conns)`, results.bareGet, { note: `HTTP limit; ${cpuNote(results.bareGet)}` }),
    row(`bare fastify POST (${transport}, ${C} conns)`, results.barePost, { note: `HTTP limit; ${cpuNote(results.barePost)}` }),
    row('create', results.create, {
      vsBaseline: `${percentNear(createPair.ratio, 0.3)} of POST (paired runs)${storage ? `, ${pct(results.create.rate, storage.rate)} of level batch` : ''}`,
      target: '≥ 30% of POST, durable',
      met: createPair.ratio >= 0.3 && lost.length === 0 && acked.length > 0,
      note: cpuNote(results.create),
    }),
    row('get', results.get, { vsBaseline: `${percentNear(getPair.ratio, 0.5)} of GET (paired runs)${storageGet ? `, ${pct(results.get.rate, storageGet.rate)} of level get (${C} in flight)` : ''}`, target: '≥ 50% of GET', met: getPair.ratio >= 0.5, note: cpuNote(results.get) }),
    row(`list 1,000 (${listConns} conns)`, results.list1k, { note: `${(listBytes.list1k.bytes / 1e6).toFixed(1)} MB per answer` }),
    row(`list 1,000, label selector → ${listBytes.list1kSel.items.toLocaleString('en-US')} (${listConns} conns)`, results.list1kSel, {}),
    row(`list ${big} (${listConns} conns)`, results.list10k, { note: `${(listBytes.list10k.bytes / 1e6).toFixed(1)} MB per answer` }),
    row(`list ${big}, label selector → ${listBytes.list10kSel.items.toLocaleString('en-US')} (${listConns} conns)`, results.list10kSel, {}),
    row('update (PUT)', results.update, { vsBaseline: vsPost(results.update) }),
    row('status update (PUT /status)', results.status, { vsBaseline: vsPost(results.status) }),
    row('delete', results.delete, { vsBaseline: vsPost(results.delete) }),
    {
      case: 'durability: SIGKILL during creates',
      text: `${acked.length.toLocaleString('en-US')} acked, ${lost.length} lost`,
      target: '0 lost',
      // Nothing acknowledged before the kill tests nothing.
      met: lost.length === 0 && acked.length > 0,
    },
  ];
  return {
    rows,
    data: {
      transport,
      connections: C,
      hostedClusterBytes: Buffer.byteLength(doc),
      createBodyBytes: Buffer.byteLength(createBody),
      ratios: { createToBarePost: createPair.ratio, getToBareGet: getPair.ratio, note: 'median of per-pair ratios (runs alternate bare fastify and control center)' },
      ...results,
      listBytes,
      durability: { acknowledged: acked.length, presentAfterRestart: present.size, lost: lost.length },
    },
    latencies: [
      ['bare fastify GET', results.bareGet],
      ['bare fastify POST', results.barePost],
      ['create', results.create],
      ['get', results.get],
      ['list 1,000', results.list1k],
      ['list 1,000, selector', results.list1kSel],
      [`list ${big}`, results.list10k],
      [`list ${big}, selector`, results.list10kSel],
      ['update', results.update],
      ['status update', results.status],
      ['delete', results.delete],
    ].map(([label, r]) => ({ label, p50: r.p50, p99: r.p99 })),
  };
}
