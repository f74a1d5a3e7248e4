import { beforeEach, describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '../../apierrors/field.js';
import { normalizeRuleFieldPath, resetUnsupportedRules, unsupportedRules, validateCEL } from './cel.js';
import { checkCustomResource } from './index.js';
import type { JSONSchemaProps, ValidationRule } from './types.js';

type Obj = Record<string, unknown>;

const rule = (r: string, message?: string, extra: Partial<ValidationRule> = {}): ValidationRule => ({ rule: r, ...(message ? { message } : {}), ...extra });
const rules = (...r: ValidationRule[]): Pick<JSONSchemaProps, 'x-kubernetes-validations'> => ({ 'x-kubernetes-validations': r });
/** A resource schema whose `spec` is `spec`. */
const resource = (spec: JSONSchemaProps, root: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec },
  ...root,
});
const obj = (spec: unknown, name = 'x'): Obj => ({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name, namespace: 'ns', uid: 'u' }, spec });

interface Case {
  name: string;
  input: { schema: JSONSchemaProps; obj: Obj; old?: Obj };
  want: string[] | { errors: string[]; warnings: string[] };
}

function run({ schema, obj: o, old }: Case['input']): { errors: string[]; warnings: string[] } {
  const got = validateCEL(o, schema, old ? { oldObj: old } : {});
  return { errors: got.errors.map(fieldErrorMessage), warnings: got.warnings };
}

beforeEach(() => resetUnsupportedRules());

describe('validateCEL: binding self', () => {
  it.each<Case>([
    {
      name: 'integer is int, number is double, int-or-string keeps its kind',
      input: {
        schema: resource({
          type: 'object',
          properties: {
            i: { type: 'integer', ...rules(rule('type(self) == int && self == 3')) },
            d: { type: 'number', ...rules(rule('type(self) == double && self == 3.0')) },
            ios: { 'x-kubernetes-int-or-string': true, ...rules(rule('type(self) == int || self.endsWith("%")')) },
          },
        }),
        obj: obj({ i: 3, d: 3, ios: '50%' }),
      },
      want: [],
    },
    {
      name: 'date-time is a timestamp, duration a duration',
      input: {
        schema: resource({
          type: 'object',
          properties: {
            t: { type: 'string', format: 'date-time', ...rules(rule("self < timestamp('2030-01-01T00:00:00Z')")) },
            d: { type: 'string', format: 'duration', ...rules(rule('self > duration("1m") && duration(self).getSeconds() == 90')) },
          },
        }),
        obj: obj({ t: '2024-05-01T10:00:00Z', d: '1m30s' }),
      },
      want: [],
    },
    {
      name: 'declared fields only; has() sees absent fields; names are escaped',
      input: {
        schema: resource({
          type: 'object',
          properties: { 'a-b': { type: 'string' }, c: { type: 'string' } },
          'x-kubernetes-preserve-unknown-fields': true,
          ...rules(rule("self.a__dash__b == 'v' && !has(self.c) && !has(self.extra) && size(self) == 1")),
        }),
        obj: obj({ 'a-b': 'v', extra: 1 }),
      },
      want: [],
    },
    {
      name: 'root self has apiVersion, kind and metadata.name only',
      input: {
        schema: resource({ type: 'object' }, rules(rule("self.metadata.name == 'x' && !has(self.metadata.namespace) && self.kind == 'Thing'"))),
        obj: obj({}),
      },
      want: [],
    },
    {
      name: 'maps (additionalProperties) are maps with any keys',
      input: {
        schema: resource({ type: 'object', additionalProperties: { type: 'integer' }, ...rules(rule("self['a-b'] == 1 && 'c' in self && self.all(k, self[k] > 0)")) }),
        obj: obj({ 'a-b': 1, c: 2 }),
      },
      want: [],
    },
    {
      name: 'failing rule on an object: type as value (v1.34)',
      input: { schema: resource({ type: 'object', properties: { a: { type: 'integer' } }, ...rules(rule('self.a > 1', 'a must be > 1')) }), obj: obj({ a: 1 }) },
      want: ['spec: Invalid value: "object": a must be > 1'],
    },
    {
      name: 'rule on the root: <nil> path; no message: failed rule',
      input: { schema: resource({ type: 'object' }, rules(rule('self.metadata.name != "x"'))), obj: obj({}) },
      want: ['<nil>: Invalid value: "object": failed rule: self.metadata.name != "x"'],
    },
    {
      name: 'missing field is a runtime error that rejects',
      input: { schema: resource({ type: 'object', properties: { a: { type: 'string' } }, ...rules(rule("self.a == 'x'", 'a is x')) }), obj: obj({}) },
      want: ['spec: Invalid value: "object": no such key: a evaluating rule: a is x'],
    },
    {
      name: 'integer overflow rejects, worded as cel-go (no value)',
      input: { schema: resource({ type: 'object', properties: { big: { type: 'integer' } }, ...rules(rule('self.big * 2 > self.big', 'big doubled')) }), obj: obj({ big: 4611686018427387904 }) },
      want: ['spec: Invalid value: "object": integer overflow evaluating rule: big doubled'],
    },
    {
      name: 'a code point index out of range rejects, worded as cel-go',
      input: { schema: resource({ type: 'object', properties: { s: { type: 'string' } }, ...rules(rule("self.s.substring(3) == ''", 'tail')) }), obj: obj({ s: '\u{1F600}a' }) },
      want: ['spec: Invalid value: "object": index out of range: 3 evaluating rule: tail'],
    },
    {
      name: 'null values are not validated',
      input: { schema: resource({ type: 'object', properties: { a: { type: 'string', nullable: true, ...rules(rule('false')) } } }), obj: obj({ a: null }) },
      want: [],
    },
  ])('$name', ({ input, want }) => {
    expect(run(input).errors).toEqual(want);
  });
});

describe('validateCEL: walking', () => {
  const item = (extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({
    type: 'object',
    properties: { name: { type: 'string' }, port: { type: 'integer', ...rules(rule('self < 100', 'port below 100')) } },
    ...extra,
  });
  it.each<Case>([
    {
      name: 'list items, by index',
      input: { schema: resource({ type: 'object', properties: { l: { type: 'array', items: item() } } }), obj: obj({ l: [{ port: 1 }, { port: 200 }] }) },
      want: ['spec.l[1].port: Invalid value: "integer": port below 100'],
    },
    {
      name: 'map values, by key',
      input: { schema: resource({ type: 'object', properties: { m: { type: 'object', additionalProperties: item() } } }), obj: obj({ m: { a: { port: 1 }, b: { port: 300 } } }) },
      want: ['spec.m[b].port: Invalid value: "integer": port below 100'],
    },
    {
      name: 'allOf rules apply to the same node',
      input: {
        schema: resource({ type: 'object', properties: { a: { type: 'integer' } }, allOf: [{ ...rules(rule('self.a != 2', 'not two')) }, { properties: { a: { ...rules(rule('self != 2', 'a not two')) } } }] }),
        obj: obj({ a: 2 }),
      },
      want: ['spec: Invalid value: "object": not two', 'spec.a: Invalid value: "integer": a not two'],
    },
    {
      name: 'fieldPath and reason',
      input: {
        schema: resource({
          type: 'object',
          properties: { a: { type: 'object', properties: { b: { type: 'string' } } }, m: { type: 'object', additionalProperties: { type: 'string' } } },
          ...rules(
            rule('false', 'fp', { fieldPath: '.a.b' }),
            rule('false', 'fp map', { fieldPath: ".m['x.y']" }),
            rule('false', 'forbidden', { reason: 'FieldValueForbidden' }),
            rule('false', 'required', { reason: 'FieldValueRequired' }),
            rule('false', 'dup', { reason: 'FieldValueDuplicate' }),
          ),
        }),
        obj: obj({ a: { b: 'x' }, m: {} }),
      },
      want: ['spec.a.b: Invalid value: "object": fp', 'spec.m[x.y]: Invalid value: "object": fp map', 'spec: Forbidden: forbidden', 'spec: Required value: required', 'spec: Duplicate value: "object"'],
    },
    {
      name: 'messageExpression, and its fallback',
      input: {
        schema: resource({
          type: 'object',
          properties: { a: { type: 'integer' } },
          ...rules(
            rule('self.a < 2', 'static', { messageExpression: "'a is ' + string(self.a)" }),
            rule('self.a < 2', 'static when the expression fails', { messageExpression: 'self.nope' }),
            rule('self.a < 2', undefined, { messageExpression: "''" }),
          ),
        }),
        obj: obj({ a: 5 }),
      },
      want: ['spec: Invalid value: "object": a is 5', 'spec: Invalid value: "object": static when the expression fails', 'spec: Invalid value: "object": failed rule: self.a < 2'],
    },
  ])('$name', ({ input, want }) => {
    expect(run(input).errors).toEqual(want);
  });

  it.each([
    { name: 'property', input: '.a.b', want: 'a.b' },
    { name: 'quoted', input: "['a'].b", want: 'a.b' },
    { name: 'map key', input: ".m['k.1']", want: 'm[k.1]' },
    { name: 'unknown field', input: '.zz', want: undefined },
    { name: 'index', input: '.l[0]', want: undefined },
  ])('normalizeRuleFieldPath $name', ({ input, want }) => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'object', properties: { b: { type: 'string' } } }, m: { type: 'object', additionalProperties: { type: 'string' } }, l: { type: 'array', items: { type: 'string' } } },
    };
    expect(normalizeRuleFieldPath(input, s)).toEqual(want);
  });
});

describe('validateCEL: transition rules and ratcheting', () => {
  const immutable = rule('self == oldSelf', 'immutable');
  const listMap: JSONSchemaProps = {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'string', ...rules(immutable) } } },
  };
  const schema = resource({
    type: 'object',
    properties: {
      a: { type: 'string', ...rules(immutable) },
      opt: { type: 'string', ...rules(rule('oldSelf.hasValue() ? self == oldSelf.value() : self != "bad"', 'opt', { optionalOldSelf: true })) },
      set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' }, ...rules(immutable) },
      atomic: { type: 'array', items: { type: 'object', properties: { v: { type: 'string', ...rules(immutable) } } } },
      lm: listMap,
      lmWhole: { ...listMap, ...rules(immutable) },
      n: { type: 'integer', ...rules(rule('self < 10', 'n below 10')) },
      parent: {
        type: 'object',
        properties: { tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, lm: listMap },
        ...rules(rule('self == oldSelf', 'parent immutable')),
      },
    },
  });
  it.each<Case>([
    { name: 'create: transition rules do not run', input: { schema, obj: obj({ a: 'x', set: ['a'], lm: [{ name: 'k', v: '1' }] }) }, want: { errors: [], warnings: [] } },
    { name: 'create: optionalOldSelf runs with none', input: { schema, obj: obj({ opt: 'bad' }) }, want: { errors: ['spec.opt: Invalid value: "string": opt'], warnings: [] } },
    { name: 'update: changed immutable field', input: { schema, obj: obj({ a: 'y' }), old: obj({ a: 'x' }) }, want: { errors: ['spec.a: Invalid value: "string": immutable'], warnings: [] } },
    { name: 'update: field added (no old value) is not a transition', input: { schema, obj: obj({ a: 'y' }), old: obj({}) }, want: { errors: [], warnings: [] } },
    { name: 'update: optionalOldSelf sees the old value', input: { schema, obj: obj({ opt: 'b' }), old: obj({ opt: 'a' }) }, want: { errors: ['spec.opt: Invalid value: "string": opt'], warnings: [] } },
    { name: 'update: set equality ignores order', input: { schema, obj: obj({ set: ['b', 'a'] }), old: obj({ set: ['a', 'b'] }) }, want: { errors: [], warnings: [] } },
    { name: 'update: set changed', input: { schema, obj: obj({ set: ['a', 'c'] }), old: obj({ set: ['a', 'b'] }) }, want: { errors: ['spec.set: Invalid value: "array": immutable'], warnings: [] } },
    {
      name: 'update: list-type map items correlate by key, whole-list equality ignores order',
      input: {
        schema,
        obj: obj({ lm: [{ name: 'new', v: 'z' }, { name: 'k', v: '2' }], lmWhole: [{ name: 'b', v: '1' }, { name: 'a', v: '1' }] }),
        old: obj({ lm: [{ name: 'k', v: '1' }], lmWhole: [{ name: 'a', v: '1' }, { name: 'b', v: '1' }] }),
      },
      want: { errors: ['spec.lm[1].v: Invalid value: "string": immutable'], warnings: [] },
    },
    {
      name: 'update: nested set and map-list order does not change equality of the parent',
      input: {
        schema,
        obj: obj({ parent: { tags: ['b', 'a'], lm: [{ name: 'y' }, { name: 'x' }] } }),
        old: obj({ parent: { tags: ['a', 'b'], lm: [{ name: 'x' }, { name: 'y' }] } }),
      },
      want: { errors: [], warnings: [] },
    },
    {
      name: 'update: atomic list items never correlate',
      input: { schema, obj: obj({ atomic: [{ v: 'b' }] }), old: obj({ atomic: [{ v: 'a' }] }) },
      want: { errors: [], warnings: [] },
    },
    {
      name: 'update: an unchanged invalid value is ratcheted to a warning',
      input: { schema, obj: obj({ n: 20, a: 'x' }), old: obj({ n: 20, a: 'x' }) },
      want: { errors: [], warnings: ['spec.n: Invalid value: "integer": n below 10'] },
    },
    {
      name: 'update: a changed invalid value is an error',
      input: { schema, obj: obj({ n: 21 }), old: obj({ n: 20 }) },
      want: { errors: ['spec.n: Invalid value: "integer": n below 10'], warnings: [] },
    },
  ])('$name', ({ input, want }) => {
    expect(run(input)).toEqual(want);
  });
});

describe('validateCEL: unsupported rules and guards', () => {
  it('skips and counts rules hcc cannot compile or run, never rejecting', () => {
    const schema = resource({
      type: 'object',
      properties: { a: { type: 'string' }, q: { type: 'string' } },
      ...rules(rule('self.a.noSuchFunction()', 'unknown function'), rule("quantity(self.q).isGreaterThan(quantity('1'))", 'quantity'), rule("self.a.matches('(a)\\\\1')", 'a backreference RE2 refuses')),
    });
    expect(run({ schema, obj: obj({ a: 'x', q: '2' }) })).toEqual({ errors: [], warnings: [] });
    expect([...unsupportedRules.keys()]).toEqual(['self.a.noSuchFunction()', "quantity(self.q).isGreaterThan(quantity('1'))", "self.a.matches('(a)\\\\1')"]);
    expect([...unsupportedRules.values()].map((u) => u.skipped)).toEqual([1, 1, 1]);
  });

  it('stops at the per-call cost limit like upstream', () => {
    const schema = resource({ type: 'object', properties: { l: { type: 'array', items: { type: 'integer' } } }, ...rules(rule('self.l.all(x, self.l.all(y, x == y || x != y))', 'pairs')) });
    const got = run({ schema, obj: obj({ l: Array.from({ length: 1500 }, (_, i) => i) }) });
    expect(got.errors).toEqual([
      `spec: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: pairs`,
    ]);
  });

  it('stops when the time budget is spent', () => {
    let t = 0;
    const schema = resource({ type: 'object', properties: { a: { type: 'integer', ...rules(rule('self > 0')) }, b: { type: 'integer', ...rules(rule('self > 0')) } } });
    const got = validateCEL(obj({ a: 1, b: 1 }), schema, { budgetMs: 5, now: () => (t += 4) });
    expect(got.errors.map(fieldErrorMessage)).toEqual(['spec.b: Invalid value: "integer": validation failed due to running out of cost budget, no further validation rules will be run']);
  });

  it.each([
    {
      name: 'blocking structural error: CEL skipped with upstream message',
      input: { a: 'not an int' },
      want: [
        'spec.a: Invalid value: "string": spec.a in body must be of type integer: "string"',
        '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      ],
    },
    { name: 'non-blocking structural error: CEL still runs', input: { a: 0 }, want: ['spec.a: Invalid value: 0: spec.a in body should be greater than or equal to 1', 'spec: Invalid value: "object": a positive'] },
  ])('checkCustomResource: $name', ({ input, want }) => {
    const schema = resource({ type: 'object', properties: { a: { type: 'integer', minimum: 1 } }, ...rules(rule('self.a > 0', 'a positive')) });
    expect(checkCustomResource(obj(input), schema, { fieldValidation: 'Strict' }).errors.map(fieldErrorMessage)).toEqual(want);
  });
});
