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

  it('shows objects written before the transform through it on get, list, transact and replayed watch events; later ones as written', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-rt-'));
    const store = new ReadTransformStore(new LevelStore({ dir }));
    await store.open();
    try {
      await store.transact(key('a'), () => ({ op: 'put', object: widget('a', { size: 1 }) }));
      const from = store.currentRevision();
      await store.transact(key('b'), () => ({ op: 'put', object: widget('b', { size: 2 }) }));
      store.setTransform('/ex.hcc.dev/widgets/', defaultColor);
      // Written after: shown as written (the write path applied the schema already).
      await store.transact(key('c'), () => ({ op: 'put', object: widget('c', { size: 3 }) }));

      expect(store.get(key('a'))!.object.spec).toEqual({ size: 1, color: 'red' });
      expect(store.get(key('a'))!.object).toBe(store.get(key('a'))!.object); // memoised
      expect(store.get(key('a'))!.modRevision).toBe(store.inner.get(key('a'))!.modRevision);
      expect(store.list('/ex.hcc.dev/widgets/').items.map((i) => i.object.spec)).toEqual([{ size: 1, color: 'red' }, { size: 2, color: 'red' }, { size: 3 }]);
      expect(store.inner.get(key('a'))!.object.spec).toEqual({ size: 1 }); // nothing written

      const events: StoreEvent[] = [];
      store.watch('/ex.hcc.dev/widgets/', from, (ev) => events.push(ev)).stop();
      expect(events.map((e) => [e.key, e.object.spec])).toEqual([
        [key('b'), { size: 2, color: 'red' }],
        [key('c'), { size: 3 }],
      ]);

      // A write sees the object as reads show it, and stores that.
      let seen: unknown;
      await store.transact(key('b'), (cur) => {
        seen = cur!.spec;
        return { op: 'put', object: { ...cur!, metadata: { ...cur!.metadata, labels: { z: '1' } } } };
      });
      expect(seen).toEqual({ size: 2, color: 'red' });
      expect(store.inner.get(key('b'))!.object.spec).toEqual({ size: 2, color: 'red' });
      // Its MODIFIED event's prevObject is shown too.
      const live: StoreEvent[] = [];
      const w = store.watch('/ex.hcc.dev/widgets/', store.currentRevision(), (ev) => live.push(ev));
      await store.transact(key('a'), (cur) => ({ op: 'put', object: { ...cur!, metadata: { ...cur!.metadata, labels: { y: '1' } } } }));
      w.stop();
      expect(live.map((e) => [e.object.spec, e.prevObject?.spec])).toEqual([[{ size: 1, color: 'red' }, { size: 1, color: 'red' }]]);

      store.setTransform('/ex.hcc.dev/widgets/', undefined);
      expect(store.get(key('c'))!.object.spec).toEqual({ size: 3 });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
