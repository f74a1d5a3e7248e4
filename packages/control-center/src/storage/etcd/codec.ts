/**
 * How objects sit in etcd: the etcd key is `<prefix><store key>` (e.g. `/hcc` +
 * `/core/configmaps/ns/a`), the value is the object as JSON *without*
 * `metadata.resourceVersion`, and the resourceVersion is filled from the key's `mod_revision` on
 * every read — exactly what kube-apiserver's etcd3 store does (its APIObjectVersioner), so an
 * object never carries a stale revision and writes need not know their revision in advance.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/etcd3/store.go
 */
import type { IKeyValue } from 'etcd3';
import type { Logger } from 'pino';
import type { KubeObject } from '@hcc/crds';
import type { CorruptValue, StoredObject } from '../store.js';

/** Maps store keys to etcd keys and back for one prefix. */
export class KeySpace {
  /** Prefix without a trailing slash, e.g. `/hcc`. */
  readonly prefix: string;
  /** First etcd key of the range (`<prefix>/`). */
  readonly rangeStart: Buffer;
  /** First etcd key after the range (`<prefix>0`: '0' follows '/' in byte order). */
  readonly rangeEnd: Buffer;

  /** @param prefix - etcd key prefix, e.g. `/hcc`; a trailing slash is ignored */
  constructor(prefix: string) {
    this.prefix = prefix.replace(/\/+$/, '');
    this.rangeStart = Buffer.from(`${this.prefix}/`);
    this.rangeEnd = Buffer.from(`${this.prefix}0`);
  }

  /** etcd key of a store key (store keys start with `/`). */
  etcdKey(key: string): Buffer {
    return Buffer.from(this.prefix + key);
  }

  /** Store key of an etcd key inside the range. */
  storeKey(etcdKey: Buffer): string {
    return etcdKey.toString('utf8').slice(this.prefix.length);
  }
}

/** The JSON stored in etcd for an object: everything but `metadata.resourceVersion`. */
export function encodeObject(object: KubeObject): Buffer {
  const { resourceVersion: _rv, ...metadata } = object.metadata;
  return Buffer.from(JSON.stringify({ ...object, metadata }));
}

/**
 * Decodes a stored value and sets `metadata.resourceVersion` to `modRevision`.
 * @throws SyntaxError when the value is not JSON, or not an object with a `kind` and a
 *   `metadata.name` (something else wrote under the prefix; kube-apiserver's decoder refuses such
 *   a value too: `Object 'Kind' is missing`)
 */
export function decodeObject(value: Buffer, modRevision: number): KubeObject {
  const object = JSON.parse(value.toString('utf8')) as KubeObject;
  if (typeof object !== 'object' || object === null || Array.isArray(object)) throw new SyntaxError('not a JSON object');
  if (typeof object.kind !== 'string' || !object.kind) throw new SyntaxError("Object 'Kind' is missing");
  const meta = object.metadata as unknown;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta) || typeof object.metadata.name !== 'string' || !object.metadata.name) {
    throw new SyntaxError('metadata.name is missing');
  }
  const bad = objectMetaProblem(object.metadata as unknown as Record<string, unknown>);
  if (bad) throw new SyntaxError(bad);
  (object.metadata ??= {}).resourceVersion = String(modRevision);
  return object;
}

const rfc3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Why a stored `metadata` is not one Go's ObjectMeta decodes (a field of the wrong type, a time
 * that is no RFC 3339), or undefined when it is. hcc itself never stores such a value; another
 * writer under the prefix may. kube-apiserver's decoder refuses it, so the object is a corrupt
 * one (500 StorageError; deleted only with ignoreStoreReadErrorWithClusterBreakingPotential), not
 * one served as it is, which code that reads finalizers, owners or labels would trip over.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/types.go (ObjectMeta)
 */
export function objectMetaProblem(m: Record<string, unknown>): string | undefined {
  const absent = (v: unknown) => v === undefined || v === null;
  for (const f of ['namespace', 'uid', 'generateName', 'selfLink']) {
    if (!absent(m[f]) && typeof m[f] !== 'string') return `metadata.${f} is not a string`;
  }
  for (const f of ['creationTimestamp', 'deletionTimestamp']) {
    if (!absent(m[f]) && (typeof m[f] !== 'string' || !rfc3339.test(m[f]))) return `metadata.${f} is not an RFC 3339 time`;
  }
  for (const f of ['generation', 'deletionGracePeriodSeconds']) {
    if (!absent(m[f]) && !Number.isSafeInteger(m[f])) return `metadata.${f} is not an integer`;
  }
  for (const f of ['labels', 'annotations']) {
    const v = m[f];
    if (absent(v)) continue;
    if (!isObject(v) || Object.values(v).some((x) => typeof x !== 'string')) return `metadata.${f} is not a map of strings`;
  }
  if (!absent(m.finalizers) && (!Array.isArray(m.finalizers) || m.finalizers.some((x) => typeof x !== 'string'))) return 'metadata.finalizers is not a list of strings';
  for (const f of ['ownerReferences', 'managedFields']) {
    const v = m[f];
    if (!absent(v) && (!Array.isArray(v) || !v.every(isObject))) return `metadata.${f} is not a list of objects`;
  }
  for (const [i, ref] of ((m.ownerReferences ?? []) as Record<string, unknown>[]).entries()) {
    for (const f of ['apiVersion', 'kind', 'name', 'uid']) if (!absent(ref[f]) && typeof ref[f] !== 'string') return `metadata.ownerReferences[${i}].${f} is not a string`;
    for (const f of ['controller', 'blockOwnerDeletion']) if (!absent(ref[f]) && typeof ref[f] !== 'boolean') return `metadata.ownerReferences[${i}].${f} is not a boolean`;
  }
  return undefined;
}

/** A StoredObject from an etcd key-value (from a range or a watch PUT event). */
export function decodeKeyValue(keys: KeySpace, kv: IKeyValue): StoredObject {
  const modRevision = Number(kv.mod_revision);
  return { key: keys.storeKey(kv.key), object: decodeObject(kv.value, modRevision), createRevision: Number(kv.create_revision), modRevision };
}

/**
 * decodeKeyValue, but a value that is not a JSON object (written by something else) is logged and
 * handed to `onCorrupt` instead of thrown.
 * @returns the object, or undefined for a corrupt value
 */
export function decodeOrSkip(keys: KeySpace, kv: IKeyValue, log: Logger, onCorrupt?: (key: string, bad: CorruptValue) => void): StoredObject | undefined {
  try {
    return decodeKeyValue(keys, kv);
  } catch (err) {
    const bad: CorruptValue = { etcdKey: kv.key.toString('utf8'), modRevision: Number(kv.mod_revision), error: err instanceof Error ? err.message : String(err) };
    log.error({ key: bad.etcdKey, modRevision: kv.mod_revision, err: bad.error }, 'an etcd value that is not a JSON object: GET and writes of it answer 500 until it is deleted with ignoreStoreReadErrorWithClusterBreakingPotential');
    onCorrupt?.(keys.storeKey(kv.key), bad);
    return undefined;
  }
}
