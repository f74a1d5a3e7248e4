/**
 * WATCH: a long-lived response of newline-delimited JSON watch events, flushed per event.
 * - No resourceVersion (or "0"): synthetic ADDED events for the current state, then changes.
 * - resourceVersion=N: every change after N; when N is older than the kept history, one ERROR
 *   event carrying a 410 `Expired` Status, then the stream ends (client-go relists).
 * - sendInitialEvents=true (with resourceVersionMatch=NotOlderThan, as upstream requires): the
 *   initial ADDED events, then a BOOKMARK annotated `k8s.io/initial-events-end: "true"`
 *   (watch-list, KEP-3157); sendInitialEvents=false with no resourceVersion: changes from now only.
 * - Invalid combinations of resourceVersion, resourceVersionMatch and sendInitialEvents: 422
 *   before anything is written (pipeline/list-options.ts); a resourceVersion the store has not
 *   reached is waited for up to 3 s, then 504 (`Too large resource version`): the HTTP answer, or
 *   with sendInitialEvents the stream's one ERROR event, as kube-apiserver's cacher sends it.
 * - Label/field selectors: an object entering the selection is ADDED, leaving it is DELETED.
 * - allowWatchBookmarks: periodic BOOKMARK events carrying the latest resourceVersion.
 * - timeoutSeconds ends the stream; a slow client that falls too far behind is disconnected.
 * - The initial ADDED events are rendered and written piece by piece as the connection drains
 *   (changes meanwhile are held until they are out), as kube-apiserver's cacher blocks on a
 *   watcher's channel while it sends them: a list-watch of a large collection never holds the
 *   whole collection rendered for one client.
 * - Full-object watchers of one resource with the same selection share one store registration
 *   once past their start (watch-fanout.ts); lines wait for a common flush (watch-flush.ts).
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes
 */
import type { ServerResponse } from 'node:http';
import type { KubeObject } from '@hcc/crds';
import { MaxTimerMs } from '@hcc/client';
import type { StoredObject, StoreEvent, StoreWatch } from '../storage/store.js';
import { RevisionCompactedError } from '../storage/store.js';
import { firstQueryValue } from '../pipeline/list-options.js';
import * as apierrors from '../apierrors/status.js';
import type { RequestScope } from './scope.js';
import { apiVersionOf, listStored, toVersion } from './object-ops.js';
import { compileFilter } from './selectors.js';
import { negotiateWatch } from '../pipeline/negotiate.js';
import { parseIncludeObject, toTable } from '../pipeline/table.js';
import { queryBool } from '../pipeline/request-info.js';
import { listOptions } from '../pipeline/list-options.js';
import { waitForRevision } from './read.js';
import { storagePrefix } from '../registry/types.js';
import { jsonOf } from '../storage/json-cache.js';
import { countWatch, httpChunk, schedule, unschedule, type PendingStream } from './watch-flush.js';
import { changeOf, errorLine, joinFanout, objectLine, objectOf, relistedLine, type ChangeType, type FanoutGroup, type FanoutMember, type FanoutSelection } from './watch-fanout.js';

export { activeWatches, flushDelayMs } from './watch-flush.js';

/** Tunables of watch streams. */
export interface WatchOptions {
  /** How often to send BOOKMARK events when asked for, in milliseconds. */
  bookmarkIntervalMs: number;
  /** Longest stream when the client gives no timeoutSeconds, in seconds. */
  defaultTimeoutSeconds: number;
  /** A client this many bytes behind is disconnected. */
  maxBufferedBytes: number;
}

/**
 * Defaults: a BOOKMARK every 10 s, a stream whose request gives no `timeoutSeconds` ends after 1,800 s (the default of
 * kube-apiserver's `--min-request-timeout`), and clients cut off 32 MiB behind.
 */
export const defaultWatchOptions: WatchOptions = {
  bookmarkIntervalMs: 10_000,
  defaultTimeoutSeconds: 1800,
  maxBufferedBytes: 32 * 1024 * 1024,
};

/**
 * A list-watch's initial ADDED events go out in pieces of about this many characters of JSON
 * (one HTTP chunk each), the next once its connection holds less than
 * {@link initialBufferedBytes} (bytes) or after it drains.
 */
const initialPieceBytes = 256 * 1024;
const initialBufferedBytes = 1024 * 1024;

/**
 * Which objects a watch sees: those named `name` (when given) that `filter` matches. A function
 * of its own (not a closure in serveWatch) so that a fan-out group keeping it keeps nothing else
 * of the watch that created the group.
 */
function selectorOf(name: string | undefined, filter: ReturnType<typeof compileFilter>): (o: KubeObject) => boolean {
  if (!name && filter.empty) return () => true;
  return (o) => (!name || o.metadata.name === name) && filter.matches(o);
}

/**
 * Serves one watch on a raw response. Resolves when the stream ends. The stream's shape is
 * negotiated from `accept` after the parameters are checked, as kube-apiserver's serveWatch
 * negotiates its stream serializer after ListResource decoded the options (a bad selector is a
 * 400 whatever the Accept header says).
 * @param accept - the request's Accept header (negotiateWatch)
 * @throws StatusError 400 or 422 for bad parameters, 406 for an Accept no stream can serve, 504 for a resourceVersion not reached in 3 s (before anything is written)
 */
export async function serveWatch(
  scope: RequestScope,
  accept: string | undefined,
  query: Record<string, unknown>,
  res: ServerResponse,
  onClose: (cb: () => void) => void,
  opts: WatchOptions = defaultWatchOptions,
): Promise<void> {
  const { info, ri, store } = scope;
  const filter = compileFilter(info, query.labelSelector, query.fieldSelector);
  const prefix = info.namespaced && ri.namespace ? storagePrefix(info, ri.namespace) : storagePrefix(info);
  const nameFilter = ri.name; // /watch/namespaces/ns/kind/name (legacy) watches one object
  const lo = listOptions(query, true);
  const rvParam = lo.resourceVersion;
  // sendInitialEvents defaults to true for an unset or "0" resourceVersion (the legacy synthetic
  // ADDED events), false otherwise; sendInitialEvents=false from "now" sends none.
  const initialEvents = lo.sendInitialEvents ?? (rvParam === '' || rvParam === '0');
  const sendInitial = lo.sendInitialEvents === true;
  const bookmarks = queryBool(query.allowWatchBookmarks);
  // 0 means the default, as a watch without it (kube-apiserver's minRequestTimeout rule).
  const timeoutSeconds = lo.timeoutSeconds !== undefined && lo.timeoutSeconds > 0 ? lo.timeoutSeconds : opts.defaultTimeoutSeconds;
  const include = parseIncludeObject(query.includeObject);
  const shape = negotiateWatch(accept);
  const apiVersion = apiVersionOf(info.group, info.version);
  const selected = selectorOf(nameFilter, filter);
  // Keys of this watcher's shared lines, built once (a Map hashes a string once, not per event).
  const lineKeys: Record<ChangeType, string> = { ADDED: `ADDED/${apiVersion}`, MODIFIED: `MODIFIED/${apiVersion}`, DELETED: `DELETED/${apiVersion}` };
  // Full-object watchers with the same selection share a fan-out group once past their start
  // (watch-fanout.ts); the key names the selection, each part quoted (a name or a selector may
  // hold any separator: two selections must never share a key).
  const fanoutKey =
    shape.kind === 'object' ? JSON.stringify([prefix, nameFilter ?? null, firstQueryValue(query.labelSelector), firstQueryValue(query.fieldSelector)]) : undefined;
  const selection: FanoutSelection = { prefix, selected, lineKeys };
  let wroteColumns = false;

  const render = (o: KubeObject): unknown => {
    const v = toVersion(o, info);
    if (shape.kind === 'table') {
      const t = toTable(info, [v], { version: shape.version, include, now: new Date(), listMeta: { resourceVersion: v.metadata.resourceVersion }, withColumns: !wroteColumns });
      wroteColumns = true;
      return t;
    }
    if (shape.kind === 'metadata') return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${shape.version}`, metadata: v.metadata };
    return v;
  };

  // A resourceVersion the store has not reached: wait for it (up to 3 s, then 504), rather than
  // serve an older state (or events from an older point) as newer. kube-apiserver's watch cache
  // waits so only with sendInitialEvents (cacher.go, waitUntilWatchCacheFreshAndForceAllEvents)
  // and otherwise streams what comes after that resourceVersion; the 504 makes a client holding a
  // resourceVersion from before a reset (a new data dir, an etcd whose revision went backwards)
  // list again instead of missing every change until the revision catches up.
  // With sendInitialEvents the wait is kube-apiserver's too, and its timeout comes as the stream's
  // one ERROR event (the cacher's newErrWatcher), not as the HTTP answer.
  let notReached: apierrors.StatusError | undefined;
  if (rvParam !== '' && rvParam !== '0') {
    try {
      await waitForRevision(store, Number(rvParam), rvParam);
    } catch (e) {
      if (!lo.sendInitialEvents || !(e instanceof apierrors.StatusError)) throw e;
      notReached = e;
    }
  }
  // No resourceVersion: "start at the most recent", which must be consistent as a GET's (a quorum
  // read): a replica cut off from etcd answers 503 instead of streaming its last state as current.
  else if (rvParam === '') await store.syncToLatest?.();

  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
    'X-Content-Type-Options': 'nosniff',
  });
  res.flushHeaders();

  return new Promise<void>((resolve) => {
    let done = false;
    let w: StoreWatch | undefined;
    let bookmarkTimer: NodeJS.Timeout | undefined;
    let stopFollowingDefinition: (() => void) | undefined;
    let lastRV = 0;
    countWatch(1);
    // Lines waiting for the next flush (watch-flush.ts), and the ids of the shared ones;
    // undefined once the batch holds a line of this watcher's own (not shareable).
    let lines: string[] = [];
    let lineIds: number[] | undefined = [];
    // The fan-out group this stream is a member of, once past its start (then w is undefined:
    // the group's registration with the store delivers its events).
    let group: FanoutGroup | undefined;
    // The chunks of this stream go straight to its connection, framed once per shared batch
    // (httpChunk) instead of once per watcher by the HTTP response: one buffer per write, so TLS
    // encrypts it without first copying the pieces together. Only when the response owns its
    // connection with nothing queued (not behind a pipelined request); otherwise through res.
    const socket = res.socket;
    const direct = socket !== null && res.writableLength === socket.writableLength;
    const write = (chunk: Buffer) => {
      if (direct) socket.write(chunk);
      else res.write(chunk.subarray(chunk.indexOf(0x0a) + 1, chunk.length - 2));
    };
    const buffered = () => (direct ? socket.writableLength : res.writableLength);
    // What the stream sends as it starts (the history replayed from an older resourceVersion,
    // the changes held while a list-watch's initial events went out) is as big as the history,
    // not a sign of a slow client: it is allowed on top of maxBufferedBytes until the connection
    // first drains, as kube-apiserver's cacher sends initial events with backpressure rather
    // than a limit.
    let starting = true;
    let allowance = 0;
    // The initial ADDED events still to send (a snapshot of the collection), see sendInitialPiece;
    // changes meanwhile are held in lines (heldBytes of them), and closing is what finish may
    // still send then.
    let initial: { items: StoredObject[]; next: number; revision: number } | undefined;
    let heldBytes = 0;
    let closing: string[] = [];
    // Removed when the stream ends: a kept-alive connection serves one watch after another.
    const drained = direct ? socket : res;
    const onDrain = () => void (allowance = 0);
    drained.once('drain', onDrain);
    // Too far behind: end the stream and drop the connection, and what is buffered for it (the
    // client relists, as after kube-apiserver closes a watcher that cannot keep up).
    const dropIfBehind = () => {
      if (buffered() > opts.maxBufferedBytes + allowance) {
        finish();
        res.destroy();
      }
    };
    const stream: PendingStream = {
      flush: (shared) => {
        const batch = lines;
        const ids = lineIds;
        lines = [];
        lineIds = [];
        if (batch.length === 0 || res.destroyed || res.writableEnded) return;
        const text = () => (batch.length === 1 ? batch[0]! : batch.join(''));
        if (ids) {
          const key = ids.join(',');
          let buf = shared.get(key);
          if (!buf) shared.set(key, (buf = httpChunk(text())));
          write(buf);
        } else write(httpChunk(text()));
        dropIfBehind();
      },
    };
    /** Makes the group's lines queued for this stream its own (before a line of its own, or the end). */
    const takeGroupLines = () => {
      const taken = group?.take(member);
      if (!taken?.length) return;
      if (lines.length === 0) schedule(stream);
      lines.push(...taken);
      lineIds = undefined;
    };
    const member: FanoutMember = {
      deliver: (batch, from, chunk, shared) => {
        if (lines.length) stream.flush(shared);
        if (done || from >= batch.length || res.destroyed || res.writableEnded) return;
        write(from === 0 ? chunk() : httpChunk(batch.slice(from).join('')));
        dropIfBehind();
      },
      expire: (line) => {
        queue(line);
        finish();
      },
    };
    /**
     * Moves this stream into its fan-out group once it has every event so far (its history
     * replayed, its initial events out); its own registration with the store ends. Not from a
     * store callback (see joinFanout).
     */
    const joinGroup = () => {
      if (fanoutKey === undefined || done || initial || group) return;
      const g = joinFanout(store, info, fanoutKey, selection, member);
      if (!g) return;
      group = g;
      w?.stop();
      w = undefined;
    };
    const finish = () => {
      if (done) return;
      done = true;
      countWatch(-1);
      drained.removeListener('drain', onDrain);
      drained.removeListener('drain', sendInitialPiece);
      w?.stop();
      stopFollowingDefinition?.();
      clearInterval(bookmarkTimer);
      clearTimeout(timer);
      if (group) {
        takeGroupLines();
        group.leave(member);
        group = undefined;
      }
      unschedule(stream);
      // Changes queued while the initial events were still going out follow objects the client
      // has not seen yet: sending them would let it resume past those objects. Only a closing
      // line (the ERROR of a re-list) is sent then.
      const last = initial ? closing : lines;
      if (last.length && !res.destroyed && !res.writableEnded) write(httpChunk(last.join('')));
      lines = [];
      if (!res.writableEnded) res.end();
      resolve();
    };
    const queue = (line: string, id?: number) => {
      if (done) return;
      if (group) takeGroupLines();
      if (initial) {
        // Held until the initial events are out; a client that cannot take them while the
        // collection changes this much is too far behind, as below.
        lines.push(line);
        lineIds = undefined;
        if ((heldBytes += line.length) > opts.maxBufferedBytes) {
          finish();
          res.destroy();
        }
        return;
      }
      if (starting) allowance += line.length;
      if (lines.length === 0) schedule(stream);
      lines.push(line);
      if (id === undefined) lineIds = undefined;
      else lineIds?.push(id);
    };
    /** One event's line; an unconverted object's JSON text is the store's (computed once per object). */
    const eventLine = (type: string, obj: KubeObject) =>
      shape.kind === 'object' ? `{"type":"${type}","object":${jsonOf(toVersion(obj, info))}}\n` : `${JSON.stringify({ type, object: render(obj) })}\n`;
    const sendEvent = (type: string, obj: KubeObject) => queue(eventLine(type, obj));
    // A bookmark takes the shape of the stream's other events, as kube-apiserver converts every
    // watch event: a metadata-only informer decodes it as PartialObjectMetadata, a Table watcher
    // gets a Table without rows.
    const bookmarkLine = (rv: number, annotations?: Record<string, string>) => {
      const metadata = { resourceVersion: String(rv), ...(annotations ? { annotations } : {}) };
      const object =
        shape.kind === 'table'
          ? { kind: 'Table', apiVersion: `meta.k8s.io/${shape.version}`, metadata, columnDefinitions: [], rows: [] }
          : shape.kind === 'metadata'
            ? { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${shape.version}`, metadata }
            : { kind: info.kind, apiVersion, metadata };
      return `${JSON.stringify({ type: 'BOOKMARK', object })}\n`;
    };
    const sendBookmark = (rv: number, annotations?: Record<string, string>) => queue(bookmarkLine(rv, annotations));
    // setTimeout takes at most 2^31-1 ms (~24.8 days); a longer timeout would fire at once.
    const timer = setTimeout(() => {
      if (bookmarks && !initial) sendBookmark(store.currentRevision());
      finish();
    }, Math.min(timeoutSeconds * 1000, MaxTimerMs));
    onClose(finish);
    // The client may have gone while the watch waited for its resourceVersion (no 'close' then):
    // end before anything is registered.
    if (socket?.destroyed) return finish();
    // A custom resource's watch ends, as a stream that simply ends, when its CRD is gone, stops
    // serving this version, or changes its spec (kube-apiserver's crdHandler destroys the CRD's
    // storage then, which ends every watch on it): the client lists again and meets the 404 or
    // the new schema, instead of being fed objects of a version that is no longer served. A CRD
    // being deleted is still served: its watchers see the cleanup delete its objects.
    const onDefinitionChanged = () => {
      const cur = scope.registry.lookup(info.group, info.version, info.resource);
      if (!cur || cur.definition !== info.definition) finish();
    };
    if (info.definition !== undefined) {
      scope.registry.on('changed', onDefinitionChanged);
      stopFollowingDefinition = () => scope.registry.off('changed', onDefinitionChanged);
    }

    const onEvent = (ev: StoreEvent) => {
      if (done) return;
      if (ev.relisted) {
        // The store re-listed: what follows is not history, and resuming from it could skip
        // changes. End the watch as too old, so the client lists again (kube's cacher ends its
        // watchers when its reflector re-lists).
        const line = relistedLine(lastRV, ev.revision);
        if (initial) closing = [line];
        else queue(line);
        finish();
        return;
      }
      lastRV = ev.revision;
      const type = changeOf(ev, selected);
      if (!type) return;
      if (shape.kind === 'object') {
        const line = objectLine(ev, type, info, lineKeys[type]);
        queue(line.text, line.id);
      } else sendEvent(type, objectOf(ev, type));
    };

    // The initial events go out in pieces of about initialPieceBytes, the next one once the
    // connection holds less than initialBufferedBytes (else after it drains), between other
    // requests: a list-watch of a large collection holds at most about a piece and the buffer
    // for its client, as kube-apiserver's cacher blocks on a watcher's channel while it sends
    // the initial events, rather than the whole collection rendered at once.
    function sendInitialPiece(): void {
      if (done || !initial) return;
      if (res.destroyed || res.writableEnded) return finish();
      const { items } = initial;
      const piece: string[] = [];
      let bytes = 0;
      while (initial.next < items.length && bytes < initialPieceBytes) {
        const o = items[initial.next++]!.object;
        if (!selected(o)) continue;
        const line = eventLine('ADDED', o);
        piece.push(line);
        bytes += line.length;
      }
      if (initial.next >= items.length) {
        // The snapshot is out: the end-of-initial-events bookmark, then the changes held since.
        const { revision } = initial;
        initial = undefined;
        if (sendInitial && bookmarks) lines.unshift(bookmarkLine(revision, { 'k8s.io/initial-events-end': 'true' }));
        if (piece.length) write(httpChunk(piece.join('')));
        // What is still buffered of the initial events, and the changes held meanwhile, count as
        // sent at the start (see starting), until the connection drains: a client still reading
        // the collection is not behind on live events.
        allowance = heldBytes + buffered();
        if (allowance > 0) {
          drained.removeListener('drain', onDrain);
          drained.once('drain', onDrain);
        }
        starting = false;
        if (lines.length) {
          lineIds = undefined;
          schedule(stream);
        }
        joinGroup();
        return;
      }
      if (piece.length) write(httpChunk(piece.join('')));
      if (buffered() > initialBufferedBytes) drained.once('drain', sendInitialPiece);
      else setImmediate(sendInitialPiece);
    }

    if (notReached) {
      queue(errorLine(notReached.status));
      finish();
      return;
    }
    let from: number;
    if (initialEvents) {
      const { items, revision } = listStored(store, info, ri.namespace);
      initial = { items, next: 0, revision };
      from = revision;
      lastRV = revision;
    } else if (rvParam === '' || rvParam === '0') {
      from = lastRV = store.currentRevision();
    } else {
      from = Number(rvParam);
      lastRV = from;
    }
    try {
      w = store.watch(prefix, from, onEvent);
    } catch (e) {
      if (e instanceof RevisionCompactedError) {
        initial = undefined;
        queue(errorLine(apierrors.resourceExpired(`too old resource version: ${e.requested} (${e.oldest})`).status));
        finish();
        return;
      }
      throw e;
    }
    if (initial) sendInitialPiece();
    else {
      starting = false;
      // Its history is replayed (store.watch does that before it returns): from here on the
      // group's registration serves it (not when it asked for a revision the store has not
      // reached, which waitForRevision rules out).
      if (from <= store.currentRevision()) joinGroup();
    }
    if (bookmarks) {
      // Not while the initial events are going out: a bookmark then would let a client resume
      // past objects it has not been sent.
      bookmarkTimer = setInterval(() => initial || sendBookmark(Math.max(lastRV, store.currentRevision())), opts.bookmarkIntervalMs);
    }
  });
}
