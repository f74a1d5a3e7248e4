/**
 * The embedded default Store: every object in memory, persisted to a LevelDB directory
 * (classic-level) with group commit. Writes that arrive while a batch is being fsync'd are
 * gathered into the next batch, so durability costs one fsync per batch, not per write.
 *
 * Contract (see store.ts): a write resolves after its batch is durable (`sync: true`) and after
 * `get`/`list`/watchers see it. A transaction that writes nothing (no change, a delete of nothing,
 * a refusal such as "already exists") but was decided on a state still in flight answers only once
 * that state is durable, as etcd3's GuaranteedUpdate reads committed state before it skips a write:
 * no answer ever describes a state a crash could take back. If a batch fails to persist, the store
 * is unusable: pending writes reject, later writes reject, {@link LevelStore.checkHealth} reports
 * it and `onFailure` is called once, so that the process exits and a restart reopens the data
 * (LevelDB itself stays read-only after a failed log write); nothing acknowledged is lost.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { writeFileAtomic } from '@hcc/client';
import type { KubeObject } from '@hcc/crds';
import * as apierrors from '../../apierrors/status.js';
import { EventHistory } from '../history.js';
import { jsonOf, rememberJSON } from '../json-cache.js';
import { Mirror } from '../mirror.js';
import { missingCurrent, zeroedLogFindings } from './log-scan.js';
import type { Store, StoredObject, StoreEvent, StoreWatch, TransactOptions, TransactResult } from '../store.js';

const REV_KEY = 'r';
const OBJ_PREFIX = 'o';

/**
 * The revision watermark, a file beside the database: a committed revision, written at most once
 * a second after commits (and at close). The database's own revision is never below it unless
 * committed writes were lost (a truncated, damaged or deleted log), which {@link LevelStore.open}
 * then refuses.
 */
export const RevisionWatermarkFile = 'hcc-revision';
/**
 * Written when LevelDB reports, while opening, that it dropped damaged records (it then deletes
 * the damaged log, so the next open would look clean): every later open refuses too, until the
 * loss is accepted.
 */
export const DamagedMarkerFile = 'hcc-storage-damaged';
/**
 * How far resourceVersions jump when a loss is accepted (a count): past any revision handed out
 * after the last watermark was written (a second of writes, or more after a power loss).
 */
export const LossRevisionBump = 1_000_000;
/** How often, at most, the revision watermark is written, in milliseconds. */
const WatermarkIntervalMs = 1000;

/**
 * The largest object the level store keeps, in bytes of its stored JSON (metadata and
 * managedFields included): a 3 MiB request body (kube-apiserver's limit) fits with what the server
 * adds to it. A write that would store more — an object grown by a JSON patch's copies or by many
 * patches — is refused with 413, as etcd refuses a request over its `--max-request-bytes`.
 */
export const MaxObjectBytes = 4 * 1024 * 1024;

/**
 * Thrown by {@link LevelStore.open} when the data shows lost or damaged committed writes; the
 * store is closed again. `acceptLoss` serves what is left instead.
 */
export class StorageDamagedError extends Error {
  override readonly name = 'StorageDamagedError';
}

/**
 * The lines of LevelDB's info log (`LOG`, rewritten at every open) that report records dropped
 * during this open's recovery (`...: dropping N bytes; Corruption: checksum mismatch`). A torn
 * tail, the last record cut short by a crash, is not reported: it was never acknowledged.
 * @see https://github.com/google/leveldb/blob/main/db/db_impl.cc (RecoverLogFile's LogReporter)
 */
export function droppedRecordLines(infoLog: string): string[] {
  return infoLog.split('\n').filter((l) => /: dropping \d+ bytes; |Corruption: /.test(l)).map((l) => l.replace(/^\S+ \S+ /, '').trim());
}

/** The damage marker's text: what it held and the new findings, each once, one per line. */
function markerText(earlier: string, found: string[]): string {
  return `${[...new Set([...earlier.split('\n'), ...found].filter(Boolean))].join('\n')}\n`;
}

/**
 * A file's text, trimmed.
 * @throws Error naming the file when it cannot be read (a directory in its place, say)
 */
function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`${file} cannot be read: ${(err as Error).message}`, { cause: err });
  }
}

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
  /** Most JSON those events may hold together (string length). Default 64 MiB (DefaultHistoryBytes). */
  historyBytes?: number;
  /** fsync each batch (default true). Only benchmarks of the raw limit turn this off. */
  sync?: boolean;
  /**
   * Called once when a batch fails to persist (disk full, I/O error), with that error: the store
   * refuses every write from then on and the caller should exit so that a restart reopens it.
   */
  onFailure?: (err: unknown) => void;
  /**
   * Open even when committed writes were lost, damaged records dropped or the watermark is
   * unreadable (see {@link StorageDamagedError}): serve what is left, with resourceVersions going
   * on {@link LossRevisionBump} past the highest known one and every older one compacted (410).
   */
  acceptLoss?: boolean;
}

/** A transaction's answer waiting for the state it was decided on to be durable. */
interface CommitWaiter {
  revision: number;
  settle: (failure: unknown) => void;
}

/**
 * The level store above: {@link LevelStore.open} once (it refuses lost or damaged data unless `acceptLoss`), then the
 * {@link Store} methods, then {@link LevelStore.close}, which waits for pending batches. LevelDB locks the directory:
 * one open store per data dir.
 */
export class LevelStore implements Store {
  readonly healthCheckName = 'storage';
  /**
   * The database, made by {@link open} once the data dir passed the checks LevelDB does not make:
   * a ClassicLevel opens itself on the next tick after it is made, and would start an empty
   * database over a data dir that lost CURRENT even when open refuses it.
   */
  private db!: ClassicLevel<string, string>;
  private readonly sync: boolean;
  /** Latest state including writes in flight; what transact functions see. */
  private readonly latest = new Map<string, StoredObject>();
  /** Committed state: what get, list and count serve. */
  private readonly committed = new Mirror();
  private latestRevision = 0;
  private committedRevision = 0;
  private pending: PendingWrite[] = [];
  /** Answers waiting for a revision to commit, in revision order. */
  private waiters: CommitWaiter[] = [];
  private flushing = false;
  private failed: unknown = undefined;
  private history!: EventHistory;
  private readonly historyCapacity: number;
  /** The revision in the watermark file, and the pending write of the next one. */
  private watermark = 0;
  private watermarkTimer: NodeJS.Timeout | undefined;
  private watermarkWrite: Promise<void> | undefined;
  /**
   * Set by {@link open} when it started on lost or damaged data because `acceptLoss` allowed it:
   * what was found, and the revision resourceVersions continue from.
   */
  acceptedLoss: { problems: string[]; revision: number } | undefined;

  constructor(private readonly opts: LevelStoreOptions) {
    this.sync = opts.sync ?? true;
    this.historyCapacity = opts.historyCapacity ?? 100_000;
  }

  /**
   * Opens the database and loads every object.
   * @throws StorageDamagedError when LevelDB dropped damaged records while opening (now or at an
   *   earlier open not yet accepted), or the database's revision is below the watermark (committed
   *   writes lost), unless `acceptLoss`; errors of LevelDB's own open (a locked, unreadable or
   *   unparseable data dir)
   */
  async open(): Promise<void> {
    const dir = this.opts.dir;
    const markerFile = path.join(dir, DamagedMarkerFile);
    const watermarkFile = path.join(dir, RevisionWatermarkFile);
    // The marker is there only when damage was found: one left empty (a crash while it was
    // written) still says so.
    const earlier = existsSync(markerFile) ? readText(markerFile) || 'its details were lost' : '';
    // No file: a new data dir. A file is written whole (a temporary file, then a rename), so one
    // that is empty, blank or not a decimal number was damaged (cut short by a power loss).
    const watermarkExists = existsSync(watermarkFile);
    const watermarkText = watermarkExists ? readText(watermarkFile) : '';
    const watermarkValue = !watermarkExists ? 0 : /^[0-9]+$/.test(watermarkText) ? Number(watermarkText) : NaN;
    const watermarkValid = Number.isSafeInteger(watermarkValue) && watermarkValue >= 0;
    const watermark = watermarkValid ? watermarkValue : 0;
    // Damage LevelDB would not report, found before it opens the database: it would start an
    // empty one over a data dir that lost CURRENT, and rewrite and delete a log with zeroed records.
    const dirExists = existsSync(dir);
    const lostCurrent = dirExists ? missingCurrent(dir) : undefined;
    if (lostCurrent && !this.opts.acceptLoss) {
      throw new StorageDamagedError(`${dir}: ${lostCurrent}. Restore the data dir from a backup, or start with --accept-storage-loss to serve what LevelDB then finds (its logs, without the tables)`);
    }
    /** The refusal of a start on lost or damaged data, naming what was found. */
    const damaged = (problems: string[]) =>
      new StorageDamagedError(`${dir}: ${problems.join('; ')}. Objects written before may be missing. Restore the data dir from a backup, or start with --accept-storage-loss to serve what is left`);
    const zeroed = dirExists ? zeroedLogFindings(dir) : [];
    const zeroedProblem = `records in the database's logs were overwritten with zeros (${zeroed.join('; ')})`;
    // Refused before LevelDB opens the database, so the damaged log stays as it is (it would be
    // rewritten into a table and deleted); accepted, the finding is kept until the loss is.
    if (zeroed.length && !this.opts.acceptLoss) throw damaged([zeroedProblem]);
    if (zeroed.length) writeFileAtomic(markerFile, markerText(earlier, zeroed));
    this.db = new ClassicLevel<string, string>(dir, { valueEncoding: 'utf8', keyEncoding: 'utf8' });
    await this.db.open();
    const infoLog = path.join(dir, 'LOG');
    const dropped = existsSync(infoLog) ? droppedRecordLines(readFileSync(infoLog, 'utf8')) : [];
    // LevelDB has already deleted the damaged log: keep the finding for later opens.
    if (dropped.length) writeFileAtomic(markerFile, markerText(earlier, [...zeroed, ...dropped]));
    const rev = await this.db.get(REV_KEY);
    this.latestRevision = this.committedRevision = rev ? Number(rev) : 0;
    const problems: string[] = [];
    if (lostCurrent) problems.push(lostCurrent);
    // What an earlier start found (and kept in the marker) and was not found again now.
    const before = earlier.split('\n').filter((l) => l && !zeroed.includes(l) && !dropped.includes(l));
    if (before.length) problems.push(`an earlier start found damage (${before.join('; ')})`);
    if (zeroed.length) problems.push(zeroedProblem);
    if (dropped.length) problems.push(`LevelDB dropped damaged records when it opened the database (${dropped.join('; ')})`);
    if (!watermarkValid) {
      problems.push(`${watermarkFile} holds no revision (${JSON.stringify(watermarkText.slice(0, 40))}): whether committed writes were lost cannot be told`);
    } else if (watermark > this.committedRevision) {
      problems.push(`the database is at revision ${this.committedRevision} but revision ${watermark} was committed before: the writes in between are lost (a truncated, damaged or deleted log)`);
    }
    if (problems.length && !this.opts.acceptLoss) {
      await this.db.close();
      throw damaged(problems);
    }
    let floor = this.committedRevision;
    if (problems.length) {
      // Accepted. The watermark may trail what was handed out (it is written up to a second after
      // commits): resourceVersions jump past it by LossRevisionBump, as etcd's restore bumps
      // revisions, and every older one is compacted, so watches and reads from before get 410
      // and clients list again instead of keeping objects that are gone.
      floor = Math.max(this.committedRevision, watermark) + LossRevisionBump;
      this.acceptedLoss = { problems, revision: floor };
      await this.db.put(REV_KEY, String(floor), { sync: this.sync });
      this.latestRevision = this.committedRevision = floor;
      rmSync(markerFile, { force: true });
    }
    this.watermark = watermark;
    try {
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
    } catch (err) {
      // A damaged table file (LevelDB checks no checksums on reads, so only what fails to decode shows).
      await this.db.close();
      throw new StorageDamagedError(`${dir}: the database cannot be read: ${err instanceof Error ? err.message : String(err)}. Restore the data dir from a backup`);
    }
    this.history = new EventHistory(this.historyCapacity, floor, this.opts.historyBytes);
    if (this.committedRevision > this.watermark || !watermarkValid) this.writeWatermarkSync();
  }

  async close(): Promise<void> {
    while (this.flushing || this.pending.length) await new Promise((r) => setTimeout(r, 1));
    clearTimeout(this.watermarkTimer);
    this.watermarkTimer = undefined;
    await this.watermarkWrite;
    try {
      if (this.committedRevision > this.watermark) this.writeWatermarkSync();
    } catch {
      // Best effort (a full disk): the watermark only ever trails the database.
    }
    // Not made when open refused the data dir before LevelDB saw it.
    if ((this.db as ClassicLevel<string, string> | undefined) !== undefined) await this.db.close();
  }

  /** Writes the committed revision to the watermark file now (a temporary file, then a rename). */
  private writeWatermarkSync(): void {
    writeFileAtomic(path.join(this.opts.dir, RevisionWatermarkFile), `${this.committedRevision}\n`);
    this.watermark = this.committedRevision;
  }

  /** Writes the watermark within {@link WatermarkIntervalMs} of a commit, off the request path. */
  private scheduleWatermark(): void {
    if (this.watermarkTimer || this.watermarkWrite) return;
    this.watermarkTimer = setTimeout(() => {
      this.watermarkTimer = undefined;
      const revision = this.committedRevision;
      const file = path.join(this.opts.dir, RevisionWatermarkFile);
      this.watermarkWrite = writeFile(`${file}.tmp`, `${revision}\n`)
        .then(() => rename(`${file}.tmp`, file))
        .then(
          () => {
            this.watermark = Math.max(this.watermark, revision);
          },
          () => {}, // best effort: a later commit or the close tries again
        )
        .finally(() => {
          this.watermarkWrite = undefined;
          if (this.committedRevision > this.watermark && !this.failed) this.scheduleWatermark();
        });
    }, WatermarkIntervalMs);
    this.watermarkTimer.unref();
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

  transact(key: string, fn: (current: KubeObject | undefined) => TransactResult, opts?: TransactOptions): Promise<StoredObject | undefined> {
    if (this.failed) return Promise.reject(this.failed);
    const cur = this.latest.get(key);
    // The key's state is in flight when the latest and the committed entry differ (a write to it
    // waits in a batch): an answer that writes nothing waits until then.
    const inFlight = this.committed.get(key) !== cur;
    let res: TransactResult;
    try {
      res = fn(cur?.object);
    } catch (err) {
      return inFlight ? this.afterCommit(this.latestRevision).then(() => Promise.reject(err)) : Promise.reject(err);
    }
    if (res.op === 'none' || (res.op === 'delete' && !cur)) {
      const answer = res.op === 'none' ? cur : undefined;
      return inFlight ? this.afterCommit(this.latestRevision).then(() => answer) : Promise.resolve(answer);
    }
    const revision = this.latestRevision + 1;
    const rv = String(revision);
    let entry: StoredObject | undefined;
    let event: StoreEvent;
    if (res.op === 'put') {
      const object = { ...res.object, metadata: { ...res.object.metadata, resourceVersion: rv } };
      // Serialised here, once (flush and every answer reuse the text), so a value too large is
      // refused before it takes a revision. A UTF-8 byte is at most one UTF-16 unit, and a unit
      // at most 3 bytes: only a text in between needs counting.
      const json = jsonOf(object);
      if (json.length > MaxObjectBytes || (json.length > MaxObjectBytes / 3 && Buffer.byteLength(json) > MaxObjectBytes)) {
        const err = apierrors.requestEntityTooLarge(`the object would be ${Buffer.byteLength(json)} bytes as stored, over the ${MaxObjectBytes} the level store keeps`);
        return inFlight ? this.afterCommit(this.latestRevision).then(() => Promise.reject(err)) : Promise.reject(err);
      }
      this.latestRevision = revision;
      opts?.onStored?.(object);
      entry = { key, object, createRevision: cur ? cur.createRevision : revision, modRevision: revision };
      this.latest.set(key, entry);
      event = cur
        ? { type: 'MODIFIED', key, revision, object, prevObject: cur.object }
        : { type: 'ADDED', key, revision, object };
    } else {
      this.latestRevision = revision;
      const last = cur!.object;
      const object = { ...last, metadata: { ...last.metadata, resourceVersion: rv } };
      this.latest.delete(key);
      opts?.onDeleted?.(revision);
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

  /**
   * Resolves once `revision` is committed (durable and visible); rejects with the storage failure
   * if a batch fails first.
   */
  private afterCommit(revision: number): Promise<void> {
    if (this.committedRevision >= revision) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ revision, settle: (failure) => (failure === undefined ? resolve() : reject(failure)) }));
  }

  /** Settles the waiters `committedRevision` has reached, or all of them with `failure`. */
  private settleWaiters(failure?: unknown): void {
    if (failure !== undefined) {
      const all = this.waiters;
      this.waiters = [];
      for (const w of all) w.settle(failure);
      return;
    }
    let n = 0;
    while (n < this.waiters.length && this.waiters[n]!.revision <= this.committedRevision) n++;
    if (n === 0) return;
    const done = this.waiters.splice(0, n);
    for (const w of done) w.settle(undefined);
  }

  /**
   * The `etcd` health check of /healthz and /readyz (see server.ts): empty while the store works,
   * the storage failure once a batch failed to persist.
   */
  async checkHealth(): Promise<string> {
    if (this.failed === undefined) return '';
    return `writes are refused until a restart: ${this.failed instanceof Error ? this.failed.message : String(this.failed)}`;
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
        this.settleWaiters(err);
        this.opts.onFailure?.(err);
        break;
      }
      for (const w of batch) {
        this.committed.set(w.key, w.entry);
        this.committedRevision = w.event.revision;
        this.history.publish(w.event);
      }
      for (const w of batch) w.resolve(w.entry);
      this.settleWaiters();
      this.scheduleWatermark();
    }
    this.flushing = false;
  }
}
