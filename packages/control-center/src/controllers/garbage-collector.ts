/**
 * Garbage collector: cascading deletion along `metadata.ownerReferences`, with the three
 * propagation policies of Kubernetes' DeleteOptions.
 * - Background (the default): the owner goes at once; afterwards each dependent whose owners are
 *   all gone is deleted, and one that still has another owner loses the reference to the gone
 *   one. This is how the kubeconfig Secrets the HyperShift operator writes (owned by their
 *   HostedCluster) go away with it. A dependent that names only owners that do not exist (by
 *   uid) is deleted as soon as the collector sees it, as upstream's is.
 * - Orphan (`kubectl delete --cascade=orphan`): the owner carries the `orphan` finalizer; the
 *   collector removes the owner's entry from every dependent's ownerReferences, then the finalizer,
 *   and the owner goes. Dependents stay.
 * - Foreground (`--cascade=foreground`): the owner carries the `foregroundDeletion` finalizer and
 *   stays (with deletionTimestamp) while the collector deletes its dependents; a dependent that has
 *   another owner not being deleted only loses its reference to this one. The finalizer is removed
 *   once no dependent with `blockOwnerDeletion: true` is left.
 * An owner reference counts when an object of its kind and name, in the dependent's namespace
 * (or cluster-scoped), carries its uid; references to kinds this server does not serve, and
 * namespaced owners of cluster-scoped objects, never cause a deletion (see {@link OwnerState}).
 * Reconciliation is level-triggered: every key is checked against the current store, so a missed
 * or repeated event only costs a no-op; work that fails (a storage error) is tried again with backoff.
 * @see https://kubernetes.io/docs/concepts/architecture/garbage-collection/
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/garbagecollector/garbagecollector.go
 */
import type { Logger } from 'pino';
import type { KubeObject } from '@hcc/crds';
import { WorkQueue } from '@hcc/client';
import type { Store, StoreWatch } from '../storage/store.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceInfo } from '../registry/types.js';
import { storageKey, storagePrefix, systemContext } from '../registry/types.js';
import { deleteObject, FinalizerDeleteDependents, FinalizerOrphanDependents, updateObject } from '../handlers/object-ops.js';
import * as apierrors from '../apierrors/status.js';

/** An owner reference as the collector indexes it. */
interface OwnerRef {
  uid: string;
  block: boolean;
  apiVersion: string;
  kind: string;
  name: string;
}

/**
 * What an owner reference points to, as upstream's classifyReferences/isDangling sorts it: the
 * owner is looked up by kind and name in the dependent's namespace (cluster-scoped owners
 * anywhere) and must carry the reference's uid.
 * - solid: it exists and is not waiting in foreground;
 * - waiting: it exists and is being deleted in foreground;
 * - dangling: no such object (absent, another uid, another namespace);
 * - unresolvable: a kind this server does not serve, or a namespaced owner of a cluster-scoped
 *   dependent. Upstream never deletes for those (the kind may come with a CRD later; the other is
 *   an invalid reference), and neither does hcc.
 */
type OwnerState = 'solid' | 'waiting' | 'dangling' | 'unresolvable';

/** Whether an object is being deleted and waits for the collector (`orphan` or `foregroundDeletion`). */
const gcFinalizerOf = (o: KubeObject): 'orphan' | 'foreground' | undefined => {
  if (!o.metadata.deletionTimestamp) return undefined;
  const f = o.metadata.finalizers ?? [];
  if (f.includes(FinalizerOrphanDependents)) return 'orphan';
  if (f.includes(FinalizerDeleteDependents)) return 'foreground';
  return undefined;
};

/**
 * The collector above, over one store: {@link GarbageCollector.start} indexes every stored object, queues what the
 * server's downtime left behind and follows the store's watch; {@link GarbageCollector.stop} ends the watch and the
 * queue. Items are worked one at a time on the keyed work queue of @hcc/client (client-go's workqueue); one that fails
 * is logged (warn) and tried again with per-item backoff (5 ms doubling up to 1,000 s, client-go's controller
 * defaults), or sooner when its object changes.
 */
export class GarbageCollector {
  /** uid → storage key of every live object. */
  private readonly uids = new Map<string, string>();
  /** owner uid → keys of objects that name it as an owner. */
  private readonly dependents = new Map<string, Set<string>>();
  /** key → owners it names (to keep `dependents` exact on updates). */
  private readonly ownersOf = new Map<string, OwnerRef[]>();
  private watch?: StoreWatch;
  /** Work: `d:<key>` checks a dependent, `o:<key>` an owner waiting on its finalizer. */
  private readonly queue = new WorkQueue();
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly log: Logger,
  ) {}

  /** Indexes every stored object, then follows changes. */
  start(): void {
    const seen = new Set<string>();
    for (const info of this.registry.all()) {
      const prefix = storagePrefix(info);
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      for (const it of this.store.list(prefix).items) {
        this.index(it.key, it.object);
        if (gcFinalizerOf(it.object)) this.queue.add(`o:${it.key}`);
      }
    }
    this.watch = this.store.watch('/', this.store.currentRevision(), (ev) => {
      const uid = ev.object.metadata.uid;
      const before = this.ownersOf.get(ev.key);
      if (ev.type === 'DELETED') {
        this.unindex(ev.key, ev.object);
        for (const dep of (uid && this.dependents.get(uid)) || []) this.queue.add(`d:${dep}`);
      } else {
        this.index(ev.key, ev.object);
        if (gcFinalizerOf(ev.object)) this.queue.add(`o:${ev.key}`);
      }
      const after = this.ownersOf.get(ev.key);
      // Owners waiting on this object (named before or after the change) look again when it changes or goes.
      for (const o of before ?? []) this.enqueueOwner(o.uid);
      for (const o of after ?? []) if (!before?.some((b) => b.uid === o.uid)) this.enqueueOwner(o.uid);
      // A dependent naming an owner that does not exist (or no longer does) is collected or loses that reference.
      if (after?.some((o) => this.ownerState(ev.object, o) === 'dangling')) this.queue.add(`d:${ev.key}`);
    });
    // Dependents whose owners vanished while the server was down.
    for (const [key, owners] of this.ownersOf) {
      const dep = this.store.get(key)?.object;
      if (dep && owners.some((o) => this.ownerState(dep, o) === 'dangling')) this.queue.add(`d:${key}`);
    }
    void this.queue.runWorkers(1, (item) => this.work(item), { signal: this.stopping.signal, logger: this.log, name: 'garbage-collector', successLogLevel: 'debug' });
  }

  stop(): void {
    this.watch?.stop();
    this.stopping.abort();
  }

  /** Queues the owner with this uid when it waits for the collector. */
  private enqueueOwner(uid: string): void {
    const key = this.uids.get(uid);
    if (!key) return;
    const owner = this.store.get(key)?.object;
    if (owner && gcFinalizerOf(owner)) this.queue.add(`o:${key}`);
  }

  private index(key: string, obj: KubeObject): void {
    if (obj.metadata.uid) this.uids.set(obj.metadata.uid, key);
    const owners: OwnerRef[] = (obj.metadata.ownerReferences ?? [])
      .filter((r) => r.uid)
      .map((r) => ({ uid: r.uid, block: r.blockOwnerDeletion === true, apiVersion: r.apiVersion ?? '', kind: r.kind ?? '', name: r.name ?? '' }));
    const prev = this.ownersOf.get(key) ?? [];
    for (const o of prev) this.dependents.get(o.uid)?.delete(key);
    if (owners.length) {
      this.ownersOf.set(key, owners);
      for (const o of owners) {
        let s = this.dependents.get(o.uid);
        if (!s) this.dependents.set(o.uid, (s = new Set()));
        s.add(key);
      }
    } else this.ownersOf.delete(key);
  }

  private unindex(key: string, obj: KubeObject): void {
    if (obj.metadata.uid && this.uids.get(obj.metadata.uid) === key) this.uids.delete(obj.metadata.uid);
    for (const o of this.ownersOf.get(key) ?? []) {
      const s = this.dependents.get(o.uid);
      s?.delete(key);
      if (s && s.size === 0) this.dependents.delete(o.uid);
    }
    this.ownersOf.delete(key);
  }

  /** One item of work: `o:<key>` an owner waiting on its finalizer, `d:<key>` a dependent to check. */
  private work(item: string): Promise<void> {
    const key = item.slice(2);
    return item.startsWith('o:') ? this.finalizeOwner(key) : this.collect(key);
  }

  /** The served storage version of the resource a key belongs to. */
  private infoOf(key: string): ResourceInfo | undefined {
    return this.registry.all().find((r) => r.version === r.storageVersion && key.startsWith(storagePrefix(r)));
  }

  /** Where an owner reference of `dep` points (see {@link OwnerState}). */
  private ownerState(dep: KubeObject, ref: OwnerRef): OwnerState {
    const slash = ref.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
    const info = this.registry.lookupKind(group, ref.kind);
    if (!info) return 'unresolvable';
    const depNamespace = dep.metadata.namespace ?? '';
    if (info.namespaced && !depNamespace) return 'unresolvable';
    const ownerKey = storageKey(info, info.namespaced ? depNamespace : '', ref.name);
    // An owner whose stored value cannot be read (a corrupt etcd value) is not known to be gone:
    // kube's collector reads the owner live, gets the storage error and deletes nothing.
    if (this.store.corruptValue?.(ownerKey)) return 'unresolvable';
    const owner = this.store.get(ownerKey)?.object;
    if (!owner || owner.metadata.uid !== ref.uid) return 'dangling';
    return gcFinalizerOf(owner) === 'foreground' ? 'waiting' : 'solid';
  }

  /**
   * A dependent, as upstream's attemptToDeleteItem sorts its owners (see {@link OwnerState}).
   * With a solid owner it stays and loses its references to dangling and waiting owners; with an
   * unresolvable one it is left alone; otherwise it is deleted.
   */
  private async collect(key: string): Promise<void> {
    const owners = this.ownersOf.get(key);
    if (!owners) return;
    const stored = this.store.get(key);
    if (!stored) return;
    const states = owners.map((o) => ({ ...o, state: this.ownerState(stored.object, o) }));
    const waiting = states.filter((o) => o.state === 'waiting');
    if (states.some((o) => o.state === 'solid')) {
      const drop = states.filter((o) => o.state === 'dangling' || o.state === 'waiting');
      if (drop.length) await this.removeOwnerRefs(key, new Set(drop.map((o) => o.uid)));
      return;
    }
    if (states.some((o) => o.state === 'unresolvable')) return;
    if (stored.object.metadata.deletionTimestamp) return;
    const info = this.infoOf(key);
    if (!info) return;
    const m = stored.object.metadata;
    // A dependent of a foreground owner that has dependents of its own goes in foreground too.
    const ownDependents = [...(this.dependents.get(m.uid ?? '') ?? [])];
    const policy = waiting.length && ownDependents.length ? 'Foreground' : 'Background';
    // A cycle (one of its dependents already waits in foreground, e.g. it owns its owner): its own
    // references stop blocking first, so neither side waits for the other (upstream does the same).
    if (policy === 'Foreground' && ownDependents.some((d) => d !== key && this.waitsInForeground(d))) {
      await this.unblockOwnerRefs(key);
    }
    try {
      await deleteObject(this.store, info, m.namespace ?? '', m.name!, systemContext(), { dryRun: false, preconditions: { uid: m.uid }, propagationPolicy: policy });
      this.log.info({ controller: 'garbage-collector', key, result: 'deleted', propagationPolicy: policy }, 'deleted a dependent whose owners are gone');
    } catch (e) {
      if (!apierrors.isNotFound(e) && !apierrors.isConflict(e)) throw e;
    }
  }

  /** An owner being deleted with `orphan` or `foregroundDeletion`: does that finalizer's work, then removes it. */
  private async finalizeOwner(key: string): Promise<void> {
    const owner = this.store.get(key)?.object;
    if (!owner) return;
    const mode = gcFinalizerOf(owner);
    const uid = owner.metadata.uid ?? '';
    if (!mode || !uid) return;
    const deps = [...(this.dependents.get(uid) ?? [])];
    if (mode === 'orphan') {
      for (const dep of deps) await this.removeOwnerRefs(dep, new Set([uid]));
      await this.removeFinalizer(key, uid, FinalizerOrphanDependents);
      this.log.info({ controller: 'garbage-collector', key, orphaned: deps.length }, 'orphaned dependents');
      return;
    }
    for (const dep of deps) await this.collect(dep);
    // An object that owns itself does not wait for itself.
    const blocking = [...(this.dependents.get(uid) ?? [])].filter((dep) => dep !== key && this.ownersOf.get(dep)?.some((o) => o.uid === uid && o.block));
    if (blocking.length) return; // their DELETED events bring this owner back
    await this.removeFinalizer(key, uid, FinalizerDeleteDependents);
    this.log.info({ controller: 'garbage-collector', key }, 'dependents deleted in foreground');
  }

  /** Whether the object at key is being deleted in foreground. */
  private waitsInForeground(key: string): boolean {
    const o = this.store.get(key)?.object;
    return o !== undefined && gcFinalizerOf(o) === 'foreground';
  }

  /** Removes the owner references with these uids from the object at key. */
  private async removeOwnerRefs(key: string, uids: ReadonlySet<string>): Promise<void> {
    if (!(this.store.get(key)?.object.metadata.ownerReferences ?? []).some((r) => uids.has(r.uid))) return;
    await this.update(key, (cur) => {
      const refs = (cur.metadata.ownerReferences ?? []).filter((r) => !uids.has(r.uid));
      if (refs.length) cur.metadata.ownerReferences = refs;
      else delete cur.metadata.ownerReferences;
    });
  }

  /** Sets `blockOwnerDeletion: false` on every owner reference of the object at key. */
  private async unblockOwnerRefs(key: string): Promise<void> {
    await this.update(key, (cur) => {
      cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).map((r) => (r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r));
    });
  }

  private async removeFinalizer(key: string, uid: string, finalizer: string): Promise<void> {
    if (this.store.get(key)?.object.metadata.uid !== uid) return;
    await this.update(key, (cur) => {
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    });
  }

  /**
   * Changes the object at key in place with `fn`, on its latest version and only while it keeps
   * the uid it has now; retried on conflicts. An object that is gone (or replaced) is left alone.
   */
  private async update(key: string, fn: (cur: KubeObject) => void): Promise<void> {
    const m = this.store.get(key)?.object.metadata;
    const info = this.infoOf(key);
    if (!m || !info) return;
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await updateObject(
          this.store,
          info,
          m.namespace ?? '',
          m.name!,
          (cur) => {
            if (!cur || cur.metadata.uid !== m.uid) throw apierrors.notFound({ group: info.group, resource: info.resource }, m.name!);
            fn(cur);
            return cur;
          },
          systemContext(),
          { dryRun: false, subresource: '' },
        );
        return;
      } catch (e) {
        if (apierrors.isNotFound(e)) return;
        if (!apierrors.isConflict(e)) throw e;
      }
    }
    throw new Error(`garbage collector: ${m.namespace ?? ''}/${m.name}: kept conflicting`);
  }
}
