/**
 * Kubernetes protobuf request bodies (what kubectl 1.32+ sends for `create configmap`, `create
 * secret`, ...): map fields decode to JSON objects with every key its own property, also keys
 * named like Object.prototype members, and bytes as base64.
 */
import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { decodeProtobuf, encodeProtobuf } from './protobuf.js';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A length-delimited field (wire type 2) holding `bytes`. */
const field = (w: protobuf.Writer, n: number, bytes: Uint8Array | string) => {
  w.uint32((n << 3) | 2);
  if (typeof bytes === 'string') w.string(bytes);
  else w.bytes(bytes);
};

/** A ConfigMap body built on the wire, so keys reach the decoder exactly as given. */
function configMapBody(name: string, data: [string, string][], binaryData: [string, Buffer][]): Buffer {
  const meta = protobuf.Writer.create();
  field(meta, 1, name);
  const cm = protobuf.Writer.create();
  field(cm, 1, meta.finish());
  for (const [k, v] of data) {
    const e = protobuf.Writer.create();
    field(e, 1, k);
    field(e, 2, v);
    field(cm, 2, e.finish());
  }
  for (const [k, v] of binaryData) {
    const e = protobuf.Writer.create();
    field(e, 1, k);
    field(e, 2, v);
    field(cm, 3, e.finish());
  }
  const tm = protobuf.Writer.create();
  field(tm, 1, 'v1');
  field(tm, 2, 'ConfigMap');
  const env = protobuf.Writer.create();
  field(env, 1, tm.finish());
  field(env, 2, cm.finish());
  return Buffer.concat([MAGIC, Buffer.from(env.finish())]);
}

describe('decodeProtobuf', () => {
  it('decodes maps with every key, empty values kept, bytes as base64', () => {
    const body = encodeProtobuf('v1', 'ConfigMap', { metadata: { name: 'x', labels: { app: 'a' } }, data: { a: 'b', empty: '' }, binaryData: { bin: Buffer.from([0, 1, 2]) } });
    expect(decodeProtobuf(body)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { app: 'a' } }, data: { a: 'b', empty: '' }, binaryData: { bin: 'AAEC' } });
  });

  it('keeps keys named like Object.prototype members', () => {
    const body = configMapBody('p', [['__proto__', 'p'], ['constructor', 'c'], ['a', 'b']], [['__proto__', Buffer.from('x')]]);
    const obj = decodeProtobuf(body);
    expect(JSON.stringify(obj)).toBe('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"__proto__":"p","constructor":"c","a":"b"},"binaryData":{"__proto__":"eA=="}}');
    expect(Object.getPrototypeOf(obj.data)).toBe(Object.prototype);
  });
});
