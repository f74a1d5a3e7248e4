/**
 * Reads of custom resources see their CRD's current schema, as kube-apiserver's storage decoder
 * prunes unknown fields and applies the storage version's defaults to every object it reads from
 * etcd: an object written before its CRD gained a default shows the default, and one written
 * before a field left the schema no longer shows the field, without being rewritten. The next
 * write of the object stores what reads showed (so a label change does not count as a spec change:
 * no `metadata.generation` bump for a default added meanwhile).
 *
 * {@link ReadTransformStore} wraps a Store: for a bucket (`/group/resource/`) given a transform,
 * every object read through `get`, `list`, `transact` (the current object its function sees and
 * its answer) and `watch` (events' objects and `prevObject`s) passes through it once (memoised
 * per stored object; JSON text follows the object), whoever wrote it and whenever: objects
 * stored before the schema changed, loaded at a start, written by another replica, or written
 * by a request that was prepared with the schema before and committed after the change. The one
 * exception is what makes it cheap: an object this process wrote with a writer (the ResourceInfo
 * of the storage version) that was current when it was stored was prepared with the current
 * schema already, and is handed out as stored. Nothing is written, no event is sent, no
 * resourceVersion moves.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#defaulting
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/customresource_handler.go (schemaCoercingDecoder, unstructuredDefaulter)
 */
import type { KubeObject } from '@hcc/crds';
import { bucketOf } from './mirror.js';
import type { Store, StoredObject, StoreEvent, StoreWatch, TransactOptions, TransactResult } from './store.js';

/**
 * What reads of a bucket's objects become: a new object (never the given one changed), or
 * undefined when the object is as it should be.
 */
export type ReadTransform = (obj: KubeObject) => KubeObject | undefined;

interface Active {
  fn: ReadTransform;
  /** Writers ({@link TransactOptions.writer}) that prepare objects with the transform's schema. */
  writers: WeakSet<object>;
  /** Objects such a writer stored while this transform was set: handed out as stored. */
  conforming: WeakSet<KubeObject>;
  /** Stored object → what reads show (itself when the transform left it alone). */
  memo: WeakMap<KubeObject, KubeObject>;
}

/** A Store whose reads pass chosen buckets through a {@link ReadTransform}; see the module comment. */
export class ReadTransformStore implements Store {
  private readonly active = new Map<string, Active>();
  readonly corruptValue?: Store['corruptValue'];
  readonly corruptCount?: Store['corruptCount'];
  readonly deleteCorrupt?: Store['deleteCorrupt'];
  readonly syncToLatest?: Store['syncToLatest'];
  readonly requestProgress?: Store['requestProgress'];
  readonly listAtRevision?: Store['listAtRevision'];
  readonly checkHealth?: Store['checkHealth'];
  readonly healthCheckName?: string;

  /** @param inner - the store read and written (opened or not) */
  constructor(readonly inner: Store) {
    this.corruptValue = inner.corruptValue?.bind(inner);
    this.corruptCount = inner.corruptCount?.bind(inner);
    this.deleteCorrupt = inner.deleteCorrupt?.bind(inner);
    this.syncToLatest = inner.syncToLatest?.bind(inner);
    this.requestProgress = inner.requestProgress?.bind(inner);
    // An old revision read from the source of truth shows its objects as every read does.
    const atRevision = inner.listAtRevision?.bind(inner);
    if (atRevision) {
      this.listAtRevision = async (prefix, revision, fromKey) => {
        const res = await atRevision(prefix, revision, fromKey);
        const a = this.activeFor(prefix);
        return a ? { items: res.items.map((so) => this.showStored(a, so)), revision: res.revision } : res;
      };
    }
    this.checkHealth = inner.checkHealth?.bind(inner);
    this.healthCheckName = inner.healthCheckName;
  }

  /**
   * Sets (or, with undefined, removes) the transform of a bucket; a transform set before is
   * replaced and its results forgotten.
   * @param bucket - `/group/resource/` (a storage prefix of a whole resource)
   * @param writers - the writers whose objects need no transform (see the module comment)
   */
  setTransform(bucket: string, fn: ReadTransform | undefined, writers: Iterable<object> = []): void {
    if (!fn) {
      this.active.delete(bucket);
      return;
    }
    this.active.set(bucket, { fn, writers: new WeakSet(writers), conforming: new WeakSet(), memo: new WeakMap() });
  }

  /** Adds writers to a bucket's transform (the same schema, new ResourceInfo objects); none set: nothing. */
  addWriters(bucket: string, writers: Iterable<object>): void {
    const a = this.active.get(bucket);
    if (a) for (const w of writers) a.writers.add(w);
  }

  private activeFor(keyOrPrefix: string): Active | undefined {
    return this.active.size === 0 ? undefined : this.active.get(bucketOf(keyOrPrefix));
  }

  /** The object as reads show it (the same object when nothing applies). */
  private show(a: Active, obj: KubeObject): KubeObject {
    if (a.conforming.has(obj)) return obj;
    let shown = a.memo.get(obj);
    if (shown === undefined) {
      shown = a.fn(obj) ?? obj;
      a.memo.set(obj, shown);
    }
    return shown;
  }

  private showStored(a: Active, so: StoredObject): StoredObject {
    const shown = this.show(a, so.object);
    return shown === so.object ? so : { ...so, object: shown };
  }

  open(): Promise<void> {
    return this.inner.open();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  currentRevision(): number {
    return this.inner.currentRevision();
  }

  oldestWatchableRevision(): number {
    return this.inner.oldestWatchableRevision();
  }

  count(prefix: string): number {
    return this.inner.count(prefix);
  }

  get(key: string): StoredObject | undefined {
    const so = this.inner.get(key);
    const a = so && this.activeFor(key);
    return a ? this.showStored(a, so) : so;
  }

  list(prefix: string): { items: StoredObject[]; revision: number } {
    const res = this.inner.list(prefix);
    const a = this.activeFor(prefix);
    if (!a) return res;
    let items: StoredObject[] | undefined;
    for (let i = 0; i < res.items.length; i++) {
      const so = res.items[i]!;
      const shown = this.showStored(a, so);
      if (shown !== so) (items ??= res.items.slice())[i] = shown;
    }
    return items ? { items, revision: res.revision } : res;
  }

  transact(key: string, fn: (current: KubeObject | undefined) => TransactResult, opts?: TransactOptions): Promise<StoredObject | undefined> {
    const a = this.activeFor(key);
    if (!a) return this.inner.transact(key, fn, opts);
    const writer = opts?.writer;
    const onStored = (obj: KubeObject) => {
      // The transform in force when the object is stored decides (a schema change in between
      // replaced it): its writers' objects conform.
      const now = this.activeFor(key);
      if (now && writer && now.writers.has(writer)) now.conforming.add(obj);
    };
    return this.inner.transact(key, (cur) => fn(cur && this.show(a, cur)), { ...opts, onStored }).then((so) => {
      const now = so && this.activeFor(key);
      return now ? this.showStored(now, so) : so;
    });
  }

  watch(prefix: string, fromRevision: number, onEvent: (ev: StoreEvent) => void): StoreWatch {
    // Looked up per event (the transform may change while the watch runs), by the watch's bucket
    // when the prefix lies within one (every API watch), else by the event's key.
    const bucket = prefix.split('/').length > 3 ? bucketOf(prefix) : undefined;
    return this.inner.watch(prefix, fromRevision, (ev) => {
      const a = this.active.size === 0 ? undefined : this.active.get(bucket ?? bucketOf(ev.key));
      if (!a) return onEvent(ev);
      const prevObject = ev.prevObject && this.show(a, ev.prevObject);
      // A DELETED event's object is the last state under the delete's resourceVersion (a copy):
      // as stored when that state conformed, else shown through the transform.
      const object = ev.type === 'DELETED' && ev.prevObject && a.conforming.has(ev.prevObject) ? ev.object : this.show(a, ev.object);
      onEvent(object === ev.object && prevObject === ev.prevObject ? ev : { ...ev, object, ...(prevObject ? { prevObject } : {}) });
    });
  }
}
