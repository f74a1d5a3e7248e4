/**
 * Records core/v1 Events about objects, as client-go's EventRecorder does, so `kubectl describe`
 * shows what controllers decided. Repeats of the same (object, type, reason, message) within
 * `dedupWindowMs` bump `count` and `lastTimestamp` of the existing Event instead of creating
 * another; when that Event is gone (deleted, expired by the API server's TTL, or never created
 * because its create failed) the repeat creates it again under the same name with the count so far,
 * as client-go's `recordToSink` falls back from a patch answered NotFound to a create. Recording
 * never throws: an Event that cannot be written is logged and dropped.
 *
 * Events are written one at a time, in order, from a queue of at most `maxQueued` (1,000); when
 * the queue is full a new Event is dropped, as client-go's broadcaster drops it (its
 * `maxQueuedEvents` channel, written to the sink by one goroutine): Events are best effort, and a
 * burst of work (10,000 placements) must not become a burst of as many concurrent writes that
 * slow the API server down for the work itself.
 * @see https://github.com/kubernetes/client-go/blob/master/tools/record/event.go
 */
import type { Logger } from 'pino';
import type { RestClient } from './rest.js';
import type { KubeObject, ResourceRef } from './types.js';
import { isNotFound } from './api-errors.js';

const eventsRef: ResourceRef = { group: '', version: 'v1', resource: 'events', namespaced: true };

/** Normal or Warning, as Kubernetes defines event types. */
export type EventType = 'Normal' | 'Warning';

/** Options of an EventRecorder. */
export interface EventRecorderOptions {
  client: Pick<RestClient, 'create' | 'patch'>;
  /** `source.component` and `reportingComponent`, e.g. `hcc-scheduler`. */
  component: string;
  logger?: Logger;
  /** Repeats within this window update one Event, in milliseconds. Default 10 minutes. */
  dedupWindowMs?: number;
  /** Namespace for Events about cluster-scoped objects. Default `default`. */
  clusterScopedNamespace?: string;
  /** Most Events waiting to be written (a count); more are dropped. Default {@link MaxQueuedEvents}. */
  maxQueued?: number;
}

/** client-go's maxQueuedEvents: how many Events may wait for the sink before new ones are dropped. */
export const MaxQueuedEvents = 1000;

interface Recorded {
  namespace: string;
  name: string;
  count: number;
  firstMs: number;
}

const seconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

let lastNanos = 0n;
/** Sub-millisecond part of this process's names, so two recorders rarely pick the same one. */
const processOffset = BigInt(Math.floor(Math.random() * 500_000));
/**
 * The name of a new Event: `<object name>.<hex nanoseconds since the epoch>`, as client-go's
 * recorder names them (`fmt.Sprintf("%v.%x", ref.Name, t.UnixNano())`), without a random source per
 * Event. The clock has millisecond resolution here: the nanoseconds are a per-process offset within
 * the millisecond, and names made in the same millisecond count up from it, so they stay unique.
 */
export function eventName(objectName: string | undefined, now: Date): string {
  let nanos = BigInt(now.getTime()) * 1_000_000n + processOffset;
  if (nanos <= lastNanos) nanos = lastNanos + 1n;
  lastNanos = nanos;
  return `${objectName}.${nanos.toString(16)}`;
}

/**
 * The recorder above: {@link EventRecorder.event} queues an Event and returns at once (never throws);
 * {@link EventRecorder.idle} waits until the queue has drained. What it deduplicates is remembered in memory, per
 * recorder (forgotten all at once past 5,000 entries).
 */
export class EventRecorder {
  private readonly seen = new Map<string, Recorded>();
  private readonly window: number;
  private readonly queue: { obj: KubeObject; type: EventType; reason: string; message: string; at: Date }[] = [];
  private writing: Promise<void> | undefined;
  /** Events dropped because the queue was full, since start (a count). */
  dropped = 0;

  constructor(private readonly opts: EventRecorderOptions) {
    this.window = opts.dedupWindowMs ?? 600_000;
  }

  /**
   * Records an Event about obj (fire and forget): queued, written in turn; dropped when
   * {@link EventRecorderOptions.maxQueued} Events already wait.
   * @param reason - UpperCamelCase reason, e.g. `Scheduled`, `FailedScheduling`
   */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    if (this.queue.length >= (this.opts.maxQueued ?? MaxQueuedEvents)) {
      if (this.dropped++ % 1000 === 0) this.opts.logger?.warn({ reason, dropped: this.dropped }, 'event queue full: dropping events');
      return;
    }
    this.queue.push({ obj, type, reason, message, at: new Date() });
    this.writing ??= this.drain();
  }

  /** Resolves once every queued Event has been written (or failed). */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    for (let e = this.queue.shift(); e; e = this.queue.shift()) {
      try {
        await this.record(e.obj, e.type, e.reason, e.message, e.at);
      } catch (err) {
        this.opts.logger?.debug({ err, reason: e.reason }, 'event not recorded');
      }
    }
    this.writing = undefined;
  }

  private async record(obj: KubeObject, type: EventType, reason: string, message: string, now: Date): Promise<void> {
    const ns = obj.metadata.namespace || this.opts.clusterScopedNamespace || 'default';
    const key = `${obj.metadata.uid ?? ''}/${type}/${reason}/${message}`;
    const prev = this.seen.get(key);
    if (prev && now.getTime() - prev.firstMs < this.window) {
      prev.count++;
      try {
        await this.opts.client.patch(eventsRef, prev.namespace, prev.name, { count: prev.count, lastTimestamp: seconds(now) }, 'merge');
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      await this.create(obj, type, reason, message, prev, now);
      return;
    }
    if (this.seen.size > 5000) this.seen.clear();
    const rec: Recorded = { namespace: ns, name: eventName(obj.metadata.name, now), count: 1, firstMs: now.getTime() };
    this.seen.set(key, rec);
    await this.create(obj, type, reason, message, rec, now);
  }

  /** Creates the Event `rec` names, with its count so far, first seen at `rec.firstMs` and last at `now`. */
  private async create(obj: KubeObject, type: EventType, reason: string, message: string, rec: Recorded, now: Date): Promise<void> {
    const [group, version] = (obj.apiVersion ?? '').includes('/') ? obj.apiVersion!.split('/') : ['', obj.apiVersion ?? 'v1'];
    await this.opts.client.create(eventsRef, rec.namespace, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: rec.name, namespace: rec.namespace },
      involvedObject: {
        apiVersion: group ? `${group}/${version}` : version,
        kind: obj.kind,
        name: obj.metadata.name,
        namespace: obj.metadata.namespace,
        uid: obj.metadata.uid,
        resourceVersion: obj.metadata.resourceVersion,
      },
      reason,
      message,
      type,
      count: rec.count,
      firstTimestamp: seconds(new Date(rec.firstMs)),
      lastTimestamp: seconds(now),
      eventTime: null,
      source: { component: this.opts.component },
      reportingComponent: this.opts.component,
      // client-go's core/v1 recorder: the instance is the source's host, empty for a controller
      // (kubectl's SOURCE column then shows the component once, not `hcc-scheduler, hcc-scheduler`).
      reportingInstance: '',
      action: reason,
    } as unknown as KubeObject);
  }
}
