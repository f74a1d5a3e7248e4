/**
 * Counting a watch run's deliveries per watcher: one watcher's extra events (duplicates) must
 * not hide another's missing ones, as a sum over all watchers would.
 */

/**
 * @param counts - events each watcher got (iterable of numbers)
 * @param expected - events each watcher should have got
 * @returns events (all watchers), missing (Σ max(0, expected − got)), duplicates
 *   (Σ max(0, got − expected)), and the fewest and most events one watcher got
 */
export function deliveryCounts(counts, expected) {
  let events = 0;
  let missing = 0;
  let duplicates = 0;
  let min = Infinity;
  let max = 0;
  for (const got of counts) {
    events += got;
    missing += Math.max(0, expected - got);
    duplicates += Math.max(0, got - expected);
    min = Math.min(min, got);
    max = Math.max(max, got);
  }
  return { events, missing, duplicates, min: Number.isFinite(min) ? min : 0, max };
}
