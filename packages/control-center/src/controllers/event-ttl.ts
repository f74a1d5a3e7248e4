/**
 * Event TTL: deletes core/v1 Events a while after their last write, as kube-apiserver does with
 * `--event-ttl` (default 1 hour; it attaches an etcd lease to every Event write). Without it a
 * long-running control center would keep every `Scheduled` and `FailedScheduling` Event forever,
 * in memory and on disk.
 *
 * An Event's last write is the latest of `lastTimestamp`, `eventTime`, `series.lastObservedTime`,
 * the `time` of its managedFields entries and `creationTimestamp`. A sweep every `ttl / 4` (at
 * most every minute) deletes the expired ones, each guarded by its uid and resourceVersion so an
 * Event written again meanwhile stays.
 * @see https://kubernetes.io/docs/reference/command-line-tools-reference/kube-apiserver/ (--event-ttl)
 */
import type { Logger } from 'pino';
import type { KubeObject } from '@hcc/crds';
import type { Store } from '../storage/store.js';
import { storagePrefix, systemContext } from '../registry/types.js';
import { events } from '../registry/builtin/events.js';
import { deleteObject } from '../handlers/object-ops.js';
import * as apierrors from '../apierrors/status.js';

/** kube-apiserver's default `--event-ttl`: one hour, in milliseconds. */
export const DefaultEventTTLMs = 60 * 60 * 1000;

/**
 * When an Event was last written, in epoch milliseconds (NaN when it carries no time at all).
 * Reads `lastTimestamp`, `eventTime`, `series.lastObservedTime`, `metadata.managedFields[].time`
 * and `metadata.creationTimestamp`, whichever is latest.
 */
export function lastWriteMs(ev: KubeObject): number {
  const e = ev as KubeObject & { lastTimestamp?: unknown; eventTime?: unknown; series?: { lastObservedTime?: unknown } };
  const times: unknown[] = [e.lastTimestamp, e.eventTime, e.series?.lastObservedTime, e.metadata.creationTimestamp, ...((e.metadata.managedFields ?? []) as { time?: unknown }[]).map((m) => m?.time)];
  let latest = NaN;
  for (const t of times) {
    if (typeof t !== 'string' || t === '') continue;
    const ms = Date.parse(t);
    if (Number.isFinite(ms) && !(ms <= latest)) latest = ms;
  }
  return latest;
}

/**
 * The sweeper above, over one store: {@link EventTTLController.start} sweeps now and on a timer that does not keep the
 * process alive, {@link EventTTLController.stop} clears the timer. A sweep never throws: a failure is logged (warn) and
 * the next sweep tries again; sweeps never overlap.
 */
export class EventTTLController {
  private timer?: NodeJS.Timeout;
  private running = false;

  /**
   * @param ttlMs - how long an Event lives after its last write, in milliseconds (> 0)
   * @param now - clock, epoch milliseconds (tests)
   */
  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Sweeps once now, then every ttl / 4 (between 1 s and 60 s). */
  start(): void {
    const every = Math.min(60_000, Math.max(1000, Math.floor(this.ttlMs / 4)));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
    void this.sweep();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Deletes every Event whose last write is older than the TTL. @returns how many it deleted */
  async sweep(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let deleted = 0;
    try {
      const cutoff = this.now() - this.ttlMs;
      for (const it of this.store.list(storagePrefix(events)).items) {
        const ev = it.object;
        const last = lastWriteMs(ev);
        if (!(last < cutoff)) continue;
        const m = ev.metadata;
        try {
          await deleteObject(this.store, events, m.namespace ?? '', m.name!, systemContext(new Date(this.now())), {
            dryRun: false,
            preconditions: { uid: m.uid, resourceVersion: m.resourceVersion },
          });
          deleted++;
        } catch (e) {
          if (!apierrors.isNotFound(e) && !apierrors.isConflict(e)) throw e;
        }
      }
      if (deleted) this.log.info({ controller: 'event-ttl', deleted, ttlSeconds: this.ttlMs / 1000 }, 'deleted expired Events');
    } catch (err) {
      this.log.warn({ err, controller: 'event-ttl' }, 'sweep failed; retrying at the next one');
    } finally {
      this.running = false;
    }
    return deleted;
  }
}
