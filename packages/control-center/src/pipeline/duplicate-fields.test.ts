import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { countJSONKeys, duplicateJSONFields, duplicateYAMLKeys } from './duplicate-fields.js';
import { checkNesting } from './decode.js';

describe('duplicate fields of a JSON body', () => {
  it.each([
    ['{"a":1,"a":2}', ['a']],
    ['{"metadata":{"name":"x","name":"y"},"spec":{}}', ['metadata.name']],
    ['{"spec":{"list":[{"n":1},{"n":1,"n":2}]}}', ['spec.list[1].n']],
    ['{"a":[[{"x":1,"x":2}]],"b":{"c":{"d":1,"d":2}},"b":3}', ['a[0][0].x', 'b.c.d', 'b']],
    // A key spelled with an escape is the same key.
    ['{"c\\u0061":1,"ca":2}', ['ca']],
    // Quotes, braces, commas and colons inside strings are text, not structure.
    ['{"a":"x\\",\\"a\\":{","b":"\\\\","c":"}]:,"}', []],
    ['{ "a" : 1 ,\n "b" :\t{ "a" : 1 } }', []],
    ['[{"a":1},{"a":1}]', []],
  ] as const)('%s → %j', (text, want) => {
    expect(duplicateJSONFields(text)).toEqual(want);
  });

  it.each([
    '{"a":1,"a":2}',
    '{"last-applied":"{\\"apiVersion\\":\\"v1\\",\\"a\\":1}","x":{"y":[1,{"z":"\\\\"}]}}',
    '{ "a" : 1 ,\n "b" :\t{ "a" : 1 }, "s": ":" }',
    '{"c\\u0061":1,"ca":2,"e\\\\":3}',
  ])('counts the keys of %s as the text has them (more than the parsed value when some repeat)', (text) => {
    const dups = duplicateJSONFields(text).length;
    expect(countJSONKeys(text)).toBe(checkNesting(JSON.parse(text)) + dups);
  });
});

describe('duplicate fields of a large JSON body: linear, not one key against all before it', () => {
  it('finds the one repeated key among 100,000', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":"v"`).join(',');
    expect(duplicateJSONFields(`{"data":{${keys},"k0":"w"}}`)).toEqual(['data.k0']);
  });
});

describe('duplicate keys of a YAML body', () => {
  const dups = (text: string) => duplicateYAMLKeys(YAML.parseDocument(text, { uniqueKeys: false, merge: true }), text);

  it('reports the line of a block value, as go-yaml does', () => {
    expect(dups('data:\n  a: "1"\ndata:\n  b: "2"\n')).toEqual(['yaml: unmarshal errors:\n  line 4: key "data" already set in map']);
  });

  it('treats merge keys (<<) as merges, not fields', () => {
    const text = 'base: &b\n  x: "1"\nother: &o\n  z: "3"\ndata:\n  <<: *b\n  <<: *o\n  y: "2"\n';
    expect(dups(text)).toEqual([]);
    expect(YAML.parse(text, { merge: true }).data).toEqual({ x: '1', z: '3', y: '2' });
  });

  it('lists every repetition of 100,000 alternating keys, each with its line', () => {
    const text = `data:\n${Array.from({ length: 100_000 }, (_, i) => `  k${i % 2}: "v"\n`).join('')}`;
    const [msg] = dups(text);
    const lines = msg!.split('\n').slice(1);
    expect(lines).toHaveLength(99_998);
    expect(lines[0]).toBe('  line 4: key "k0" already set in map');
    expect(lines.at(-1)).toBe('  line 100001: key "k1" already set in map');
  });

  it('lists every repetition with its line, as go-yaml does', () => {
    expect(dups('a: 1\nb:\n  c: 1\n  c: 2\na: 3\n')).toEqual(['yaml: unmarshal errors:\n  line 4: key "c" already set in map\n  line 5: key "a" already set in map']);
  });

  it('finds them in lists and flow mappings (JSON sent as YAML)', () => {
    expect(dups('items:\n- {x: 1, x: 2}\n')).toEqual(['yaml: unmarshal errors:\n  line 2: key "x" already set in map']);
    expect(dups('{"a": 1, "a": 2}')).toEqual(['yaml: unmarshal errors:\n  line 1: key "a" already set in map']);
  });

  it('none: []', () => {
    expect(dups('a: 1\nb: {a: 1}\nc: [{a: 1}, {a: 1}]\n')).toEqual([]);
  });
});
