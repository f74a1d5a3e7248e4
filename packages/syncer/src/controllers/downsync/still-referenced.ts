/**
 * Whether a Secret or ConfigMap copy whose object left the syncer's view must stay, because a
 * HostedCluster or NodePool copy in the management cluster still uses it (its pull secret, its
 * cloud credentials, a NodePool's config). The downsync delete step asks this before it removes
 * such a copy (downsync-reconcile-delete.ts, `stillReferenced`).
 */
import { isForbidden, type KubeObject } from '@hcc/client';
import { SyncerReadRefusalEnd } from '@hcc/crds';
import type { ReferencingObject, SyncKind } from './types.js';

/** What {@link StillReferenced} reads: the syncer's informer caches and one live read. */
export interface StillReferencedDeps {
  /** The upstream object kind ns/name as the syncer's upstream informer shows it now, or undefined. */
  upstreamNow(kind: SyncKind, namespace: string, name: string): KubeObject | undefined;
  /** The HostedCluster and NodePool copies in the management cluster (its informers) that reference Secret or ConfigMap ns/name. */
  copiesReferencing(kind: SyncKind, namespace: string, name: string): Iterable<ReferencingObject>;
  /** Whether this syncer answers for a copy: hcc made it and it is not the copy of another live name for this cluster (those keep theirs). */
  answersFor(copy: KubeObject): boolean;
  /** Whether a HostedCluster placed here (or one of its NodePools), as the upstream informers show them, references ns/name. */
  referencedHere(kind: SyncKind, namespace: string, name: string): boolean;
  /** Live read of the upstream object; undefined when it is gone. Throws what the client throws. */
  readUpstream(kind: SyncKind, namespace: string, name: string): Promise<KubeObject | undefined>;
  /** How long a copy a live copy uses stays after its object went, in milliseconds. */
  graceMs: number;
  /** Clock, milliseconds since the epoch. */
  now(): number;
}

/**
 * The rules, in order:
 * - The object is in the upstream informer again (and not being deleted): the copy stays. The
 *   decision to delete was made from an older view (the reconcile read its objects, then waited
 *   on a live read); the object's return queued its key again, and that pass finds it. No grace
 *   starts, so a later deletion gets a whole one.
 * - A copy being torn down, or one whose own object upstream is being deleted or gone, keeps what
 *   it uses for its whole teardown, however the upstream objects went.
 * - A live copy keeps it for `graceMs` after the deletion was first seen: `kubectl delete -f`
 *   deletes the Secrets it lists before the HostedCluster, and a namespace deleted whole deletes
 *   them at once, a moment before the HostedCluster shows its deletion. After that the deletion is
 *   meant (a revoked credential): the copy goes, and the operator reports what is missing.
 * - Otherwise it stays only while a HostedCluster placed here references it and a live read finds
 *   it (it left the view by a change, not a deletion: a PUT without hcc's state label, until the
 *   scheduler puts it back). A read the control center refuses because nothing placed here
 *   references it any more (its syncer authorizer's refusal) means it goes.
 */
export class StillReferenced {
  /** When a live copy first kept each object (`Kind/ns/name` → ms since the epoch). */
  private readonly graceSince = new Map<string, number>();

  constructor(private readonly deps: StillReferencedDeps) {}

  /** Whether the copy of kind ns/name stays (rules above). Throws what `readUpstream` throws, except the refusal above. */
  async check(kind: SyncKind, namespace: string, name: string): Promise<boolean> {
    const d = this.deps;
    const key = `${kind}/${namespace}/${name}`;
    const current = d.upstreamNow(kind, namespace, name);
    if (current && !current.metadata.deletionTimestamp) {
      this.graceSince.delete(key);
      return true;
    }
    let usedByLiveCopy = false;
    for (const u of d.copiesReferencing(kind, namespace, name)) {
      if (!d.answersFor(u.obj)) continue;
      const upObj = d.upstreamNow(u.kind, namespace, u.obj.metadata.name ?? '');
      if (u.obj.metadata.deletionTimestamp || !upObj || upObj.metadata.deletionTimestamp) return true;
      usedByLiveCopy = true;
    }
    if (usedByLiveCopy) {
      const since = this.graceSince.get(key) ?? d.now();
      this.graceSince.set(key, since);
      if (d.now() - since < d.graceMs) return true;
    }
    this.graceSince.delete(key);
    if (!d.referencedHere(kind, namespace, name)) return false;
    try {
      const live = await d.readUpstream(kind, namespace, name);
      return !!live && !live.metadata.deletionTimestamp;
    } catch (err) {
      if (isForbidden(err) && (err as Error).message.includes(SyncerReadRefusalEnd)) return false;
      throw err;
    }
  }

  /** The object kind ns/name is in the syncer's view again (an informer add): a later deletion starts a new grace. */
  seen(kind: SyncKind, namespace: string, name: string): void {
    this.graceSince.delete(`${kind}/${namespace}/${name}`);
  }
}
