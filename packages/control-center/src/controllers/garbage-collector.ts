/**
 * Garbage collector: when an object is deleted, its dependents — objects whose
 * `metadata.ownerReferences` name it by uid — are deleted too once none of their owners is left
 * (background cascading deletion, Kubernetes' default). This is how the kubeconfig Secrets the
 * HyperShift operator writes (owned by their HostedCluster) go away with it.
 * Owners are looked up by uid across every served resource, so cross-kind ownership works.
 * Not supported yet: `propagationPolicy: Orphan|Foreground` (accepted, treated as Background).
 * @see https://kubernetes.io/docs/concepts/architecture/garbage-collection/
 */
import type { Logger } from 'pino';
import type { KubeObject } from '@hcc/crds';
import type { Store, StoreWatch } from '../storage/store.js';
import type { Registry } from '../registry/registry.js';
import { storagePrefix } from '../registry/types.js';
import { deleteObject } from '../handlers/object-ops.js';
import * as apierrors from '../apierrors/status.js';

export class GarbageCollector {
  /** uid → storage key of every live object. */
  private readonly uids = new Map<string, string>();
  /** owner uid → keys of objects that name it as an owner. */
  private readonly dependents = new Map<string, Set<string>>();
  /** key → owner uids it names (to keep `dependents` exact on updates). */
  private readonly ownersOf = new Map<string, string[]>();
  private watch?: StoreWatch;
  private readonly pending = new Set<string>();
  private draining = false;

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
      for (const it of this.store.list(prefix).items) this.index(it.key, it.object);
    }
    this.watch = this.store.watch('/', this.store.currentRevision(), (ev) => {
      if (ev.type === 'DELETED') {
        this.unindex(ev.key, ev.object);
        const uid = ev.object.metadata.uid;
        for (const dep of (uid && this.dependents.get(uid)) || []) this.pending.add(dep);
        void this.drain();
      } else this.index(ev.key, ev.object);
    });
    // Dependents whose owners vanished while the server was down.
    for (const [key, owners] of this.ownersOf) if (owners.every((u) => !this.uids.has(u))) this.pending.add(key);
    void this.drain();
  }

  stop(): void {
    this.watch?.stop();
  }

  private index(key: string, obj: KubeObject): void {
    if (obj.metadata.uid) this.uids.set(obj.metadata.uid, key);
    const owners = (obj.metadata.ownerReferences ?? []).map((r) => r.uid).filter(Boolean);
    const prev = this.ownersOf.get(key) ?? [];
    for (const u of prev) this.dependents.get(u)?.delete(key);
    if (owners.length) {
      this.ownersOf.set(key, owners);
      for (const u of owners) {
        let s = this.dependents.get(u);
        if (!s) this.dependents.set(u, (s = new Set()));
        s.add(key);
      }
    } else this.ownersOf.delete(key);
  }

  private unindex(key: string, obj: KubeObject): void {
    if (obj.metadata.uid && this.uids.get(obj.metadata.uid) === key) this.uids.delete(obj.metadata.uid);
    for (const u of this.ownersOf.get(key) ?? []) {
      const s = this.dependents.get(u);
      s?.delete(key);
      if (s && s.size === 0) this.dependents.delete(u);
    }
    this.ownersOf.delete(key);
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.pending.size) {
        const key = this.pending.values().next().value as string;
        this.pending.delete(key);
        await this.collect(key).catch((err) => this.log.warn({ err, controller: 'garbage-collector', key }, 'could not collect'));
      }
    } finally {
      this.draining = false;
    }
  }

  private async collect(key: string): Promise<void> {
    const owners = this.ownersOf.get(key);
    if (!owners || owners.some((u) => this.uids.has(u))) return;
    const stored = this.store.get(key);
    if (!stored || stored.object.metadata.deletionTimestamp) return;
    const info = this.registry.all().find((r) => r.version === r.storageVersion && key.startsWith(storagePrefix(r)));
    if (!info) return;
    const m = stored.object.metadata;
    try {
      await deleteObject(this.store, info, m.namespace ?? '', m.name!, { fieldValidation: 'Ignore', warnings: [], now: new Date() }, {
        dryRun: false,
        preconditions: { uid: m.uid },
      });
      this.log.info({ controller: 'garbage-collector', key, result: 'deleted' }, 'deleted a dependent whose owners are gone');
    } catch (e) {
      if (!apierrors.isNotFound(e) && !apierrors.isConflict(e)) throw e;
    }
  }
}
