#!/usr/bin/env node
/**
 * Create throughput of the etcd store, next to its floor and the level store:
 *   npm run build && node packages/control-center/src/storage/etcd/bench-etcd-store.mjs [--creates N] [--concurrency C]
 *
 * Starts a throwaway etcd (testing-etcd.ts), then measures N creates of a ConfigMap-sized object
 * by C concurrent clients (default 4,000 and 16), each case on fresh keys:
 *   raw etcd txn     one compare-and-put transaction per create through the etcd3 client (the floor)
 *   EtcdStore        store.transact: the txn plus the wait until the store's own watch shows it
 *   LevelStore       store.transact on the embedded level store (fsync'd group commit)
 *   API (etcd|level) POST /api/v1/namespaces/bench/configmaps to an in-process control center over HTTP
 * Prints creates/s and latency percentiles. Reads the compiled dist/ (build first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Etcd3 } from 'etcd3';
import pino from 'pino';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist');
const { startTestEtcd } = await import(`${dist}/storage/etcd/testing-etcd.js`);
const { EtcdStore } = await import(`${dist}/storage/etcd/etcd-store.js`);
const { LevelStore } = await import(`${dist}/storage/level/level-store.js`);
const { startControlCenter } = await import(`${dist}/control-center.js`);

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const creates = arg('--creates', 4000);
const concurrency = arg('--concurrency', 16);
const silent = pino({ level: 'silent' });
const payload = { color: 'blue', note: 'x'.repeat(400) };
const cm = (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench', uid: name, creationTimestamp: new Date().toISOString() }, data: payload });

/** Runs n creates with c workers; returns creates/s and latency percentiles in ms. */
async function measure(label, create) {
  const lat = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < creates) {
        const i = next++;
        const s = performance.now();
        await create(i);
        lat.push(performance.now() - s);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const p = (q) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))].toFixed(2);
  const row = { case: label, 'creates/s': Math.round(creates / secs), 'p50 ms': p(0.5), 'p99 ms': p(0.99) };
  console.error(JSON.stringify(row));
  return row;
}

const etcd = await startTestEtcd();
const rows = [];
const dirs = [];
const tmp = (p) => {
  const d = mkdtempSync(path.join(tmpdir(), p));
  dirs.push(d);
  return d;
};
try {
  const raw = new Etcd3({ hosts: etcd.endpoint });
  const warm = async (fn) => {
    for (let i = 0; i < 200; i++) await fn(`warm-${i}`);
  };
  const rawCreate = (prefix) => (i) => {
    const key = Buffer.from(`${prefix}/core/configmaps/bench/cm-${i}`);
    return raw.kv.txn({ compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }], success: [{ request_put: { key, value: Buffer.from(JSON.stringify(cm(`cm-${i}`))) } }], failure: [{ request_range: { key } }] });
  };
  await warm(rawCreate('/warm'));
  rows.push(await measure('raw etcd txn', rawCreate('/raw')));

  const es = new EtcdStore({ endpoints: [etcd.endpoint], prefix: '/store', logger: silent });
  await es.open();
  const storeCreate = (store) => (i) =>
    store.transact(`/core/configmaps/bench/cm-${i}`, (cur) => {
      if (cur) throw new Error('exists');
      return { op: 'put', object: cm(`cm-${i}`) };
    });
  rows.push(await measure('EtcdStore.transact', storeCreate(es)));
  await es.close();

  const ls = new LevelStore({ dir: tmp('bench-level-') });
  await ls.open();
  rows.push(await measure('LevelStore.transact', storeCreate(ls)));
  await ls.close();

  for (const kind of ['etcd', 'level']) {
    const cc = await startControlCenter({
      dataDir: tmp(`bench-cc-${kind}-`),
      tls: false,
      logger: silent,
      namespaces: ['bench'],
      ...(kind === 'etcd' ? { etcd: { endpoints: [etcd.endpoint], prefix: '/api' } } : {}),
    });
    const url = `${cc.url}/api/v1/namespaces/bench/configmaps`;
    const headers = { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' };
    const post = async (i) => {
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: payload }) });
      if (res.status !== 201) throw new Error(`POST: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 200; i++) await post(`warm-${i}`);
    rows.push(await measure(`API create (${kind})`, post));
    await cc.close();
  }
  raw.close();
} finally {
  await etcd.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
console.log(`${creates} creates, ${concurrency} concurrent clients, etcd ${etcd.endpoint} (single member, fsync on)`);
console.table(rows);
