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

  /** etcd key of a store key (store keys start with `/`); the inverse of {@link storeKey}. */
  etcdKey(key: string): Buffer {
    const full = this.prefix + key;
    return EscapedByte.test(full) ? encodeEscaped(full) : Buffer.from(full);
  }

  /**
   * Store key of an etcd key inside the range: its UTF-8 text, where a byte that is not part of
   * valid UTF-8 (a key something else wrote) becomes the lone surrogate U+DC80–U+DCFF (Python's
   * `surrogateescape`), which no valid UTF-8 decodes to: so two etcd keys never share a store key,
   * and {@link etcdKey} gives the same bytes back.
   */
  storeKey(etcdKey: Buffer): string {
    const text = etcdKey.toString('utf8');
    const exact = !text.includes('\uFFFD') || Buffer.from(text).equals(etcdKey);
    return (exact ? text : decodeEscaped(etcdKey)).slice(this.prefix.length);
  }
}

/** A lone low surrogate U+DC80–U+DCFF: a byte of a key that is not valid UTF-8 (KeySpace.storeKey). */
const EscapedByte = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

/** Length of the valid UTF-8 sequence at `i`, or 0 when the byte there starts none (RFC 3629). */
function utf8SequenceAt(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (j: number, lo = 0x80, hi = 0xbf) => j < b.length && b[j]! >= lo && b[j]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const [lo, hi] = c === 0xe0 ? [0xa0, 0xbf] : c === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const [lo, hi] = c === 0xf0 ? [0x90, 0xbf] : c === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

/** Decodes UTF-8, each byte outside a valid sequence as U+DC00 + the byte. */
function decodeEscaped(b: Buffer): string {
  let out = '';
  for (let i = 0; i < b.length; ) {
    const n = utf8SequenceAt(b, i);
    if (n === 0) {
      out += String.fromCharCode(0xdc00 + b[i]!);
      i++;
    } else {
      out += b.toString('utf8', i, i + n);
      i += n;
    }
  }
  return out;
}

/** Encodes as UTF-8, a lone U+DC80–U+DCFF as the byte it stands for (the inverse of decodeEscaped). */
function encodeEscaped(text: string): Buffer {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc80 && c <= 0xdcff && !(i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff)) {
      parts.push(Buffer.from(text.slice(start, i)), Buffer.of(c - 0xdc00));
      start = i + 1;
    }
  }
  parts.push(Buffer.from(text.slice(start)));
  return Buffer.concat(parts);
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
