import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { decodeBuiltin } from './decode.js';
import { configmaps } from './configmaps.js';
import { events } from './events.js';
import { leases } from './leases.js';
import { secrets } from './secrets.js';
import type { FieldValidation } from '../schema/types.js';
import type { ResourceInfo, StrategyContext } from '../types.js';
import { StatusError } from '../../apierrors/status.js';

const ctx = (fieldValidation: FieldValidation): StrategyContext => ({ fieldValidation, warnings: [], now: new Date() });
const decode = (info: ResourceInfo, obj: Record<string, unknown>, fv: FieldValidation = 'Strict', stored?: Record<string, unknown>) => {
  const c = ctx(fv);
  const o = structuredClone({ metadata: { name: 'x', namespace: 'ns' }, ...obj }) as KubeObject;
  decodeBuiltin(o, info, c, stored as KubeObject | undefined);
  return { obj: o, warnings: c.warnings };
};
const status = (f: () => unknown): { code: number; reason: string; message: string } => {
  try {
    f();
  } catch (e) {
    if (e instanceof StatusError) return { code: e.status.code, reason: e.status.reason, message: e.status.message };
    throw e;
  }
  throw new Error('no error');
};

describe('decoding built-in kinds', () => {
  it.each([
    { info: secrets, body: { type: { a: 1 } }, want: 'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal object into Go struct field Secret.type of type string' },
    { info: secrets, body: { immutable: 'yes' }, want: 'json: cannot unmarshal string into Go struct field Secret.immutable of type bool' },
    { info: secrets, body: { stringData: { x: 5 } }, want: 'json: cannot unmarshal number into Go struct field Secret.stringData of type string' },
    { info: configmaps, body: { data: { a: 1 } }, want: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string' },
    { info: configmaps, body: { data: ['a'] }, want: 'json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string' },
    // Base64 fields are []byte in Go, as its decoder names them.
    { info: secrets, body: { data: { a: true } }, want: 'json: cannot unmarshal bool into Go struct field Secret.data of type []uint8' },
    { info: secrets, body: { data: [] }, want: 'json: cannot unmarshal array into Go struct field Secret.data of type map[string][]uint8' },
    { info: configmaps, body: { binaryData: { b: 1 } }, want: 'json: cannot unmarshal number into Go struct field ConfigMap.binaryData of type []uint8' },
    { info: leases, body: { spec: { leaseDurationSeconds: 'abc' } }, want: 'json: cannot unmarshal string into Go struct field Lease.spec.leaseDurationSeconds of type int32' },
    { info: leases, body: { spec: { leaseTransitions: 1.5 } }, want: 'json: cannot unmarshal number 1.5 into Go struct field Lease.spec.leaseTransitions of type int32' },
    { info: leases, body: { spec: { leaseTransitions: 2 ** 31 } }, want: `json: cannot unmarshal number ${2 ** 31} into Go struct field Lease.spec.leaseTransitions of type int32` },
    { info: leases, body: { spec: { renewTime: 'garbage' } }, want: 'parsing time "garbage"' },
    { info: events, body: { involvedObject: { kind: 'ConfigMap', name: 5 } }, want: 'json: cannot unmarshal number into Go struct field Event.involvedObject.name of type string' },
    { info: secrets, body: { data: { a: 'aGVsbG8' } }, want: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4 (field Secret.data)' },
    { info: configmaps, body: { binaryData: { b: 'not base64!' } }, want: 'illegal base64 data at input byte 3 (field ConfigMap.binaryData)' },
    { info: configmaps, body: { metadata: { name: 'x', labels: { a: 5 } } }, want: 'json: cannot unmarshal number into Go struct field ConfigMap.metadata.labels of type string' },
  ])('refuses $body for a $info.kind with 400 naming the field', ({ info, body, want }) => {
    const s = status(() => decode(info, body));
    expect(s.code).toBe(400);
    expect(s.reason).toBe('BadRequest');
    expect(s.message).toContain(want);
  });

  it('takes null as the zero value, as Go does, and leaves the field out', () => {
    const { obj } = decode(secrets, { type: null, data: null, metadata: { name: 'x', labels: null, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u', controller: null }] } });
    expect(obj).not.toHaveProperty('type');
    expect(obj).not.toHaveProperty('data');
    expect(obj.metadata).not.toHaveProperty('labels');
    expect(obj.metadata.ownerReferences![0]).not.toHaveProperty('controller');
  });

  it('stores a null string map value or list item as "", as Go does (`KEY:` left empty in YAML), never dropping the key', () => {
    const cm = decode(configmaps, { data: { EMPTY: null, FULL: 'x' }, binaryData: { b: null }, metadata: { name: 'x', labels: { l1: null, l2: 'v' }, annotations: { a1: null } } }).obj as KubeObject & { data: unknown; binaryData: unknown };
    expect(cm.data).toEqual({ EMPTY: '', FULL: 'x' });
    expect(cm.binaryData).toEqual({ b: '' });
    expect(cm.metadata.labels).toEqual({ l1: '', l2: 'v' });
    expect(cm.metadata.annotations).toEqual({ a1: '' });
    const secret = decode(secrets, { data: { k: null }, stringData: { s: null }, metadata: { name: 'x', finalizers: [null, 'example.com/f'] } }).obj as KubeObject & { data: unknown; stringData: unknown };
    expect(secret.data).toEqual({ k: '' });
    expect(secret.stringData).toEqual({ s: '' });
    expect(secret.metadata.finalizers).toEqual(['', 'example.com/f']);
    // Struct fields stay the zero value the API leaves out, in lists too; unknown fields are still removed.
    const owned = decode(configmaps, { metadata: { name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u', blockOwnerDeletion: null }] }, immutable: null }, 'Ignore').obj as KubeObject;
    expect(owned).not.toHaveProperty('immutable');
    expect(owned.metadata.ownerReferences![0]).not.toHaveProperty('blockOwnerDeletion');
  });

  it('a custom resource: null label and annotation values are "", as its ObjectMeta decodes them; null metadata fields are left out', () => {
    const hc = { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedCluster', custom: true } as ResourceInfo;
    const o = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name: 'x', namespace: 'ns', labels: { l1: null }, annotations: { a1: null, a2: 'v' }, finalizers: null }, spec: { k: null } } as unknown as KubeObject;
    decodeBuiltin(o, hc, ctx('Strict'));
    expect(o.metadata).toEqual({ name: 'x', namespace: 'ns', labels: { l1: '' }, annotations: { a1: '', a2: 'v' } });
    // Outside metadata the CRD's schema decides (pruning drops nulls of non-nullable fields later).
    expect(o.spec).toEqual({ k: null });
  });

  it('takes RFC 3339 times, with or without fractions, and empty ones; MicroTimes only with six fractional digits', () => {
    expect(() => decode(leases, { spec: { renewTime: '2026-12-01T02:48:18.123456Z', acquireTime: '2026-12-01T02:48:18.000000+01:00' } })).not.toThrow();
    expect(() => decode(events, { involvedObject: { kind: 'ConfigMap', name: 'c' }, lastTimestamp: '2026-12-01T02:48:18.5+01:00', firstTimestamp: '2026-12-01T02:48:18Z' })).not.toThrow();
    expect(() => decode(configmaps, { metadata: { name: 'x', creationTimestamp: '' } })).not.toThrow();
    // metav1.MicroTime parses with RFC3339Micro: what client-go's leader election and `kubectl events` read back.
    for (const [kind, body, field] of [
      [leases, { spec: { renewTime: '2026-12-01T02:48:18.123Z' } }, 'Lease.spec.renewTime'],
      [leases, { spec: { acquireTime: '2026-12-01T02:48:18Z' } }, 'Lease.spec.acquireTime'],
      [events, { involvedObject: { kind: 'ConfigMap', name: 'c' }, eventTime: '2024-01-01T00:00:00.5Z' }, 'Event.eventTime'],
      [events, { involvedObject: { kind: 'ConfigMap', name: 'c' }, series: { count: 2, lastObservedTime: '2024-01-01T00:00:00.1234567Z' } }, 'Event.series.lastObservedTime'],
    ] as const) {
      const s = status(() => decode(kind, body as Record<string, unknown>));
      expect(s.code, field).toBe(400);
      expect(s.message).toContain('as "2006-01-02T15:04:05.000000Z07:00": cannot parse');
      expect(s.message).toContain(`(field ${field})`);
    }
    expect(status(() => decode(events, { involvedObject: { kind: 'ConfigMap', name: 'c' }, eventTime: '2024-01-01T00:00:00.5Z' })).message).toContain('cannot parse ".5Z" as ".000000"');
    expect(status(() => decode(events, { involvedObject: { kind: 'ConfigMap', name: 'c' }, lastTimestamp: '2024-13-01T00:00:00Z' })).message).toContain('parsing time "2024-13-01T00:00:00Z": month out of range');
    // Refused as Go refuses them, not rolled over into another day as JavaScript's Date would.
    expect(status(() => decode(leases, { spec: { renewTime: '2024-02-30T00:00:00.000000Z' } })).message).toContain('parsing time "2024-02-30T00:00:00.000000Z": day out of range (field Lease.spec.renewTime)');
    expect(status(() => decode(leases, { spec: { acquireTime: '2024-01-01T24:00:00.000000Z' } })).message).toContain('hour out of range');
    expect(() => decode(leases, { spec: { renewTime: '2024-02-29T23:59:59.999999Z' } })).not.toThrow();
  });

  it('stores times as the Go types re-encode them: UTC, Time in whole seconds, MicroTime with six digits', () => {
    const lease = decode(leases, { spec: { renewTime: '2026-12-01T02:48:18.123456+01:30', acquireTime: '2026-12-01T02:48:18.000001+00:00' } }).obj as { spec: Record<string, string> };
    expect(lease.spec).toEqual({ renewTime: '2026-12-01T01:18:18.123456Z', acquireTime: '2026-12-01T02:48:18.000001Z' });
    const ev = decode(events, { involvedObject: { kind: 'ConfigMap', name: 'c' }, lastTimestamp: '2026-12-01T00:30:00.9-01:00', firstTimestamp: '2026-12-01T02:48:18Z' }).obj as Record<string, string>;
    expect(ev.lastTimestamp).toBe('2026-12-01T01:30:00Z');
    expect(ev.firstTimestamp).toBe('2026-12-01T02:48:18Z');
  });

  it('Strict: refuses unknown fields, ObjectMeta included, all named in one sorted message', () => {
    const s = status(() => decode(configmaps, { datas: { a: 'b' }, metadata: { name: 'x', foo: 1 } }));
    expect(s.code).toBe(400);
    expect(s.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datas", unknown field "metadata.foo"');
  });

  it('Strict: names unknown fields inside lists with their index', () => {
    const s = status(() => decode(events, { involvedObject: { kind: 'ConfigMap', name: 'c', colour: 'red' } }));
    expect(s.message).toContain('unknown field "involvedObject.colour"');
    const owners = status(() => decode(configmaps, { metadata: { name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u', extra: 1 }] } }));
    expect(owners.message).toContain('unknown field "metadata.ownerReferences[0].extra"');
  });

  it('Warn (the default): drops unknown fields with a warning each', () => {
    const r = decode(secrets, { stringdata: { a: 'b' }, data: {} }, 'Warn');
    expect(r.obj).not.toHaveProperty('stringdata');
    expect(r.warnings).toEqual(['unknown field "stringdata"']);
  });

  it('Ignore: drops unknown fields silently', () => {
    const r = decode(leases, { spec: { holderIdentity: 'a', unknownF: 1 } }, 'Ignore');
    expect(r.obj.spec).toEqual({ holderIdentity: 'a' });
    expect(r.warnings).toEqual([]);
  });

  it('keeps what the kind has, maps included', () => {
    const body = { data: { 'a.b': 'x' }, binaryData: { c: 'eA==' }, immutable: true, metadata: { name: 'x', namespace: 'ns', labels: { a: 'b' }, annotations: { c: 'd' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:data': { '.': {} } } }] } };
    expect(decode(configmaps, body).obj).toEqual({ ...body });
  });

  it('on update, drops unknown fields the stored object already had without reporting them', () => {
    const stored = { metadata: { name: 'x', namespace: 'ns' }, datas: { a: 'b' } };
    const r = decode(configmaps, { datas: { a: 'b' }, data: { c: 'd' } }, 'Strict', stored);
    expect(r.obj).not.toHaveProperty('datas');
    expect(r.warnings).toEqual([]);
    expect(stored).toHaveProperty('datas'); // the stored object is not changed
    expect(status(() => decode(configmaps, { datas: { a: 'b' }, more: 1 }, 'Strict', stored)).message).toContain('strict decoding error: unknown field "more"');
  });

  it('on update, a field the stored object already had with the wrong type does not block the update; a new one does', () => {
    const stored = { metadata: { name: 'x', namespace: 'ns' }, type: 5 };
    expect(() => decode(secrets, { type: 5, metadata: { name: 'x', namespace: 'ns', labels: { a: 'b' } } }, 'Strict', stored)).not.toThrow();
    expect(status(() => decode(secrets, { type: 5, immutable: 'yes' }, 'Strict', stored)).message).toContain('Secret.immutable');
  });
});
