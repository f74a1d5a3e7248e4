import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '../../apierrors/field.js';
import type { JSONSchemaProps } from './types.js';
import { validateValue } from './validate.js';

const msgs = (value: unknown, schema: JSONSchemaProps, path = 'spec'): string[] => validateValue(value, schema, path).map(fieldErrorMessage);

const obj = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'object', properties, ...extra });

const hostedClusterSpec = obj(
  {
    clusterName: { type: 'string', minLength: 1 },
    replicas: { type: 'integer', format: 'int32', minimum: 0 },
    platform: obj({ type: { type: 'string', enum: ['AWS', 'Azure'] } }, { required: ['type'] }),
    release: obj({ image: { type: 'string' } }),
  },
  { required: ['clusterName'] },
);

describe('validateValue: types, required, enum', () => {
  it.each([
    { name: 'valid', input: { clusterName: 'example', replicas: 2, platform: { type: 'AWS' } }, want: [] },
    {
      name: 'integer given a string',
      input: { clusterName: 'example', replicas: 'string' },
      want: ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
    },
    {
      name: 'integer given a float',
      input: { clusterName: 'example', replicas: 1.5 },
      want: ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'],
    },
    { name: 'required missing', input: { replicas: 1 }, want: ['spec.clusterName: Required value'] },
    {
      name: 'enum',
      input: { clusterName: 'x', platform: { type: 'Foo' } },
      want: ['spec.platform.type: Unsupported value: "Foo": supported values: "AWS", "Azure"'],
    },
    {
      name: 'object given a list',
      input: { clusterName: 'x', platform: [] },
      want: ['spec.platform: Invalid value: "array": spec.platform in body must be of type object: "array"'],
    },
    {
      name: 'null where not nullable',
      input: { clusterName: 'x', release: null },
      want: ['spec.release: Invalid value: "null": spec.release in body must be of type object: "null"'],
    },
    {
      name: 'every error is reported',
      input: { replicas: -1, platform: { type: 'GCP' }, release: { image: 5 } },
      want: [
        'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
        'spec.platform.type: Unsupported value: "GCP": supported values: "AWS", "Azure"',
        'spec.release.image: Invalid value: "integer": spec.release.image in body must be of type string: "integer"',
        'spec.clusterName: Required value',
      ],
    },
    {
      name: 'required inside a nested object',
      input: { clusterName: 'x', platform: {} },
      want: ['spec.platform.type: Required value'],
    },
  ])('$name', ({ input, want }) => {
    expect(msgs(input, hostedClusterSpec)).toEqual(want);
  });

  it.each<{ name: string; input: { schema: JSONSchemaProps; value: unknown }; want: string[] }>([
    { name: 'nullable accepts null', input: { schema: { type: 'string', nullable: true }, value: null }, want: [] },
    { name: 'boolean', input: { schema: { type: 'boolean' }, value: 'true' }, want: ['spec: Invalid value: "string": spec in body must be of type boolean: "string"'] },
    { name: 'number accepts integers', input: { schema: { type: 'number' }, value: 3 }, want: [] },
    { name: 'number accepts floats', input: { schema: { type: 'number' }, value: 3.25 }, want: [] },
    { name: 'int-or-string integer', input: { schema: { 'x-kubernetes-int-or-string': true }, value: 8080 }, want: [] },
    { name: 'int-or-string string', input: { schema: { 'x-kubernetes-int-or-string': true }, value: '50%' }, want: [] },
    {
      name: 'int-or-string boolean',
      input: { schema: { 'x-kubernetes-int-or-string': true }, value: true },
      want: ['spec: Invalid value: "boolean": spec in body must be of type integer,string: "boolean"'],
    },
    { name: 'preserve-unknown-fields without type takes anything', input: { schema: { 'x-kubernetes-preserve-unknown-fields': true }, value: [1, 'a'] }, want: [] },
    {
      name: 'enum with null value never matches',
      input: { schema: { type: 'string', nullable: true, enum: ['a'] }, value: null },
      want: ['spec: Unsupported value: null: supported values: "a"'],
    },
    { name: 'enum of numbers', input: { schema: { type: 'integer', enum: [1, 2] }, value: 3 }, want: ['spec: Unsupported value: 3: supported values: "1", "2"'] },
    { name: 'enum of objects', input: { schema: { type: 'object', enum: [{ a: 1 }] }, value: { a: 1 } }, want: [] },
    {
      name: 'type mismatch still checks enum',
      input: { schema: { type: 'string', enum: ['a'] }, value: 5 },
      want: ['spec: Invalid value: "integer": spec in body must be of type string: "integer"', 'spec: Unsupported value: 5: supported values: "a"'],
    },
  ])('$name', ({ input, want }) => {
    expect(msgs(input.value, input.schema)).toEqual(want);
  });
});

describe('validateValue: strings', () => {
  it.each<{ name: string; input: { schema: JSONSchemaProps; value: string }; want: string[] }>([
    { name: 'maxLength counts runes not bytes', input: { schema: { type: 'string', maxLength: 5 }, value: 'héllo' }, want: [] },
    { name: 'emoji is one rune', input: { schema: { type: 'string', maxLength: 1 }, value: '🚀' }, want: [] },
    { name: 'too long', input: { schema: { type: 'string', maxLength: 5 }, value: 'ééééééé' }, want: ['spec: Too long: may not be more than 5 bytes'] },
    { name: 'too long, singular', input: { schema: { type: 'string', maxLength: 1 }, value: 'ab' }, want: ['spec: Too long: may not be more than 1 byte'] },
    {
      name: 'too short',
      input: { schema: { type: 'string', minLength: 3 }, value: 'ab' },
      want: ['spec: Invalid value: "ab": spec in body should be at least 3 chars long'],
    },
    {
      name: 'pattern',
      input: { schema: { type: 'string', pattern: '^[a-z]+$' }, value: 'A_b' },
      want: [`spec: Invalid value: "A_b": spec in body should match '^[a-z]+$'`],
    },
    { name: 'pattern is unanchored', input: { schema: { type: 'string', pattern: '[0-9]' }, value: 'abc1' }, want: [] },
    // RE2, as Go's regexp: \s is ASCII only (HyperShift's issuerURL pattern), POSIX and Unicode classes work.
    { name: 'pattern: RE2 \\s', input: { schema: { type: 'string', pattern: '^https:\\/\\/[^\\s]' }, value: 'https://\u00a0x' }, want: [] },
    {
      name: 'pattern: RE2 \\s refuses ASCII space',
      input: { schema: { type: 'string', pattern: '^https:\\/\\/[^\\s]' }, value: 'https:// x' },
      want: [`spec: Invalid value: "https:// x": spec in body should match '^https:\\/\\/[^\\s]'`],
    },
    { name: 'pattern: RE2 POSIX class', input: { schema: { type: 'string', pattern: '^[[:digit:]]+$' }, value: '42' }, want: [] },
    { name: 'pattern: RE2 Unicode class', input: { schema: { type: 'string', pattern: '^\\p{Greek}+$' }, value: 'αβ' }, want: [] },
    {
      name: 'only the first string error (upstream returns early)',
      input: { schema: { type: 'string', maxLength: 2, pattern: '^x$' }, value: 'abc' },
      want: ['spec: Too long: may not be more than 2 bytes'],
    },
  ])('$name', ({ input, want }) => {
    expect(msgs(input.value, input.schema)).toEqual(want);
  });
});

describe('validateValue: formats', () => {
  const f = (format: string): JSONSchemaProps => ({ type: 'string', format });
  it.each([
    { name: 'date-time ok', input: { format: 'date-time', value: '2024-05-01T10:00:00Z' }, want: true },
    { name: 'date-time with offset and fraction', input: { format: 'date-time', value: '2024-05-01T10:00:00.123+02:00' }, want: true },
    { name: 'date-time lower case', input: { format: 'date-time', value: '2024-05-01t10:00:00z' }, want: true },
    { name: 'date-time bad', input: { format: 'date-time', value: 'yesterday' }, want: false },
    { name: 'date-time bad day', input: { format: 'date-time', value: '2023-02-29T10:00:00Z' }, want: false },
    { name: 'date ok', input: { format: 'date', value: '2024-02-29' }, want: true },
    { name: 'uuid ok', input: { format: 'uuid', value: '0F3B9B66-4B1A-4F4E-9C1E-2B0B7B3F6A10' }, want: true },
    { name: 'uuid without dashes', input: { format: 'uuid', value: '0f3b9b664b1a4f4e9c1e2b0b7b3f6a10' }, want: true },
    { name: 'uuid bad', input: { format: 'uuid', value: 'not-a-uuid' }, want: false },
    { name: 'byte ok', input: { format: 'byte', value: 'aGVsbG8=' }, want: true },
    { name: 'byte bad', input: { format: 'byte', value: 'hello!' }, want: false },
    { name: 'byte empty is invalid', input: { format: 'byte', value: '' }, want: false },
    { name: 'hostname ok', input: { format: 'hostname', value: 'api.example.com' }, want: true },
    { name: 'hostname bad', input: { format: 'hostname', value: 'bad_host!' }, want: false },
    { name: 'ipv4 ok', input: { format: 'ipv4', value: '10.0.0.1' }, want: true },
    { name: 'ipv4 bad', input: { format: 'ipv4', value: '10.0.0.256' }, want: false },
    { name: 'ipv4 rejects ipv6', input: { format: 'ipv4', value: 'fd00::1' }, want: false },
    { name: 'ipv6 ok', input: { format: 'ipv6', value: 'fd00::1' }, want: true },
    { name: 'ipv6 bad', input: { format: 'ipv6', value: '10.0.0.1' }, want: false },
    { name: 'cidr ok', input: { format: 'cidr', value: '10.132.0.0/14' }, want: true },
    { name: 'cidr v6 ok', input: { format: 'cidr', value: 'fd01::/48' }, want: true },
    { name: 'cidr bad prefix', input: { format: 'cidr', value: '10.0.0.0/33' }, want: false },
    { name: 'cidr missing prefix', input: { format: 'cidr', value: '10.0.0.0' }, want: false },
    { name: 'uri ok', input: { format: 'uri', value: 'https://example.com/a?b=c' }, want: true },
    { name: 'uri absolute path', input: { format: 'uri', value: '/healthz' }, want: true },
    { name: 'uri relative', input: { format: 'uri', value: 'example.com/a' }, want: false },
    { name: 'mac ok', input: { format: 'mac', value: '00:00:5e:00:53:01' }, want: true },
    { name: 'email ok', input: { format: 'email', value: 'ops@example.com' }, want: true },
    { name: 'unknown format ignored', input: { format: 'k8s-short-name', value: 'ANY THING' }, want: true },
  ])('$name', ({ input, want }) => {
    const errs = msgs(input.value, f(input.format));
    expect(errs).toEqual(want ? [] : [`spec: Invalid value: ${JSON.stringify(input.value)}: spec in body must be of type ${input.format}: ${JSON.stringify(input.value)}`]);
  });

  it.each<{ name: string; input: { schema: JSONSchemaProps; value: unknown }; want: string[] }>([
    { name: 'int32 in range', input: { schema: { type: 'integer', format: 'int32' }, value: 2147483647 }, want: [] },
    {
      name: 'int32 out of range',
      input: { schema: { type: 'integer', format: 'int32' }, value: 2147483648 },
      want: ['spec: Invalid value: 2147483648: Checked value must be of type integer with format int32 in spec'],
    },
    { name: 'int64 in range', input: { schema: { type: 'integer', format: 'int64' }, value: 2 ** 53 }, want: [] },
    {
      name: 'string format on a number',
      input: { schema: { type: 'string', format: 'date-time' }, value: 5 },
      want: ['spec: Invalid value: "int64": spec in body must be of type date-time: "int64"'],
    },
  ])('$name', ({ input, want }) => {
    expect(msgs(input.value, input.schema)).toEqual(want);
  });
});

describe('validateValue: numbers', () => {
  it.each<{ name: string; input: { schema: JSONSchemaProps; value: number }; want: string[] }>([
    { name: 'minimum', input: { schema: { type: 'integer', minimum: 0 }, value: -1 }, want: ['spec: Invalid value: -1: spec in body should be greater than or equal to 0'] },
    { name: 'minimum boundary', input: { schema: { type: 'integer', minimum: 0 }, value: 0 }, want: [] },
    {
      name: 'exclusive minimum',
      input: { schema: { type: 'integer', minimum: 0, exclusiveMinimum: true }, value: 0 },
      want: ['spec: Invalid value: 0: spec in body should be greater than 0'],
    },
    { name: 'maximum', input: { schema: { type: 'integer', maximum: 10 }, value: 11 }, want: ['spec: Invalid value: 11: spec in body should be less than or equal to 10'] },
    {
      name: 'exclusive maximum',
      input: { schema: { type: 'integer', maximum: 10, exclusiveMaximum: true }, value: 10 },
      want: ['spec: Invalid value: 10: spec in body should be less than 10'],
    },
    {
      name: 'float against integral bound prints like Go',
      input: { schema: { type: 'number', maximum: 1000000 }, value: 1000000.5 },
      want: ['spec: Invalid value: 1000000.5: spec in body should be less than or equal to 1e+06'],
    },
    { name: 'float bound', input: { schema: { type: 'number', minimum: 0.5 }, value: 0.25 }, want: ['spec: Invalid value: 0.25: spec in body should be greater than or equal to 0.5'] },
    { name: 'multipleOf', input: { schema: { type: 'integer', multipleOf: 5 }, value: 7 }, want: ['spec: Invalid value: 7: spec in body should be a multiple of 5'] },
    { name: 'multipleOf ok', input: { schema: { type: 'integer', multipleOf: 5 }, value: 15 }, want: [] },
    { name: 'multipleOf float tolerance', input: { schema: { type: 'number', multipleOf: 0.1 }, value: 0.3 }, want: [] },
    { name: 'multipleOf float', input: { schema: { type: 'number', multipleOf: 0.1 }, value: 0.35 }, want: ['spec: Invalid value: 0.35: spec in body should be a multiple of 0.1'] },
    {
      name: 'all number errors: multipleOf, minimum, maximum',
      input: { schema: { type: 'integer', multipleOf: 2, minimum: 10, maximum: 0 }, value: 5 },
      want: [
        'spec: Invalid value: 5: spec in body should be a multiple of 2',
        'spec: Invalid value: 5: spec in body should be greater than or equal to 10',
        'spec: Invalid value: 5: spec in body should be less than or equal to 0',
      ],
    },
  ])('$name', ({ input, want }) => {
    expect(msgs(input.value, input.schema)).toEqual(want);
  });
});

describe('validateValue: arrays and maps', () => {
  it.each<{ name: string; input: { schema: JSONSchemaProps; value: unknown }; want: string[] }>([
    {
      name: 'items',
      input: { schema: { type: 'array', items: { type: 'string' } }, value: ['a', 1] },
      want: ['spec[1]: Invalid value: "integer": spec[1] in body must be of type string: "integer"'],
    },
    {
      name: 'nested items path',
      input: { schema: { type: 'array', items: obj({ name: { type: 'string' } }, { required: ['name'] }) }, value: [{ name: 'a' }, {}] },
      want: ['spec[1].name: Required value'],
    },
    { name: 'minItems', input: { schema: { type: 'array', minItems: 1 }, value: [] }, want: ['spec: Invalid value: 0: spec in body should have at least 1 items'] },
    {
      name: 'uniqueItems',
      input: { schema: { type: 'array', uniqueItems: true }, value: [{ a: 1 }, { a: 1 }] },
      want: [`spec: Invalid value: "": spec in body shouldn't contain duplicates`],
    },
    {
      name: 'additionalProperties schema validates map values',
      input: { schema: { type: 'object', additionalProperties: { type: 'string' } }, value: { a: 'x', b: 2 } },
      want: ['spec.b: Invalid value: "integer": spec.b in body must be of type string: "integer"'],
    },
    {
      name: 'additionalProperties false forbids unknown keys',
      input: { schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }, value: { a: 'x', extra: 1 } },
      want: ['spec: Invalid value: "extra": spec.extra in body is a forbidden property'],
    },
    {
      name: 'minProperties stops the object check',
      input: { schema: { type: 'object', minProperties: 2, required: ['z'] }, value: { a: 1 } },
      want: ['spec: Invalid value: 1: spec in body should have at least 2 properties'],
    },
    {
      name: 'list-type set',
      input: { schema: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' }, value: ['a', 'b', 'a', 'a', 'b'] },
      want: ['spec[2]: Duplicate value: "a"', 'spec[4]: Duplicate value: "b"'],
    },
    {
      name: 'list-type set of objects',
      input: { schema: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 'x-kubernetes-list-type': 'set' }, value: [{ a: 1, b: 2 }, { b: 2, a: 1 }] },
      want: ['spec[1]: Duplicate value: {"a":1,"b":2}'],
    },
    {
      name: 'list-type map, one key',
      input: {
        schema: { type: 'array', items: obj({ type: { type: 'string' } }), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
        value: [{ type: 'Available' }, { type: 'Degraded' }, { type: 'Available' }],
      },
      want: ['spec[2]: Duplicate value: {"type":"Available"}'],
    },
    {
      name: 'list-type map, missing keys collide',
      input: {
        schema: { type: 'array', items: obj({ type: { type: 'string' } }), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
        value: [{}, {}],
      },
      want: ['spec[1]: Duplicate value: {}'],
    },
    {
      name: 'list-type map, two keys',
      input: {
        schema: {
          type: 'array',
          items: obj({ port: { type: 'integer' }, protocol: { type: 'string' } }),
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['protocol', 'port'],
        },
        value: [
          { port: 80, protocol: 'TCP' },
          { port: 80, protocol: 'UDP' },
          { protocol: 'TCP', port: 80 },
        ],
      },
      want: ['spec[2]: Duplicate value: {"port":80,"protocol":"TCP"}'],
    },
    {
      name: 'list-type map needs objects',
      input: { schema: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }, value: ['x'] },
      want: ['spec[0]: Invalid value: "x": must be an object for an array of list-type map'],
    },
    {
      name: 'list-type below a map uses [key]',
      input: {
        schema: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } },
        value: { zone: ['a', 'a'] },
      },
      want: ['spec[zone][1]: Duplicate value: "a"'],
    },
  ])('$name', ({ input, want }) => {
    expect(msgs(input.value, input.schema)).toEqual(want);
  });

  it.each<{ name: string; input: { schema: JSONSchemaProps; value: unknown }; want: unknown }>([
    { name: 'maxItems', input: { schema: { type: 'array', maxItems: 2 }, value: [1, 2, 3] }, want: { type: 'FieldValueTooMany', field: 'spec', badValue: 3, detail: 'must have at most 2 items' } },
    { name: 'maxItems singular', input: { schema: { type: 'array', maxItems: 1 }, value: [1, 2] }, want: { type: 'FieldValueTooMany', field: 'spec', badValue: 2, detail: 'must have at most 1 item' } },
    {
      name: 'maxProperties',
      input: { schema: { type: 'object', maxProperties: 2 }, value: { a: 1, b: 2, c: 3 } },
      want: { type: 'FieldValueTooMany', field: 'spec', badValue: 3, detail: 'must have at most 2 items' },
    },
  ])('$name', ({ input, want }) => {
    expect(validateValue(input.value, input.schema, 'spec')).toEqual([want]);
  });
});

describe('validateValue: allOf, anyOf, oneOf, not', () => {
  it.each<{ name: string; input: { schema: JSONSchemaProps; value: unknown }; want: string[] }>([
    { name: 'anyOf satisfied', input: { schema: { anyOf: [{ type: 'integer' }, { type: 'string' }] }, value: 'a' }, want: [] },
    {
      name: 'anyOf failed reports the closest alternative',
      input: { schema: { anyOf: [{ type: 'integer' }, { type: 'string', maxLength: 1 }] }, value: true },
      want: [
        'spec: Invalid value: "": "spec" must validate at least one schema (anyOf)',
        'spec: Invalid value: "boolean": spec in body must be of type integer: "boolean"',
      ],
    },
    {
      name: 'int-or-string with anyOf',
      input: { schema: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: '^[0-9]+%$' }, value: '50%' },
      want: [],
    },
    { name: 'oneOf exactly one', input: { schema: { oneOf: [{ required: ['a'] }, { required: ['b'] }] }, value: { a: 1 } }, want: [] },
    {
      name: 'oneOf none',
      input: { schema: { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] }, value: {} },
      want: ['spec: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid', 'spec.a: Required value'],
    },
    {
      name: 'oneOf two',
      input: { schema: { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] }, value: { a: 1, b: 2 } },
      want: ['spec: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives'],
    },
    {
      name: 'allOf',
      input: { schema: { type: 'integer', allOf: [{ minimum: 0 }, { maximum: 5 }] }, value: 9 },
      want: ['spec: Invalid value: 9: spec in body should be less than or equal to 5', 'spec: Invalid value: "": "spec" must validate all the schemas (allOf)'],
    },
    {
      name: 'allOf none validated',
      input: { schema: { type: 'integer', allOf: [{ minimum: 10 }, { maximum: 5 }] }, value: 7 },
      want: [
        'spec: Invalid value: 7: spec in body should be greater than or equal to 10',
        'spec: Invalid value: 7: spec in body should be less than or equal to 5',
        'spec: Invalid value: "": "spec" must validate all the schemas (allOf). None validated',
      ],
    },
    { name: 'not', input: { schema: { type: 'string', not: { enum: ['forbidden'] } }, value: 'forbidden' }, want: ['spec: Invalid value: "": "spec" must not validate the schema (not)'] },
    { name: 'not satisfied', input: { schema: { type: 'string', not: { enum: ['forbidden'] } }, value: 'ok' }, want: [] },
  ])('$name', ({ input, want }) => {
    expect(msgs(input.value, input.schema)).toEqual(want);
  });
});

describe('validateValue: embedded resources', () => {
  const schema = obj({
    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
  });
  it.each([
    { name: 'complete', input: { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } }, want: [] },
    { name: 'missing apiVersion and kind', input: { template: { metadata: {} } }, want: ['spec.template.apiVersion: Required value', 'spec.template.kind: Required value'] },
    { name: 'empty kind', input: { template: { apiVersion: 'v1', kind: '' } }, want: ['spec.template.kind: Required value'] },
    { name: 'kind not a string', input: { template: { apiVersion: 'v1', kind: 5 } }, want: ['spec.template.kind: Invalid value: 5: must be a string'] },
    {
      name: 'bad apiVersion',
      input: { template: { apiVersion: 'a/b/c', kind: 'X' } },
      want: ['spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'],
    },
    {
      name: 'bad kind',
      input: { template: { apiVersion: 'v1', kind: 'Config_Map' } },
      want: [
        `spec.template.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ],
    },
  ])('$name', ({ input, want }) => {
    expect(msgs(input, schema)).toEqual(want);
  });
});
