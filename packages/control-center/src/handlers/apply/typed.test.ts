import { describe, expect, it } from 'vitest';
import { fieldPE, keyPE, PathSet, valuePE, type Path, type PathElement } from './fieldpath.js';
import { atomicList, fromSchema, mapList, mapOf, SCALAR, setList, struct, UNTYPED, type FieldType } from './schema.js';
import { compare, ensureNamedFieldsAreMembers, merge, removeItems, toFieldSet, TypedValueError } from './typed.js';

const P = (...p: (string | PathElement)[]): Path => p.map((x) => (typeof x === 'string' ? fieldPE(x) : x));
const S = (...paths: Path[]) => PathSet.of(...paths);
const lines = (s: PathSet) => s.toString().split('\n').filter(Boolean).sort();

// Schemas of structured-merge-diff typed/merge_test.go.
const stringPair = struct({ key: SCALAR, value: SCALAR /* __untyped_atomic_ */ });
const nestedMap = struct({ inner: mapOf(SCALAR) });
const nestedStruct = struct({ inner: struct({ value: SCALAR }) });
const nestedList = struct({ inner: atomicList(SCALAR) });
const myStruct = struct({ numeric: SCALAR, string: SCALAR, bool: SCALAR, setStr: setList(SCALAR), setBool: setList(SCALAR), setNumeric: setList(SCALAR) });
const myElement = struct({ key: SCALAR, id: SCALAR, value: mapOf(SCALAR), bv: SCALAR, nv: SCALAR });
const myRoot = struct({ list: mapList(['key', 'id'], myElement), atomicList: atomicList(SCALAR) });

describe('merge (structured-merge-diff typed/merge_test.go)', () => {
  it.each([
    { name: 'simple pair: scalar replaces map', t: stringPair, lhs: '{"key":"foo","value":{}}', rhs: '{"key":"foo","value":1}', want: '{"key":"foo","value":1}' },
    { name: 'simple pair: map replaces scalar', t: stringPair, lhs: '{"key":"foo","value":1}', rhs: '{"key":"foo","value":{}}', want: '{"key":"foo","value":{}}' },
    { name: 'simple pair: null replaced', t: stringPair, lhs: '{"key":"foo","value":null}', rhs: '{"key":"foo","value":{}}', want: '{"key":"foo","value":{}}' },
    { name: 'simple pair: fields add up', t: stringPair, lhs: '{"key":"foo"}', rhs: '{"value":true}', want: '{"key":"foo","value":true}' },
    { name: 'null/empty map 1', t: nestedMap, lhs: '{}', rhs: '{"inner":{}}', want: '{"inner":{}}' },
    { name: 'null/empty map 2', t: nestedMap, lhs: '{}', rhs: '{"inner":null}', want: '{"inner":null}' },
    { name: 'null/empty map 3', t: nestedMap, lhs: '{"inner":null}', rhs: '{"inner":{}}', want: '{"inner":{}}' },
    { name: 'null/empty map 4', t: nestedMap, lhs: '{"inner":{}}', rhs: '{"inner":null}', want: '{"inner":null}' },
    { name: 'null/empty struct', t: nestedStruct, lhs: '{"inner":{}}', rhs: '{"inner":null}', want: '{"inner":null}' },
    { name: 'null/empty list 1', t: nestedList, lhs: '{"inner":[]}', rhs: '{"inner":null}', want: '{"inner":null}' },
    { name: 'null/empty list 2', t: nestedList, lhs: '{"inner":null}', rhs: '{"inner":[]}', want: '{"inner":[]}' },
    { name: 'grab bag: numbers', t: myStruct, lhs: '{"numeric":1}', rhs: '{"numeric":3.14159}', want: '{"numeric":3.14159}' },
    { name: 'grab bag: fields', t: myStruct, lhs: '{"string":"aoeu"}', rhs: '{"bool":true}', want: '{"string":"aoeu","bool":true}' },
    { name: 'set: subset keeps', t: myStruct, lhs: '{"setStr":["a","b","c"]}', rhs: '{"setStr":["a","b"]}', want: '{"setStr":["a","b","c"]}' },
    { name: 'set: superset', t: myStruct, lhs: '{"setStr":["a","b"]}', rhs: '{"setStr":["a","b","c"]}', want: '{"setStr":["a","b","c"]}' },
    { name: 'set: empty applied', t: myStruct, lhs: '{"setStr":["a","b","c"]}', rhs: '{"setStr":[]}', want: '{"setStr":["a","b","c"]}' },
    { name: 'set: reorder', t: myStruct, lhs: '{"setStr":["a","b"]}', rhs: '{"setStr":["b","a"]}', want: '{"setStr":["b","a"]}' },
    { name: 'set: disjoint', t: myStruct, lhs: '{"setStr":["a","b","c"]}', rhs: '{"setStr":["d","e","f"]}', want: '{"setStr":["a","b","c","d","e","f"]}' },
    { name: 'set: overlap', t: myStruct, lhs: '{"setStr":["a","b","c","g","f"]}', rhs: '{"setStr":["c","d","e","f"]}', want: '{"setStr":["a","b","c","g","d","e","f"]}' },
    { name: 'set: interleave', t: myStruct, lhs: '{"setStr":["c","d","e","f"]}', rhs: '{"setStr":["a","c","e"]}', want: '{"setStr":["a","c","d","e","f"]}' },
    { name: 'set: shared tail', t: myStruct, lhs: '{"setStr":["a","b","c","x","y","z"]}', rhs: '{"setStr":["d","e","f","x","y","z"]}', want: '{"setStr":["a","b","c","d","e","f","x","y","z"]}' },
    { name: 'set: moved items', t: myStruct, lhs: '{"setStr":["c","a","g","f"]}', rhs: '{"setStr":["c","f","a","g"]}', want: '{"setStr":["c","f","a","g"]}' },
    { name: 'set: wrap around', t: myStruct, lhs: '{"setStr":["a","b","c","d"]}', rhs: '{"setStr":["d","e","f","a"]}', want: '{"setStr":["b","c","d","e","f","a"]}' },
    {
      name: 'set: long interleave',
      t: myStruct,
      lhs: '{"setStr":["c","d","e","f","g","h","i","j"]}',
      rhs: '{"setStr":["2","h","3","e","4","k","l"]}',
      want: '{"setStr":["c","d","f","g","2","h","i","j","3","e","4","k","l"]}',
    },
    {
      name: 'set: longer interleave',
      t: myStruct,
      lhs: '{"setStr":["a","b","c","d","e","f","g","h","i","j"]}',
      rhs: '{"setStr":["1","b","2","h","3","e","4","k","l"]}',
      want: '{"setStr":["a","1","b","c","d","f","g","2","h","i","j","3","e","4","k","l"]}',
    },
    { name: 'set of booleans', t: myStruct, lhs: '{"setBool":[true]}', rhs: '{"setBool":[false]}', want: '{"setBool":[true,false]}' },
    { name: 'set of numbers', t: myStruct, lhs: '{"setNumeric":[1,2,3.14159]}', rhs: '{"setNumeric":[1,2,3]}', want: '{"setNumeric":[1,2,3.14159,3]}' },
    {
      name: 'map list: new key',
      t: myRoot,
      lhs: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      rhs: '{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}',
      want: '{"list":[{"key":"a","id":1,"value":{"a":"a"}},{"key":"a","id":2,"value":{"a":"a"}}]}',
    },
    {
      name: 'map list: live first',
      t: myRoot,
      lhs: '{"list":[{"key":"a","id":1},{"key":"b","id":1}]}',
      rhs: '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
      want: '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":2}]}',
    },
    { name: 'map list: surround', t: myRoot, lhs: '{"list":[{"key":"b","id":2}]}', rhs: '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}', want: '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}' },
    {
      name: 'map list: reorder',
      t: myRoot,
      lhs: '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
      rhs: '{"list":[{"key":"c","id":3},{"key":"b","id":2}]}',
      want: '{"list":[{"key":"a","id":1},{"key":"c","id":3},{"key":"b","id":2}]}',
    },
    {
      name: 'map list: reorder around',
      t: myRoot,
      lhs: '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
      rhs: '{"list":[{"key":"c","id":3},{"key":"a","id":1}]}',
      want: '{"list":[{"key":"b","id":2},{"key":"c","id":3},{"key":"a","id":1}]}',
    },
    { name: 'atomic list: null', t: myRoot, lhs: '{"atomicList":["a","a","a"]}', rhs: '{"atomicList":null}', want: '{"atomicList":null}' },
    { name: 'atomic list: empty', t: myRoot, lhs: '{"atomicList":["a","b","c"]}', rhs: '{"atomicList":[]}', want: '{"atomicList":[]}' },
    { name: 'atomic list: replaced', t: myRoot, lhs: '{"atomicList":["a","a","a"]}', rhs: '{"atomicList":["a","a"]}', want: '{"atomicList":["a","a"]}' },
    { name: 'map list items merge', t: myRoot, lhs: '{"list":[{"key":"a","id":1,"value":{"x":"1"},"bv":true}]}', rhs: '{"list":[{"key":"a","id":1,"value":{"y":"2"}}]}', want: '{"list":[{"key":"a","id":1,"value":{"x":"1","y":"2"},"bv":true}]}' },
  ])('$name', ({ t, lhs, rhs, want }) => {
    const l = JSON.parse(lhs);
    const before = structuredClone(l);
    expect(merge(l, JSON.parse(rhs), t)).toEqual(JSON.parse(want));
    expect(l).toEqual(before);
  });

  it('rejects duplicate items and items without keys in the applied configuration', () => {
    expect(() => merge({}, JSON.parse('{"list":[{"key":"a","id":1},{"key":"a","id":1}]}'), myRoot)).toThrow(/duplicate entries for key \[id=1,key="a"\]/);
    expect(() => merge({}, JSON.parse('{"list":[{"key":"a"}]}'), myRoot)).toThrow(TypedValueError);
    expect(() => merge({}, JSON.parse('{"list":[{"key":"a"}]}'), myRoot)).toThrow('.list: element 0: associative list with keys has an element that omits key field "id" (and doesn\'t have default value)');
  });

  it('fills a missing key from the schema default', () => {
    const ports = fromSchema({
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } },
        },
      },
    });
    expect(merge({ ports: [{ port: 80, protocol: 'TCP', name: 'a' }] }, { ports: [{ port: 80, name: 'b' }] }, ports)).toEqual({ ports: [{ port: 80, protocol: 'TCP', name: 'b' }] });
  });
});

describe('toFieldSet', () => {
  it.each([
    { name: 'scalars', t: myStruct, v: '{"numeric":1,"string":"a"}', want: ['.numeric', '.string'] },
    { name: 'set items', t: myStruct, v: '{"setStr":["a","b"]}', want: ['.setStr[="a"]', '.setStr[="b"]'] },
    { name: 'atomic list is one leaf', t: myRoot, v: '{"atomicList":["a","b"]}', want: ['.atomicList'] },
    { name: 'map list items and their fields', t: myRoot, v: '{"list":[{"key":"a","id":1,"value":{"x":"1"}}]}', want: ['.list[id=1,key="a"]', '.list[id=1,key="a"].id', '.list[id=1,key="a"].key', '.list[id=1,key="a"].value.x'] },
    { name: 'empty named struct sets nothing', t: nestedStruct, v: '{"inner":{}}', want: [] },
    { name: 'map keys are members, named fields are not', t: nestedMap, v: '{"inner":{"a":"1"}}', want: ['.inner.a'] },
    { name: 'untyped keys are members', t: UNTYPED, v: '{"a":{"b":1}}', want: ['.a', '.a.b'] },
  ])('$name', ({ t, v, want }) => {
    expect(lines(toFieldSet(JSON.parse(v), t))).toEqual([...want].sort());
  });
});

describe('compare', () => {
  it.each([
    { name: 'same', lhs: '{"numeric":1}', rhs: '{"numeric":1}', removed: [], modified: [], added: [] },
    { name: 'modified scalar', lhs: '{"numeric":1}', rhs: '{"numeric":2}', removed: [], modified: ['.numeric'], added: [] },
    { name: 'added and removed', lhs: '{"numeric":1}', rhs: '{"string":"a"}', removed: ['.numeric'], modified: [], added: ['.string'] },
    { name: 'set item added', lhs: '{"setStr":["a"]}', rhs: '{"setStr":["a","b"]}', removed: [], modified: [], added: ['.setStr[="b"]'] },
    { name: 'set order ignored', lhs: '{"setStr":["a","b"]}', rhs: '{"setStr":["b","a"]}', removed: [], modified: [], added: [] },
  ])('$name', ({ lhs, rhs, removed, modified, added }) => {
    const c = compare(JSON.parse(lhs), JSON.parse(rhs), myStruct);
    expect(lines(c.removed)).toEqual(removed);
    expect(lines(c.modified)).toEqual(modified);
    expect(lines(c.added)).toEqual(added);
  });

  it('adds every path of a new subtree, including the subtree itself', () => {
    const c = compare({}, { inner: { value: 1 } }, nestedStruct);
    expect(lines(c.added)).toEqual(['.inner', '.inner.value']);
    const r = compare({ list: [{ key: 'a', id: 1, bv: true }] }, { list: [] }, myRoot);
    expect(lines(r.removed)).toEqual(['.list[id=1,key="a"]', '.list[id=1,key="a"].bv', '.list[id=1,key="a"].id', '.list[id=1,key="a"].key']);
  });
});

describe('removeItems (structured-merge-diff typed/remove_test.go)', () => {
  it.each([
    { name: 'a field', t: myStruct, v: '{"numeric":1,"string":"a"}', set: S(P('numeric')), want: '{"string":"a"}' },
    { name: 'set item', t: myStruct, v: '{"setStr":["a","b"]}', set: S(P('setStr', valuePE('a'))), want: '{"setStr":["b"]}' },
    { name: 'map list item', t: myRoot, v: '{"list":[{"key":"a","id":1},{"key":"b","id":2}]}', set: S(P('list', keyPE({ key: 'a', id: 1 }))), want: '{"list":[{"key":"b","id":2}]}' },
    { name: 'field inside an item', t: myRoot, v: '{"list":[{"key":"a","id":1,"bv":true}]}', set: S(P('list', keyPE({ key: 'a', id: 1 }), 'bv')), want: '{"list":[{"key":"a","id":1}]}' },
    { name: 'emptied maps go away', t: nestedMap, v: '{"inner":{"a":"1"}}', set: S(P('inner', 'a')), want: '{}' },
    { name: 'atomic list untouched by children', t: myRoot, v: '{"atomicList":["a"]}', set: S(P('atomicList', valuePE('a'))), want: '{"atomicList":["a"]}' },
  ])('$name', ({ t, v, set, want }) => {
    expect(removeItems(JSON.parse(v), set, t) ?? {}).toEqual(JSON.parse(want));
  });
});

// structured-merge-diff fieldpath/set_test.go TestEnsureNamedFieldsAreMembers (nestedSchema).
describe('ensureNamedFieldsAreMembers', () => {
  // type: map with fields named (type), list (map list by name of type), value (scalar); other keys of type.
  const recursive: FieldType = {
    ...struct({}),
    field: (n) => (n === 'named' ? recursive : n === 'list' ? mapList(['name'], recursive) : n === 'value' ? SCALAR : undefined),
    elem: () => recursive,
  };
  it.each([
    { name: 'named chain', set: S(P('named', 'named', 'value')), want: S(P('named', 'named', 'value'), P('named', 'named'), P('named')) },
    {
      name: 'map keys are not named',
      set: S(P('named', 'a', 'named', 'value'), P('a', 'named', 'value'), P('a', 'b', 'value')),
      want: S(P('named', 'a', 'named', 'value'), P('named', 'a', 'named'), P('named'), P('a', 'named', 'value'), P('a', 'named'), P('a', 'b', 'value')),
    },
    {
      name: 'through list items',
      set: S(P('named', 'list', keyPE({ name: 'a' }), 'named', 'a', 'value')),
      want: S(P('named', 'list', keyPE({ name: 'a' }), 'named', 'a', 'value'), P('named', 'list', keyPE({ name: 'a' }), 'named'), P('named', 'list'), P('named')),
    },
  ])('$name', ({ set, want }) => {
    expect(lines(ensureNamedFieldsAreMembers(set, recursive))).toEqual(lines(want));
  });
});
