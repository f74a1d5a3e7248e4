import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { hostedClusterCRD, nodePoolCRD } from '@hcc/crds';
import { customResourceInfo } from '../../registry/custom-resources.js';
import type { CRDVersion } from '../../registry/builtin/customresourcedefinitions.js';
import { configmaps } from '../../registry/builtin/configmaps.js';
import { namespaces } from '../../registry/builtin/namespaces.js';
import { secrets } from '../../registry/builtin/secrets.js';
import type { KubeObject } from '@hcc/crds';
import type { ResourceInfo } from '../../registry/types.js';
import { fromFieldsV1 } from './fieldpath.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  managerIdentity,
  resetFieldsOf,
  SLOW,
  trackUpdate,
  updateEntries,
  updateManaged,
  type ManagedFieldsEntry,
  type UpdateTracking,
} from './managed-fields.js';
import { prefixFromUserAgent, validateFieldManager } from './field-manager.js';
import { typeOf, zeroObject } from './schema.js';
import { compare } from './typed.js';

const crInfo = { group: 'example.com', version: 'v1', kind: 'Widget', custom: true, subresources: { status: true }, schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } } } } as unknown as ResourceInfo;
const secretInfo = { group: '', version: 'v1', kind: 'Secret', custom: false, subresources: { status: false } } as unknown as ResourceInfo;

const track = (info: ResourceInfo, over: Partial<UpdateTracking> & Pick<UpdateTracking, 'obj'>) =>
  trackUpdate({
    live: undefined,
    requestManagedFields: over.obj.metadata.managedFields,
    zero: zeroObject(info),
    manager: 'kubectl-create',
    apiVersion: info.group ? `${info.group}/${info.version}` : info.version,
    subresource: '',
    type: typeOf(info),
    reset: resetFieldsOf(info, over.subresource ?? ''),
    now: '2024-05-01T10:00:00Z',
    ...over,
  });

const widget = (spec: unknown, meta: Record<string, unknown> = {}, status?: unknown): KubeObject =>
  ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', uid: 'u', resourceVersion: '1', generation: 1, ...meta }, spec, ...(status ? { status } : {}) }) as KubeObject;
const entry = (manager: string, fieldsV1: unknown, extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({
  manager,
  operation: 'Update',
  apiVersion: 'example.com/v1',
  time: '2024-05-01T09:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...extra,
});

describe('trackUpdate', () => {
  it('records a create of a custom resource (spec added, so it is a member; server metadata stripped)', () => {
    const got = track(crInfo, { obj: widget({ replicas: 1 }, { labels: { app: 'x' } }) });
    expect(got).toEqual([entry('kubectl-create', { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { '.': {}, 'f:replicas': {} } }, { time: '2024-05-01T10:00:00Z' })]);
  });

  it('records a create of a built-in kind against its zero value', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, data: { a: 'eA==' }, type: 'Opaque' } as KubeObject;
    const got = track(secretInfo, { obj: secret, apiVersion: 'v1' });
    expect(got?.[0]?.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:a': {} }, 'f:type': {} });
    expect(got?.[0]?.apiVersion).toBe('v1');
  });

  it('takes changed fields from other managers, removes removed fields, and stamps time only when it took something', () => {
    const live = widget({ replicas: 1 }, { labels: { a: '1', b: '2' }, managedFields: [entry('creator', { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {}, 'f:b': {} } }, 'f:spec': { '.': {}, 'f:replicas': {} } })] });
    const next = widget({ replicas: 2 }, { labels: { a: '1' }, managedFields: live.metadata.managedFields });
    const got = track(crInfo, { live, obj: next, manager: 'kubectl-edit' });
    expect(got).toEqual([
      entry('creator', { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': {} }),
      entry('kubectl-edit', { 'f:spec': { 'f:replicas': {} } }, { time: '2024-05-01T10:00:00Z' }),
    ]);
    // Only removing a field: no entry for the remover, the owner loses it.
    const removed = track(crInfo, { live, obj: widget({ replicas: 1 }, { labels: { a: '1' } }), manager: 'kubectl-label' });
    expect(removed?.map((e) => e.manager)).toEqual(['creator']);
  });

  it('keeps the stored entries as they are when nothing changed', () => {
    const live = widget({ replicas: 1 }, { managedFields: [entry('creator', { 'f:spec': { 'f:replicas': {} } })] });
    expect(track(crInfo, { live, obj: widget({ replicas: 1 }), manager: 'x' })).toBe(live.metadata.managedFields);
  });

  it.each([
    { name: 'uses the request entries when they decode', requested: [entry('imported', { 'f:spec': { 'f:other': {} } })], want: ['imported'] },
    { name: 'resets on []', requested: [], want: [] },
    { name: 'resets on [{}]', requested: [{}], want: [] },
    { name: 'falls back to the stored entries when invalid', requested: [{ manager: 'bad', operation: 'Sideways' }], want: ['creator'] },
  ])('request managedFields: $name', ({ requested, want }) => {
    const live = widget({ replicas: 1 }, { managedFields: [entry('creator', { 'f:spec': { 'f:replicas': {} } })] });
    const got = track(crInfo, { live, obj: widget({ replicas: 1 }, { managedFields: requested }), manager: 'x' });
    expect((got ?? []).map((e) => e.manager)).toEqual(want);
  });

  it('records status writes with subresource status and ignores request managedFields there', () => {
    const live = widget({ replicas: 1 }, { managedFields: [entry('creator', { 'f:spec': { 'f:replicas': {} } })] });
    const got = track(crInfo, { live, obj: widget({ replicas: 1 }, { managedFields: [] }, { phase: 'Ready' }), manager: 'syncer', subresource: 'status' });
    expect(got?.map((e) => [e.manager, e.subresource, e.fieldsV1])).toEqual([
      ['creator', undefined, { 'f:spec': { 'f:replicas': {} } }],
      ['syncer', 'status', { 'f:status': { '.': {}, 'f:phase': {} } }],
    ]);
  });

  it('never records status on the main resource of a kind with a status subresource', () => {
    const got = track(crInfo, { obj: widget({ replicas: 1 }, {}, { phase: 'x' }) });
    expect(JSON.stringify(got)).not.toContain('f:status');
  });
});

describe('encoding', () => {
  it('sorts Apply before Update, then by time, manager, apiVersion, subresource', () => {
    const m = decodeManagedFields([
      entry('b', { 'f:x': {} }, { time: '2024-05-01T10:00:00Z' }),
      entry('a', { 'f:x': {} }, { time: '2024-05-01T10:00:00Z' }),
      entry('z', { 'f:x': {} }, { time: '2024-05-01T08:00:00Z' }),
      entry('a', { 'f:x': {} }, { operation: 'Apply', time: '2024-05-01T11:00:00Z' }),
      entry('a', { 'f:x': {} }, { time: '2024-05-01T10:00:00Z', subresource: 'status' }),
    ]);
    expect(encodeManagedFields(m)!.map((e) => `${e.operation}/${e.manager}/${e.subresource ?? ''}`)).toEqual(['Apply/a/', 'Update/z/', 'Update/a/', 'Update/a/status', 'Update/b/']);
  });

  it.each([
    { name: 'bad operation', entries: [{ manager: 'a', operation: 'Patch', apiVersion: 'v1', fieldsType: 'FieldsV1' }], err: 'operation must be `Apply` or `Update`' },
    { name: 'no apiVersion', entries: [{ manager: 'a', operation: 'Update', fieldsType: 'FieldsV1' }], err: 'apiVersion must not be empty' },
    { name: 'no fieldsType', entries: [{ manager: 'a', operation: 'Update', apiVersion: 'v1' }], err: 'missing fieldsType in managed fields entry 0' },
    { name: 'other fieldsType', entries: [{ manager: 'a', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV2' }], err: 'invalid fieldsType "FieldsV2" in managed fields entry 0' },
  ])('rejects $name', ({ entries, err }) => {
    expect(() => decodeManagedFields(entries)).toThrow(err);
  });

  it('identifies appliers without their apiVersion and updaters with it', () => {
    expect(managerIdentity('kubectl', 'Apply', 'v1', '')).toBe('{"manager":"kubectl","operation":"Apply"}');
    expect(managerIdentity('x', 'Update', 'v1', 'status')).toBe('{"manager":"x","operation":"Update","apiVersion":"v1","subresource":"status"}');
  });

  it('caps Update entries at 10, merging the oldest into ancient-changes', () => {
    const entries = Array.from({ length: 12 }, (_, i) => entry(`m${String(i).padStart(2, '0')}`, { [`f:f${i}`]: {} }, { time: `2024-05-01T10:00:${String(i).padStart(2, '0')}Z` }));
    const m = decodeManagedFields(entries);
    capUpdateManagers(m);
    const out = encodeManagedFields(m)!;
    expect(out).toHaveLength(10);
    const ancient = out.find((e) => e.manager === 'ancient-changes')!;
    expect(fromFieldsV1(ancient.fieldsV1).toString()).toBe(['.f0', '.f1', '.f2'].join('\n'));
    expect(ancient.time).toBe('2024-05-01T10:00:02Z');
  });
});

describe('manager names', () => {
  it.each([
    { ua: 'kubectl/v1.35.0 (linux/amd64) kubernetes/abc', want: 'kubectl' },
    { ua: 'node-fetch', want: 'node-fetch' },
    { ua: 'OpenAPI-Generator/31.0.0/python', want: 'OpenAPI-Generator' },
    { ua: 'a\u0007b/1', want: 'ab' },
    { ua: '', want: '' },
    { ua: 'x'.repeat(200), want: 'x'.repeat(128) },
  ])('derives $want from the User-Agent', ({ ua, want }) => {
    expect(prefixFromUserAgent(ua)).toBe(want);
  });

  it.each([
    { fm: 'kubectl-edit', errs: [] },
    { fm: 'x'.repeat(129), errs: ['fieldManager: Too long: may not be more than 128 bytes'] },
    { fm: 'a\tb', errs: ['fieldManager: Invalid value: "a\\tb": invalid character U+0009 (at position 1)'] },
  ])('validates $fm', ({ fm, errs }) => {
    const got = validateFieldManager(fm);
    expect(got.length).toBe(errs.length);
    if (errs.length) expect(got[0]!.field).toBe('fieldManager');
  });
});

describe('fast path on stored entries', () => {
  const type = typeOf(crInfo);
  const objects = [
    { spec: { replicas: 1 }, metadata: { labels: { a: '1' } } },
    { spec: { replicas: 2 }, metadata: { labels: { a: '1', b: '2' } } },
    { spec: { replicas: 2, image: 'x' }, metadata: { labels: { b: '2' } } },
    { spec: { image: 'y' }, metadata: {} },
    { spec: { replicas: 3, image: 'y' }, metadata: { labels: { c: '3' } } },
  ];
  const managers = ['m1', 'm2', 'm1', 'm3', 'm2', 'm1'];
  it('gives what decoding, updating and encoding give, for every sequence of writes', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let run = 0; run < 200; run++) {
      let live: unknown = {};
      let entries: ManagedFieldsEntry[] | undefined;
      for (let step = 0; step < 6; step++) {
        const next = objects[rand(objects.length)]!;
        const manager = managers[rand(managers.length)]!;
        const cmp = compare(live, next, type);
        const now = `2024-05-01T10:00:${String(step).padStart(2, '0')}Z`;
        const updater = { manager, operation: 'Update' as const, apiVersion: 'example.com/v1', subresource: '' };
        const fast = updateEntries(entries, cmp, updater, now);
        const m = decodeManagedFields(entries);
        updateManaged(m, cmp, updater, now);
        const slow = encodeManagedFields(m);
        expect(fast).not.toBe(SLOW);
        expect(fast).toEqual(slow);
        entries = slow;
        live = next;
      }
    }
  });
});

describe('fast path for creates', () => {
  const testdata = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../testdata/hypershift');
  const served = (crd: KubeObject) => {
    const spec = crd.spec as { versions: CRDVersion[] };
    return customResourceInfo(crd, spec.versions.find((x) => x.name === 'v1beta1')!);
  };
  const infos: Record<string, ResourceInfo> = {
    'hypershift.openshift.io/v1beta1/HostedCluster': served(structuredClone(hostedClusterCRD) as unknown as KubeObject),
    'hypershift.openshift.io/v1beta1/NodePool': served(structuredClone(nodePoolCRD) as unknown as KubeObject),
    'v1/Secret': secrets,
    'v1/ConfigMap': configmaps,
    'v1/Namespace': namespaces,
  };
  const docs = readdirSync(testdata)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => YAML.parseAllDocuments(readFileSync(path.join(testdata, f), 'utf8')).map((d, i) => ({ name: `${f}#${i}`, obj: d.toJSON() as KubeObject | null })))
    .filter((d) => d.obj && infos[`${d.obj.apiVersion}/${d.obj.kind}`])
    .concat([
      { name: 'namespace with an empty spec', obj: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', labels: {} }, spec: {} } },
      { name: 'namespace with finalizers', obj: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', finalizers: ['a', 'b'], ownerReferences: [{ uid: 'x', name: 'o', kind: 'K', apiVersion: 'v1' }] }, spec: { finalizers: ['kubernetes'] } } },
      { name: 'configmap with empty data and null', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: { a: 'b' } }, data: {}, binaryData: null } as unknown as KubeObject },
      { name: 'duplicate set items', obj: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', finalizers: ['a', 'a', 'b'] } } },
    ]);

  it('covers the real manifests', () => {
    expect(docs.length).toBeGreaterThan(20);
  });

  it.each(docs)('gives what the general path gives: $name', ({ obj }) => {
    const info = infos[`${obj!.apiVersion}/${obj!.kind}`]!;
    const o = { ...obj!, metadata: { ...obj!.metadata, uid: 'u', creationTimestamp: 't', resourceVersion: '1' } } as KubeObject;
    const base = { live: undefined, obj: o, zero: zeroObject(info), manager: 'm', apiVersion: String(o.apiVersion), subresource: '', type: typeOf(info), reset: resetFieldsOf(info, ''), now: 'now' };
    const fast = trackUpdate({ ...base, requestManagedFields: undefined });
    const slow = trackUpdate({ ...base, requestManagedFields: [] });
    expect(fast).toEqual(slow);
    expect(JSON.stringify(fast)).toEqual(JSON.stringify(slow));
  });
});
