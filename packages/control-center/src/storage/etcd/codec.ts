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
  (object.metadata ??= {}).resourceVersion = String(modRevision);
  return object;
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
