/**
 * The watch history's bounds: a count of events and a byte budget of their objects' JSON, so a
 * large object written often cannot keep unbounded old versions alive (a watch from before the
 * kept window gets RevisionCompactedError, a 410, and relists).
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { EventHistory } from './history.js';
import { RevisionCompactedError, type StoreEvent } from './store.js';

const event = (revision: number, payload: string): StoreEvent => ({
  type: 'MODIFIED',
  key: '/secrets/ns/big',
  revision,
  object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'big', namespace: 'ns', resourceVersion: String(revision) }, data: { x: payload } } as KubeObject,
});

describe('EventHistory', () => {
  it('keeps at most maxBytes of JSON, dropping the oldest events first, and moves the floor with them', () => {
    const h = new EventHistory(1000, 10, 10_000);
    for (let rv = 11; rv <= 60; rv++) h.publish(event(rv, 'a'.repeat(1000)));
    const { events, bytes } = h.kept();
    expect(bytes).toBeLessThanOrEqual(10_000);
    expect(events).toBeGreaterThan(0);
    expect(events).toBeLessThan(50);
    // The floor is the revision before the oldest kept event: a watch from it is complete...
    const floor = h.oldestWatchableRevision();
    expect(floor).toBe(60 - events);
    const seen: number[] = [];
    h.watch('/secrets/', floor, (ev) => seen.push(ev.revision)).stop();
    expect(seen).toEqual(Array.from({ length: events }, (_, i) => floor + 1 + i));
    // ...and one from before it is told to relist.
    expect(() => h.watch('/secrets/', floor - 1, () => {})).toThrow(RevisionCompactedError);
  });

  it('always keeps the newest event, even one larger than the budget', () => {
    const h = new EventHistory(1000, 0, 100);
    h.publish(event(1, 'small'));
    h.publish(event(2, 'b'.repeat(500)));
    expect(h.kept().events).toBe(1);
    const seen: number[] = [];
    h.watch('/secrets/', 1, (ev) => seen.push(ev.revision)).stop();
    expect(seen).toEqual([2]);
  });

  it("keeps replaying and then delivering live events when the watcher's callback throws", () => {
    const h = new EventHistory(100, 0);
    for (let rv = 1; rv <= 3; rv++) h.publish(event(rv, 'x'));
    const seen: number[] = [];
    const w = h.watch('/secrets/', 0, (ev) => {
      seen.push(ev.revision);
      throw new Error('callback failure');
    });
    h.publish(event(4, 'x'));
    w.stop();
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('still bounds by count when the events are small', () => {
    const h = new EventHistory(3, 0);
    for (let rv = 1; rv <= 5; rv++) h.publish(event(rv, 'x'));
    expect(h.kept().events).toBe(3);
    expect(h.oldestWatchableRevision()).toBe(2);
  });
});
