/**
 * Reads of custom resources see their CRD's current schema, as kube-apiserver's storage decoder
 * prunes unknown fields and applies the storage version's defaults to every object it reads from
 * etcd: an object written before its CRD gained a default shows the default, and one written
 * before a field left the schema no longer shows the field, without being rewritten. The next
 * write of the object stores what reads showed (so a label change does not count as a spec change:
 * no `metadata.generation` bump for a default added meanwhile).
 *
 * {@link ReadTransformStore} wraps a Store: for a bucket (`/group/resource/`) given a transform,
 * every object read through `get`, `list`, `transact` (the current object its function sees) and
 * `watch` (the objects of events replayed from history, and `prevObject`s) that was written at or
 * before the revision the transform was set at is passed through it once (memoised per stored
 * object; JSON text follows the object). Objects written later were written under that schema
 * already and are passed through untouched, so the cost on the write and watch paths is one
 * revision comparison per object. Nothing is written, no event is sent, no resourceVersion moves.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#defaulting
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/customresource_handler.go (schemaCoercingDecoder, unstructuredDefaulter)
 */
import type { KubeObject } from '@hcc/crds';
import { bucketOf } from './mirror.js';
import type { Store, StoredObject, StoreEvent, StoreWatch, TransactResult } from './store.js';

/**
 * What reads of a bucket's objects become: a new object (never the given one changed), or
 * undefined when the object is as it should be.
 */
export type ReadTransform = (obj: KubeObject) => KubeObject | undefined;

interface Active {
  fn: ReadTransform;
  /** Objects whose resourceVersion is at most this were written before the transform was set. */
  throughRevision: number;
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
  readonly checkHealth?: Store['checkHealth'];
  readonly healthCheckName?: string;

  /** @param inner - the store read and written (opened or not) */
  constructor(readonly inner: Store) {
    this.corruptValue = inner.corruptValue?.bind(inner);
    this.corruptCount = inner.corruptCount?.bind(inner);
    this.deleteCorrupt = inner.deleteCorrupt?.bind(inner);
    this.syncToLatest = inner.syncToLatest?.bind(inner);
    this.requestProgress = inner.requestProgress?.bind(inner);
    this.checkHealth = inner.checkHealth?.bind(inner);
    this.healthCheckName = inner.healthCheckName;
  }

  /**
   * Sets (or, with undefined, removes) the transform of a bucket, for the objects written up to
   * now; a transform set before replaces it (its results are forgotten).
   * @param bucket - `/group/resource/` (a storage prefix of a whole resource)
   */
  setTransform(bucket: string, fn: ReadTransform | undefined): void {
    if (!fn) this.active.delete(bucket);
    else this.active.set(bucket, { fn, throughRevision: this.inner.currentRevision(), memo: new WeakMap() });
  }

  private activeFor(keyOrPrefix: string): Active | undefined {
    return this.active.size === 0 ? undefined : this.active.get(bucketOf(keyOrPrefix));
  }

  /** The object as reads show it (the same object when nothing applies). */
  private show(a: Active, obj: KubeObject): KubeObject {
    if (!(Number(obj.metadata?.resourceVersion) <= a.throughRevision)) return obj;
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

  transact(key: string, fn: (current: KubeObject | undefined) => TransactResult): Promise<StoredObject | undefined> {
    const a = this.activeFor(key);
    if (!a) return this.inner.transact(key, fn);
    return this.inner.transact(key, (cur) => fn(cur && this.show(a, cur))).then((so) => so && this.showStored(a, so));
  }

  watch(prefix: string, fromRevision: number, onEvent: (ev: StoreEvent) => void): StoreWatch {
    // Looked up per event (the transform may change while the watch runs), by the watch's bucket
    // when the prefix lies within one (every API watch), else by the event's key.
    const bucket = prefix.split('/').length > 3 ? bucketOf(prefix) : undefined;
    return this.inner.watch(prefix, fromRevision, (ev) => {
      const a = this.active.size === 0 ? undefined : this.active.get(bucket ?? bucketOf(ev.key));
      if (!a) return onEvent(ev);
      // An event's object carries the event's revision: after the transform was set, as written.
      const object = ev.revision > a.throughRevision ? ev.object : this.show(a, ev.object);
      const prevObject = ev.prevObject && this.show(a, ev.prevObject);
      onEvent(object === ev.object && prevObject === ev.prevObject ? ev : { ...ev, object, ...(prevObject ? { prevObject } : {}) });
    });
  }
}
