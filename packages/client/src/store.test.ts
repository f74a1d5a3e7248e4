import { describe, expect, it } from 'vitest';
import { clone, DeletedFinalStateUnknown, deletedObject, keyOf, NamespaceIndex, namespaceIndexFunc, splitKey, Store } from './store.js';
import type { KubeObject } from './types.js';

const obj = (name: string, namespace?: string, labels?: Record<string, string>): KubeObject => ({ metadata: { name, namespace, labels } });

describe('keyOf', () => {
  it.each([
    { name: 'namespaced', input: obj('a', 'ns') as KubeObject | DeletedFinalStateUnknown, want: 'ns/a' },
    { name: 'cluster-scoped', input: obj('mgmt-1'), want: 'mgmt-1' },
    { name: 'tombstone', input: new DeletedFinalStateUnknown('ns/b', obj('b', 'ns')), want: 'ns/b' },
  ])('$name', ({ input, want }) => expect(keyOf(input)).toBe(want));

  it('throws without a name', () => expect(() => keyOf({ metadata: {} })).toThrow(/metadata.name/));
});

describe('splitKey', () => {
  it.each([
    { name: 'namespaced', input: 'clusters/example', want: { namespace: 'clusters', name: 'example' } },
    { name: 'cluster-scoped', input: 'mgmt-1', want: { namespace: '', name: 'mgmt-1' } },
  ])('$name', ({ input, want }) => expect(splitKey(input)).toEqual(want));

  it.each(['', 'a/b/c', '/a', 'a/'])('rejects %j', (key) => expect(() => splitKey(key)).toThrow(/unexpected key/));
});

describe('Store', () => {
  it('indexes on set and moves index entries on update and delete', () => {
    const s = new Store<KubeObject>();
    s.addIndexer(NamespaceIndex, namespaceIndexFunc);
    s.addIndexer('byTeam', (o) => Object.values(o.metadata.labels ?? {}));
    s.set('ns1/a', obj('a', 'ns1', { team: 'red' }));
    s.set('ns1/b', obj('b', 'ns1', { team: 'blue' }));
    s.set('ns2/c', obj('c', 'ns2', { team: 'red' }));
    expect(s.byIndex(NamespaceIndex, 'ns1').map(keyOf).sort()).toEqual(['ns1/a', 'ns1/b']);
    expect(s.byIndex('byTeam', 'red').map(keyOf).sort()).toEqual(['ns1/a', 'ns2/c']);
    s.set('ns1/a', obj('a', 'ns1', { team: 'blue' }));
    expect(s.byIndex('byTeam', 'red').map(keyOf)).toEqual(['ns2/c']);
    expect(s.byIndex('byTeam', 'blue').map(keyOf).sort()).toEqual(['ns1/a', 'ns1/b']);
    s.delete('ns2/c');
    expect(s.byIndex('byTeam', 'red')).toEqual([]);
    expect(s.size).toBe(2);
    expect(() => s.byIndex('nope', 'x')).toThrow(/does not exist/);
  });

  it('hands out references, and clone() makes a safe copy', () => {
    const s = new Store<KubeObject>();
    const o = obj('a', 'ns', { x: '1' });
    s.set('ns/a', o);
    expect(s.get('ns/a')).toBe(o);
    const copy = clone(s.get('ns/a')!);
    copy.metadata.labels = { x: '2' };
    expect(s.get('ns/a')!.metadata.labels).toEqual({ x: '1' });
  });

  it('refuses indexers once it holds objects, and duplicates', () => {
    const s = new Store<KubeObject>();
    s.addIndexer('a', () => []);
    expect(() => s.addIndexer('a', () => [])).toThrow(/already exists/);
    s.set('x', obj('x'));
    expect(() => s.addIndexer('b', () => [])).toThrow(/already has items/);
  });

  it('deletedObject unwraps tombstones', () => {
    const o = obj('a', 'ns');
    expect(deletedObject(o)).toBe(o);
    expect(deletedObject(new DeletedFinalStateUnknown('ns/a', o))).toBe(o);
  });
});
