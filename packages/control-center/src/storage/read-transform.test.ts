import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { describeStore } from './store-contract.js';
import { LevelStore } from './level/level-store.js';
import { ReadTransformStore } from './read-transform.js';
import type { Store, StoreEvent } from './store.js';

// The wrapper keeps the Store contract, with a transform on a bucket the contract does not use too.
describeStore('read-transform over level', {
  async make(opts) {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-rt-'));
    const wrap = (inner: Store) => {
      const s = new ReadTransformStore(inner);
      s.setTransform('/ex.hcc.dev/widgets/', () => undefined);
      return s;
    };
    let current: Store = wrap(new LevelStore({ dir, historyCapacity: opts?.historyCapacity }));
    await current.open();
    return {
      store: current,
      async reopen() {
        await current.close();
        current = wrap(new LevelStore({ dir }));
        await current.open();
        return current;
      },
      async cleanup() {
        await current.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

describe('ReadTransformStore', () => {
  const widget = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'ex.hcc.dev/v1', kind: 'Widget', metadata: { name, namespace: 'ns' }, spec });
  const key = (name: string) => `/ex.hcc.dev/widgets/ns/${name}`;
  /** Adds `color: red` where it is missing. */
  const defaultColor = (o: KubeObject) => ((o.spec as Record<string, unknown>).color ? undefined : { ...o, spec: { ...(o.spec as object), color: 'red' } });

  it('shows every object through the transform (before or after it was set, any writer) but what a current writer stored; memoised; nothing written', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-rt-'));
    const store = new ReadTransformStore(new LevelStore({ dir }));
    await store.open();
    const v1 = { name: 'v1 info' };
    const stale = { name: 'an info from before the schema change' };
    const put = (name: string, spec: Record<string, unknown>, writer?: object) =>
      store.transact(key(name), () => ({ op: 'put', object: widget(name, spec) }), writer ? { writer } : undefined);
    try {
      await put('a', { size: 1 });
      const from = store.currentRevision();
      await put('b', { size: 2 });
      store.setTransform('/ex.hcc.dev/widgets/', defaultColor, [v1]);
      // A current writer's object was prepared with the schema: as stored (here without the
      // default, to show it is not transformed). Another writer's, or none: transformed.
      expect((await put('c', { size: 3 }, v1))!.object.spec).toEqual({ size: 3 });
      expect((await put('d', { size: 4 }, stale))!.object.spec).toEqual({ size: 4, color: 'red' });
      await put('e', { size: 5 });

      expect(store.get(key('a'))!.object.spec).toEqual({ size: 1, color: 'red' });
      expect(store.get(key('a'))!.object).toBe(store.get(key('a'))!.object); // memoised
      expect(store.get(key('a'))!.modRevision).toBe(store.inner.get(key('a'))!.modRevision);
      expect(store.list('/ex.hcc.dev/widgets/').items.map((i) => i.object.spec)).toEqual([
        { size: 1, color: 'red' },
        { size: 2, color: 'red' },
        { size: 3 },
        { size: 4, color: 'red' },
        { size: 5, color: 'red' },
      ]);
      expect(store.inner.get(key('a'))!.object.spec).toEqual({ size: 1 }); // nothing written

      const events: StoreEvent[] = [];
      store.watch('/ex.hcc.dev/widgets/', from, (ev) => events.push(ev)).stop();
      expect(events.map((e) => [e.key, e.object.spec])).toEqual([
        [key('b'), { size: 2, color: 'red' }],
        [key('c'), { size: 3 }],
        [key('d'), { size: 4, color: 'red' }],
        [key('e'), { size: 5, color: 'red' }],
      ]);

      // A write sees the object as reads show it, and stores that.
      let seen: unknown;
      await store.transact(
        key('b'),
        (cur) => {
          seen = cur!.spec;
          return { op: 'put', object: { ...cur!, metadata: { ...cur!.metadata, labels: { z: '1' } } } };
        },
        { writer: v1 },
      );
      expect(seen).toEqual({ size: 2, color: 'red' });
      expect(store.inner.get(key('b'))!.object.spec).toEqual({ size: 2, color: 'red' });

      // Live events, MODIFIED's prevObject and DELETED's last state included.
      const live: StoreEvent[] = [];
      const w = store.watch('/ex.hcc.dev/widgets/', store.currentRevision(), (ev) => live.push(ev));
      await store.transact(key('a'), (cur) => ({ op: 'put', object: { ...cur!, metadata: { ...cur!.metadata, labels: { y: '1' } } } }));
      await store.transact(key('e'), () => ({ op: 'delete' }));
      await store.transact(key('c'), () => ({ op: 'delete' }));
      w.stop();
      expect(live.map((e) => [e.type, e.object.spec, e.prevObject?.spec])).toEqual([
        ['MODIFIED', { size: 1, color: 'red' }, { size: 1, color: 'red' }],
        ['DELETED', { size: 5, color: 'red' }, { size: 5, color: 'red' }],
        ['DELETED', { size: 3 }, { size: 3 }],
      ]);

      // A new schema: what conformed to the old one is shown through the new transform.
      store.setTransform('/ex.hcc.dev/widgets/', (o) => ((o.spec as Record<string, unknown>).shape ? undefined : { ...o, spec: { ...(o.spec as object), shape: 'round' } }), [v1]);
      expect(store.get(key('b'))!.object.spec).toEqual({ size: 2, color: 'red', shape: 'round' });
      store.setTransform('/ex.hcc.dev/widgets/', undefined);
      expect(store.get(key('d'))!.object.spec).toEqual({ size: 4 });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
