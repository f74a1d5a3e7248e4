/**
 * In-memory event history and watcher fan-out shared by store implementations: a ring buffer of
 * the last `capacity` committed events (what a watch can resume from) plus the live watchers.
 * Equivalent to the event window of kube-apiserver's watch cache (`--watch-cache-sizes`).
 */
import { RevisionCompactedError, type StoreEvent, type StoreWatch } from './store.js';

interface Watcher {
  prefix: string;
  onEvent: (ev: StoreEvent) => void;
  stopped: boolean;
}

export class EventHistory {
  private readonly ring: (StoreEvent | undefined)[];
  private start = 0; // index of the oldest event
  private size = 0;
  private readonly watchers = new Set<Watcher>();
  /** Revision before the oldest event kept: a watch from exactly this revision is still complete. */
  private floorRevision: number;

  /**
   * @param capacity - how many events to keep (a count)
   * @param initialRevision - the store's revision when history starts (watches from it are complete)
   */
  constructor(
    readonly capacity: number,
    initialRevision: number,
  ) {
    this.ring = new Array(capacity);
    this.floorRevision = initialRevision;
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
    this.start = 0;
    this.size = 0;
    this.floorRevision = revision;
  }

  /** Appends a committed event and delivers it to every live watcher whose prefix matches. */
  publish(ev: StoreEvent): void {
    if (this.size === this.capacity) {
      const oldest = this.ring[this.start]!;
      this.floorRevision = oldest.revision;
      this.ring[this.start] = undefined;
      this.start = (this.start + 1) % this.capacity;
      this.size--;
    }
    this.ring[(this.start + this.size) % this.capacity] = ev;
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
   * Replays kept events after fromRevision under prefix, then delivers live ones.
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
      if (ev.key.startsWith(prefix)) onEvent(ev);
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
