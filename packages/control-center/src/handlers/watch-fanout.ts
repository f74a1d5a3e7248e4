/**
 * Watch fan-out: what every watcher of a resource would compute alike is computed once.
 * - An event's line is serialised once per event and rendering ({@link objectLine}), as
 *   kube-apiserver's cacher serialises an object once for every watcher (cachingObject).
 * - Watchers of one resource with the same selection (prefix, name, label and field selector),
 *   in full-object form and past their start (history replayed, initial events sent), share one
 *   registration with the store: a {@link FanoutGroup} classifies, renders and queues each event
 *   once, and each flush frames its batch once and writes it to every member. With 1,000
 *   informers of one resource an event costs one selection and one queue step, not 1,000.
 *   A member still has lines of its own (bookmarks, the ERROR of a re-list, what it queued before
 *   it joined): those are written before the group's lines that follow them, so every stream
 *   sees its events in resourceVersion order.
 */
import type { KubeObject } from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';
import type { ResourceInfo } from '../registry/types.js';
import { jsonOf } from '../storage/json-cache.js';
import type { Store, StoreEvent, StoreWatch } from '../storage/store.js';
import { toVersion } from './object-ops.js';
import { httpChunk, schedule, unschedule, type PendingStream } from './watch-flush.js';

/** The type of a watch event carrying an object change. */
export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A serialised event line and its identity (the same for every watcher that renders it alike). */
export interface SharedLine {
  text: string;
  id: number;
}

/** Serialised event lines shared by every watcher with the same rendering (one JSON.stringify per event). */
const lineCache = new WeakMap<StoreEvent, Map<string, SharedLine>>();
let nextLineId = 0;
/** The last event looked up in lineCache and its lines: every watcher gets an event in turn, so this hits for all but the first. */
let lastEvent: StoreEvent | undefined;
let lastLines: Map<string, SharedLine> | undefined;

/** The shared lines of an event, by `type/apiVersion`. */
function linesOf(ev: StoreEvent): Map<string, SharedLine> {
  if (ev === lastEvent) return lastLines!;
  let m = lineCache.get(ev);
  if (!m) lineCache.set(ev, (m = new Map()));
  lastEvent = ev;
  lastLines = m;
  return m;
}

/**
 * What a store event is to a watcher that selects objects with `selected`: an object entering
 * the selection is ADDED, one leaving it DELETED (see {@link objectOf}), one staying in it
 * MODIFIED.
 * @returns the watch event type, or undefined when the watcher does not see the event
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes
 */
export function changeOf(ev: StoreEvent, selected: (o: KubeObject) => boolean): ChangeType | undefined {
  const before = ev.prevObject ? selected(ev.prevObject) : false;
  if (ev.type === 'DELETED') return before ? 'DELETED' : undefined;
  const now = selected(ev.object);
  if (ev.type === 'ADDED') return now ? 'ADDED' : undefined;
  if (now) return before ? 'MODIFIED' : 'ADDED';
  return before ? 'DELETED' : undefined;
}

/**
 * The object a watcher is sent for `ev` as `type` ({@link changeOf}): the event's object, except
 * for an object that left the selection (a change seen as DELETED), which is sent as it was while
 * selected, at the event's resourceVersion (the cacher's convertToWatchEvent: PrevObject for
 * !cur && old) — then a new object, never `ev.object`.
 */
export function objectOf(ev: StoreEvent, type: ChangeType): KubeObject {
  if (type !== 'DELETED' || ev.type === 'DELETED') return ev.object;
  return { ...ev.prevObject!, metadata: { ...ev.prevObject!.metadata, resourceVersion: String(ev.revision) } };
}

/**
 * The full-object watch line (`{"type":…,"object":…}` and a newline) of `ev` as `type`, for
 * watchers of `info`; serialised once per event and `key` and shared. Of one event, DELETED is
 * always the same form for every watcher (a delete, or the object leaving every selection that
 * had it), so `key` is the type and apiVersion.
 * @param key - `${type}/${apiVersion}` of `info`
 */
export function objectLine(ev: StoreEvent, type: ChangeType, info: ResourceInfo, key: string): SharedLine {
  const m = linesOf(ev);
  let line = m.get(key);
  if (!line) {
    // The stored object's JSON text is cached (jsonOf); a leaving object is made for this event.
    const obj = objectOf(ev, type);
    const object = obj === ev.object ? jsonOf(toVersion(obj, info)) : JSON.stringify(toVersion(obj, info));
    line = { text: `{"type":"${type}","object":${object}}\n`, id: nextLineId++ };
    m.set(key, line);
  }
  return line;
}

/**
 * The ERROR line that ends a watch when the store re-listed (its history restarted): a 410
 * `Expired` Status, so the client lists again (kube's cacher ends its watchers when its reflector
 * re-lists).
 * @param lastRevision - the last resourceVersion the watch delivered
 * @param revision - the re-list's revision
 */
export function relistedLine(lastRevision: number, revision: number): string {
  return errorLine(apierrors.resourceExpired(`too old resource version: ${lastRevision} (${revision}): the storage listed etcd again after it compacted past this server's watch`).status);
}

/** A watch ERROR event line carrying `status` (a Kubernetes Status), as a watch's last line. */
export function errorLine(status: unknown): string {
  return `${JSON.stringify({ type: 'ERROR', object: status })}\n`;
}

/** A live watch stream as its fan-out group sees it. */
export interface FanoutMember {
  /**
   * Writes the group's lines of this flush from index `from` on, after any lines of its own still
   * waiting (the group's lines before `from` it already has).
   * @param chunk - the whole batch as one HTTP chunk, framed once per flush for every member
   * @param shared - the flush's shared chunks (watch-flush.ts), for its own lines
   */
  deliver(batch: readonly string[], from: number, chunk: () => Buffer, shared: Map<string, Buffer>): void;
  /** The store re-listed: end the stream with `line`, after the group's lines queued for it. */
  expire(line: string): void;
}

/** Tells a watch how a group renders the events of its resource, see {@link joinFanout}. */
export interface FanoutSelection {
  /** The store key prefix watched. */
  prefix: string;
  /** Which objects the watchers see. */
  selected: (o: KubeObject) => boolean;
  /** The line key of each event type ({@link objectLine}). */
  lineKeys: Record<ChangeType, string>;
}

/**
 * The watchers of one resource and selection that share one store registration. Created by
 * {@link joinFanout}; ends (unregisters) when its last member leaves.
 */
export class FanoutGroup implements PendingStream {
  /** The lines of the events since the last flush. */
  private lines: string[] = [];
  /** The members, each with the index in `lines` where its share starts (it joined, or took its share, after the ones before). */
  private readonly members = new Map<FanoutMember, number>();
  private readonly watch: StoreWatch;
  private lastRevision: number;
  private closed = false;

  /** Registers with `store` from its current revision (every later event). */
  constructor(
    store: Store,
    private readonly info: ResourceInfo,
    private readonly selection: FanoutSelection,
    private readonly onClose: () => void,
  ) {
    this.lastRevision = store.currentRevision();
    this.watch = store.watch(selection.prefix, this.lastRevision, this.onEvent);
  }

  private readonly onEvent = (ev: StoreEvent): void => {
    if (ev.relisted) {
      const line = relistedLine(this.lastRevision, ev.revision);
      for (const m of [...this.members.keys()]) m.expire(line);
      this.close();
      return;
    }
    this.lastRevision = ev.revision;
    const type = changeOf(ev, this.selection.selected);
    if (!type) return;
    if (this.lines.length === 0) schedule(this);
    this.lines.push(objectLine(ev, type, this.info, this.selection.lineKeys[type]).text);
  };

  /**
   * Adds a member that has every event up to now: it gets the events from now on. Only outside
   * the store's delivery of an event (not from a watch callback), where both the member and the
   * group have every event published so far.
   */
  join(m: FanoutMember): void {
    this.members.set(m, this.lines.length);
  }

  /**
   * The group's lines queued for `m` and not yet taken, which it then owns (it queues a line of
   * its own after them, or ends).
   */
  take(m: FanoutMember): string[] {
    const from = this.members.get(m);
    if (from === undefined || from >= this.lines.length) return [];
    this.members.set(m, this.lines.length);
    return this.lines.slice(from);
  }

  /** Removes a member; the group unregisters when it was the last. */
  leave(m: FanoutMember): void {
    this.members.delete(m);
    if (this.members.size === 0) this.close();
  }

  flush(shared: Map<string, Buffer>): void {
    const batch = this.lines;
    if (batch.length === 0) return;
    this.lines = [];
    let whole: Buffer | undefined;
    const chunk = () => (whole ??= httpChunk(batch.length === 1 ? batch[0]! : batch.join('')));
    // A snapshot: a member may leave (or, after a write's callbacks, join) meanwhile.
    for (const [m, from] of [...this.members]) {
      if (!this.members.has(m)) continue;
      this.members.set(m, 0);
      m.deliver(batch, from, chunk, shared);
    }
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watch.stop();
    unschedule(this);
    this.onClose();
  }
}

/** The live groups, by store, resource (its registry entry) and selection key. */
const groups = new WeakMap<Store, WeakMap<ResourceInfo, Map<string, FanoutGroup>>>();
/** How many groups are live per store. */
const groupCounts = new WeakMap<Store, number>();

/** The fan-out groups live on `store` (a count), for the `hcc_watch_fanout_groups` metric. */
export function fanoutGroupCount(store: Store): number {
  return groupCounts.get(store) ?? 0;
}

/**
 * Adds `member` to the group of watchers of `info` in `store` with the selection `key` (created,
 * and registered with the store, when it is the first). Call only outside the store's delivery of
 * an event, when the member has every event published so far (see {@link FanoutGroup.join}).
 * @param key - identifies the selection: watchers with equal keys select, and render, alike
 * @returns the group, or undefined when no group can be made (the store refused the watch)
 */
export function joinFanout(store: Store, info: ResourceInfo, key: string, selection: FanoutSelection, member: FanoutMember): FanoutGroup | undefined {
  let byInfo = groups.get(store);
  if (!byInfo) groups.set(store, (byInfo = new WeakMap()));
  let byKey = byInfo.get(info);
  if (!byKey) byInfo.set(info, (byKey = new Map()));
  let g = byKey.get(key);
  if (!g) {
    const keys = byKey;
    try {
      const created: FanoutGroup = new FanoutGroup(store, info, selection, () => {
        if (keys.get(key) === created) keys.delete(key);
        groupCounts.set(store, (groupCounts.get(store) ?? 1) - 1);
      });
      g = created;
      groupCounts.set(store, (groupCounts.get(store) ?? 0) + 1);
    } catch {
      return undefined;
    }
    byKey.set(key, g);
  }
  g.join(member);
  return g;
}
