/**
 * The informer's cache: objects by key plus secondary indexes, after client-go's
 * `cache.ThreadSafeStore` / `cache.Indexer`.
 *
 * Contract: objects in the store are shared and read-only. `get`, `list` and `byIndex` hand out
 * the cached references without copying (cheap reads for every reconcile); a caller that wants to
 * change an object calls `clone(obj)` first. Mutating a cached object corrupts every reader's
 * view and the informer's diffing.
 * @see https://github.com/kubernetes/client-go/blob/master/tools/cache/thread_safe_store.go
 */
import type { KubeObject } from './types.js';
import { deepCopyJSON } from '@hcc/crds';

/**
 * What `onDelete` receives when the informer learned of a deletion only by relisting (the watch
 * was down when it happened): the key and the last state the cache held, which may be stale.
 * The counterpart of client-go's `cache.DeletedFinalStateUnknown`.
 */
export class DeletedFinalStateUnknown<T extends KubeObject = KubeObject> {
  /** @param key - `namespace/name` or `name` @param obj - last known state */
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

/**
 * The cache key of an object: `namespace/name`, or `name` for cluster-scoped objects. Accepts a
 * tombstone too (returns its key), like client-go's `DeletionHandlingMetaNamespaceKeyFunc`.
 * @throws Error when the object has no `metadata.name`
 */
export function keyOf(obj: KubeObject | DeletedFinalStateUnknown): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  const { name, namespace } = obj.metadata ?? {};
  if (!name) throw new Error('object has no metadata.name');
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * Splits a key into namespace (`''` for cluster-scoped) and name.
 * @throws Error for a key with more than one `/` or an empty part
 */
export function splitKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1 && parts[0]) return { namespace: '', name: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { namespace: parts[0], name: parts[1] };
  throw new Error(`unexpected key format: "${key}"`);
}

/** A deep copy of a cached object (deepCopyJSON), safe to mutate and send back. */
export function clone<T>(obj: T): T {
  return deepCopyJSON(obj);
}

/** The object behind an `onDelete` argument, unwrapping a tombstone. */
export function deletedObject<T extends KubeObject>(obj: T | DeletedFinalStateUnknown<T>): T {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}

/** Computes the index values of an object (zero, one or many). */
export type IndexFunc<T> = (obj: T) => string[];

/** Name of the built-in namespace index (`byIndex(NamespaceIndex, 'clusters')`). */
export const NamespaceIndex = 'namespace';

/** Index function for `NamespaceIndex`: the object's namespace (`''` for cluster-scoped ones). */
export const namespaceIndexFunc: IndexFunc<KubeObject> = (obj) => [obj.metadata.namespace ?? ''];

/**
 * Read access to a cache. Every method returns shared references: treat them as read-only.
 */
export interface Lister<T> {
  /** The object with this key (`namespace/name` or `name`), or undefined. */
  get(key: string): T | undefined;
  /** Every cached object, in no particular order. */
  list(): T[];
  /** Objects whose index function returned `value`. @throws Error for an unknown index name */
  byIndex(indexName: string, value: string): T[];
  /** Every cached key. */
  keys(): string[];
  /** Number of cached objects (no copy, unlike `list().length`). */
  readonly size: number;
}

/**
 * A keyed object cache with indexes. Writes come only from the informer; everyone else reads
 * through `Lister`. JavaScript is single-threaded, so there is no locking.
 */
export class Store<T extends KubeObject> implements Lister<T> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  /** index name → index value → keys */
  readonly #indices = new Map<string, Map<string, Set<string>>>();

  /**
   * Registers an index. Must happen while the store is empty (before the informer starts).
   * @throws Error when the name is taken or the store already holds objects
   */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.#indexers.has(name)) throw new Error(`indexer "${name}" already exists`);
    if (this.#items.size > 0) throw new Error(`cannot add indexer "${name}" to a store that already has items`);
    this.#indexers.set(name, fn);
    this.#indices.set(name, new Map());
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  byIndex(indexName: string, value: string): T[] {
    const index = this.#indices.get(indexName);
    if (!index) throw new Error(`index "${indexName}" does not exist`);
    const keys = index.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const key of keys) {
      const obj = this.#items.get(key);
      if (obj) out.push(obj);
    }
    return out;
  }

  /** Number of cached objects. */
  get size(): number {
    return this.#items.size;
  }

  /** Inserts or replaces the object under `key`; returns the previous one. */
  set(key: string, obj: T): T | undefined {
    const old = this.#items.get(key);
    this.#items.set(key, obj);
    this.#reindex(key, old, obj);
    return old;
  }

  /** Removes `key`; returns the removed object. */
  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#items.delete(key);
    this.#reindex(key, old, undefined);
    return old;
  }

  #reindex(key: string, oldObj: T | undefined, newObj: T | undefined): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      const oldValues = oldObj ? fn(oldObj) : [];
      const newValues = newObj ? fn(newObj) : [];
      for (const v of oldValues) {
        if (newValues.includes(v)) continue;
        const keys = index.get(v);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(v);
      }
      for (const v of newValues) {
        let keys = index.get(v);
        if (!keys) index.set(v, (keys = new Set()));
        keys.add(key);
      }
    }
  }
}
