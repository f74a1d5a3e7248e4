/**
 * The committed objects a Store serves `get`, `list` and `count` from, in memory: the LevelStore's
 * committed state, and the etcd store's copy of everything under its prefix (kept current by its
 * one etcd watch; the counterpart of the `store` half of kube-apiserver's watch cache,
 * k8s.io/apiserver/pkg/storage/cacher/watch_cache.go).
 *
 * Keys are store keys (`/group/resource/[namespace/]name`). Objects are grouped by bucket (the
 * first two segments, `/group/resource/`) so a list touches one resource only; each bucket's
 * sorted key array is rebuilt lazily after adds and deletes.
 * Not thread-safe in any sense beyond Node's single thread; no revision bookkeeping (the store
 * owns that).
 */
import type { StoredObject } from './store.js';

/** Returns the bucket of a key: its first two segments (`/group/resource/`). */
export function bucketOf(key: string): string {
  const i = key.indexOf('/', 1);
  const j = i < 0 ? -1 : key.indexOf('/', i + 1);
  return j < 0 ? key : key.slice(0, j + 1);
}

/** Committed objects by bucket and key; see the module comment. */
export class Mirror {
  private readonly buckets = new Map<string, Map<string, StoredObject>>();
  private readonly sortedKeys = new Map<string, string[]>();

  /** The object at key, or undefined. */
  get(key: string): StoredObject | undefined {
    return this.buckets.get(bucketOf(key))?.get(key);
  }

  /** Sets (entry) or removes (undefined) the object at key. */
  set(key: string, entry: StoredObject | undefined): void {
    const bucket = bucketOf(key);
    let map = this.buckets.get(bucket);
    if (!map) {
      if (!entry) return;
      map = new Map();
      this.buckets.set(bucket, map);
    }
    const had = map.has(key);
    if (entry) {
      map.set(key, entry);
      if (!had) this.sortedKeys.delete(bucket);
    } else if (had) {
      map.delete(key);
      this.sortedKeys.delete(bucket);
    }
  }

  /** Every object, in no particular order (for diffs after a re-list). */
  *entries(): IterableIterator<StoredObject> {
    for (const map of this.buckets.values()) yield* map.values();
  }

  /** Objects whose key starts with prefix, sorted by key. */
  list(prefix: string): StoredObject[] {
    const bucket = bucketOf(prefix);
    const map = this.buckets.get(bucket);
    if (!map) return [];
    let keys = this.sortedKeys.get(bucket);
    if (!keys) {
      keys = [...map.keys()].sort();
      this.sortedKeys.set(bucket, keys);
    }
    const items: StoredObject[] = [];
    if (prefix === bucket) {
      for (const k of keys) items.push(map.get(k)!);
      return items;
    }
    // Keys are sorted: find the first key >= prefix, then take while it matches.
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < keys.length && keys[i]!.startsWith(prefix); i++) items.push(map.get(keys[i]!)!);
    return items;
  }

  /** Number of objects under prefix (constant time for a whole bucket). */
  count(prefix: string): number {
    const bucket = bucketOf(prefix);
    if (prefix === bucket) return this.buckets.get(bucket)?.size ?? 0;
    return this.list(prefix).length;
  }
}
