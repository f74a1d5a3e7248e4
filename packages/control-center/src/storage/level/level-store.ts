/**
 * The embedded default Store: every object in memory, persisted to a LevelDB directory
 * (classic-level) with group commit. Writes that arrive while a batch is being fsync'd are
 * gathered into the next batch, so durability costs one fsync per batch, not per write.
 *
 * Contract (see store.ts): a write resolves after its batch is durable (`sync: true`) and after
 * `get`/`list`/watchers see it. If a batch fails to persist, the store is unusable: pending writes
 * reject, later writes reject, and the process should exit (nothing acknowledged is lost).
 */
import { ClassicLevel } from 'classic-level';
import type { KubeObject } from '@hcc/crds';
import { EventHistory } from '../history.js';
import { jsonOf, rememberJSON } from '../json-cache.js';
import { Mirror } from '../mirror.js';
import type { Store, StoredObject, StoreEvent, StoreWatch, TransactResult } from '../store.js';

const REV_KEY = 'r';
const OBJ_PREFIX = 'o';

interface PendingWrite {
  key: string;
  entry: StoredObject | undefined; // undefined: delete
  event: StoreEvent;
  resolve: (v: StoredObject | undefined) => void;
  reject: (e: unknown) => void;
}

interface PersistedValue {
  c: number;
  m: number;
  o: KubeObject;
}

/** Options of {@link LevelStore}. */
export interface LevelStoreOptions {
  /** Directory of the LevelDB database (created when missing). */
  dir: string;
  /** How many events a watch can resume from (a count). Default 100,000. */
  historyCapacity?: number;
  /** fsync each batch (default true). Only benchmarks of the raw limit turn this off. */
  sync?: boolean;
}

export class LevelStore implements Store {
  private readonly db: ClassicLevel<string, string>;
  private readonly sync: boolean;
  /** Latest state including writes in flight; what transact functions see. */
  private readonly latest = new Map<string, StoredObject>();
  /** Committed state: what get, list and count serve. */
  private readonly committed = new Mirror();
  private latestRevision = 0;
  private committedRevision = 0;
  private pending: PendingWrite[] = [];
  private flushing = false;
  private failed: unknown = undefined;
  private history!: EventHistory;
  private readonly historyCapacity: number;

  constructor(private readonly opts: LevelStoreOptions) {
    this.db = new ClassicLevel<string, string>(opts.dir, { valueEncoding: 'utf8', keyEncoding: 'utf8' });
    this.sync = opts.sync ?? true;
    this.historyCapacity = opts.historyCapacity ?? 100_000;
  }

  async open(): Promise<void> {
    await this.db.open();
    const rev = await this.db.get(REV_KEY);
    this.latestRevision = this.committedRevision = rev ? Number(rev) : 0;
    for await (const [k, v] of this.db.iterator({ gt: OBJ_PREFIX, lt: OBJ_PREFIX + '\uffff' })) {
      const p = JSON.parse(v) as PersistedValue;
      const key = k.slice(OBJ_PREFIX.length);
      // The persisted value is `{"c":..,"m":..,"o":<object JSON>}`: keep the object's text.
      const at = v.indexOf('"o":');
      if (at > 0 && v.endsWith('}')) rememberJSON(p.o, v.slice(at + 4, -1));
      const entry: StoredObject = { key, object: p.o, createRevision: p.c, modRevision: p.m };
      this.latest.set(key, entry);
      this.committed.set(key, entry);
    }
    this.history = new EventHistory(this.historyCapacity, this.committedRevision);
  }

  async close(): Promise<void> {
    while (this.flushing || this.pending.length) await new Promise((r) => setTimeout(r, 1));
    await this.db.close();
  }

  currentRevision(): number {
    return this.committedRevision;
  }

  oldestWatchableRevision(): number {
    return this.history.oldestWatchableRevision();
  }

  /** Number of live watchers (for metrics). */
  watcherCount(): number {
    return this.history.watcherCount();
  }

  get(key: string): StoredObject | undefined {
    return this.committed.get(key);
  }

  list(prefix: string): { items: StoredObject[]; revision: number } {
    return { items: this.committed.list(prefix), revision: this.committedRevision };
  }

  count(prefix: string): number {
    return this.committed.count(prefix);
  }

  transact(key: string, fn: (current: KubeObject | undefined) => TransactResult): Promise<StoredObject | undefined> {
    if (this.failed) return Promise.reject(this.failed);
    const cur = this.latest.get(key);
    let res: TransactResult;
    try {
      res = fn(cur?.object);
    } catch (err) {
      return Promise.reject(err);
    }
    if (res.op === 'none') return Promise.resolve(cur);
    if (res.op === 'delete' && !cur) return Promise.resolve(undefined);
    const revision = ++this.latestRevision;
    const rv = String(revision);
    let entry: StoredObject | undefined;
    let event: StoreEvent;
    if (res.op === 'put') {
      const object = { ...res.object, metadata: { ...res.object.metadata, resourceVersion: rv } };
      entry = { key, object, createRevision: cur ? cur.createRevision : revision, modRevision: revision };
      this.latest.set(key, entry);
      event = cur
        ? { type: 'MODIFIED', key, revision, object, prevObject: cur.object }
        : { type: 'ADDED', key, revision, object };
    } else {
      const last = cur!.object;
      const object = { ...last, metadata: { ...last.metadata, resourceVersion: rv } };
      this.latest.delete(key);
      event = { type: 'DELETED', key, revision, object, prevObject: last };
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ key, entry, event, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  watch(prefix: string, fromRevision: number, onEvent: (ev: StoreEvent) => void): StoreWatch {
    return this.history.watch(prefix, fromRevision, onEvent);
  }

  /** Writes every pending write in one durable batch, then publishes them in revision order. */
  private async flush(): Promise<void> {
    while (this.pending.length) {
      const batch = this.pending;
      this.pending = [];
      try {
        // A chained batch: each put goes straight into LevelDB's WriteBatch (an array batch costs
        // ~2× more of this thread per write: abstract-level clones and checks every operation).
        const ops = this.db.batch();
        for (const w of batch) {
          if (w.entry) {
            // One serialisation per write: the same text is persisted and reused for responses and watch events.
            const json = jsonOf(w.entry.object);
            ops.put(OBJ_PREFIX + w.key, `{"c":${w.entry.createRevision},"m":${w.entry.modRevision},"o":${json}}`);
          } else {
            ops.del(OBJ_PREFIX + w.key);
          }
        }
        ops.put(REV_KEY, String(batch[batch.length - 1]!.event.revision));
        await ops.write({ sync: this.sync });
      } catch (err) {
        this.failed = err;
        for (const w of batch) w.reject(err);
        for (const w of this.pending) w.reject(err);
        this.pending = [];
        break;
      }
      for (const w of batch) {
        this.committed.set(w.key, w.entry);
        this.committedRevision = w.event.revision;
        this.history.publish(w.event);
      }
      for (const w of batch) w.resolve(w.entry);
    }
    this.flushing = false;
  }
}
