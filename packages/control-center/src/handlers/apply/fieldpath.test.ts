import { describe, expect, it } from 'vitest';
import { fieldPE, fromFieldsV1, goJSON, indexPE, keyPE, parsePE, pathString, PathSet, peKey, toFieldsV1, valuePE, type Path } from './fieldpath.js';

const P = (...p: (string | ReturnType<typeof keyPE>)[]): Path => p.map((x) => (typeof x === 'string' ? fieldPE(x) : x));
const S = (...paths: Path[]) => PathSet.of(...paths);

// structured-merge-diff fieldpath/serialize_test.go TestSerializeV1GoldenData.
const golden = [
  String.raw`{"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\"name\":\"first\"}":{},"k:{\"name\":\"second\"}":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\"aa\"":{},"v:\"ab\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}}`,
  String.raw`{"f:aaa":{"k:{\"name\":\"second\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\"port\":443,\"protocol\":\"udp\"}":{"k:{\"port\":443,\"protocol\":\"tcp\"}":{}}},"k:{\"name\":\"first\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\"name\":\"second\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\"name\":\"first\"}":{"k:{\"name\":\"first\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"k:{\"port\":443,\"protocol\":\"udp\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\"name\":\"first\"}":{"f:aad":{"f:aaf":{}}},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"f:aaa":{"f:aad":{}}},"k:{\"port\":443,\"protocol\":\"udp\"}":{"f:aac":{},"k:{\"name\":\"first\"}":{"i:3":{}},"k:{\"port\":443,\"protocol\":\"udp\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\"name\":\"first\"}":{},"i:2":{}},"v:\"aa\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\"name\":\"first\"}":{"f:aad":{}},"i:2":{}},"v:\"ab\"":{"f:aaf":{"i:4":{}},"k:{\"port\":443,\"protocol\":\"tcp\"}":{},"k:{\"port\":443,\"protocol\":\"udp\"}":{},"v:1":{"k:{\"port\":443,\"protocol\":\"udp\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\"name\":\"second\"}":{"f:aaa":{}},"i:2":{"k:{\"port\":443,\"protocol\":\"tcp\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\"port\":443,\"protocol\":\"tcp\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\"aa\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\"aa\"":{"f:aab":{"k:{\"name\":\"second\"}":{}}}}}`,
];

describe('FieldsV1', () => {
  it.each(golden.map((g, i) => ({ name: `golden ${i}`, input: g })))('round-trips $name byte for byte', ({ input }) => {
    expect(JSON.stringify(toFieldsV1(fromFieldsV1(JSON.parse(input))))).toBe(input);
  });

  it.each([
    { name: 'drops unknown element types', input: '{"f:aaa":{},"r:aab":{}}', want: '{"f:aaa":{}}' },
    { name: 'member with children gets "."', input: '{"f:a":{".":{},"f:b":{}}}', want: '{"f:a":{".":{},"f:b":{}}}' },
    { name: 'a lone "." is a plain member', input: '{"f:a":{".":{}}}', want: '{"f:a":{}}' },
    { name: 'sorts fields before keys before values', input: '{"v:1":{},"k:{\\"a\\":1}":{},"f:z":{},"f:a":{}}', want: '{"f:a":{},"f:z":{},"k:{\\"a\\":1}":{},"v:1":{}}' },
    { name: 'canonicalises key order', input: '{"k:{\\"protocol\\":\\"TCP\\",\\"port\\":80}":{}}', want: '{"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{}}' },
  ])('$name', ({ input, want }) => {
    expect(JSON.stringify(toFieldsV1(fromFieldsV1(JSON.parse(input))))).toBe(want);
  });

  it.each([
    { name: 'not an object', input: [] as unknown },
    { name: 'bad value', input: { 'f:a': 1 } },
    { name: 'no colon', input: { fa: {} } },
    { name: 'bad key JSON', input: { 'k:{': {} } },
  ])('rejects $name', ({ input }) => {
    expect(() => fromFieldsV1(input)).toThrow();
  });

  it('encodes what a create of a custom resource owns', () => {
    const s = S(P('metadata', 'labels'), P('metadata', 'labels', 'app'), P('spec'), P('spec', 'replicas'), P('spec', 'conditions', keyPE({ type: 'Ready' })), P('spec', 'conditions', keyPE({ type: 'Ready' }), 'status'));
    expect(toFieldsV1(s)).toEqual({
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { '.': {}, 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } }, 'f:replicas': {} },
    });
  });
});

describe('path elements', () => {
  it.each([
    { name: 'field', pe: fieldPE('spec'), key: 'f:spec', str: '.spec' },
    { name: 'key', pe: keyPE({ protocol: 'TCP', port: 80 }), key: 'k:{"port":80,"protocol":"TCP"}', str: '[port=80,protocol="TCP"]' },
    { name: 'value', pe: valuePE('a'), key: 'v:"a"', str: '[="a"]' },
    { name: 'index', pe: indexPE(3), key: 'i:3', str: '[3]' },
    { name: 'HTML escaped like Go', pe: valuePE('<a&b>'), key: 'v:"\\u003ca\\u0026b\\u003e"', str: '[="<a&b>"]' },
  ])('$name', ({ pe, key, str }) => {
    expect(peKey(pe)).toBe(key);
    expect(peKey(parsePE(key)!)).toBe(key);
    expect(pathString([pe])).toBe(str);
  });

  it('renders paths as conflict messages do', () => {
    expect(pathString(P('spec', 'conditions', keyPE({ type: 'Ready' }), 'status'))).toBe('.spec.conditions[type="Ready"].status');
  });

  it('writes JSON like Go (sorted keys)', () => {
    expect(goJSON({ b: 1, a: [true, null, 'x&y'] })).toBe('{"a":[true,null,"x\\u0026y"],"b":1}');
  });
});

// structured-merge-diff fieldpath/set_test.go TestSetDifference.
describe('set operations', () => {
  it.each([
    { name: 'removes simple path', a: S(P('a')), b: S(P('a')), diff: S(), rdiff: S() },
    { name: 'removes direct path', a: S(P('a', 'b', 'c')), b: S(P('a', 'b', 'c')), diff: S(), rdiff: S() },
    { name: 'only removes matching child', a: S(P('a', 'b', 'c'), P('b', 'b', 'c')), b: S(P('a', 'b', 'c')), diff: S(P('b', 'b', 'c')), rdiff: S(P('b', 'b', 'c')) },
    { name: 'does not remove parent of specific path', a: S(P('a')), b: S(P('a', 'aa')), diff: S(P('a')), rdiff: S(P('a')) },
    { name: 'RecursiveDifference removes nested path', a: S(P('a', 'b', 'c')), b: S(P('a')), diff: S(P('a', 'b', 'c')), rdiff: S() },
    {
      name: 'RecursiveDifference only removes nested path for matching children',
      a: S(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      b: S(P('a', 'aa')),
      diff: S(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      rdiff: S(P('a', 'ab', 'aba')),
    },
    { name: 'RecursiveDifference removes all matching children', a: S(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')), b: S(P('a')), diff: S(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')), rdiff: S() },
  ])('$name', ({ a, b, diff, rdiff }) => {
    expect(a.difference(b).equals(diff)).toBe(true);
    expect(a.recursiveDifference(b).equals(rdiff)).toBe(true);
  });

  it('unions, intersects and iterates in upstream order', () => {
    const a = S(P('a', 'b'), P('c'));
    const b = S(P('a', 'd'), P('c'), P('e'));
    expect(a.union(b).toString()).toBe(['.c', '.e', '.a.b', '.a.d'].join('\n'));
    expect(a.intersection(b).toString()).toBe('.c');
    expect(a.union(b).has(P('a', 'd'))).toBe(true);
    expect(a.has(P('a'))).toBe(false);
    expect(S().isEmpty()).toBe(true);
    expect(a.union(b).size()).toBe(4);
  });
});
