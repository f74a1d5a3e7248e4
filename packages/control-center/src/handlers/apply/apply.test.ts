import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import type { KubeObject } from '@hcc/crds';
import { StatusError } from '../../apierrors/status.js';
import type { ResourceInfo } from '../../registry/types.js';
import { pathString } from './fieldpath.js';
import { applyConfiguration, applyToManaged, LastAppliedConfigAnnotation } from './apply.js';
import { decodeManagedFields, updateManaged, type Managed } from './managed-fields.js';
import { mapList, SCALAR, setList, struct, type FieldType } from './schema.js';
import { compare } from './typed.js';

/** One step of a structured-merge-diff merge test (internal/fixture): Apply, ForceApply or Update. */
type Op = { op: 'apply' | 'force' | 'update'; manager: string; object: string; conflicts?: string[] };

/** Runs ops from an empty object; returns the object and each manager's fields (paths, sorted). */
function run(type: FieldType, ops: Op[]): { object: unknown; managed: Record<string, string[]> } {
  let object: unknown = {};
  let managed: Managed = new Map();
  for (const o of ops) {
    const value = YAML.parse(o.object) ?? {};
    if (o.op === 'update') {
      updateManaged(managed, compare(object, value, type), { manager: o.manager, operation: 'Update', apiVersion: 'v1', subresource: '' }, 't');
      object = value;
      continue;
    }
    const out = applyToManaged({ live: object, config: value, managed, applier: { manager: o.manager, operation: 'Apply', apiVersion: 'v1', subresource: '' }, force: o.op === 'force', type, now: 't' });
    if (out.conflicts) {
      expect(out.conflicts.map((c) => `${c.manager.manager} ${pathString(c.path)}`).sort(), `conflicts of ${o.manager}`).toEqual(o.conflicts ?? []);
      continue;
    }
    expect(o.conflicts ?? [], `conflicts of ${o.manager}`).toEqual([]);
    object = out.object;
    managed = out.managed;
  }
  const sets: Record<string, string[]> = {};
  for (const m of managed.values()) sets[m.manager] = m.set.paths().map(pathString).sort();
  return { object, managed: sets };
}

// Schemas of structured-merge-diff's merge tests.
const leafFields = struct({ numeric: SCALAR, string: SCALAR, bool: SCALAR });
const associativeList = struct({ list: mapList(['name'], struct({ name: SCALAR, value: SCALAR })) });
const nestedType = struct({ listOfLists: mapList(['name'], struct({ name: SCALAR, value: setList(SCALAR) })) });
const structType = struct({ struct: struct({ name: SCALAR, scalarField: SCALAR, complexField: struct({ name: SCALAR }) }) });

describe('apply with several managers (structured-merge-diff merge tests)', () => {
  it.each([
    {
      name: 'leaf: apply, update, apply with conflict, force apply',
      type: leafFields,
      ops: [
        { op: 'apply', manager: 'default', object: 'numeric: 1\nstring: string' },
        { op: 'update', manager: 'controller', object: 'numeric: 1\nstring: controller string\nbool: true' },
        { op: 'apply', manager: 'default', object: 'numeric: 2\nstring: user string', conflicts: ['controller .string'] },
        { op: 'force', manager: 'default', object: 'numeric: 2\nstring: user string' },
      ],
      object: { numeric: 2, string: 'user string', bool: true },
      managed: { default: ['.numeric', '.string'], controller: ['.bool'] },
    },
    {
      name: 'leaf: update takes a field from the applier',
      type: leafFields,
      ops: [
        { op: 'apply', manager: 'default', object: 'string: string' },
        { op: 'update', manager: 'controller', object: 'string: new string' },
      ],
      object: { string: 'new string' },
      managed: { controller: ['.string'] },
    },
    {
      name: 'leaf: a field no longer applied is removed',
      type: leafFields,
      ops: [
        { op: 'apply', manager: 'default', object: 'numeric: 1\nstring: string\nbool: false' },
        { op: 'apply', manager: 'default', object: 'string: new string' },
      ],
      object: { string: 'new string' },
      managed: { default: ['.string'] },
    },
    {
      name: 'set: remove_one',
      type: associativeList,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'list:\n- name: a\n- name: b' },
        { op: 'apply', manager: 'apply-two', object: 'list:\n- name: c' },
        { op: 'apply', manager: 'apply-one', object: 'list:\n- name: a' },
      ],
      object: { list: [{ name: 'a' }, { name: 'c' }] },
      managed: { 'apply-one': ['.list[name="a"]', '.list[name="a"].name'], 'apply-two': ['.list[name="c"]', '.list[name="c"].name'] },
    },
    {
      name: 'set: same_value_no_conflict',
      type: associativeList,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'list:\n- name: a\n  value: 0' },
        { op: 'apply', manager: 'apply-two', object: 'list:\n- name: a\n  value: 0' },
      ],
      object: { list: [{ name: 'a', value: 0 }] },
      managed: {
        'apply-one': ['.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value'],
        'apply-two': ['.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value'],
      },
    },
    {
      name: 'set: change_value_yes_conflict',
      type: associativeList,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'list:\n- name: a\n  value: 0' },
        { op: 'apply', manager: 'apply-two', object: 'list:\n- name: a\n  value: 1', conflicts: ['apply-one .list[name="a"].value'] },
      ],
      object: { list: [{ name: 'a', value: 0 }] },
      managed: { 'apply-one': ['.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value'] },
    },
    {
      name: 'set: remove_one_keep_one',
      type: associativeList,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'list:\n- name: a\n- name: b\n- name: c' },
        { op: 'apply', manager: 'apply-two', object: 'list:\n- name: c\n- name: d' },
        { op: 'apply', manager: 'apply-one', object: 'list:\n- name: a' },
      ],
      object: { list: [{ name: 'a' }, { name: 'c' }, { name: 'd' }] },
      managed: {
        'apply-one': ['.list[name="a"]', '.list[name="a"].name'],
        'apply-two': ['.list[name="c"]', '.list[name="c"].name', '.list[name="d"]', '.list[name="d"].name'],
      },
    },
    {
      name: 'nested: remove_one_keep_one_with_two_sub_items',
      type: nestedType,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'listOfLists:\n- name: a\n- name: b\n  value:\n  - c' },
        { op: 'apply', manager: 'apply-two', object: 'listOfLists:\n- name: b\n  value:\n  - d' },
        { op: 'apply', manager: 'apply-one', object: 'listOfLists:\n- name: a' },
      ],
      object: { listOfLists: [{ name: 'a' }, { name: 'b', value: ['d'] }] },
      managed: {
        'apply-one': ['.listOfLists[name="a"]', '.listOfLists[name="a"].name'],
        'apply-two': ['.listOfLists[name="b"]', '.listOfLists[name="b"].name', '.listOfLists[name="b"].value[="d"]'],
      },
    },
    {
      name: 'nested: remove_one_keep_one_with_dangling_subitem',
      type: nestedType,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'listOfLists:\n- name: a\n- name: b\n  value:\n  - c' },
        { op: 'apply', manager: 'apply-two', object: 'listOfLists:\n- name: b\n  value:\n  - d' },
        { op: 'update', manager: 'controller', object: 'listOfLists:\n- name: a\n- name: b\n  value:\n  - c\n  - d\n  - e' },
        { op: 'apply', manager: 'apply-one', object: 'listOfLists:\n- name: a' },
      ],
      object: { listOfLists: [{ name: 'a' }, { name: 'b', value: ['d', 'e'] }] },
      managed: {
        'apply-one': ['.listOfLists[name="a"]', '.listOfLists[name="a"].name'],
        'apply-two': ['.listOfLists[name="b"]', '.listOfLists[name="b"].name', '.listOfLists[name="b"].value[="d"]'],
        controller: ['.listOfLists[name="b"].value[="e"]'],
      },
    },
    {
      name: 'nested: remove_one_with_dangling_subitem_keep_one',
      type: nestedType,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'listOfLists:\n- name: a\n- name: b\n  value:\n  - c' },
        { op: 'apply', manager: 'apply-two', object: 'listOfLists:\n- name: a\n  value:\n  - b' },
        { op: 'update', manager: 'controller', object: 'listOfLists:\n- name: a\n  value:\n  - b\n- name: b\n  value:\n  - c\n  - d' },
        { op: 'apply', manager: 'apply-one', object: 'listOfLists:\n- name: a' },
      ],
      object: { listOfLists: [{ name: 'a', value: ['b'] }] },
      managed: {
        'apply-one': ['.listOfLists[name="a"]', '.listOfLists[name="a"].name'],
        'apply-two': ['.listOfLists[name="a"]', '.listOfLists[name="a"].name', '.listOfLists[name="a"].value[="b"]'],
      },
    },
    {
      name: 'unsetting: unset_scalar_sole_owner',
      type: structType,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'struct:\n  name: a\n  scalarField: a' },
        { op: 'apply', manager: 'apply-one', object: 'struct:\n  name: a' },
      ],
      object: { struct: { name: 'a' } },
      managed: { 'apply-one': ['.struct.name'] },
    },
    {
      name: 'unsetting: unset_scalar_shared_with_applier',
      type: structType,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'struct:\n  name: a\n  scalarField: a' },
        { op: 'apply', manager: 'apply-two', object: 'struct:\n  scalarField: a' },
        { op: 'apply', manager: 'apply-one', object: 'struct:\n  name: a' },
      ],
      object: { struct: { name: 'a', scalarField: 'a' } },
      managed: { 'apply-one': ['.struct.name'], 'apply-two': ['.struct.scalarField'] },
    },
    {
      name: 'unsetting: unset_scalar_shared_with_updater',
      type: structType,
      ops: [
        { op: 'update', manager: 'updater', object: 'struct:\n  name: a\n  scalarField: a' },
        { op: 'apply', manager: 'applier', object: 'struct:\n  name: a\n  scalarField: a' },
        { op: 'apply', manager: 'applier', object: 'struct:\n  name: a' },
      ],
      object: { struct: { name: 'a', scalarField: 'a' } },
      managed: { updater: ['.struct', '.struct.name', '.struct.scalarField'], applier: ['.struct.name'] },
    },
    {
      name: 'unsetting: updater_claims_field',
      type: structType,
      ops: [
        { op: 'apply', manager: 'applier', object: 'struct:\n  name: a\n  scalarField: a' },
        { op: 'update', manager: 'updater', object: 'struct:\n  name: a\n  scalarField: b' },
      ],
      object: { struct: { name: 'a', scalarField: 'b' } },
      managed: { updater: ['.struct.scalarField'], applier: ['.struct.name'] },
    },
    {
      name: 'unsetting: unset_complex_sole_owner',
      type: structType,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'struct:\n  name: a\n  complexField:\n    name: b' },
        { op: 'apply', manager: 'apply-one', object: 'struct:\n  name: a' },
      ],
      object: { struct: { name: 'a' } },
      managed: { 'apply-one': ['.struct.name'] },
    },
    {
      name: 'unsetting: unset_complex_shared_with_applier',
      type: structType,
      ops: [
        { op: 'apply', manager: 'apply-one', object: 'struct:\n  name: a\n  complexField:\n    name: b' },
        { op: 'apply', manager: 'apply-two', object: 'struct:\n  complexField:\n    name: b' },
        { op: 'apply', manager: 'apply-one', object: 'struct:\n  name: a' },
      ],
      object: { struct: { name: 'a', complexField: { name: 'b' } } },
      managed: { 'apply-one': ['.struct.name'], 'apply-two': ['.struct.complexField.name'] },
    },
  ] as { name: string; type: FieldType; ops: Op[]; object: unknown; managed: Record<string, string[]> }[])('$name', ({ type, ops, object, managed }) => {
    const got = run(type, ops);
    expect(got.object).toEqual(object);
    expect(got.managed).toEqual(managed);
  });
});

/** A HostedCluster-like custom resource: status subresource, conditions keyed by type, a set of tags. */
const info = {
  group: 'example.com',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  custom: true,
  subresources: { status: true },
  schema: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer' },
          image: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
          selector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
        },
      },
      status: {
        type: 'object',
        properties: {
          conditions: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['type'],
            items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } },
          },
        },
      },
    },
  },
} as unknown as ResourceInfo;

const widget = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', ...extra }, spec });
const apply = (live: KubeObject | undefined, config: unknown, manager = 'mgr', force = false, subresource: '' | 'status' = '') =>
  applyConfiguration({ info, live, config, namespace: 'ns', name: 'w', manager, force, subresource, now: '2024-05-01T10:00:00Z' });
/** What the store adds to a created object. */
const stored = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, uid: 'u1', resourceVersion: '1', creationTimestamp: '2024-05-01T09:00:00Z', generation: 1 } });
const statusOf = (fn: () => unknown): StatusError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('no error');
};

describe('applyConfiguration', () => {
  it('creates with an Apply entry that owns what was applied', () => {
    const o = apply(undefined, widget({ replicas: 2, tags: ['a'] }, { labels: { app: 'x' } }));
    expect(o.spec).toEqual({ replicas: 2, tags: ['a'] });
    expect(o.metadata.managedFields).toEqual([
      {
        manager: 'mgr',
        operation: 'Apply',
        apiVersion: 'example.com/v1',
        time: '2024-05-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:replicas': {}, 'f:tags': { 'v:"a"': {} } } },
      },
    ]);
  });

  it('refuses to create from a configuration that names a uid (409, as patch.go), and takes one that matches the live object', () => {
    const e = statusOf(() => apply(undefined, widget({ replicas: 2 }, { uid: 'gone-uid' })));
    expect(e.code).toBe(409);
    expect(e.status.reason).toBe('Conflict');
    expect(e.status.message).toBe('Operation cannot be fulfilled on widgets.example.com "w": uid mismatch: the provided object specified uid gone-uid, and no existing object was found');
    const live = stored(apply(undefined, widget({ replicas: 2 })));
    expect(apply(live, widget({ replicas: 3 }, { uid: 'u1' })).spec).toEqual({ replicas: 3 });
  });

  it('is a no-op when re-applied unchanged (same managedFields, same time)', () => {
    const live = stored(apply(undefined, widget({ replicas: 2 })));
    const again = apply(live, widget({ replicas: 2 }));
    expect(again).toEqual(live);
  });

  it('conflicts with an updater, with upstream wording and causes; force takes over', () => {
    const live = stored(apply(undefined, widget({ replicas: 2, image: 'a' })));
    const edited: KubeObject = {
      ...live,
      metadata: {
        ...live.metadata,
        managedFields: [
          ...(live.metadata.managedFields as object[]),
          { manager: 'kubectl-edit', operation: 'Update', apiVersion: 'example.com/v1', time: '2024-05-01T10:01:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
        ],
      },
    };
    const err = statusOf(() => apply(edited, widget({ replicas: 3, image: 'a' }), 'other'));
    expect(err.code).toBe(409);
    expect(err.status.reason).toBe('Conflict');
    expect(err.message).toBe('Apply failed with 2 conflicts: conflicts with "kubectl-edit" using example.com/v1:\n- .spec.replicas\nconflicts with "mgr":\n- .spec.replicas');
    expect(err.status.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using example.com/v1', field: '.spec.replicas' },
      { reason: 'FieldManagerConflict', message: 'conflict with "mgr"', field: '.spec.replicas' },
    ]);
    const one = statusOf(() => apply(edited, widget({ image: 'b' }), 'other'));
    expect(one.message).toBe('Apply failed with 1 conflict: conflict with "mgr": .spec.image');
    const forced = apply(edited, widget({ replicas: 3 }), 'other', true);
    expect(forced.spec).toEqual({ replicas: 3, image: 'a' });
    const m = decodeManagedFields(forced.metadata.managedFields);
    expect([...m.values()].map((e) => `${e.manager}:${e.set.toString().replaceAll('\n', ',')}`).sort()).toEqual(['mgr:.spec.image', 'other:.spec.replicas']);
  });

  it('removes fields the applier no longer applies, unless another manager owns them', () => {
    let live = stored(apply(undefined, widget({ replicas: 2, image: 'a', tags: ['x', 'y'] }, { labels: { a: '1', b: '2' } })));
    live = stored(apply(live, widget({ tags: ['y'] }), 'second'));
    const next = apply(live, widget({ replicas: 2 }, { labels: { a: '1' } }));
    expect(next.spec).toEqual({ replicas: 2, tags: ['y'] });
    expect(next.metadata.labels).toEqual({ a: '1' });
  });

  it('never owns status through the main resource, nor spec through status', () => {
    const o = apply(undefined, { ...widget({ replicas: 1 }), status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    expect(JSON.stringify(o.metadata.managedFields)).not.toContain('f:status');
    const live = stored(o);
    const s = apply(live, { ...widget({ replicas: 5 }), status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 'ctrl', false, 'status');
    const entries = s.metadata.managedFields as { manager: string; subresource?: string; fieldsV1: unknown }[];
    expect(entries.find((e) => e.manager === 'ctrl')).toMatchObject({ subresource: 'status', fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } } });
  });

  it.each([
    { name: 'wrong kind', config: { ...widget({}), kind: 'Gadget' }, code: 400, message: 'invalid object type: example.com/v1, Kind=Gadget' },
    { name: 'missing apiVersion and kind', config: { metadata: { name: 'w' } }, code: 400, message: 'invalid object type: /, Kind=' },
    { name: 'other version', config: { ...widget({}), apiVersion: 'example.com/v2' }, code: 400, message: 'invalid object type: example.com/v2, Kind=Widget' },
    { name: 'managedFields in the body', config: widget({}, { managedFields: [] }), code: 400, message: 'metadata.managedFields must be nil' },
    { name: 'no name on create', config: { apiVersion: 'example.com/v1', kind: 'Widget', spec: {} }, code: 400, message: 'the name of the object () does not match the name on the URL (w)' },
    { name: 'not an object', config: ['x'], code: 400, message: 'error decoding patch: the apply configuration must be an object' },
    {
      name: 'duplicate set items',
      config: widget({ tags: ['a', 'a'] }),
      code: 400,
      message: 'failed to create typed patch object (ns/w; example.com/v1, Kind=Widget): .spec.tags: duplicate entries for key [="a"]',
    },
  ])('rejects $name', ({ config, code, message }) => {
    const err = statusOf(() => apply(undefined, config));
    expect(err.code).toBe(code);
    expect(err.message).toBe(message);
  });

  it('lets kubectl take over fields client-side apply set, and keeps the annotation in step', () => {
    const lastApplied = JSON.stringify(widget({ replicas: 2 }));
    const live = stored({
      ...widget({ replicas: 2 }, { annotations: { [LastAppliedConfigAnnotation]: lastApplied } }),
      metadata: {
        ...widget({}).metadata,
        annotations: { [LastAppliedConfigAnnotation]: lastApplied },
        managedFields: [
          {
            manager: 'kubectl-client-side-apply',
            operation: 'Update',
            apiVersion: 'example.com/v1',
            time: '2024-05-01T09:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, [`f:${LastAppliedConfigAnnotation}`]: {} } }, 'f:spec': { '.': {}, 'f:replicas': {} } },
          },
        ],
      },
    } as KubeObject);
    expect(statusOf(() => apply(live, widget({ replicas: 3 }), 'someone-else')).code).toBe(409);
    const o = apply(live, widget({ replicas: 3 }), 'kubectl');
    expect(o.spec).toEqual({ replicas: 3 });
    expect(o.metadata.annotations?.[LastAppliedConfigAnnotation]).toBe('{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},"spec":{"replicas":3}}\n');
  });
});
