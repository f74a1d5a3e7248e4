/**
 * Reads a collection as it was at an earlier revision, from the store's latest state and its
 * event history: every event after that revision is undone, newest first. This is how a LIST
 * continues a chunked list at the first page's resourceVersion, and how it serves
 * `resourceVersionMatch=Exact`, without keeping old versions of objects around (kube-apiserver
 * reads old revisions from etcd's MVCC for the same purpose).
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks
 */
import type { KubeObject } from '@hcc/crds';
import type { Store, StoreEvent } from './store.js';

/** One object of a snapshot: its storage key and the object as it was. */
export interface SnapshotItem {
  key: string;
  object: KubeObject;
}

/**
 * The objects under prefix at `revision`, sorted by key.
 * @param store - the store (its `list` and `watch` history are read synchronously)
 * @param prefix - storage key prefix of the collection
 * @param revision - the revision to read at; at or above the store's current revision the latest state is returned
 * @returns the items and the revision they are consistent at (`revision`, or the current one when newer was asked)
 * @throws RevisionCompactedError when the history no longer reaches back to `revision`
 */
export function listAt(store: Store, prefix: string, revision: number): { items: SnapshotItem[]; revision: number } {
  const latest = store.list(prefix);
  if (revision >= latest.revision) return { items: latest.items, revision: latest.revision };
  // Events after `revision` up to the list's revision (the history replays synchronously; the
  // watch is stopped before anything live can arrive).
  const events: StoreEvent[] = [];
  const w = store.watch(prefix, revision, (ev) => {
    if (ev.revision <= latest.revision) events.push(ev);
  });
  w.stop();
  if (events.length === 0) return { items: latest.items, revision };
  const byKey = new Map<string, KubeObject>();
  for (const it of latest.items) byKey.set(it.key, it.object);
  for (let i = events.length - 1; i >= 0; i--) {
    const ev = events[i]!;
    if (ev.type === 'ADDED') byKey.delete(ev.key);
    else if (ev.prevObject) byKey.set(ev.key, ev.prevObject);
  }
  const keys = [...byKey.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { items: keys.map((key) => ({ key, object: byKey.get(key)! })), revision };
}
