/**
 * EtcdStore against a real etcd (started here on free ports; the tests fail, not skip, when the
 * etcd binary is missing): the shared Store contract, then what only several replicas show —
 * each other's writes, no lost updates under cross-replica conflicts, resuming a broken watch,
 * and re-listing after etcd compacted past it.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Etcd3, GRPCUnavailableError } from 'etcd3';
import pino from 'pino';
import type { KubeObject } from '@hcc/crds';
import { describeStore } from '../store-contract.js';
import { RevisionCompactedError, type StoredObject, type StoreEvent } from '../store.js';
import { EtcdStore, neverSent, supportsRequestProgress } from './etcd-store.js';
import { holdWatch, settledWithin, startProxy, startTestEtcd, type TestEtcd } from './testing-etcd.js';

let etcd: TestEtcd;
let raw: Etcd3;
beforeAll(async () => {
  etcd = await startTestEtcd();
  raw = new Etcd3({ hosts: etcd.endpoint });
});
afterAll(async () => {
  raw?.close();
  await etcd?.stop();
});

const silent = pino({ level: 'silent' });
let prefixes = 0;
const newPrefix = () => `/test-${++prefixes}`;
type ReplicaOptions = { historyCapacity?: number; endpoint?: string; freshnessTimeoutMs?: number; requestProgress?: boolean; watchStallMs?: number };
async function openStore(prefix: string, opts: ReplicaOptions = {}): Promise<EtcdStore> {
  const s = new EtcdStore({ endpoints: [opts.endpoint ?? etcd.endpoint], prefix, historyCapacity: opts.historyCapacity, freshnessTimeoutMs: opts.freshnessTimeoutMs, requestProgress: opts.requestProgress, watchStallMs: opts.watchStallMs, logger: silent });
  await s.open();
  return s;
}
/**
 * A store of a new prefix that reaches etcd through a proxy the test can cut, stall or retarget,
 * with the failures it reports (`onFailure`); both closed when the current test finishes.
 */
async function storeBehindProxy(): Promise<{ proxy: Awaited<ReturnType<typeof startProxy>>; a: EtcdStore; failures: unknown[] }> {
  const proxy = await startProxy(etcd.endpoint);
  onTestFinished(() => proxy.close());
  const failures: unknown[] = [];
  const a = new EtcdStore({ endpoints: [proxy.endpoint], prefix: newPrefix(), logger: silent, onFailure: (err) => failures.push(err) });
  await a.open();
  onTestFinished(() => a.close());
  return { proxy, a, failures };
}
/** openStore, closed when the current test finishes (also when it fails). */
async function replica(prefix: string, opts: ReplicaOptions = {}): Promise<EtcdStore> {
  const s = await openStore(prefix, opts);
  onTestFinished(() => s.close());
  return s;
}
const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data });
const key = (name: string) => `/core/configmaps/ns/${name}`;
const put = (name: string, data: Record<string, string> = {}) => () => ({ op: 'put' as const, object: cm(name, data) });
async function until(what: string, fn: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describeStore('etcd', {
  async make(opts) {
    const prefix = newPrefix();
    let current = await openStore(prefix, { historyCapacity: opts?.historyCapacity });
    return {
      store: current,
      async reopen() {
        await current.close();
        current = await openStore(prefix);
        return current;
      },
      async cleanup() {
        await current.close();
      },
    };
  },
});


describe('EtcdStore: several replicas on one etcd', () => {
  it('stores JSON without resourceVersion and fills it from mod_revision', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix);
    const stored = await a.transact(key('a'), () => ({ op: 'put', object: { ...cm('a'), metadata: { ...cm('a').metadata, resourceVersion: '999' } } }));
    const rawValue = JSON.parse((await raw.get(`${prefix}${key('a')}`).string())!);
    expect(rawValue.metadata.resourceVersion).toBeUndefined();
    expect(rawValue.metadata.name).toBe('a');
    expect(stored!.object.metadata.resourceVersion).toBe(String(stored!.modRevision));
    expect(a.get(key('a'))!.object.metadata.resourceVersion).toBe(String(stored!.modRevision));
  });

  it("sees the other replica's writes through the watch, with the same resourceVersions", async () => {
    const prefix = newPrefix();
    const a = await replica(prefix);
    const b = await replica(prefix);
    const seen: StoreEvent[] = [];
    const w = b.watch('/core/configmaps/', b.currentRevision(), (e) => seen.push(e));
    const created = await a.transact(key('x'), put('x', { v: '1' }));
    const updated = await a.transact(key('x'), put('x', { v: '2' }));
    await a.transact(key('x'), () => ({ op: 'delete' }));
    await until('B to see three events', () => seen.length === 3);
    w.stop();
    expect(seen.map((e) => [e.type, e.revision])).toEqual([
      ['ADDED', created!.modRevision],
      ['MODIFIED', updated!.modRevision],
      ['DELETED', updated!.modRevision + 1],
    ]);
    expect(seen[1]!.object.metadata.resourceVersion).toBe(updated!.object.metadata.resourceVersion);
    expect(seen[2]!.prevObject!.data).toEqual({ v: '2' });
    expect(b.get(key('x'))).toBeUndefined();
    expect(b.currentRevision()).toBe(a.currentRevision());
    // B transacts on what A wrote even before B's mirror has it: the compare fails over to etcd's value.
    await a.transact(key('y'), put('y', { v: 'a' }));
    const onB = await b.transact(key('y'), (cur) => ({ op: 'put', object: cm('y', { v: `${(cur?.data as { v?: string } | undefined)?.v ?? 'none'}+b` }) }));
    expect(onB!.object.data).toEqual({ v: 'a+b' });
    await until('A to see B\'s write', () => a.get(key('y'))?.modRevision === onB!.modRevision);
  });

  it('loses no update when two replicas increment one counter concurrently', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix);
    const b = await replica(prefix);
    const inc = (cur: KubeObject | undefined) => ({ op: 'put' as const, object: cm('counter', { n: String(Number((cur?.data as { n?: string } | undefined)?.n ?? 0) + 1) }) });
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).transact(key('counter'), inc)));
    const revisions = results.map((r) => r!.modRevision);
    expect(new Set(revisions).size).toBe(100);
    // Each write saw exactly the value before it: sorted by revision, the counter counts 1..100.
    const byRevision = [...results].sort((x, y) => x!.modRevision - y!.modRevision).map((r) => Number((r!.object.data as { n: string }).n));
    expect(byRevision).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    await until('both mirrors to show 100', () => [a, b].every((s) => (s.get(key('counter'))!.object.data as { n: string }).n === '100'));
  });

  it('lets exactly one of two replicas create the same key', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix);
    const b = await replica(prefix);
    const create = (who: string) => (cur: KubeObject | undefined) => {
      if (cur) throw new Error(`AlreadyExists (${who})`);
      return { op: 'put' as const, object: cm('once', { by: who }) };
    };
    const outcomes = await Promise.allSettled([a.transact(key('once'), create('a')), b.transact(key('once'), create('b'))]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([expect.stringContaining('AlreadyExists')]);
  });

  it('skips values that are not JSON objects, refuses to write over one, and deletes one only when asked to', async () => {
    const prefix = newPrefix();
    await raw.put(`${prefix}${key('junk')}`).value('not json');
    // JSON, but no Kubernetes object (no kind, or no name): corrupt too, not a nameless ConfigMap.
    await raw.put(`${prefix}${key('nokind')}`).value('{"foo":1}');
    await raw.put(`${prefix}${key('noname')}`).value('{"kind":"ConfigMap","metadata":{}}');
    const a = await replica(prefix);
    expect(a.corruptValue(key('nokind'))?.error).toBe("Object 'Kind' is missing");
    expect(a.corruptValue(key('noname'))?.error).toBe('metadata.name is missing');
    expect(a.list('/core/configmaps/').items).toEqual([]);
    for (const k of ['nokind', 'noname']) expect(await a.deleteCorrupt(key(k))).toBe(true);
    expect(a.get(key('junk'))).toBeUndefined();
    expect(a.corruptValue(key('junk'))).toMatchObject({ etcdKey: `${prefix}${key('junk')}`, error: expect.stringContaining('JSON') });
    expect(a.corruptCount()).toBe(1);
    await expect(a.transact(key('junk'), put('junk'))).rejects.toMatchObject({ code: 500, message: expect.stringContaining(`StorageError: corrupt object, key: ${prefix}${key('junk')}`) });
    await expect(a.transact(key('junk'), () => ({ op: 'delete' }))).rejects.toMatchObject({ code: 500 });
    expect(await raw.get(`${prefix}${key('junk')}`).string()).toBe('not json');
    // A readable key is not deleted this way.
    await a.transact(key('fine'), put('fine'));
    expect(await a.deleteCorrupt(key('fine'))).toBe(false);
    expect(a.get(key('fine'))).toBeDefined();
    expect(await a.deleteCorrupt(key('junk'))).toBe(true);
    expect(await raw.get(`${prefix}${key('junk')}`).string()).toBeNull();
    expect(a.corruptValue(key('junk'))).toBeUndefined();
    expect(a.corruptCount()).toBe(0);
    expect((await a.transact(key('junk'), put('junk')))?.object.metadata.name).toBe('junk');
  });

  it("takes a value whose metadata Go's ObjectMeta would not decode for a corrupt one, deletable only as such", async () => {
    const prefix = newPrefix();
    const bad: [string, Record<string, unknown>, string][] = [
      ['fin', { finalizers: 'y' }, 'metadata.finalizers is not a list of strings'],
      ['finnull', { finalizers: [5, null] }, 'metadata.finalizers is not a list of strings'],
      ['owners', { ownerReferences: 'x' }, 'metadata.ownerReferences is not a list of objects'],
      ['owneruid', { ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 5 }] }, 'metadata.ownerReferences[0].uid is not a string'],
      ['labels', { labels: 'x' }, 'metadata.labels is not a map of strings'],
      ['time', { creationTimestamp: 'notatime' }, 'metadata.creationTimestamp is not an RFC 3339 time'],
      ['mf', { managedFields: 'x' }, 'metadata.managedFields is not a list of objects'],
    ];
    for (const [name, meta] of bad) await raw.put(`${prefix}${key(name)}`).value(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', ...meta } }));
    // What hcc writes itself is fine.
    await raw.put(`${prefix}${key('good')}`).value(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'good', namespace: 'default', uid: 'u', creationTimestamp: '2026-12-04T13:30:19Z', labels: { a: 'b' }, finalizers: ['x/y'], ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'u2', controller: true }] } }));
    const a = await replica(prefix);
    for (const [name, , error] of bad) expect(a.corruptValue(key(name))?.error, name).toBe(error);
    expect(a.list('/core/configmaps/').items.map((o) => o.object.metadata.name)).toEqual(['good']);
    expect(await a.deleteCorrupt(key('fin'))).toBe(true);
    expect(await raw.get(`${prefix}${key('fin')}`).string()).toBeNull();
  });

  it('keeps serving the last object read when its value turns corrupt (no DELETED), until it is deleted or fixed', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix);
    const b = await replica(prefix);
    await a.transact(key('x'), put('x', { v: '1' }));
    await a.transact(key('y'), put('y', { v: '1' }));
    await until('b has y', () => !!b.get(key('y')));
    const seen: string[] = [];
    const w = b.watch('/core/', b.currentRevision(), (e) => seen.push(`${e.type} ${e.key.split('/').pop()}`));
    onTestFinished(() => w.stop());
    await raw.put(`${prefix}${key('x')}`).value('{"broken');
    await raw.put(`${prefix}${key('y')}`).value('[1,2]');
    await until('both seen as corrupt', () => !!b.corruptValue(key('x')) && !!b.corruptValue(key('y')));
    expect(b.get(key('x'))?.object).toMatchObject({ data: { v: '1' } });
    // Fixed by whoever broke it: readable again, a MODIFIED.
    await raw.put(`${prefix}${key('x')}`).value(JSON.stringify(cm('x', { v: '2' })));
    await until('x readable again', () => b.get(key('x'))?.object.data?.v === '2');
    expect(b.corruptValue(key('x'))).toBeUndefined();
    // Deleted with the option: a DELETED of the last object read.
    await until('a sees y as corrupt', () => !!a.corruptValue(key('y')));
    expect(await a.deleteCorrupt(key('y'))).toBe(true);
    await until('y gone on b', () => !b.get(key('y')));
    expect(seen).toEqual(['MODIFIED x', 'DELETED y']);
  });

  it('answers an object over etcd\'s request limit with 413 RequestEntityTooLarge (a permanent answer), not a 503 to retry', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix);
    // Over --max-request-bytes (etcdserver: request is too large), and over gRPC's message limit.
    for (const bytes of [1.7 * 1024 * 1024, 2.5 * 1024 * 1024]) {
      const big = { ...cm('big'), data: { v: 'z'.repeat(bytes) } };
      await expect(a.transact(key('big'), () => ({ op: 'put', object: big }))).rejects.toMatchObject({ code: 413, status: { reason: 'RequestEntityTooLarge' } });
    }
    expect(await raw.get(`${prefix}${key('big')}`).string()).toBeNull();
  });

  it('refuses watches older than its history, also from a replica opened after a compaction', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix);
    const first = await a.transact(key('k0'), put('k0'));
    for (let i = 1; i < 5; i++) await a.transact(key(`k${i}`), put(`k${i}`));
    const rev = a.currentRevision();
    await raw.kv.compact({ revision: rev, physical: true });
    // A still serves its in-memory history; a new replica starts its history at its own list.
    const seen: StoreEvent[] = [];
    a.watch('/core/configmaps/', first!.modRevision - 1, (e) => seen.push(e)).stop();
    expect(seen).toHaveLength(5);
    const c = await replica(prefix);
    expect(c.oldestWatchableRevision()).toBeGreaterThanOrEqual(rev);
    expect(() => c.watch('/core/configmaps/', first!.modRevision, () => {})).toThrow(RevisionCompactedError);
    expect(c.list('/core/configmaps/').items).toHaveLength(5);
  });

  it('reads a revision from before it started from etcd (continue tokens, Exact lists), from a key on, until etcd compacts it', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix);
    for (let i = 0; i < 4; i++) await a.transact(key(`k${i}`), put(`k${i}`, { v: 'old' }));
    const at = a.currentRevision();
    await a.transact(key('k1'), put('k1', { v: 'new' }));
    await a.transact(key('k2'), () => ({ op: 'delete' as const }));
    await a.transact(key('k9'), put('k9'));
    // A replica started after those writes has no history of `at`; etcd has.
    const b = await replica(prefix);
    expect(at).toBeLessThan(b.oldestWatchableRevision());
    const old = await b.listAtRevision('/core/configmaps/ns/', at);
    expect(old.revision).toBe(at);
    expect(old.items.map((i) => `${i.key.split('/').pop()}=${i.object.data?.v}`)).toEqual(['k0=old', 'k1=old', 'k2=old', 'k3=old']);
    expect(old.items[1]!.object.metadata.resourceVersion).toBe(String(old.items[1]!.modRevision));
    const rest = await b.listAtRevision('/core/configmaps/ns/', at, key('k2'));
    expect(rest.items.map((i) => i.key.split('/').pop())).toEqual(['k2', 'k3']);
    await raw.kv.compact({ revision: b.currentRevision(), physical: true });
    await expect(b.listAtRevision('/core/configmaps/ns/', at)).rejects.toThrow(RevisionCompactedError);
  });

  /** Two replicas of one new prefix: A reaches etcd through a proxy the test can cut or stall (most-recent reads give up after 0.5 s), B directly. */
  const replicasBehindProxy = async () => {
    const prefix = newPrefix();
    const proxy = await startProxy(etcd.endpoint);
    onTestFinished(() => proxy.close());
    const a = await replica(prefix, { endpoint: proxy.endpoint, freshnessTimeoutMs: 500 });
    const b = await replica(prefix);
    return { proxy, a, b };
  };

  it('answers a most-recent read only when it can confirm its mirror is current: a replica cut off from etcd refuses it', async () => {
    const { proxy, a, b } = await replicasBehindProxy();
    await b.transact(key('k1'), put('k1', { v: '1' }));
    await a.syncToLatest();
    expect(a.get(key('k1'))?.object.data).toEqual({ v: '1' });
    expect(await a.checkHealth()).toBe('');

    // The network to etcd stops forwarding, nothing closes: B writes, A's watch hears nothing.
    proxy.stall();
    await b.transact(key('k1'), put('k1', { v: '2' }));
    await expect(a.syncToLatest()).rejects.toMatchObject({ code: 503 });
    expect(await a.checkHealth()).toMatch(/unavailable/);
    // A read at any resourceVersion still answers from the mirror, as the cache's do.
    expect(a.get(key('k1'))?.object.data).toEqual({ v: '1' });

    proxy.resume();
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await a.syncToLatest();
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await until('A to show the write made while it was cut off', () => a.get(key('k1'))?.object.data?.v === '2');
    expect(await a.checkHealth()).toBe('');
  });

  it('loses no write made while it was cut off, however many most-recent reads it answered meanwhile', async () => {
    // Reads during the partition and the catch-up must not move the mirror past events still on
    // their way (a progress notification that overtakes them would: etcd before 3.4.31/3.5.13).
    const { proxy, a, b } = await replicasBehindProxy();
    for (let round = 0; round < 3; round++) {
      let reading = true;
      const readers = Array.from({ length: 3 }, async () => {
        while (reading) await a.syncToLatest().catch(() => new Promise((r) => setTimeout(r, 5)));
      });
      proxy.cut();
      for (let i = 0; i < 20; i++) await b.transact(key(`r${round}-${i}`), put(`r${round}-${i}`));
      await new Promise((r) => setTimeout(r, 300));
      proxy.heal();
      await until(`A to catch up after partition ${round}`, () => a.currentRevision() >= b.currentRevision(), 30_000);
      await new Promise((r) => setTimeout(r, 300));
      reading = false;
      await Promise.all(readers);
      const names = (st: EtcdStore) => st.list('/core/configmaps/').items.map((i) => i.object.metadata.name);
      expect(names(a)).toEqual(names(b));
    }
  });

  it('asks etcd for progress notifications only where they come in order with the events (3.4.31+, 3.5.13+, 3.6+)', () => {
    expect(['3.4.23', '3.4.30', '3.5.0', '3.5.12', '3.3.27', '2.3.8', 'v3.5.13', 'garbage'].filter(supportsRequestProgress)).toEqual([]);
    expect(['3.4.31', '3.4.34', '3.5.13', '3.5.21', '3.6.0', '3.6.5', '3.7.0', '4.0.0'].every(supportsRequestProgress)).toBe(true);
  });

  it('reaches a revision that only writes outside its prefix advanced (progress notifications), with no write of its own', async () => {
    // Progress requests forced on: the test etcd (Debian's 3.4.23) sends a requested notification
    // ahead of queued events only while a watch catches up; here nothing is queued.
    const a = await replica(newPrefix(), { requestProgress: true });
    const other = await replica(newPrefix());
    await a.transact(key('k1'), put('k1'));
    const elsewhere = await other.transact(key('x'), put('x'));
    expect(a.currentRevision()).toBeLessThan(elsewhere!.modRevision);
    await a.syncToLatest();
    expect(a.currentRevision()).toBeGreaterThanOrEqual(elsewhere!.modRevision);
    // And a revision another control center's writes advanced is reached when asked for progress.
    const later = await other.transact(key('y'), put('y'));
    a.requestProgress();
    await until('A to reach the revision of a write outside its prefix', () => a.currentRevision() >= later!.modRevision, 5_000);
  });


  it("never answers a most-recent read from a lagging watch in the state before another replica's create or delete (etcd without ordered progress notifications)", async () => {
    const prefix = newPrefix();
    const a = await replica(prefix, { requestProgress: false, freshnessTimeoutMs: 5_000 });
    const b = await replica(prefix);
    await b.transact(key('gone'), put('gone'));
    await until('A to see the first write', () => a.get(key('gone')) !== undefined);

    // A's watch falls behind; B creates one object and deletes another, both acknowledged.
    const lag = holdWatch(a);
    await b.transact(key('new'), put('new'));
    await b.transact(key('gone'), () => ({ op: 'delete' as const }));
    const read = a.syncToLatest();
    // Well past the watch's usual-lag grace (200 ms), the read still waits for the watch...
    expect(await settledWithin(read, 700)).toBe(false);
    lag.release();
    // ...and then answers the state after both writes.
    await read;
    expect(a.get(key('new'))).toBeDefined();
    expect(a.get(key('gone'))).toBeUndefined();

    // Only a delete behind: the highest mod_revision under the prefix is one A has, the count is not.
    const lag2 = holdWatch(a);
    await b.transact(key('new'), () => ({ op: 'delete' as const }));
    const read2 = a.syncToLatest();
    expect(await settledWithin(read2, 700)).toBe(false);
    lag2.release();
    await read2;
    expect(a.get(key('new'))).toBeUndefined();

    // Many reads waiting at once on a lagging replica share one range of the whole prefix.
    const kv = (a as unknown as { client: Etcd3 }).client.kv;
    const range = kv.range.bind(kv);
    let prefixRanges = 0;
    kv.range = (req, opts) => {
      if (req.sort_target === 'Mod') prefixRanges++;
      return range(req, opts);
    };
    onTestFinished(() => void (kv.range = range));
    const lag3 = holdWatch(a);
    await b.transact(key('burst'), put('burst'));
    const reads = Array.from({ length: 10 }, () => a.syncToLatest());
    expect(await settledWithin(Promise.all(reads), 700)).toBe(false);
    lag3.release();
    await Promise.all(reads);
    expect(a.get(key('burst'))).toBeDefined();
    expect(prefixRanges).toBe(1);

    // A watch that does not catch up in time: 504, not the older state.
    const short = await replica(prefix, { requestProgress: false, freshnessTimeoutMs: 600 });
    holdWatch(short);
    await b.transact(key('later'), put('later'));
    await expect(short.syncToLatest()).rejects.toMatchObject({ code: 504, message: expect.stringMatching(/has not shown every change under its prefix/) });
  });

  it('retries a write gRPC never sent (its channel closed before the call started), and never one that may have reached etcd', async () => {
    const a = await replica(newPrefix());
    const kv = (a as unknown as { client: Etcd3 }).client.kv;
    const txn = kv.txn.bind(kv);
    onTestFinished(() => void (kv.txn = txn));
    let calls = 0;
    const failFirst = (message: string) => {
      calls = 0;
      kv.txn = (req, opts) => (++calls === 1 ? Promise.reject(new GRPCUnavailableError(message)) : txn(req, opts));
    };
    failFirst('14 UNAVAILABLE: Channel closed before call started');
    const stored = await a.transact(key('unsent'), put('unsent', { v: '1' }));
    expect(calls).toBe(2);
    expect(stored?.object.data).toEqual({ v: '1' });
    // Sent, then the connection dropped: etcd may have applied it, so it is not sent again.
    failFirst('14 UNAVAILABLE: Connection dropped');
    await expect(a.transact(key('maybe'), put('maybe'))).rejects.toMatchObject({ code: 503, message: expect.stringContaining('may or may not have been applied') });
    expect(calls).toBe(1);
  });

  it('tells calls that never reached etcd from ones that may have, and says which a failed write was', async () => {
    for (const m of ['14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED', '14 UNAVAILABLE: Channel closed before call started', '4 DEADLINE_EXCEEDED: Deadline exceeded after 10.000s,name resolution: 0.001s,Waiting for LB pick']) {
      expect(neverSent(new GRPCUnavailableError(m)), m).toBe(true);
    }
    expect(neverSent(Object.assign(new Error('Execution prevented because the circuit breaker is open'), { isBrokenCircuitError: true }))).toBe(true);
    for (const m of ['14 UNAVAILABLE: Connection dropped', '4 DEADLINE_EXCEEDED: Deadline exceeded after 10.000s,remote_addr=127.0.0.1:2379', '14 UNAVAILABLE: etcdserver: request timed out']) {
      expect(neverSent(new GRPCUnavailableError(m)), m).toBe(false);
    }
    // A write that never left, every try: a 503 that says it was not applied.
    const a = await replica(newPrefix());
    const kv = (a as unknown as { client: Etcd3 }).client.kv;
    const txn = kv.txn.bind(kv);
    onTestFinished(() => void (kv.txn = txn));
    let calls = 0;
    kv.txn = () => (++calls, Promise.reject(new GRPCUnavailableError('14 UNAVAILABLE: No connection established')));
    await expect(a.transact(key('never'), put('never'))).rejects.toMatchObject({ code: 503, message: expect.stringContaining('(the write was not sent to etcd: not applied)') });
    expect(calls).toBeGreaterThan(2);
  });

  it('rides out a leader election: a most-recent read tries again until its deadline, and its 503 says why the first try failed', async () => {
    const a = await replica(newPrefix());
    await a.transact(key('x'), put('x'));
    const kv = (a as unknown as { client: Etcd3 }).client.kv;
    const range = kv.range.bind(kv);
    onTestFinished(() => void (kv.range = range));
    // etcd answers "leader changed" for ~0.6 s (an election), then as usual.
    const until = Date.now() + 600;
    let failed = 0;
    kv.range = (req, opts) => (Date.now() < until ? (failed++, Promise.reject(new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: leader changed'))) : range(req, opts));
    await a.syncToLatest(key('x'));
    expect(failed).toBeGreaterThan(2);
    expect(a.get(key('x'))).toBeDefined();

    // No answer within its 3 s: a 503 that says why the first try failed (a last try left with a
    // few milliseconds would fail on its own deadline at any member and hide that).
    let tries = 0;
    kv.range = (req, opts) => (++tries === 1 ? Promise.reject(new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: leader changed')) : Promise.reject(new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: no leader')));
    const started = Date.now();
    await expect(a.syncToLatest(key('x'))).rejects.toMatchObject({
      code: 503,
      message: expect.stringMatching(/^storage \(etcd\) unavailable: 14 UNAVAILABLE: etcdserver: leader changed \(then, after \d+ more tries: 14 UNAVAILABLE: etcdserver: no leader\); this server cannot confirm its copy is current$/),
    });
    // Within its 3 s (the last try's own sleep may fire late on a loaded machine): not a keepalive-long wait.
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('re-creates a watch whose etcd member stopped answering, so writes through it are answered in seconds, not when keepalive gives up', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix, { watchStallMs: 400 });
    const b = await replica(prefix);
    await a.transact(key('before'), put('before'));
    // The member under a's watch freezes: its connection stays open, nothing more comes on it,
    // while etcd (the other members) goes on committing.
    const cache = (a as unknown as { cache: { stream: unknown; onResponse: (stream: unknown, res: unknown) => void } }).cache;
    const frozen = cache.stream;
    const handle = cache.onResponse.bind(cache);
    cache.onResponse = (stream, res) => (stream === frozen ? undefined : handle(stream, res));
    onTestFinished(() => void (cache.onResponse = handle));
    const restarts = a.stats().watchRestarts;
    const write = a.transact(key('during'), put('during', { v: '1' }));
    expect(await settledWithin(write, 5_000)).toBe(true);
    expect((await write)?.object.data).toEqual({ v: '1' });
    expect(a.stats().watchRestarts).toBeGreaterThan(restarts);
    // The new stream goes on from where the frozen one stopped: another replica's changes arrive, none twice.
    const seen: string[] = [];
    const w = a.watch('/core/', a.currentRevision(), (e) => seen.push(`${e.type} ${e.key.split('/').pop()}`));
    onTestFinished(() => w.stop());
    await b.transact(key('after'), put('after'));
    await until('the change made through b', () => seen.length > 0);
    expect(seen).toEqual(['ADDED after']);
    expect(a.get(key('during'))?.object.data).toEqual({ v: '1' });
  });

  it('confirms a most-recent read of one key (a GET) by that key alone: at once when it is current, after the watch shows its change when not', async () => {
    for (const requestProgress of [false, true]) {
      const prefix = newPrefix();
      const a = await replica(prefix, { requestProgress, freshnessTimeoutMs: 5_000 });
      const b = await replica(prefix);
      await b.transact(key('k1'), put('k1', { v: '1' }));
      await b.transact(key('k2'), put('k2'));
      await until('A to see the first writes', () => a.get(key('k2')) !== undefined);
      const lag = holdWatch(a);
      onTestFinished(() => lag.release());
      // Writes A has not seen, to other keys and outside the prefix: k1 is current on A all the same.
      await b.transact(key('other'), put('other'));
      await (await replica(newPrefix())).transact(key('x'), put('x'));
      expect(await settledWithin(a.syncToLatest(key('k1')), 700)).toBe(true);
      await a.syncToLatest(key('k1'));
      expect(a.get(key('k1'))?.object.data).toEqual({ v: '1' });
      await a.syncToLatest(key('never')); // absent on both
      // Changed (and deleted) through B: waited for, then the new state.
      await b.transact(key('k1'), put('k1', { v: '2' }));
      await b.transact(key('k2'), () => ({ op: 'delete' as const }));
      const changed = a.syncToLatest(key('k1'));
      const deleted = a.syncToLatest(key('k2'));
      expect(await settledWithin(Promise.race([changed, deleted]), 700)).toBe(false);
      lag.release();
      await changed;
      await deleted;
      expect(a.get(key('k1'))?.object.data).toEqual({ v: '2' });
      expect(a.get(key('k2'))).toBeUndefined();
    }
  });

  it('never takes a state it confirmed for current once its watch has moved on to an event etcd has since undone', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix, { requestProgress: false, freshnessTimeoutMs: 5_000 });
    const b = await replica(prefix);
    const outside = await replica(newPrefix());
    await b.transact(key('k1'), put('k1'));
    await until('A to see the first write', () => a.get(key('k1')) !== undefined);
    // Behind A's watch: X created and deleted again, then a write outside the prefix.
    const lag = holdWatch(a);
    onTestFinished(() => lag.release());
    await b.transact(key('x'), put('x'));
    await b.transact(key('x'), () => ({ op: 'delete' as const }));
    await outside.transact(key('o'), put('o'));
    // etcd's state under the prefix is A's: confirmed (after the grace), without X.
    await a.syncToLatest();
    expect(a.get(key('x'))).toBeUndefined();
    // A's watch shows the create of X, not yet its delete: etcd has not moved, A's copy has.
    lag.releaseOne();
    expect(a.get(key('x'))).toBeDefined();
    const read = a.syncToLatest();
    expect(await settledWithin(read, 500)).toBe(false);
    lag.release();
    await read;
    expect(a.get(key('x'))).toBeUndefined();
  });

  it('counts keys under its prefix by their bytes: two that differ only in bytes that are not UTF-8 are two (a most-recent read on a lagging replica still waits for a delete)', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix, { requestProgress: false, freshnessTimeoutMs: 5_000 });
    const b = await replica(prefix);
    await b.transact(key('y'), put('y'));
    const bad = (byte: number) => Buffer.concat([Buffer.from(`${prefix}${key('bad')}`), Buffer.of(byte)]);
    await raw.put(bad(0xff)).value('x');
    await raw.put(bad(0xfe)).value('x');
    await until('A to see both values', () => a.corruptCount() === 2 && a.get(key('y')) !== undefined);
    const lag = holdWatch(a);
    await b.transact(key('y'), () => ({ op: 'delete' as const }));
    const read = a.syncToLatest();
    expect(await settledWithin(read, 700)).toBe(false);
    lag.release();
    await read;
    expect(a.get(key('y'))).toBeUndefined();
    // And a revision moved only outside the prefix is confirmed with them there, without a 504.
    await (await replica(newPrefix())).transact(key('x'), put('x'));
    await a.syncToLatest();
  });

  it('confirms a most-recent read at once when only writes outside its prefix advanced etcd, also with a corrupt value under it (etcd without ordered progress notifications)', async () => {
    const prefix = newPrefix();
    const a = await replica(prefix, { requestProgress: false, freshnessTimeoutMs: 1_000 });
    const other = await replica(newPrefix());
    await a.transact(key('k1'), put('k1'));
    await raw.put(`${prefix}/core/configmaps/ns/broken`).value('not json');
    await until('A to see the corrupt value', () => a.corruptCount() === 1);
    const elsewhere = await other.transact(key('x'), put('x'));
    expect(a.currentRevision()).toBeLessThan(elsewhere!.modRevision);
    // Nothing under A's prefix changed: its mirror holds etcd's state, though at an older revision.
    await a.syncToLatest();
    expect(a.get(key('k1'))).toBeDefined();
  });

  it('fails for good, once, when etcd comes back at an older revision (restored without --bump-revision)', async () => {
    const { proxy, a, failures } = await storeBehindProxy();
    for (let i = 0; i < 20; i++) await a.transact(key(`k${i}`), put(`k${i}`));
    const seenRevision = a.currentRevision();
    // The "restored" etcd: a fresh one, far behind.
    const restored = await startTestEtcd();
    onTestFinished(() => restored.stop());
    proxy.cut();
    proxy.retarget(restored.endpoint);
    proxy.heal();
    await until('the failure', () => failures.length > 0, 30_000);
    expect(String(failures[0])).toMatch(new RegExp(`etcd's revision went backwards from ${seenRevision} \\(seen by this control center\\) to \\d+: etcd lost its data or was restored from an older snapshot without`));
    expect(await a.checkHealth()).toContain("etcd's revision went backwards");
    await expect(a.transact(key('new'), put('new'))).rejects.toMatchObject({ code: 503 });
    await expect(a.syncToLatest()).rejects.toMatchObject({ code: 503 });
    expect(failures).toHaveLength(1);
  });

  it('refuses a write etcd took below a revision it has seen (etcd came back empty), before its watch notices', async () => {
    const { proxy, a, failures } = await storeBehindProxy();
    for (let i = 0; i < 20; i++) await a.transact(key(`k${i}`), put(`k${i}`));
    const seenRevision = a.currentRevision();
    const wiped = await startTestEtcd();
    onTestFinished(() => wiped.stop());
    // The watch waits a minute before it reconnects (as under load, when other writes push etcd's
    // revision past this replica's before its new watch could compare them): only the write can tell.
    (a as unknown as { cache: { retryMs: number } }).cache.retryMs = 60_000;
    proxy.cut();
    proxy.retarget(wiped.endpoint);
    proxy.heal();
    // etcd takes the write at revision 2, which named k0's first version here: never answered as written.
    let answer: unknown;
    for (let i = 0; i < 100; i++) {
      answer = await a.transact(key('after'), put('after')).catch((e: unknown) => e);
      if (!/unavailable/.test(String((answer as Error).message))) break; // the connection to the new etcd is up
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answer).toMatchObject({ code: 503, message: expect.stringContaining("etcd's revision went backwards") });
    expect(a.get(key('after'))).toBeUndefined();
    await until('the failure', () => failures.length > 0);
    expect(String(failures[0])).toContain(`went backwards from ${seenRevision}`);
    await expect(a.transact(key('later'), put('later'))).rejects.toMatchObject({ code: 503 });
    expect(failures).toHaveLength(1);
  });

  it('writes again within a second of etcd coming back after failed writes (the client\'s per-member circuit breaker waits 500 ms, not 5 s)', async () => {
    const { proxy, a } = await storeBehindProxy();
    await a.transact(key('k0'), put('k0'));
    proxy.cut();
    // Writes during the outage fail (503), and open the breaker in front of the only member.
    for (let i = 0; i < 5; i++) await expect(a.transact(key(`down${i}`), put(`down${i}`))).rejects.toMatchObject({ code: 503 });
    proxy.heal();
    await new Promise((r) => setTimeout(r, 1_500));
    let written: StoredObject | undefined;
    for (let i = 0; i < 3 && !written; i++) {
      written = await a.transact(key('up'), put('up')).catch(() => undefined); // the first call may find the old connection dropped
    }
    expect(written?.object.metadata.name).toBe('up');
  });

  it('resumes a broken watch where it stopped, and re-lists when etcd compacted past it', async () => {
    const prefix = newPrefix();
    const proxy = await startProxy(etcd.endpoint);
    onTestFinished(() => proxy.close());
    const a = await replica(prefix, { endpoint: proxy.endpoint });
    const b = await replica(prefix);
    for (const n of ['k1', 'k2', 'k3']) await b.transact(key(n), put(n, { v: '1' }));
    await until('A to see the first writes', () => a.count('/core/configmaps/') === 3);
    const seen: StoreEvent[] = [];
    const w = a.watch('/core/configmaps/', a.currentRevision(), (e) => seen.push(e));

    // 1. A partition without compaction: A resumes from its last revision and sees every event.
    proxy.cut();
    await b.transact(key('k1'), put('k1', { v: '2' }));
    await b.transact(key('k1'), put('k1', { v: '3' }));
    await b.transact(key('k4'), put('k4'));
    // A cannot write while it cannot reach etcd: 503, and nothing hangs.
    await expect(a.transact(key('k9'), put('k9'))).rejects.toMatchObject({ code: 503 });
    // A client brings B's newer revision to lagging A: A must not replay what B already showed it.
    const late: StoreEvent[] = [];
    const wLate = a.watch('/core/configmaps/', b.currentRevision(), (e) => late.push(e));
    proxy.heal();
    await until('A to catch up after the partition', () => a.currentRevision() === b.currentRevision(), 30_000);
    expect(seen.map((e) => `${e.type} ${e.key.split('/').pop()}`)).toEqual(['MODIFIED k1', 'MODIFIED k1', 'ADDED k4']);
    expect(late).toEqual([]);
    wLate.stop();
    seen.length = 0;
    await b.transact(key('k4'), put('k4', { v: '2' }));
    await until('A to see the next write', () => seen.length === 1);
    expect(a.stats().watchRestarts).toBeGreaterThanOrEqual(1);
    expect(a.stats().relists).toBe(0);

    // 2. A partition during which etcd compacts: A lists again and publishes the difference.
    await b.transact(key('k8'), () => ({ op: 'put', object: { ...cm('k8'), metadata: { ...cm('k8').metadata, uid: 'first' } } }));
    await until('A to see k8', () => a.get(key('k8')) !== undefined);
    seen.length = 0;
    proxy.cut();
    await b.transact(key('k2'), () => ({ op: 'delete' }));
    // Deleted and created again: another object under the same key.
    await b.transact(key('k8'), () => ({ op: 'delete' }));
    await b.transact(key('k8'), () => ({ op: 'put', object: { ...cm('k8'), metadata: { ...cm('k8').metadata, uid: 'second' } } }));
    await b.transact(key('k3'), put('k3', { v: '2' }));
    await b.transact(key('k5'), put('k5'));
    await b.transact(key('k6'), put('k6'));
    await b.transact(key('k6'), () => ({ op: 'delete' }));
    await raw.kv.compact({ revision: b.currentRevision(), physical: true });
    proxy.heal();
    await until('A to re-list', () => a.stats().relists === 1, 30_000);
    expect(seen.map((e) => `${e.type} ${e.key.split('/').pop()}`).sort()).toEqual(['ADDED k5', 'ADDED k8', 'DELETED k2', 'DELETED k8', 'MODIFIED k3']);
    // The old k8 goes (as itself) before the new one comes.
    const k8 = seen.filter((e) => e.key.endsWith('/k8')).map((e) => `${e.type} ${e.object.metadata.uid}`);
    expect(k8).toEqual(['DELETED first', 'ADDED second']);
    expect(seen.every((e) => e.relisted)).toBe(true); // made up, so API watches end with 410 instead
    expect(seen.map((e) => e.revision)).toEqual([...seen.map((e) => e.revision)].sort((x, y) => x - y));
    expect(a.currentRevision()).toBe(b.currentRevision());
    const names = (s: EtcdStore) => s.list('/core/configmaps/').items.map((i) => `${i.object.metadata.name}@${i.modRevision}`);
    expect(names(a)).toEqual(names(b));
    // The made-up events are not history: a watch (or an exact read) from before the re-list is
    // refused, not answered with them.
    expect(() => a.watch('/core/configmaps/', a.currentRevision() - 1, () => {})).toThrow(RevisionCompactedError);
    expect(a.oldestWatchableRevision()).toBe(a.currentRevision());

    // And A writes again normally.
    const after = await a.transact(key('k7'), put('k7'));
    expect(seen.at(-1)!.revision).toBe(after!.modRevision);
    w.stop();
  });
});
