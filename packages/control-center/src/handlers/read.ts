/**
 * GET of one object and LIST of a collection, with label/field selectors and chunking
 * (`limit`/`continue`) at a consistent revision, rendered as JSON, Table or PartialObjectMetadata.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks
 */
import { posix } from 'node:path';
import type { KubeObject } from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';
import { storageKey, storagePrefix } from '../registry/types.js';
import type { RequestScope } from './scope.js';
import { RevisionCompactedError, type Store } from '../storage/store.js';
import { apiVersionOf, listStored, toVersion } from './object-ops.js';
import { compileFilter } from './selectors.js';
import type { ResponseShape } from '../pipeline/negotiate.js';
import { parseIncludeObject, toTable } from '../pipeline/table.js';
import { jsonOf } from '../storage/json-cache.js';
import { listAt, type SnapshotItem } from '../storage/snapshot.js';
import { checkResourceVersionSyntax, firstQueryValue, listOptions } from '../pipeline/list-options.js';

/**
 * Reads one object; 404 when absent. A `resourceVersion` other than '' and "0" is served once the
 * store has reached it (not older than it), as kube-apiserver's watch cache serves a GET
 * (WaitUntilFreshAndGet): with several control centers sharing etcd, a read-your-writes GET on
 * one that is behind waits instead of answering older data.
 * @throws StatusError 400 for a resourceVersion that is not a uint64, 404, 504 when the store has
 *   not reached it after 3 s
 */
export async function getObject(scope: RequestScope, query: Record<string, unknown> = {}): Promise<KubeObject> {
  const { info, ri, store } = scope;
  const rv = firstQueryValue(query.resourceVersion);
  checkResourceVersionSyntax(rv);
  const key = storageKey(info, ri.namespace, ri.name);
  if (rv !== '' && rv !== '0') await waitForRevision(store, Number(rv), rv);
  // No resourceVersion: the most recent state (a quorum read, as kube-apiserver's GET from etcd).
  else if (rv === '') await store.syncToLatest?.(key);
  // A value that cannot be read is a 500, as kube-apiserver's GET from etcd, even where the
  // mirror still holds the last object read there (which LIST and watch keep serving).
  const bad = store.corruptValue?.(key);
  if (bad) throw apierrors.corruptObject(bad);
  const stored = store.get(key);
  if (!stored) throw apierrors.notFound({ group: info.group, resource: info.resource }, ri.name);
  return toVersion(stored.object, info);
}

/** Renders one object in the negotiated shape. */
export function renderObject(scope: RequestScope, obj: KubeObject, shape: ResponseShape, query: Record<string, unknown>): unknown {
  if (shape.kind === 'table') {
    return toTable(scope.info, [obj], { version: shape.version, include: parseIncludeObject(query.includeObject), now: scope.ctx.now, listMeta: { resourceVersion: obj.metadata.resourceVersion } });
  }
  if (shape.kind === 'metadata') return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${shape.version}`, metadata: obj.metadata };
  return obj;
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

/**
 * A continue token: the JSON of {@link ContinueToken} in unpadded URL-safe base64, as
 * k8s.io/apiserver's storage.EncodeContinue writes it (base64.RawURLEncoding), so it travels in a
 * query string as it is. {@link decodeContinue} also reads standard base64 (Node's decoder takes
 * both alphabets, padded or not: tokens hcc issued before it wrote this form).
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/continue.go
 */
function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start } satisfies ContinueToken)).toString('base64url');
}

/** Reads a continue token ({@link encodeContinue}). @throws StatusError 400 for one that is not such a token */
function decodeContinue(token: string): ContinueToken {
  let t: ContinueToken;
  try {
    t = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as ContinueToken;
    // rv -1: continue at the latest revision (the token a 410 for an expired one carries); 0 is
    // refused, as storage.DecodeContinue refuses it.
    if (t.v !== 'meta.k8s.io/v1' || !Number.isSafeInteger(t.rv) || t.rv < -1 || t.rv === 0 || typeof t.start !== 'string') throw new Error('bad token');
  } catch {
    throw apierrors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  // A start key with `..` or `.` segments (or doubled slashes) is refused, as DecodeContinue's
  // path.Clean check refuses it: a token names a key, never a walk out of its collection.
  if (posix.normalize(t.start) !== t.start) throw apierrors.badRequest(`continue key is not valid: ${t.start}`);
  return t;
}

/**
 * Waits until the store has reached `rv`, as kube-apiserver's watch cache does for a LIST at a
 * resourceVersion newer than it has seen. `asSent` is the resourceVersion as the client wrote it
 * (a uint64 beyond 2^53 is not exact as a number).
 * @throws StatusError 504 Timeout (cause `ResourceVersionTooLarge`, retry after 1 s) when it has
 *   not after 3 s (upstream's blockTimeout)
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/errors.go (NewTooLargeResourceVersionError)
 */
export async function waitForRevision(store: Store, rv: number, asSent: string = String(rv)): Promise<void> {
  const deadline = Date.now() + 3000;
  // A store behind a shared etcd is asked for progress: writes outside its prefix (another control
  // center on the same etcd) advance the revision too, and no event under it would ever say so.
  for (let i = 0; store.currentRevision() < rv; i++) {
    if (Date.now() >= deadline) throw apierrors.tooLargeResourceVersion(asSent, store.currentRevision());
    if (i % 5 === 0) store.requestProgress?.();
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Lists a collection and renders it. The list is consistent at one revision: the latest (no
 * resourceVersion, "0", or NotOlderThan N once the store has reached N), exactly N
 * (`resourceVersionMatch=Exact`, or N with a `limit` and no match), or the first page's revision
 * for a continue token (400 for a token of another collection).
 * @throws StatusError 422 for invalid list options, 400 for a bad limit or continue token, 410
 *   Expired when the revision asked for is older than the kept history, 504 when N is in the future
 */
export async function listObjects(scope: RequestScope, shape: ResponseShape, query: Record<string, unknown>): Promise<unknown> {
  const { info, ri, store } = scope;
  const opts = listOptions(query, false);
  const filter = compileFilter(info, query.labelSelector, query.fieldSelector);
  const limit = opts.limit;
  const prefix = info.namespaced && ri.namespace ? storagePrefix(info, ri.namespace) : storagePrefix(info);
  let start = '';
  let at: number | undefined; // undefined: the latest state
  // A revision older than this store's history, read from its source of truth (etcd) instead.
  let older: { items: SnapshotItem[]; revision: number } | undefined;
  /** Reads the collection at `rv` from the source of truth; false when it cannot (compacted, or no such source). */
  const readOlder = async (rv: number): Promise<boolean> => {
    if (!store.listAtRevision) return false;
    try {
      older = await store.listAtRevision(prefix, rv, start || undefined);
      return true;
    } catch (e) {
      if (e instanceof RevisionCompactedError) return false;
      throw e;
    }
  };
  if (opts.continueToken) {
    const t = decodeContinue(opts.continueToken);
    // A token from another collection (its key outside this prefix) is not valid here.
    if (!t.start.startsWith(prefix)) throw apierrors.badRequest('continue key is not valid: the continue token is for another resource or namespace');
    start = t.start;
    if (t.rv !== -1) {
      // A replica behind the one that issued the token first catches up to the token's revision.
      await waitForRevision(store, t.rv);
      if (t.rv < store.oldestWatchableRevision() && !(await readOlder(t.rv))) {
        // As the etcd3 store's handleCompactedErrorForPaging: 410 with a token that continues
        // from the same key at the latest revision, for a client that accepts an inconsistent list.
        const err = apierrors.resourceExpired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
        err.status.metadata = { continue: encodeContinue(-1, t.start) };
        throw err;
      }
      at = t.rv;
    }
  } else if (opts.resourceVersion !== '' && opts.resourceVersion !== '0') {
    const rv = Number(opts.resourceVersion);
    await waitForRevision(store, rv, opts.resourceVersion);
    // With a limit and no resourceVersionMatch, a resourceVersion other than 0 means Exact (the
    // legacy semantics kept by the api-concepts table).
    if (opts.resourceVersionMatch === 'Exact' || (opts.resourceVersionMatch === '' && limit > 0)) {
      if (rv < store.oldestWatchableRevision() && !(await readOlder(rv))) throw apierrors.resourceExpired('The resourceVersion for the provided list is too old.');
      at = rv;
    }
  } else if (opts.resourceVersion === '') {
    // No resourceVersion: the most recent state, as kube-apiserver's consistent list.
    await store.syncToLatest?.();
  }
  const { items, revision } = older ?? (at === undefined ? listStored(store, info, ri.namespace) : listAt(store, prefix, at));
  const listRV = revision;
  const out: KubeObject[] = [];
  let next = '';
  let remaining = 0;
  let lastKey = '';
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if (start && it.key < start) continue;
    if (!filter.matches(it.object)) continue;
    if (limit > 0 && out.length === limit) {
      // The continue token starts after the last returned item's storage key (as kube-apiserver's
      // etcd key), not a key made from its name: a value written under another key by something
      // else holds a name that does not lead back to it, and paging would loop or skip.
      next = encodeContinue(listRV, `${lastKey}\u0000`);
      if (filter.empty) remaining = items.length - i;
      break;
    }
    out.push(toVersion(it.object, info));
    lastKey = it.key;
  }
  const listMeta: Record<string, unknown> = { resourceVersion: String(listRV) };
  if (next) {
    listMeta.continue = next;
    if (remaining) listMeta.remainingItemCount = remaining;
  }
  if (shape.kind === 'table') {
    return toTable(info, out, { version: shape.version, include: parseIncludeObject(query.includeObject), now: scope.ctx.now, listMeta });
  }
  if (shape.kind === 'metadata') {
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion: `meta.k8s.io/${shape.version}`,
      metadata: listMeta,
      items: out.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${shape.version}`, metadata: o.metadata })),
    };
  }
  // Built from each item's cached JSON text: a list of 10,000 objects serialises nothing again.
  return `{"kind":${JSON.stringify(info.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(info.group, info.version))},"metadata":${JSON.stringify(listMeta)},"items":[${out.map((o) => jsonOf(o)).join(',')}]}`;
}
