/**
 * A controller's own writes, remembered until its informer shows them: read-your-writes over an
 * informer cache, as client-go's MutationCache (tools/cache/mutation_cache.go) gives.
 *
 * A write returns the new object before its watch event arrives. The next pass over the same key
 * often comes sooner (another object's event enqueued it, or another queue wrote), and building a
 * resourceVersion-guarded write on the informer's older object only earns a 409 and a retry; an
 * unguarded one is sent again for nothing. So each write records what it replaced, and while the
 * informer still shows one of those versions, passes build on the object the last write returned.
 * The syncer's downsync (finalizer, adopted fields) and upsync (status) queues share one store
 * (they write the same objects); the hypershift-sim's HostedCluster and NodePool controllers
 * each keep one. resourceVersions are only compared for equality, as the API conventions require
 * (client-go's MutationCache compares them as integers, which its comment calls a hack):
 * https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency
 * @see https://github.com/kubernetes/client-go/blob/master/tools/cache/mutation_cache.go
 */
import type { KubeObject } from './types.js';

interface LastWrite<T extends KubeObject> {
  /** The object the last write returned. */
  written: T;
  /** resourceVersions this key's writes replaced since the informer last caught up. */
  superseded: Set<string>;
}

/** Own writes per key (any key the caller chooses: the informer's `namespace/name`, or `<Kind>/<namespace>/<name>` across kinds). */
export class OwnWrites<T extends KubeObject = KubeObject> {
  readonly #byKey = new Map<string, LastWrite<T>>();

  /**
   * The freshest object known for a key: what the last own write returned while the informer
   * still shows a version that write replaced, else the informer's object (and the memory of the
   * write is dropped: the informer caught up, or someone else wrote since).
   */
  freshest(key: string, cached: T | undefined): T | undefined {
    const last = this.#byKey.get(key);
    if (!last) return cached;
    if (cached && last.written.metadata.uid === cached.metadata.uid && last.superseded.has(cached.metadata.resourceVersion ?? '')) return last.written;
    this.#byKey.delete(key);
    return cached;
  }

  /**
   * Records a write computed from `base` that returned `written`; versions earlier writes of the
   * key replaced stay superseded. Only bases are ever superseded: each is older than a write the
   * server accepted, so the informer always moves past them and the memory cannot outlive it.
   */
  record(key: string, base: KubeObject, written: T): void {
    const last = this.#byKey.get(key);
    const superseded = last && last.written.metadata.uid === written.metadata.uid ? last.superseded : new Set<string>();
    superseded.add(base.metadata.resourceVersion ?? '');
    superseded.delete(written.metadata.resourceVersion ?? '');
    this.#byKey.set(key, { written, superseded });
  }

  /** Forgets a key (its object is gone). */
  forget(key: string): void {
    this.#byKey.delete(key);
  }

  /** Whether a write of the key is remembered (tests, metrics). */
  has(key: string): boolean {
    return this.#byKey.has(key);
  }

  /** Keys remembered. */
  get size(): number {
    return this.#byKey.size;
  }
}
