/**
 * The storage contract suite: `describeStore(name, makeStore)` runs the same tests against any
 * Store implementation (level today, etcd next), so every implementation keeps the guarantees
 * stated in store.ts. Used by *.test.ts files only.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { RevisionCompactedError, type Store, type StoreEvent } from './store.js';

const obj = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data });

/** What a suite needs: a fresh store, and a way to reopen the same data (durability). */
export interface StoreFactory {
  make(opts?: { historyCapacity?: number }): Promise<{ store: Store; reopen(): Promise<Store>; cleanup(): Promise<void> }>;
}

/**
 * Registers the contract tests (a vitest `describe` block named `Store contract: <name>`) for the stores `factory` makes;
 * call it at the top level of a test file. Each test makes its own store and cleans it up.
 */
export function describeStore(name: string, factory: StoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    it('assigns increasing revisions and sets resourceVersion', async () => {
      const { store, cleanup } = await factory.make();
      const a = await store.transact('/core/configmaps/ns/a', () => ({ op: 'put', object: obj('a') }));
      const b = await store.transact('/core/configmaps/ns/b', () => ({ op: 'put', object: obj('b') }));
      expect(b!.modRevision).toBe(a!.modRevision + 1);
      expect(a!.object.metadata.resourceVersion).toBe(String(a!.modRevision));
      expect(store.currentRevision()).toBe(b!.modRevision);
      await cleanup();
    });

    it('lists by prefix in key order and counts', async () => {
      const { store, cleanup } = await factory.make();
      for (const n of ['c', 'a', 'b']) await store.transact(`/core/configmaps/ns/${n}`, () => ({ op: 'put', object: obj(n) }));
      await store.transact('/core/configmaps/other/z', () => ({ op: 'put', object: obj('z') }));
      expect(store.list('/core/configmaps/ns/').items.map((i) => i.object.metadata.name)).toEqual(['a', 'b', 'c']);
      expect(store.list('/core/configmaps/').items).toHaveLength(4);
      expect(store.count('/core/configmaps/')).toBe(4);
      expect(store.list('/core/secrets/').items).toEqual([]);
      await cleanup();
    });

    it('runs transactions against the latest state, including writes in flight', async () => {
      const { store, cleanup } = await factory.make();
      const key = '/core/configmaps/ns/counter';
      await Promise.all(
        Array.from({ length: 50 }, () =>
          store.transact(key, (cur) => ({ op: 'put', object: obj('counter', { n: String(Number((cur?.data as { n?: string } | undefined)?.n ?? 0) + 1) }) })),
        ),
      );
      expect((store.get(key)!.object.data as { n: string }).n).toBe('50');
      await cleanup();
    });

    it('writes nothing when the transaction function throws', async () => {
      const { store, cleanup } = await factory.make();
      const rev = store.currentRevision();
      await expect(store.transact('/core/configmaps/ns/x', () => { throw new Error('no'); })).rejects.toThrow('no');
      expect(store.currentRevision()).toBe(rev);
      expect(store.get('/core/configmaps/ns/x')).toBeUndefined();
      await cleanup();
    });

    // An answer that writes nothing but was decided on a write still in flight must not come before
    // that write is durable and visible: a GET right after it shows that state, and a crash cannot
    // take back what the answer described (etcd3's GuaranteedUpdate re-reads committed state).
    it('answers a transaction that writes nothing only once the state it saw is committed', async () => {
      const { store, cleanup } = await factory.make();
      const key = '/core/configmaps/ns/same';
      const first = store.transact(key, () => ({ op: 'put', object: obj('same', { v: '1' }) }));
      const noop = await store.transact(key, (cur) => (cur ? { op: 'none' } : { op: 'put', object: obj('same', { v: '1' }) }));
      expect(noop).toBeDefined();
      expect(store.get(key)?.modRevision).toBe(noop!.modRevision);
      await first;

      // A refusal ("already exists") decided on a create in flight.
      const created = store.transact('/core/configmaps/ns/twice', () => ({ op: 'put', object: obj('twice') }));
      await expect(
        store.transact('/core/configmaps/ns/twice', (cur) => {
          if (cur) throw new Error('already exists');
          return { op: 'put', object: obj('twice') };
        }),
      ).rejects.toThrow('already exists');
      expect(store.get('/core/configmaps/ns/twice')).toBeDefined();
      await created;

      // A delete of nothing decided on a delete in flight.
      const deleting = store.transact(key, () => ({ op: 'delete' }));
      expect(await store.transact(key, () => ({ op: 'delete' }))).toBeUndefined();
      expect(store.get(key)).toBeUndefined();
      await deleting;
      await cleanup();
    });

    it('delivers events in order from history, then live, with DELETED carrying the last state', async () => {
      const { store, cleanup } = await factory.make();
      const start = store.currentRevision();
      await store.transact('/core/configmaps/ns/a', () => ({ op: 'put', object: obj('a', { v: '1' }) }));
      await store.transact('/core/configmaps/ns/a', () => ({ op: 'put', object: obj('a', { v: '2' }) }));
      const seen: StoreEvent[] = [];
      const w = store.watch('/core/configmaps/ns/', start, (e) => seen.push(e));
      const deletedAt: number[] = [];
      await store.transact('/core/configmaps/ns/a', () => ({ op: 'delete' }), { onDeleted: (rev) => deletedAt.push(rev) });
      // A delete of nothing takes no revision.
      await store.transact('/core/configmaps/ns/a', () => ({ op: 'delete' }), { onDeleted: (rev) => deletedAt.push(rev) });
      await store.transact('/core/secrets/ns/s', () => ({ op: 'put', object: obj('s') }));
      w.stop();
      expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(seen.map((e) => e.revision)).toEqual([start + 1, start + 2, start + 3]);
      // The delete's revision, which a DELETE answers with, is its DELETED event's.
      expect(deletedAt).toEqual([start + 3]);
      expect(seen[2]!.object.data).toEqual({ v: '2' });
      expect(seen[2]!.object.metadata.resourceVersion).toBe(String(start + 3));
      await cleanup();
    });

    it('refuses a watch older than the kept history', async () => {
      const { store, cleanup } = await factory.make({ historyCapacity: 3 });
      for (let i = 0; i < 6; i++) await store.transact(`/core/configmaps/ns/k${i}`, () => ({ op: 'put', object: obj(`k${i}`) }));
      expect(() => store.watch('/core/configmaps/', 1, () => {})).toThrow(RevisionCompactedError);
      expect(() => store.watch('/core/configmaps/', store.oldestWatchableRevision(), () => {}).stop()).not.toThrow();
      await cleanup();
    });

    it('keeps acknowledged writes across a restart', async () => {
      const { store, reopen, cleanup } = await factory.make();
      await store.transact('/core/configmaps/ns/a', () => ({ op: 'put', object: obj('a', { v: '1' }) }));
      await store.transact('/core/configmaps/ns/b', () => ({ op: 'put', object: obj('b') }));
      await store.transact('/core/configmaps/ns/b', () => ({ op: 'delete' }));
      const rev = store.currentRevision();
      const again = await reopen();
      expect(again.currentRevision()).toBe(rev);
      expect(again.get('/core/configmaps/ns/a')!.object.data).toEqual({ v: '1' });
      expect(again.get('/core/configmaps/ns/b')).toBeUndefined();
      const next = await again.transact('/core/configmaps/ns/c', () => ({ op: 'put', object: obj('c') }));
      expect(next!.modRevision).toBe(rev + 1);
      await cleanup();
    });
  });
}
