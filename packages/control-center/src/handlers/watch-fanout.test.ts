/**
 * Watchers of one resource with the same selection share one registration with the store once
 * past their start (watch-fanout.ts). What a client relies on must not change with that: every
 * event exactly once, in resourceVersion order, whenever it joined and from wherever it started;
 * its own selection; bookmarks that never claim a resourceVersion before the events under it are
 * out; and registrations that end with the last watcher.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { request, startTestControlCenter } from '../testing/in-process.js';

const CMS = '/api/v1/namespaces/default/configmaps';

interface WatchEvent {
  type: string;
  name: string;
  rv: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** An open watch: the events read so far, and how to end it. */
interface OpenWatch {
  events: WatchEvent[];
  ended: Promise<void>;
  close(): void;
}

/** Opens a watch of the ConfigMaps in `default` with `query` and reads its events as they come. */
function openWatch(cc: RunningControlCenter, query: string): Promise<OpenWatch> {
  return openWatchAt(cc, `${CMS}?watch=true&${query}`);
}

/** Opens a watch at `path` (query included) and reads its events as they come. */
function openWatchAt(cc: RunningControlCenter, path: string): Promise<OpenWatch> {
  const url = new URL(cc.url);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: url.hostname, port: url.port, path, headers: { authorization: `Bearer ${cc.adminToken}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`watch ${path}: HTTP ${res.statusCode}`));
      const events: WatchEvent[] = [];
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        const parts = (rest + d).split('\n');
        rest = parts.pop()!;
        for (const p of parts.filter(Boolean)) {
          const e = JSON.parse(p) as { type: string; object: { metadata: { name?: string; resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string> } } };
          const m = e.object.metadata;
          events.push({ type: e.type, name: m.name ?? '', rv: Number(m.resourceVersion), labels: m.labels, annotations: m.annotations });
        }
      });
      const ended = new Promise<void>((done) => res.on('close', () => done()));
      resolve({ events, ended, close: () => req.destroy() });
    });
    req.on('error', () => {});
  });
}

/** Waits until `cond` holds (checked every 10 ms), at most 10 s. */
async function until(what: string, cond: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 10_000; !cond(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** `count` writes, `parallel` at a time: creates cm-0.., then updates them in turn. */
async function writeMany(cc: RunningControlCenter, from: number, count: number, parallel = 4, labels?: (i: number) => Record<string, string>): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < from + count) {
        const i = next++;
        const name = `cm-${i % 40}`;
        const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels && { labels: labels(i) }) }, data: { i: String(i) } };
        // ConfigMaps are not created by a PUT (404 then, as in Kubernetes): POST the first.
        let put = await request(cc, 'PUT', `${CMS}/${name}`, body);
        if (put.code === 404) put = await request(cc, 'POST', CMS, body);
        expect([200, 201]).toContain(put.code);
      }
    }),
  );
}

/** The resourceVersions of a stream must rise: every event after another (bookmarks: not below). */
function expectInOrder(events: WatchEvent[]): void {
  for (let i = 1; i < events.length; i++) {
    const [a, b] = [events[i - 1]!, events[i]!];
    if (b.type === 'BOOKMARK') expect(b.rv, `bookmark at ${i} after ${a.type} ${a.rv}`).toBeGreaterThanOrEqual(a.rv);
    else expect(b.rv, `${b.type} ${b.name} at ${i} after ${a.type} ${a.rv}`).toBeGreaterThan(a.rv);
  }
}

describe('watch fan-out groups', () => {
  let cc: RunningControlCenter;
  const idle: OpenWatch[] = [];
  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, watch: { bookmarkIntervalMs: 15 } });
    // 300 more watchers (of nothing) than the tests': with over 100 streams open, lines wait a few
    // milliseconds for their flush (watch-flush.ts flushDelayMs), as on a server with many
    // informers, so bookmarks and joins fall between an event and its flush.
    for (let i = 0; i < 300; i++) idle.push(await openWatch(cc, 'labelSelector=idle%3Dyes'));
  }, 60_000);
  afterAll(async () => {
    for (const w of idle) w.close();
    await cc?.close();
  });

  const storeWatchers = () => (cc.store as unknown as { inner: { watcherCount(): number } }).inner.watcherCount();
  /** The server's `hcc_watch_fanout_groups`. */
  const groupsMetric = async () =>
    Number(/^hcc_watch_fanout_groups (\d+)/m.exec(await (await fetch(`${cc.url}/metrics`, { headers: { authorization: `Bearer ${cc.adminToken}` } })).text())![1]);
  const latestRV = async () => Number((await request(cc, 'GET', CMS)).body.metadata.resourceVersion);

  it('serves watchers of one selection through one store registration, one per selection, ended with the last watcher', async () => {
    const before = storeWatchers();
    const groupsBefore = await groupsMetric();
    const same = await Promise.all([1, 2, 3].map(() => openWatch(cc, 'labelSelector=team%3Dsame')));
    const other = await openWatch(cc, 'labelSelector=team%3Dother');
    await until('the registrations', () => storeWatchers() === before + 2);
    expect(await groupsMetric()).toBe(groupsBefore + 2);
    await request(cc, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'grouped', labels: { team: 'same' } } });
    await until('the event on every member', () => same.every((w) => w.events.length === 1));
    expect(same.map((w) => w.events.map((e) => `${e.type} ${e.name}`))).toEqual([['ADDED grouped'], ['ADDED grouped'], ['ADDED grouped']]);
    expect(other.events).toEqual([]);
    same[0]!.close();
    same[1]!.close();
    await Promise.all([same[0]!.ended, same[1]!.ended]);
    await request(cc, 'DELETE', `${CMS}/grouped`);
    await until('the delete on the last member', () => same[2]!.events.length === 2);
    expect(same[2]!.events[1]).toMatchObject({ type: 'DELETED', name: 'grouped' });
    same[2]!.close();
    other.close();
    await Promise.all([same[2]!.ended, other.ended]);
    await until('the registrations to end', () => storeWatchers() === before);
    expect(await groupsMetric()).toBe(groupsBefore);
  });

  it('gives a watcher that joins while writes go on, from an older resourceVersion, every event once and in order', async () => {
    const start = await latestRV();
    const first = await openWatch(cc, `resourceVersion=${start}`);
    await writeMany(cc, 0, 120);
    // Joins from the middle of what `first` saw: its history is replayed, then the group serves it.
    const midRV = first.events[60]!.rv;
    const writes = writeMany(cc, 120, 200);
    await new Promise((r) => setTimeout(r, 5));
    const late = await openWatch(cc, `resourceVersion=${midRV}`);
    const list = openWatch(cc, 'resourceVersion=0'); // a list-watch, joining after its initial events
    await writes;
    const lister = await list;
    await request(cc, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'marker' } });
    await until('the marker', () => [first, late, lister].every((w) => w.events.some((e) => e.name === 'marker')));
    const key = (e: WatchEvent) => `${e.type} ${e.name} ${e.rv}`;
    expectInOrder(first.events);
    expectInOrder(late.events);
    expect(late.events.map(key)).toEqual(first.events.filter((e) => e.rv > midRV).map(key));
    // The list-watch: the collection as it was, then every change after it, once each.
    const state = new Map<string, number>();
    let changesFrom = lister.events.findIndex((e) => e.type !== 'ADDED' || e.name === 'marker');
    if (changesFrom < 0) changesFrom = lister.events.length;
    const listRV = Math.max(...lister.events.slice(0, changesFrom).map((e) => e.rv));
    const changes = lister.events.slice(changesFrom);
    expectInOrder(changes);
    expect(changes.map(key)).toEqual(first.events.filter((e) => e.rv > listRV).map(key));
    for (const e of lister.events) if (e.type === 'DELETED') state.delete(e.name);
    else state.set(e.name, e.rv);
    const now = (await request(cc, 'GET', CMS)).body.items as { metadata: { name: string; resourceVersion: string } }[];
    expect(Object.fromEntries(state)).toEqual(Object.fromEntries(now.map((o) => [o.metadata.name, Number(o.metadata.resourceVersion)])));
    for (const w of [first, late, lister]) w.close();
    await request(cc, 'DELETE', `${CMS}/marker`);
  });

  it('sends a member’s bookmarks after the events below them, while writes go on', async () => {
    const watchers = await Promise.all([1, 2].map(async () => openWatch(cc, `resourceVersion=${await latestRV()}&allowWatchBookmarks=true`)));
    await writeMany(cc, 1000, 400, 8);
    await request(cc, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'marker-2' } });
    await until('the marker', () => watchers.every((w) => w.events.some((e) => e.name === 'marker-2')));
    for (const w of watchers) {
      const changes = w.events.filter((e) => e.type !== 'BOOKMARK');
      // Bookmarks came while the writes went on (every 15 ms), not only before or after them.
      const between = w.events.filter((e, i) => e.type === 'BOOKMARK' && i > 0 && i < w.events.length - 1 && e.rv > changes[0]!.rv && e.rv < changes.at(-1)!.rv);
      expect(between.length).toBeGreaterThan(2);
      expect(changes.length).toBe(401);
      expectInOrder(w.events);
      w.close();
    }
    await request(cc, 'DELETE', `${CMS}/marker-2`);
  });

  it('never puts two different selections in one group, whatever characters their name and selectors hold', async () => {
    // A watch of the object named "one\nteam=a", and one of `one` with the selector "team=a\n"
    // (the selector parser takes the trailing newline as space): joined with newlines, their
    // parts would read the same.
    const rv = await latestRV();
    const byName = (name: string) => `/api/v1/watch/namespaces/default/configmaps/${encodeURIComponent(name)}?resourceVersion=${rv}`;
    const oddName = await openWatchAt(cc, byName('one\nteam=a'));
    const one = await openWatchAt(cc, `${byName('one')}&labelSelector=${encodeURIComponent('team=a\n')}`);
    const two = await openWatchAt(cc, `${byName('two')}&labelSelector=${encodeURIComponent('team=a\n')}`);
    const oddTwo = await openWatchAt(cc, byName('two\nteam=a'));
    for (const name of ['one', 'two']) expect((await request(cc, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { team: 'a' } } })).code).toBe(201);
    await until('the events', () => one.events.length === 1 && two.events.length === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(one.events.map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED one']);
    expect(two.events.map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED two']);
    expect(oddName.events).toEqual([]);
    expect(oddTwo.events).toEqual([]);
    for (const w of [oddName, one, two, oddTwo]) w.close();
    for (const name of ['one', 'two']) await request(cc, 'DELETE', `${CMS}/${name}`);
  });

  it('keeps each selection its own: objects entering and leaving it are ADDED and DELETED for its watchers only', async () => {
    const a = await Promise.all([1, 2].map(() => openWatch(cc, 'labelSelector=side%3Da')));
    const b = await openWatch(cc, 'labelSelector=side%3Db');
    const all = await openWatch(cc, `resourceVersion=${await latestRV()}`);
    for (const [i, side] of ['a', 'b', 'a'].entries()) {
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mover', labels: { side } } };
      const put = i === 0 ? await request(cc, 'POST', CMS, body) : await request(cc, 'PUT', `${CMS}/mover`, body);
      expect([200, 201]).toContain(put.code);
    }
    await request(cc, 'DELETE', `${CMS}/mover`);
    await until('every event', () => all.events.length === 4 && a.every((w) => w.events.length === 4) && b.events.length === 2);
    const seen = (w: OpenWatch) => w.events.map((e) => `${e.type} ${e.labels?.side}`);
    expect(a.map(seen)).toEqual([
      ['ADDED a', 'DELETED a', 'ADDED a', 'DELETED a'],
      ['ADDED a', 'DELETED a', 'ADDED a', 'DELETED a'],
    ]);
    expect(seen(b)).toEqual(['ADDED b', 'DELETED b']);
    expect(seen(all)).toEqual(['ADDED a', 'MODIFIED b', 'MODIFIED a', 'DELETED a']);
    // The object leaving a selection is DELETED as it was, at the change's resourceVersion.
    expect(a[0]!.events[1]!.rv).toBe(all.events[1]!.rv);
    for (const w of [...a, b, all]) w.close();
  });
});
