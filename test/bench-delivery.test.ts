/**
 * The watch scenario's delivery counts (bench/lib/delivery.mjs): missing and duplicate events
 * are counted per watcher, so a watcher that got an event twice does not hide one that missed it.
 */
import { describe, expect, it } from 'vitest';
import { deliveryCounts } from '../bench/lib/delivery.mjs';

describe('watch delivery counts', () => {
  it('counts missing and duplicate events per watcher', () => {
    // 3 watchers, 2 writes: the total is the expected 6, but one event is missing and one came twice.
    expect(deliveryCounts([3, 1, 2], 2)).toEqual({ events: 6, missing: 1, duplicates: 1, min: 1, max: 3 });
    expect(deliveryCounts([2, 2, 2], 2)).toEqual({ events: 6, missing: 0, duplicates: 0, min: 2, max: 2 });
    expect(deliveryCounts([0, 5], 5)).toEqual({ events: 5, missing: 5, duplicates: 0, min: 0, max: 5 });
    expect(deliveryCounts([], 5)).toEqual({ events: 0, missing: 0, duplicates: 0, min: 0, max: 0 });
  });
});
