/**
 * The storage contract of the control center, modelled on etcd3 as kube-apiserver uses it
 * (k8s.io/apiserver/pkg/storage/interfaces.go): keys are strings, values are Kubernetes objects,
 * every committed write gets the next global revision, and that revision is the object's
 * `metadata.resourceVersion`.
 *
 * Guarantees every implementation keeps:
 * - `transact` is linearizable per key: `fn` sees the latest state, including writes not yet
 *   durable; its result is committed atomically or not at all.
 * - A write's promise resolves only after the write is durable (fsync'd), and after watchers
 *   and `get`/`list` see it. Reads return committed (durable) state only.
 * - Watch events are delivered in revision order, with no gaps, for every key under the prefix.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/interfaces.go
 */
import type { KubeObject } from '@hcc/crds';

/** One object as stored. `object.metadata.resourceVersion === String(modRevision)`. */
export interface StoredObject {
  key: string;
  object: KubeObject;
  /** Revision of the write that created the key. */
  createRevision: number;
  /** Revision of the last write to the key. */
  modRevision: number;
}

/** What `transact`'s function decides. */
export type TransactResult =
  | { op: 'put'; object: KubeObject }
  | { op: 'delete' }
  | { op: 'none' };

/** Options of {@link Store.transact}. */
export interface TransactOptions {
  /**
   * What prepared the objects `fn` returns (the ResourceInfo, whose schema defaulted and pruned
   * them): a ReadTransformStore takes those written under the current schema as already
   * transformed. Stores ignore it.
   */
  writer?: object;
  /**
   * Called with a put's object as stored — the one `get`, `list`, `watch` and later `transact`s
   * hand out — before any of them sees it. A store whose readers get other copies (EtcdStore's
   * mirror decodes what etcd sends back) may not call it.
   */
  onStored?(object: KubeObject): void;
  /**
   * Called with the revision a delete takes, before the transaction resolves: kube-apiserver
   * answers a DELETE with the object at that revision (etcd3 store: the delete's header
   * revision), the resourceVersion its DELETED watch event carries.
   */
  onDeleted?(revision: number): void;
}

/** A committed change, as watchers see it. */
export interface StoreEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  revision: number;
  /** The object after the write; for DELETED the last state, with resourceVersion set to the delete's revision. */
  object: KubeObject;
  /** The object before the write (undefined for ADDED). */
  prevObject?: KubeObject;
  /**
   * Made up by a re-list after the backend compacted past the store's watch (etcd): the
   * difference between two states, not the history between them (several events can share a
   * revision). In-process controllers apply it; an API watch ends with `410 Expired` instead, so
   * its client lists again, as kube-apiserver's cacher ends every watch when its reflector re-lists.
   */
  relisted?: true;
}

/** Thrown by `watch` when `fromRevision` is older than the history the store keeps. */
export class RevisionCompactedError extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
    this.name = 'RevisionCompactedError';
  }
}

/** A stored value that cannot be read: where it is (the backend's own key), its revision, and why. */
export interface CorruptValue {
  etcdKey: string;
  modRevision: number;
  error: string;
}

/** A registered watcher; call `stop()` to unsubscribe. */
export interface StoreWatch {
  stop(): void;
}

/**
 * The storage interface (guarantees above), implemented by LevelStore and EtcdStore. Keys are storage keys
 * (registry/types.ts `storageKey`); lifecycle: `open` once, then the rest, then `close`.
 */
export interface Store {
  /** Loads persisted state. Must be called once before any other method. */
  open(): Promise<void>;
  /** Flushes pending writes and closes. */
  close(): Promise<void>;
  /** The revision of the last committed write (0 for an empty store). */
  currentRevision(): number;
  /** Committed object at key, or undefined. */
  get(key: string): StoredObject | undefined;
  /**
   * Committed objects whose key starts with prefix, sorted by key.
   * @returns the objects and the revision the list is consistent at
   */
  list(prefix: string): { items: StoredObject[]; revision: number };
  /** Number of committed objects under prefix (cheap; for metrics and quotas). */
  count(prefix: string): number;
  /**
   * Reads the latest state of key (including writes in flight), calls fn, and commits what it
   * returns durably. fn may throw (e.g. a Status error); then nothing is written.
   * @returns the stored object after the write (or the current one for `none`), undefined if deleted or absent
   */
  transact(key: string, fn: (current: KubeObject | undefined) => TransactResult, opts?: TransactOptions): Promise<StoredObject | undefined>;
  /**
   * Delivers every committed event under prefix with revision > fromRevision, in order, first
   * from history and then live.
   * @throws RevisionCompactedError when fromRevision is older than the kept history
   */
  watch(prefix: string, fromRevision: number, onEvent: (ev: StoreEvent) => void): StoreWatch;
  /** The oldest revision a watch can still start from. */
  oldestWatchableRevision(): number;
  /**
   * Why the latest value at key cannot be read, or undefined when it can (or is absent). Only a
   * store whose values other programs can write has such values (EtcdStore: a value under the
   * prefix that is no JSON object, kube-apiserver's corrupt object); `get` and `list` leave them
   * out (or keep the last object that could be read), and `transact` refuses them with a 500.
   */
  corruptValue?(key: string): CorruptValue | undefined;
  /** How many keys hold a value {@link corruptValue} reports (for metrics). */
  corruptCount?(): number;
  /**
   * Removes the corrupt value at key, if the value is still the one {@link corruptValue} reported
   * (DeleteOptions `ignoreStoreReadErrorWithClusterBreakingPotential`): no finalizers, no
   * preconditions. Watchers get a DELETED for the last object read there, if there was one.
   * @returns false when the key holds no corrupt value (any more)
   */
  deleteCorrupt?(key: string): Promise<boolean>;
  /**
   * Makes what `get` and `list` answer next at least as new as every write committed before the
   * call, by any replica: what a read without resourceVersion ("most recent") needs from a store
   * that serves reads from a copy (EtcdStore's mirror of etcd, as kube-apiserver's consistent
   * reads from cache). A store whose memory is the source of truth (LevelStore) leaves it out.
   * @param key - when only what `get(key)` answers must be that new (a GET): a store may confirm
   *   just that key, which can be cheaper than its whole copy
   * @throws StatusError 503 when the source of truth does not answer, 504 when the copy does not
   *   catch up in time: never an answer that may be stale
   */
  syncToLatest?(key?: string): Promise<void>;
  /**
   * The committed objects under prefix as they were at `revision`, read from the source of truth
   * (etcd's MVCC, as kube-apiserver reads a continue token's or an Exact list's revision from
   * etcd), for a revision older than this store's own history ({@link oldestWatchableRevision}):
   * one from before this replica started. A store whose history is all it has (LevelStore) leaves
   * it out.
   * @param fromKey - only keys at or after this one (the next page of a chunked list)
   * @returns the objects sorted by key, and `revision`
   * @throws RevisionCompactedError when the source of truth compacted past `revision`
   */
  listAtRevision?(prefix: string, revision: number, fromKey?: string): Promise<{ items: StoredObject[]; revision: number }>;
  /**
   * Asks the store to bring `currentRevision()` up to the source of truth's latest revision when
   * nothing under it changed since (etcd progress notifications), so a resourceVersion that
   * another replica's writes elsewhere advanced is reached without a write here. Best effort.
   */
  requestProgress?(): void;
  /**
   * The storage's own health for /readyz and /healthz: '' when it answers, else why not (etcd out
   * of reach, a local database that failed to persist a batch).
   */
  checkHealth?(): Promise<string>;
  /** The name of that check in /readyz?verbose (default `etcd`, kube-apiserver's name for it). */
  readonly healthCheckName?: string;
}
