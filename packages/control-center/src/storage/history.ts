/**
 * In-memory event history and watcher fan-out shared by store implementations: a ring buffer of
 * the last `capacity` committed events, at most `maxBytes` of their objects' JSON together (what a
 * watch can resume from), plus the live watchers. Equivalent to the event window of
 * kube-apiserver's watch cache (`--watch-cache-sizes`), which is bounded too: a few large objects
 * written often must not keep hundreds of megabytes of old versions alive.
 */
import { jsonOf } from './json-cache.js';
import { RevisionCompactedError, type StoreEvent, type StoreWatch } from './store.js';

/** Default of the history's byte budget: 64 MiB of event JSON. */
export const DefaultHistoryBytes = 64 * 1024 * 1024;

interface Watcher {
  prefix: string;
  onEvent: (ev: StoreEvent) => void;
  stopped: boolean;
}

/**
 * The history above, for one store: it {@link EventHistory.publish}es each committed event in revision order, and
 * {@link EventHistory.watch} replays what is kept after a revision, then delivers live events synchronously from
 * `publish`. In memory only: it starts empty, at the revision it is constructed with.
 */
export class EventHistory {
  private readonly ring: (StoreEvent | undefined)[];
  /** JSON length of each kept event's object, parallel to `ring`. */
  private readonly sizes: number[];
  private start = 0; // index of the oldest event
  private size = 0;
  /** Sum of `sizes` over the kept events. */
  private bytes = 0;
  private readonly watchers = new Set<Watcher>();
  /** Revision before the oldest event kept: a watch from exactly this revision is still complete. */
  private floorRevision: number;

  /**
   * @param capacity - how many events to keep (a count)
   * @param initialRevision - the store's revision when history starts (watches from it are complete)
   * @param maxBytes - most JSON (string length of the events' objects) to keep; the oldest events
   *   go first, the newest is always kept. Default {@link DefaultHistoryBytes}.
   */
  constructor(
    readonly capacity: number,
    initialRevision: number,
    readonly maxBytes: number = DefaultHistoryBytes,
  ) {
    this.ring = new Array(capacity);
    this.sizes = new Array<number>(capacity).fill(0);
    this.floorRevision = initialRevision;
  }

  /** How many events are kept, and their JSON length together (for tests and metrics). */
  kept(): { events: number; bytes: number } {
    return { events: this.size, bytes: this.bytes };
  }

  /** The oldest revision a watch may start from. */
  oldestWatchableRevision(): number {
    return this.floorRevision;
  }

  /** Number of live watchers (for metrics). */
  watcherCount(): number {
    return this.watchers.size;
  }

  /**
   * Forgets every kept event and starts the history again at `revision`: watches (and snapshot
   * reads) from an older revision then get RevisionCompactedError (410). For a re-list after the
   * backend compacted past what was seen: the events that bring live watchers up to date are made
   * up (a delete and re-create look like one change), so they must not be replayed as history.
   * Live watchers stay.
   */
  restartAt(revision: number): void {
    this.ring.fill(undefined);
    this.sizes.fill(0);
    this.start = 0;
    this.size = 0;
    this.bytes = 0;
    this.floorRevision = revision;
  }

  /** Appends a committed event and delivers it to every live watcher whose prefix matches. */
  publish(ev: StoreEvent): void {
    // The object's text is what a watch sends (and, for a level store, already computed).
    const bytes = jsonOf(ev.object).length;
    while (this.size > 0 && (this.size === this.capacity || this.bytes + bytes > this.maxBytes)) {
      const oldest = this.ring[this.start]!;
      this.floorRevision = oldest.revision;
      this.ring[this.start] = undefined;
      this.bytes -= this.sizes[this.start]!;
      this.start = (this.start + 1) % this.capacity;
      this.size--;
    }
    const at = (this.start + this.size) % this.capacity;
    this.ring[at] = ev;
    this.sizes[at] = bytes;
    this.bytes += bytes;
    this.size++;
    for (const w of this.watchers) {
      if (!w.stopped && ev.key.startsWith(w.prefix)) {
        try {
          w.onEvent(ev);
        } catch {
          // A watcher's failure must not stop delivery to the others; it stops itself.
        }
      }
    }
  }

  /**
   * Replays kept events after fromRevision under prefix, then delivers live ones. An exception of
   * onEvent is swallowed, in the replay as in live delivery (the watcher stops itself if it must).
   * @throws RevisionCompactedError when events after fromRevision are no longer kept
   */
  watch(prefix: string, fromRevision: number, onEvent: (ev: StoreEvent) => void): StoreWatch {
    if (fromRevision < this.floorRevision) throw new RevisionCompactedError(fromRevision, this.floorRevision);
    const w: Watcher = { prefix, onEvent, stopped: false };
    // Binary search for the first kept event with revision > fromRevision.
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ring[(this.start + mid) % this.capacity]!.revision <= fromRevision) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.size; i++) {
      const ev = this.ring[(this.start + i) % this.capacity]!;
      if (!ev.key.startsWith(prefix)) continue;
      try {
        onEvent(ev);
      } catch {
        // As in live delivery: the watcher's own failure is its to handle (it stops itself); the replay goes on.
      }
    }
    this.watchers.add(w);
    return {
      stop: () => {
        w.stopped = true;
        this.watchers.delete(w);
      },
    };
  }
}
