import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from './clock.js';
import { Informer, type EventHandler } from './informer.js';
import { RestClient } from './rest.js';
import { DeletedFinalStateUnknown, keyOf, NamespaceIndex, namespaceIndexFunc } from './store.js';
import { FakeApiServer } from './testing/fake-apiserver.js';
import type { KubeObject, ResourceRef } from './types.js';

const configmaps: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
const secrets: ResourceRef = { group: '', version: 'v1', resource: 'secrets', namespaced: true };
const cm = (ns: string, name: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: ns, name, labels },
  data,
});

const until = (assertion: () => void) => vi.waitFor(assertion, { timeout: 5000, interval: 5 });

/** Records handler calls as compact strings: `add ns/a@101`, `update ns/a@101->102`, `delete ns/a@103`, `tombstone ns/a`. */
function recorder(): EventHandler<KubeObject> & { calls: string[] } {
  const calls: string[] = [];
  const at = (o: KubeObject) => `${keyOf(o)}@${o.metadata.resourceVersion}`;
  return {
    calls,
    onAdd: (o) => calls.push(`add ${at(o)}`),
    onUpdate: (o, n) => calls.push(`update ${keyOf(n)}@${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`),
    onDelete: (o) => calls.push(o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key}` : `delete ${at(o)}`),
  };
}

function captureLogger() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines };
}

describe('Informer', { timeout: 10_000 }, () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function setup(options: { pageSize?: number; expiredAsHttp410?: boolean; labelSelector?: string; resyncPeriodMs?: number; clock?: FakeClock; transform?: (o: KubeObject) => KubeObject } = {}) {
    const api = await FakeApiServer.start([{ ...configmaps, kind: 'ConfigMap' }, secrets], { expiredAsHttp410: options.expiredAsHttp410 });
    const client = new RestClient({ server: api.url });
    const { logger, lines } = captureLogger();
    const informer = new Informer<KubeObject>({
      client,
      ref: configmaps,
      pageSize: options.pageSize,
      labelSelector: options.labelSelector,
      resyncPeriodMs: options.resyncPeriodMs,
      clock: options.clock,
      transform: options.transform,
      initialBackoffMs: 5,
      maxBackoffMs: 50,
      watchTimeoutSeconds: 60,
      logger,
    });
    const rec = recorder();
    informer.addEventHandler(rec);
    cleanup.push(() => api.close(), () => client.close(), () => informer.stop());
    const lists = () => api.requests.filter((r) => r.method === 'GET' && !r.url.includes('watch=')).map((r) => r.url);
    const watches = () => api.requests.filter((r) => r.url.includes('watch=true')).map((r) => new URL(r.url, 'http://x').searchParams.get('resourceVersion'));
    return { api, client, informer, rec, lines, lists, watches };
  }

  it('lists in pages, syncs, then follows the watch', async () => {
    const { api, informer, rec, lists, watches } = await setup({ pageSize: 2 });
    for (const n of ['a', 'b', 'c', 'd', 'e']) api.put(configmaps, cm('ns', n));
    const listRv = api.resourceVersion;
    expect(informer.hasSynced()).toBe(false);
    informer.start();
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
    expect(informer.lastSyncResourceVersion()).toBe(listRv);
    expect(rec.calls).toEqual(['add ns/a@101', 'add ns/b@102', 'add ns/c@103', 'add ns/d@104', 'add ns/e@105']);
    expect(lists()).toHaveLength(3);
    expect(lists()[0]).toBe('/api/v1/configmaps?limit=2');
    expect(lists()[1]).toMatch(/^\/api\/v1\/configmaps\?limit=2&continue=/);
    // List items lack apiVersion/kind on the wire; the informer fills them in.
    expect(informer.lister.get('ns/a')).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });

    await until(() => expect(watches()).toEqual([listRv]));
    await until(() => expect(api.watchCount).toBe(1));
    rec.calls.length = 0;
    api.put(configmaps, cm('ns', 'f'));
    api.put(configmaps, cm('ns', 'a', { changed: 'yes' }));
    api.remove(configmaps, 'ns/b');
    await until(() => expect(rec.calls).toEqual(['add ns/f@106', 'update ns/a@101->107', 'delete ns/b@108']));
    expect(informer.lister.get('ns/a')?.data).toEqual({ changed: 'yes' });
    expect(informer.lister.get('ns/b')).toBeUndefined();
    expect(informer.lister.keys().sort()).toEqual(['ns/a', 'ns/c', 'ns/d', 'ns/e', 'ns/f']);
    expect(informer.lastSyncResourceVersion()).toBe('108');
  });

  it('passes every listed and watched object through transform before the cache and the handlers see it', async () => {
    // As a typed client decodes a missing struct to its zero value: `data` always present.
    const { api, informer, rec } = await setup({ transform: (o) => ((o.data ??= {}), o) });
    api.put(configmaps, { ...cm('ns', 'listed'), data: undefined });
    informer.start();
    await informer.waitForSync();
    expect(informer.lister.get('ns/listed')?.data).toEqual({});
    await until(() => expect(api.watchCount).toBe(1));
    const seen: unknown[] = [];
    informer.addEventHandler({ onAdd: (o) => seen.push(o.data), onUpdate: (_old, o) => seen.push(o.data), onDelete: (o) => seen.push('data' in o ? o.data : 'tombstone') });
    api.put(configmaps, { ...cm('ns', 'watched'), data: undefined });
    api.put(configmaps, { ...cm('ns', 'listed'), data: undefined });
    api.remove(configmaps, 'ns/watched');
    await until(() => expect(rec.calls).toHaveLength(4));
    expect(informer.lister.get('ns/listed')?.data).toEqual({});
    // The replay of the cache to the late handler, then the add, the update and the delete.
    expect(seen).toEqual([{}, {}, {}, {}]);
  });

  it('re-watches from the last resourceVersion (bookmarks included) when the server ends the watch', async () => {
    const { api, informer, rec, lists, watches } = await setup();
    api.put(configmaps, cm('ns', 'a'));
    informer.start();
    await informer.waitForSync();
    await until(() => expect(api.watchCount).toBe(1));
    api.put(configmaps, cm('ns', 'b')); // rv 102
    api.put(secrets, cm('ns', 'unrelated')); // rv 103, not our resource
    api.bookmark();
    await until(() => expect(informer.lastSyncResourceVersion()).toBe('103'));
    api.endWatches();
    await until(() => expect(watches()).toEqual(['101', '103']));
    await until(() => expect(api.watchCount).toBe(1));
    api.put(configmaps, cm('ns', 'c'));
    await until(() => expect(rec.calls).toEqual(['add ns/a@101', 'add ns/b@102', 'add ns/c@104']));
    expect(lists()).toHaveLength(1); // no relist
  });

  it.each([
    { name: 'a 410 ERROR event', input: { expiredAsHttp410: false } },
    { name: 'an HTTP 410 answer', input: { expiredAsHttp410: true } },
  ])('relists after $name and delivers only the difference, with tombstones', async ({ input }) => {
    const { api, informer, rec, lines, lists, watches } = await setup(input);
    for (const n of ['keep', 'change', 'drop']) api.put(configmaps, cm('ns', n));
    informer.start();
    await informer.waitForSync();
    await until(() => expect(api.watchCount).toBe(1));
    rec.calls.length = 0;
    // While the watch is down: changes happen and history is compacted.
    api.dropWatches();
    api.put(configmaps, cm('ns', 'change', { v: '2' })); // 104
    api.remove(configmaps, 'ns/drop'); // 105
    api.put(configmaps, cm('ns', 'new')); // 106
    api.compact();
    await until(() => expect(lists()).toHaveLength(2));
    await until(() => expect(rec.calls.sort()).toEqual(['add ns/new@106', 'tombstone ns/drop', 'update ns/change@102->104']));
    expect(informer.lastSyncResourceVersion()).toBe('106');
    expect(informer.lister.keys().sort()).toEqual(['ns/change', 'ns/keep', 'ns/new']);
    await until(() => expect(watches().at(-1)).toBe('106'));
    // An expired resourceVersion is routine (a restart, a bounded history): an info line, no warning, as client-go's reflector.
    expect(lines.some((l) => l.level === 30 && l.msg === 'resourceVersion expired; relisting')).toBe(true);
    expect(lines.filter((l) => l.level >= 40 && /relisting/.test(l.msg))).toEqual([]);
  });

  it('relists when the server answers its watch with Too large resource version (its storage went back), and sees what is written after', async () => {
    const { api, informer, rec, lists, lines } = await setup({});
    api.put(configmaps, cm('ns', 'a')); // 101
    api.put(configmaps, cm('ns', 'b')); // 102
    informer.start();
    await informer.waitForSync();
    await until(() => expect(api.watchCount).toBe(1));
    // Restored from a snapshot taken before a and b: b is gone there, and writes go on from 100.
    api.dropWatches();
    api.remove(configmaps, 'ns/b');
    api.rewind(100);
    api.put(configmaps, cm('ns', 'c')); // 101 again: below the informer's 102
    await until(() => expect(lists()).toHaveLength(2));
    await until(() => expect(informer.lister.keys().sort()).toEqual(['ns/a', 'ns/c']));
    await until(() => expect(api.watchCount).toBe(1));
    api.put(configmaps, cm('ns', 'd')); // 102
    await until(() => expect(informer.lister.keys().sort()).toEqual(['ns/a', 'ns/c', 'ns/d']));
    expect(rec.calls).toContain('tombstone ns/b');
    expect(lines.some((l) => /resourceVersion too large for the server; relisting/.test(l.msg))).toBe(true);
  });

  it('backs off and retries a failing list and a dropped watch, then resumes without a relist', async () => {
    const { api, informer, rec, lines, lists, watches } = await setup();
    api.put(configmaps, cm('ns', 'a'));
    api.failNext(2, 500, (r) => !r.url.includes('watch='));
    informer.start();
    await informer.waitForSync();
    expect(lists()).toHaveLength(3);
    const retries = lines.filter((l) => l.msg === 'list/watch failed; retrying');
    expect(retries).toHaveLength(2);
    expect(retries.map((l) => l.phase)).toEqual(['list', 'list']);
    expect(retries[1]!.delayMs as number).toBeGreaterThan(retries[0]!.delayMs as number);

    await until(() => expect(api.watchCount).toBe(1));
    api.dropWatches();
    api.put(configmaps, cm('ns', 'b')); // missed by the dropped watch, replayed by the next
    await until(() => expect(rec.calls).toEqual(['add ns/a@101', 'add ns/b@102']));
    expect(watches()).toEqual(['101', '101']);
    expect(lists()).toHaveLength(3);
  });

  it('tells connection handlers once when it loses the server and once when a watch opens again, not for a 410 it relists at once', async () => {
    const { api, informer, rec, lists } = await setup();
    const told: string[] = [];
    let lostAt = NaN;
    informer.addConnectionHandler({
      onLost: (at, err) => {
        lostAt = at;
        told.push(`lost ${(err as { code?: number }).code ?? 'transport'}`);
      },
      onRestored: (at, from) => told.push(`restored ${from === lostAt && at >= from}`),
    });
    api.put(configmaps, cm('ns', 'a'));
    informer.start();
    await informer.waitForSync();
    await until(() => expect(api.watchCount).toBe(1));
    expect(told).toEqual([]); // starting is no outage

    // The watch breaks and the next three attempts are refused: one outage, one restore.
    api.failNext(3, 503, (r) => r.url.includes('watch='));
    api.dropWatches();
    await until(() => expect(told).toEqual(['lost transport', 'restored true']));
    api.put(configmaps, cm('ns', 'b')); // seen through the reopened watch
    await until(() => expect(rec.calls).toEqual(['add ns/a@101', 'add ns/b@102']));

    // A 410 relists at once: the informer never stopped seeing the server.
    api.endWatches();
    api.put(configmaps, cm('ns', 'c'));
    api.compact(); // before the informer watches again (this all runs in one tick)
    await until(() => expect(rec.calls).toContain('add ns/c@103'));
    expect(lists()).toHaveLength(2);
    expect(told).toEqual(['lost transport', 'restored true']);
  });

  it('retryNow() cuts a backoff wait short; without it the informer waits the delay out', async () => {
    const clock = new FakeClock();
    const { api, informer, lists } = await setup({ clock });
    api.put(configmaps, cm('ns', 'a'));
    api.failNext(1, 503, (r) => !r.url.includes('watch='));
    informer.start();
    await until(() => expect(lists()).toHaveLength(1));
    // The failed list waits on the (fake) clock, which does not move: no second list comes.
    await new Promise((r) => setTimeout(r, 100));
    expect(lists()).toHaveLength(1);
    expect(informer.hasSynced()).toBe(false);
    informer.retryNow();
    await informer.waitForSync();
    expect(lists()).toHaveLength(2);
    informer.retryNow(); // nothing to cut short: no extra list
    await new Promise((r) => setTimeout(r, 50));
    expect(lists()).toHaveLength(2);
  });

  it('falls back to one unpaginated list when a continue token expires', async () => {
    const { api, informer, lists, lines } = await setup({ pageSize: 2 });
    for (const n of ['a', 'b', 'c']) api.put(configmaps, cm('ns', n));
    api.failNext(1, 410, (r) => r.url.includes('continue='));
    informer.start();
    await informer.waitForSync();
    expect(lists()).toEqual(['/api/v1/configmaps?limit=2', expect.stringContaining('continue='), '/api/v1/configmaps']);
    expect(informer.lister.keys().sort()).toEqual(['ns/a', 'ns/b', 'ns/c']);
    expect(lines.some((l) => /continue token expired/.test(l.msg))).toBe(true);
  });

  it('treats an object leaving the label selector as a delete', async () => {
    const { api, informer, rec } = await setup({ labelSelector: 'team=red' });
    api.put(configmaps, cm('ns', 'a', {}, { team: 'red' }));
    api.put(configmaps, cm('ns', 'b', {}, { team: 'blue' }));
    informer.start();
    await informer.waitForSync();
    await until(() => expect(api.watchCount).toBe(1));
    api.put(configmaps, cm('ns', 'a', {}, { team: 'blue' }));
    await until(() => expect(rec.calls).toEqual(['add ns/a@101', 'delete ns/a@103']));
    expect(informer.lister.list()).toEqual([]);
  });

  it('maintains indexes, replays the cache to late handlers, and survives a throwing handler', async () => {
    const { api, informer, lines } = await setup();
    informer.addIndexer(NamespaceIndex, namespaceIndexFunc);
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('bad handler');
      },
    });
    api.put(configmaps, cm('ns1', 'a'));
    api.put(configmaps, cm('ns2', 'b'));
    informer.start();
    expect(() => informer.addIndexer('late', () => [])).toThrow(/before start/);
    await informer.waitForSync();
    expect(informer.lister.byIndex(NamespaceIndex, 'ns1').map(keyOf)).toEqual(['ns1/a']);
    await until(() => expect(api.watchCount).toBe(1));
    api.put(configmaps, cm('ns1', 'c'));
    await until(() => expect(informer.lister.byIndex(NamespaceIndex, 'ns1').map(keyOf).sort()).toEqual(['ns1/a', 'ns1/c']));
    expect(lines.filter((l) => l.msg === 'event handler threw; ignored')).toHaveLength(3);
    const late = recorder();
    informer.addEventHandler(late);
    expect(late.calls.sort()).toEqual(['add ns1/a@101', 'add ns1/c@103', 'add ns2/b@102']);
  });

  it('re-delivers the cache as updates every resyncPeriodMs', async () => {
    const clock = new FakeClock();
    const { api, informer, rec } = await setup({ resyncPeriodMs: 30_000, clock });
    api.put(configmaps, cm('ns', 'a'));
    informer.start();
    await informer.waitForSync();
    rec.calls.length = 0;
    clock.step(29_999);
    expect(rec.calls).toEqual([]);
    clock.step(1);
    expect(rec.calls).toEqual(['update ns/a@101->101']);
    clock.step(30_000);
    expect(rec.calls).toHaveLength(2);
  });

  it('waitForSync rejects on abort and on stop; stop closes the watch and silences handlers', async () => {
    const { api, informer, rec } = await setup();
    const ac = new AbortController();
    const aborted = informer.waitForSync(ac.signal);
    ac.abort(new Error('gave up'));
    await expect(aborted).rejects.toThrow('gave up');

    api.failNext(1000, 503); // never syncs
    informer.start();
    const pending = informer.waitForSync();
    await until(() => expect(api.requests.length).toBeGreaterThan(1));
    // Handle the rejection before stop() rejects it: stop() then waits for the loop to exit.
    const rejected = expect(pending).rejects.toThrow(/stopped before it synced/);
    await informer.stop();
    await rejected;
    expect(rec.calls).toEqual([]);
  });

  it('stop() ends the watch; later changes reach no handler', async () => {
    const { api, informer, rec } = await setup();
    informer.start();
    await informer.waitForSync();
    await until(() => expect(api.watchCount).toBe(1));
    await informer.stop();
    await until(() => expect(api.watchCount).toBe(0));
    api.put(configmaps, cm('ns', 'late'));
    await new Promise((r) => setTimeout(r, 20));
    expect(rec.calls).toEqual([]);
  });
});
