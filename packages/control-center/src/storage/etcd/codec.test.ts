/**
 * KeySpace: store keys ↔ etcd keys. hcc writes only UTF-8 keys; a key something else wrote under
 * the prefix may hold any bytes, and two such keys must never become one store key.
 */
import { describe, expect, it } from 'vitest';
import { KeySpace } from './codec.js';

describe('KeySpace', () => {
  const ks = new KeySpace('/hcc/');
  const etcd = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

  it('maps UTF-8 keys to their text under the prefix and back', () => {
    for (const k of ['/core/configmaps/ns/a', '/core/configmaps/ns/\u00e9t\u00e9', '/x/\u{1F600}/\uFFFD']) {
      expect(ks.storeKey(ks.etcdKey(k))).toBe(k);
      expect(ks.etcdKey(k)).toEqual(Buffer.from(`/hcc${k}`));
    }
  });

  it('gives keys that differ only in bytes that are not UTF-8 different store keys, and the same bytes back', () => {
    const keys = [
      etcd('/hcc/core/configmaps/ns/bad', [0xff]),
      etcd('/hcc/core/configmaps/ns/bad', [0xfe]),
      etcd('/hcc/core/configmaps/ns/bad', [0xef, 0xbf, 0xbd]), // U+FFFD itself, valid UTF-8
      etcd('/hcc/core/configmaps/ns/bad', [0xed, 0xa0, 0x80]), // an encoded surrogate: not UTF-8
      etcd('/hcc/core/configmaps/ns/bad', [0xe2, 0x82]), // a sequence cut short
      etcd('/hcc/core/configmaps/ns/bad', [0xc0, 0xaf]), // overlong '/'
      etcd('/hcc/core/configmaps/ns/', [0xf0, 0x9f, 0x98, 0x80, 0xff, 0x80]), // valid astral, then two stray bytes
    ];
    const storeKeys = keys.map((k) => ks.storeKey(k));
    expect(new Set(storeKeys).size).toBe(keys.length);
    for (const [i, k] of keys.entries()) expect(ks.etcdKey(storeKeys[i]!)).toEqual(k);
    expect(storeKeys[2]).toBe('/core/configmaps/ns/bad\uFFFD');
    expect(storeKeys[0]).toBe('/core/configmaps/ns/bad\uDCFF');
  });
});
