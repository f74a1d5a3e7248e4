/**
 * A tiny in-memory Kubernetes API server on `node:http`, for tests of code that talks to one
 * (this package's RestClient, Informer and leader election; scheduler and syncer tests may reuse
 * it). It speaks just enough of the real contract: resource URLs, get/list/create/update/
 * status/merge-patch/delete, `resourceVersion` with 409 on conflict, list chunking with
 * `limit`/`continue`, watch streams (`\n`-delimited JSON events) from a resourceVersion, BOOKMARK
 * events, 410 `Expired` after `compact()`, equality label selectors, and `Status` error bodies.
 * Test controls: `compact`, `bookmark`, `endWatches`, `dropWatches`, `failNext`, `requests`.
 *
 * Not a real API server: no validation, admission, finalizers, generation, field selectors or
 * set-based label selectors; every registered resource accepts any JSON object.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeObject, KubeStatus, ResourceRef } from '../types.js';

interface StoredEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resource: string;
  obj: KubeObject;
  old?: KubeObject;
}

interface Watcher {
  resource: string;
  namespace: string;
  selector: [string, string][];
  bookmarks: boolean;
  res: http.ServerResponse;
  send: (type: string, obj: unknown) => void;
}

interface Snapshot {
  rv: number;
  items: KubeObject[];
}

/** One request the fake server saw. */
export interface SeenRequest {
  method: string;
  /** Path and query. */
  url: string;
}

/** Options of `FakeApiServer`. */
export interface FakeApiServerOptions {
  /** Answer a watch from a compacted resourceVersion with HTTP 410 instead of a 200 + ERROR event. */
  expiredAsHttp410?: boolean;
}

/** Builds a Status body. */
export function status(code: number, reason: string, message: string): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

const refKey = (ref: Pick<ResourceRef, 'group' | 'resource'>) => (ref.group ? `${ref.resource}.${ref.group}` : ref.resource);

/** See the module comment. `await FakeApiServer.start([refs])`, use `.url`, `await .close()`. */
export class FakeApiServer {
  /** Every request, in arrival order. */
  readonly requests: SeenRequest[] = [];
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url = '';
  readonly #server: http.Server;
  readonly #resources = new Map<string, ResourceRef & { kind: string }>();
  readonly #objects = new Map<string, Map<string, KubeObject>>();
  readonly #events: StoredEvent[] = [];
  readonly #watchers = new Set<Watcher>();
  readonly #snapshots = new Map<string, Snapshot>();
  readonly #options: FakeApiServerOptions;
  #failures: { code: number; match?: (req: SeenRequest) => boolean }[] = [];
  #rv = 100;
  #compactedRv = 0;
  #uid = 0;
  #snapshotId = 0;

  private constructor(options: FakeApiServerOptions) {
    this.#options = options;
    this.#server = http.createServer((req, res) => {
      void this.#handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) this.#fail(res, status(500, 'InternalError', String(err)));
      });
    });
  }

  /** Starts a server on 127.0.0.1, port 0, serving the given resources (kind = capitalized singular guess unless given). */
  static async start(resources: (ResourceRef & { kind?: string })[], options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
    const s = new FakeApiServer(options);
    for (const r of resources) {
      const kind = r.kind ?? r.resource.charAt(0).toUpperCase() + r.resource.slice(1).replace(/s$/, '');
      s.#resources.set(refKey(r), { ...r, kind });
      s.#objects.set(refKey(r), new Map());
    }
    await new Promise<void>((resolve) => s.#server.listen(0, '127.0.0.1', resolve));
    s.url = `http://127.0.0.1:${(s.#server.address() as AddressInfo).port}`;
    return s;
  }

  /** The current resourceVersion (of the last write). */
  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** Number of open watch streams. */
  get watchCount(): number {
    return this.#watchers.size;
  }

  /** Stored object (a copy), or undefined. */
  getObject(ref: ResourceRef, key: string): KubeObject | undefined {
    const obj = this.#objects.get(refKey(ref))?.get(key);
    return obj && structuredClone(obj);
  }

  /** Creates or replaces an object directly (as another client would), emitting a watch event. */
  put(ref: ResourceRef, obj: KubeObject): KubeObject {
    const key = this.#key(obj);
    const store = this.#store(refKey(ref));
    const old = store.get(key);
    const stored = this.#stamp(ref, structuredClone(obj), old);
    store.set(key, stored);
    this.#emit(old ? 'MODIFIED' : 'ADDED', refKey(ref), stored, old);
    return structuredClone(stored);
  }

  /** Deletes an object directly, emitting DELETED. */
  remove(ref: ResourceRef, key: string): void {
    const store = this.#store(refKey(ref));
    const old = store.get(key);
    if (!old) return;
    store.delete(key);
    const gone = { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.#rv) } };
    this.#emit('DELETED', refKey(ref), gone, old);
  }

  /** Forgets history up to now: watches and continue tokens from older versions get 410 Expired. */
  compact(): void {
    this.#compactedRv = this.#rv;
    this.#events.length = 0;
  }

  /**
   * Moves the resourceVersion back to `rv` with the objects as they are (storage restored from a
   * snapshot without a revision bump): a watch from a newer resourceVersion then gets 504
   * `Too large resource version`, as from kube-apiserver.
   */
  rewind(rv: number): void {
    this.#rv = rv;
    this.#events.length = 0;
  }

  /** Sends a BOOKMARK at the current resourceVersion to every watch that asked for bookmarks. */
  bookmark(): void {
    for (const w of this.#watchers) {
      if (w.bookmarks) w.send('BOOKMARK', { kind: this.#resources.get(w.resource)!.kind, metadata: { resourceVersion: String(this.#rv) } });
    }
  }

  /** Ends every watch stream normally (as the server's timeout would). */
  endWatches(): void {
    for (const w of this.#watchers) w.res.end();
    this.#watchers.clear();
  }

  /** Kills every watch connection mid-stream (a transport error for the client). */
  dropWatches(): void {
    for (const w of this.#watchers) w.res.socket?.destroy();
    this.#watchers.clear();
  }

  /** Answers the next `count` requests matching `match` (all when omitted) with `code`. */
  failNext(count: number, code: number, match?: (req: SeenRequest) => boolean): void {
    for (let i = 0; i < count; i++) this.#failures.push({ code, match });
  }

  /** Stops the server and closes every connection. */
  async close(): Promise<void> {
    this.dropWatches();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const seen = { method: req.method ?? 'GET', url: req.url ?? '/' };
    this.requests.push(seen);
    const body = await readJson(req);
    const failure = this.#failures.findIndex((f) => !f.match || f.match(seen));
    if (failure >= 0) {
      const { code } = this.#failures.splice(failure, 1)[0]!;
      return this.#fail(res, status(code, code === 410 ? 'Expired' : 'InternalError', `injected failure ${code}`));
    }
    const url = new URL(seen.url, 'http://x');
    if (url.pathname === '/version') return this.#json(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0-fake' });
    const route = this.#route(url.pathname);
    if (!route) return this.#fail(res, status(404, 'NotFound', 'the server could not find the requested resource'));
    const { resource, namespace, name, subresource } = route;
    const ref = this.#resources.get(resource)!;
    const q = url.searchParams;
    switch (seen.method) {
      case 'GET':
        if (name) return this.#get(res, resource, namespace, name);
        if (q.get('watch') === 'true' || q.get('watch') === '1') return this.#watch(res, resource, namespace, q);
        return this.#list(res, resource, namespace, q);
      case 'POST':
        return this.#create(res, ref, namespace, body as KubeObject);
      case 'PUT':
        return this.#update(res, ref, namespace, name!, body as KubeObject, subresource);
      case 'PATCH':
        return this.#patch(res, ref, namespace, name!, body, req.headers['content-type'] ?? '');
      case 'DELETE':
        return this.#delete(res, ref, namespace, name!, body as { preconditions?: { uid?: string; resourceVersion?: string } });
      default:
        return this.#fail(res, status(405, 'MethodNotAllowed', 'method not allowed'));
    }
  }

  #route(pathname: string): { resource: string; namespace: string; name?: string; subresource?: string } | undefined {
    const seg = pathname.split('/').filter(Boolean).map(decodeURIComponent);
    let group = '';
    let rest: string[];
    if (seg[0] === 'api' && seg.length >= 3) rest = seg.slice(2);
    else if (seg[0] === 'apis' && seg.length >= 4) [group, rest] = [seg[1]!, seg.slice(3)];
    else return undefined;
    let namespace = '';
    if (rest[0] === 'namespaces' && rest.length >= 3) [namespace, rest] = [rest[1]!, rest.slice(2)];
    const resource = refKey({ group, resource: rest[0]! });
    if (!this.#resources.has(resource)) return undefined;
    return { resource, namespace, name: rest[1], subresource: rest[2] };
  }

  #get(res: http.ServerResponse, resource: string, namespace: string, name: string): void {
    const obj = this.#store(resource).get(namespace ? `${namespace}/${name}` : name);
    if (!obj) return this.#fail(res, notFound(resource, name));
    this.#json(res, 200, obj);
  }

  #list(res: http.ServerResponse, resource: string, namespace: string, q: URLSearchParams): void {
    const ref = this.#resources.get(resource)!;
    let snapshot: Snapshot;
    const cont = q.get('continue');
    let start = 0;
    if (cont) {
      const [id, offset] = Buffer.from(cont, 'base64url').toString().split(':');
      const found = this.#snapshots.get(id!);
      if (!found || found.rv <= this.#compactedRv) {
        return this.#fail(res, status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.'));
      }
      snapshot = found;
      start = Number(offset);
    } else {
      const selector = parseSelector(q.get('labelSelector'));
      const items = [...this.#store(resource).values()]
        .filter((o) => (!namespace || o.metadata.namespace === namespace) && matches(o, selector))
        .sort((a, b) => this.#key(a).localeCompare(this.#key(b)));
      snapshot = { rv: this.#rv, items: structuredClone(items) };
    }
    const limit = Number(q.get('limit') ?? 0);
    const end = limit > 0 ? Math.min(snapshot.items.length, start + limit) : snapshot.items.length;
    const metadata: Record<string, unknown> = { resourceVersion: String(snapshot.rv) };
    if (end < snapshot.items.length) {
      const id = String(++this.#snapshotId);
      this.#snapshots.set(id, snapshot);
      metadata.continue = Buffer.from(`${id}:${end}`).toString('base64url');
      metadata.remainingItemCount = snapshot.items.length - end;
    }
    const apiVersion = ref.group ? `${ref.group}/${ref.version}` : ref.version;
    // Like kube-apiserver for built-in types: list items carry no apiVersion/kind.
    const items = snapshot.items.slice(start, end).map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
    this.#json(res, 200, { apiVersion, kind: `${ref.kind}List`, metadata, items });
  }

  #watch(res: http.ServerResponse, resource: string, namespace: string, q: URLSearchParams): void {
    const rvParam = q.get('resourceVersion') ?? '';
    const fromRv = rvParam === '' || rvParam === '0' ? undefined : Number(rvParam);
    if (fromRv !== undefined && fromRv > this.#rv) {
      const tooLarge = status(504, 'Timeout', `Too large resource version: ${fromRv}, current: ${this.#rv}`);
      return this.#fail(res, { ...tooLarge, details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 } });
    }
    if (fromRv !== undefined && fromRv < this.#compactedRv && this.#options.expiredAsHttp410) {
      return this.#fail(res, status(410, 'Expired', `too old resource version: ${fromRv} (${this.#compactedRv})`));
    }
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    const watcher: Watcher = {
      resource,
      namespace,
      selector: parseSelector(q.get('labelSelector')),
      bookmarks: q.get('allowWatchBookmarks') === 'true',
      res,
      send: (type, object) => res.write(`${JSON.stringify({ type, object })}\n`),
    };
    if (fromRv !== undefined && fromRv < this.#compactedRv) {
      // kube-apiserver answers 200 and then one ERROR event with a 410 Status.
      watcher.send('ERROR', status(410, 'Expired', `too old resource version: ${fromRv} (${this.#compactedRv})`));
      res.end();
      return;
    }
    if (fromRv === undefined) {
      for (const obj of this.#store(resource).values()) {
        if ((!namespace || obj.metadata.namespace === namespace) && matches(obj, watcher.selector)) watcher.send('ADDED', obj);
      }
    } else {
      for (const e of this.#events) if (e.rv > fromRv && e.resource === resource) this.#deliver(watcher, e);
    }
    this.#watchers.add(watcher);
    res.on('close', () => this.#watchers.delete(watcher));
  }

  #create(res: http.ServerResponse, ref: ResourceRef, namespace: string, obj: KubeObject): void {
    if (!obj?.metadata?.name) return this.#fail(res, status(422, 'Invalid', 'metadata.name: Required value'));
    if (ref.namespaced) obj.metadata.namespace = namespace;
    const key = this.#key(obj);
    const store = this.#store(refKey(ref));
    if (store.has(key)) return this.#fail(res, { ...status(409, 'AlreadyExists', `${refKey(ref)} "${obj.metadata.name}" already exists`), details: { name: obj.metadata.name, kind: ref.resource } });
    const stored = this.#stamp(ref, obj, undefined);
    store.set(key, stored);
    this.#emit('ADDED', refKey(ref), stored);
    this.#json(res, 201, stored);
  }

  #update(res: http.ServerResponse, ref: ResourceRef, namespace: string, name: string, obj: KubeObject, subresource?: string): void {
    const key = namespace ? `${namespace}/${name}` : name;
    const store = this.#store(refKey(ref));
    const old = store.get(key);
    if (!old) return this.#fail(res, notFound(refKey(ref), name));
    const rv = obj.metadata?.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion) return this.#fail(res, conflict(refKey(ref), name));
    const next: KubeObject = subresource === 'status' ? { ...old, status: obj.status } : { ...obj, status: old.status };
    if (ref.namespaced) next.metadata.namespace = namespace;
    const stored = this.#stamp(ref, next, old);
    store.set(key, stored);
    this.#emit('MODIFIED', refKey(ref), stored, old);
    this.#json(res, 200, stored);
  }

  #patch(res: http.ServerResponse, ref: ResourceRef, namespace: string, name: string, patch: unknown, contentType: string): void {
    if (!contentType.startsWith('application/merge-patch+json')) return this.#fail(res, status(415, 'UnsupportedMediaType', `the fake supports only merge patches, not ${contentType}`));
    const key = namespace ? `${namespace}/${name}` : name;
    const store = this.#store(refKey(ref));
    const old = store.get(key);
    if (!old) return this.#fail(res, notFound(refKey(ref), name));
    const patched = mergePatch(structuredClone(old), patch) as KubeObject;
    const rv = (patch as KubeObject)?.metadata?.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion) return this.#fail(res, conflict(refKey(ref), name));
    const stored = this.#stamp(ref, patched, old);
    store.set(key, stored);
    this.#emit('MODIFIED', refKey(ref), stored, old);
    this.#json(res, 200, stored);
  }

  #delete(res: http.ServerResponse, ref: ResourceRef, namespace: string, name: string, options: { preconditions?: { uid?: string; resourceVersion?: string } } | undefined): void {
    const key = namespace ? `${namespace}/${name}` : name;
    const old = this.#store(refKey(ref)).get(key);
    if (!old) return this.#fail(res, notFound(refKey(ref), name));
    const pre = options?.preconditions;
    if ((pre?.uid && pre.uid !== old.metadata.uid) || (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion)) {
      return this.#fail(res, conflict(refKey(ref), name));
    }
    this.remove(ref, key);
    this.#json(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name, kind: ref.resource, uid: old.metadata.uid } });
  }

  #stamp(ref: ResourceRef, obj: KubeObject, old: KubeObject | undefined): KubeObject {
    const r = this.#resources.get(refKey(ref))!;
    obj.apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
    obj.kind = r.kind;
    obj.metadata = {
      ...obj.metadata,
      uid: old?.metadata.uid ?? `uid-${++this.#uid}`,
      creationTimestamp: (old?.metadata.creationTimestamp as string | undefined) ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      resourceVersion: String(++this.#rv),
    };
    return obj;
  }

  #emit(type: StoredEvent['type'], resource: string, obj: KubeObject, old?: KubeObject): void {
    const event = { rv: Number(obj.metadata.resourceVersion), type, resource, obj, old };
    this.#events.push(event);
    for (const w of this.#watchers) if (w.resource === resource) this.#deliver(w, event);
  }

  #deliver(w: Watcher, e: StoredEvent): void {
    const inScope = (o: KubeObject | undefined) => !!o && (!w.namespace || o.metadata.namespace === w.namespace) && matches(o, w.selector);
    const now = inScope(e.obj);
    const before = e.type !== 'ADDED' && inScope(e.old);
    if (e.type === 'DELETED') {
      if (before) w.send('DELETED', e.obj);
    } else if (now && before) w.send('MODIFIED', e.obj);
    else if (now) w.send('ADDED', e.obj);
    else if (before) w.send('DELETED', e.obj); // left the selector
  }

  #store(resource: string): Map<string, KubeObject> {
    return this.#objects.get(resource)!;
  }

  #key(obj: KubeObject): string {
    return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : String(obj.metadata.name);
  }

  #json(res: http.ServerResponse, code: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  #fail(res: http.ServerResponse, s: KubeStatus): void {
    this.#json(res, s.code ?? 500, s);
  }
}

function notFound(resource: string, name: string): KubeStatus {
  return { ...status(404, 'NotFound', `${resource} "${name}" not found`), details: { name, kind: resource } };
}

function conflict(resource: string, name: string): KubeStatus {
  return status(409, 'Conflict', `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`);
}

function parseSelector(s: string | null): [string, string][] {
  if (!s) return [];
  return s.split(',').map((term) => {
    const [k, v] = term.split('=');
    return [k!.trim(), (v ?? '').trim()];
  });
}

function matches(obj: KubeObject, selector: [string, string][]): boolean {
  const labels = (obj.metadata.labels ?? {}) as Record<string, string>;
  return selector.every(([k, v]) => labels[k] === v);
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
  });
}
