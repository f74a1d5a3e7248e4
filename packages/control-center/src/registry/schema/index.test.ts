import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '../../apierrors/field.js';
import { checkCustomResource, strictDecodingErrorMessage, unknownFieldWarnings, type FieldValidation, type JSONSchemaProps } from './index.js';

const schema: JSONSchemaProps = {
  type: 'object',
  required: ['spec'],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'string' }, // wrong on purpose: metadata is never validated here
    spec: {
      type: 'object',
      required: ['platform', 'release'],
      properties: {
        platform: {
          type: 'object',
          required: ['type'],
          properties: {
            type: { type: 'string', enum: ['AWS', 'Azure', 'KubeVirt', 'Agent', 'None'] },
            kubevirt: { type: 'object', properties: { baseDomainPassthrough: { type: 'boolean' } } },
          },
        },
        release: { type: 'object', required: ['image'], properties: { image: { type: 'string', minLength: 1 } } },
        controllerAvailabilityPolicy: { type: 'string', default: 'SingleReplica', enum: ['SingleReplica', 'HighlyAvailable'] },
        etcd: { type: 'object', default: { managementType: 'Managed' }, properties: { managementType: { type: 'string', enum: ['Managed', 'Unmanaged'] } } },
      },
    },
    status: { type: 'object', properties: { version: { type: 'string' } } },
  },
};

const hostedCluster = (spec: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'hypershift.openshift.io/v1beta1',
  kind: 'HostedCluster',
  metadata: { name: 'example', namespace: 'clusters' },
  spec,
  ...extra,
});

describe('checkCustomResource', () => {
  it.each<{
    name: string;
    input: { obj: Record<string, unknown>; fieldValidation: FieldValidation };
    want: { errors: string[]; unknownFields: string[]; spec?: unknown };
  }>([
    {
      name: 'valid object gets defaults',
      input: { obj: hostedCluster({ platform: { type: 'AWS' }, release: { image: 'quay.io/x:4.16' } }), fieldValidation: 'Strict' },
      want: {
        errors: [],
        unknownFields: [],
        spec: { platform: { type: 'AWS' }, release: { image: 'quay.io/x:4.16' }, controllerAvailabilityPolicy: 'SingleReplica', etcd: { managementType: 'Managed' } },
      },
    },
    {
      name: 'Strict with unknown fields: pruned, not validated',
      input: { obj: hostedCluster({ platform: { type: 'Foo', kubevirt: { baseDomain: 'x' } } }), fieldValidation: 'Strict' },
      want: { errors: [], unknownFields: ['spec.platform.kubevirt.baseDomain'], spec: { platform: { type: 'Foo', kubevirt: {} } } },
    },
    {
      name: 'Warn: unknown fields reported and validation runs',
      input: { obj: hostedCluster({ platform: { type: 'Foo', kubevirt: { baseDomain: 'x' } }, release: { image: 'i' } }, { bogus: 1 }), fieldValidation: 'Warn' },
      want: {
        errors: ['spec.platform.type: Unsupported value: "Foo": supported values: "AWS", "Azure", "KubeVirt", "Agent", "None"'],
        unknownFields: ['bogus', 'spec.platform.kubevirt.baseDomain'],
      },
    },
    {
      name: 'Ignore: pruned silently',
      input: { obj: hostedCluster({ platform: { type: 'AWS', junk: true }, release: { image: 'i' } }), fieldValidation: 'Ignore' },
      want: { errors: [], unknownFields: [] },
    },
    {
      name: 'defaults apply before validation (a bad default would show)',
      input: { obj: hostedCluster({ platform: { type: 'None' }, release: { image: 'i' }, etcd: {} }), fieldValidation: 'Strict' },
      want: { errors: [], unknownFields: [], spec: { platform: { type: 'None' }, release: { image: 'i' }, etcd: {}, controllerAvailabilityPolicy: 'SingleReplica' } },
    },
    {
      name: 'null spec is dropped, then required',
      input: { obj: hostedCluster(null), fieldValidation: 'Strict' },
      want: { errors: ['spec: Required value'], unknownFields: [] },
    },
    {
      name: 'several errors at once',
      input: { obj: hostedCluster({ platform: {}, release: { image: '' }, controllerAvailabilityPolicy: 'Three' }), fieldValidation: 'Strict' },
      want: {
        errors: [
          'spec.platform.type: Required value',
          'spec.release.image: Invalid value: "": spec.release.image in body should be at least 1 chars long',
          'spec.controllerAvailabilityPolicy: Unsupported value: "Three": supported values: "SingleReplica", "HighlyAvailable"',
        ],
        unknownFields: [],
      },
    },
  ])('$name', ({ input, want }) => {
    const obj = structuredClone(input.obj);
    const got = checkCustomResource(obj, schema, { fieldValidation: input.fieldValidation });
    expect({ errors: got.errors.map(fieldErrorMessage), unknownFields: got.unknownFields }).toEqual({ errors: want.errors, unknownFields: want.unknownFields });
    if (want.spec !== undefined) expect(obj.spec).toEqual(want.spec);
    expect(obj.metadata).toEqual({ name: 'example', namespace: 'clusters' });
  });

  it.each([
    { name: 'strict message', input: ['spec.a', 'spec.b'], want: 'strict decoding error: unknown field "spec.a", unknown field "spec.b"' },
    { name: 'warnings', input: ['spec.a'], want: ['unknown field "spec.a"'] },
  ])('$name', ({ name, input, want }) => {
    expect(name === 'warnings' ? unknownFieldWarnings(input) : strictDecodingErrorMessage(input)).toEqual(want);
  });
});

describe('checkCustomResource: ratcheting of unchanged invalid values inside a changed field (KEP-4008)', () => {
  const mcSchema: JSONSchemaProps = {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          capacity: { type: 'integer', minimum: 0 },
          unschedulable: { type: 'boolean' },
          region: { type: 'string', pattern: '^[a-z0-9-]+$' },
          labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 3 } },
          taints: { type: 'array', items: { type: 'object', required: ['key'], properties: { key: { type: 'string', pattern: '^[a-z]+$' } } } },
        },
      },
    },
  };
  const mc = (spec: Record<string, unknown>) => ({ apiVersion: 'x/v1', kind: 'MC', metadata: { name: 'm' }, spec });
  const stored = mc({ capacity: 5, region: 'EU_West', labels: { 'a.b/c': 'toolong' }, taints: [{ key: 'Bad_Key' }] });
  const update = (spec: Record<string, unknown>) =>
    checkCustomResource(mc(spec), mcSchema, { fieldValidation: 'Strict', oldObj: structuredClone(stored) as Record<string, unknown> }).errors.map(fieldErrorMessage);

  it('lets a spec edit through when the invalid values it keeps are unchanged (a list only when the whole list is)', () => {
    expect(update({ capacity: 6, unschedulable: true, region: 'EU_West', labels: { 'a.b/c': 'toolong' }, taints: [{ key: 'Bad_Key' }] })).toEqual([]);
  });

  it('still refuses invalid values that are new or changed, and a list changed elsewhere', () => {
    expect(update({ capacity: 6, region: 'EU_East', labels: { 'a.b/c': 'toolong', d: 'long!' }, taints: [{ key: 'Bad_Key' }, { key: 'ok' }] })).toEqual([
      expect.stringContaining('spec.region: Invalid value: "EU_East"'),
      expect.stringContaining('spec.labels.d: Too long'),
      expect.stringContaining('spec.taints[0].key: Invalid value: "Bad_Key"'),
    ]);
    expect(update({ capacity: -1, region: 'EU_West', labels: { 'a.b/c': 'toolong' }, taints: [{ key: 'Bad_Key' }] })).toEqual([expect.stringContaining('spec.capacity: Invalid value: -1')]);
  });

  it('a map holding both `a` and `a.b`: each way the error path reads must be unchanged', () => {
    const mapSchema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            other: { type: 'integer' },
            m: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string', maxLength: 3 }, b: { type: 'object', properties: { v: { type: 'string', maxLength: 3 } } } } } },
          },
        },
      },
    };
    const obj = (spec: Record<string, unknown>) => ({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'x' }, spec });
    const stored = obj({ other: 1, m: { a: { v: 'ok' }, 'a.b': { v: 'toolong' } } });
    const check = (spec: Record<string, unknown>) =>
      checkCustomResource(obj(spec), mapSchema, { fieldValidation: 'Strict', oldObj: structuredClone(stored) as Record<string, unknown> }).errors.map(fieldErrorMessage);
    expect(check({ other: 2, m: { a: { v: 'ok' }, 'a.b': { v: 'toolong' } } })).toEqual([]);
    // `a.b.v` is also `a` → `b` → `v`: a new invalid value there is not hidden by the unchanged one
    // (both are refused: their paths read the same, so neither can be told unchanged).
    expect(check({ other: 2, m: { a: { v: 'ok', b: { v: 'waytoolong' } }, 'a.b': { v: 'toolong' } } })).toEqual(Array(2).fill('spec.m.a.b.v: Too long: may not be more than 3 bytes'));
  });

  it('correlates a map list item with the old item of the same keys, wherever it moved (other lists only whole)', () => {
    const listSchema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            other: { type: 'integer' },
            byName: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, v: { type: 'string', maxLength: 3 }, nested: { type: 'array', items: { type: 'string', maxLength: 3 } } } },
            },
            atomic: { type: 'array', items: { type: 'string', maxLength: 3 } },
          },
        },
      },
    };
    const obj = (spec: Record<string, unknown>) => ({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'x' }, spec });
    const stored = obj({ other: 1, byName: [{ name: 'a', v: 'toolong', nested: ['ok', 'toolong'] }, { name: 'b', v: 'ok' }], atomic: ['toolong', 'ok'] });
    const check = (spec: Record<string, unknown>) =>
      checkCustomResource(obj(spec), listSchema, { fieldValidation: 'Strict', oldObj: structuredClone(stored) as Record<string, unknown> }).errors.map(fieldErrorMessage);
    // Item `a` moved to index 2 behind a new valid item and `b` changed: `a`'s unchanged values are ratcheted.
    expect(check({ other: 2, byName: [{ name: 'c', v: 'ok' }, { name: 'b', v: 'new' }, { name: 'a', v: 'toolong', nested: ['ok', 'toolong'] }], atomic: ['toolong', 'ok'] })).toEqual([]);
    // A new item, a changed value in a correlated item, and an atomic list changed elsewhere are refused.
    expect(check({ other: 2, byName: [{ name: 'a', v: 'toolong', nested: ['toolong', 'ok'] }, { name: 'b', v: 'changed' }, { name: 'd', v: 'toolong' }], atomic: ['toolong', 'ok', 'new'] })).toEqual([
      'spec.byName[0].nested[0]: Too long: may not be more than 3 bytes',
      'spec.byName[1].v: Too long: may not be more than 3 bytes',
      'spec.byName[2].v: Too long: may not be more than 3 bytes',
      'spec.atomic[0]: Too long: may not be more than 3 bytes',
    ]);
  });

  it('never ratchets on create', () => {
    expect(checkCustomResource(structuredClone(stored) as Record<string, unknown>, mcSchema, { fieldValidation: 'Strict' }).errors).toHaveLength(3);
  });
});
