/**
 * JSON patches apply as kube-apiserver's evanphx/json-patch v4 applies them, leniencies included
 * (a `replace` of a missing key sets it, `test` of a missing key against null passes, `copy` from a
 * missing key writes null, negative array indices), and fail where it fails.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import type { ResourceInfo } from '../../registry/types.js';
import { applyPatch } from './apply-patch.js';

const info = { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true } as unknown as ResourceInfo;
const cm = (): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: '1' }, finalizers: ['x', 'y', 'z'] }, data: { k: 'v' } });
const patch = (ops: unknown[]) => applyPatch('json', info, cm(), ops);
const refused = (ops: unknown[]) => {
  try {
    patch(ops);
  } catch (e) {
    return (e as { code?: number }).code;
  }
  return 'applied';
};

describe('JSON patch as evanphx/json-patch v4', () => {
  it('replace of a key the object lacks sets it (a common script idiom on a real cluster)', () => {
    expect(patch([{ op: 'replace', path: '/metadata/labels/new', value: 'v' }]).metadata.labels).toEqual({ a: '1', new: 'v' });
    expect(patch([{ op: 'replace', path: '/data/k', value: 'w' }]).data).toEqual({ k: 'w' });
  });

  it('test of a missing key against null passes; against anything else it fails', () => {
    expect(patch([{ op: 'test', path: '/data/missing', value: null }, { op: 'add', path: '/data/t', value: '1' }]).data).toEqual({ k: 'v', t: '1' });
    expect(refused([{ op: 'test', path: '/data/missing', value: 'x' }])).toBe(422);
  });

  it('copy from a missing key writes null; move from one fails', () => {
    expect(patch([{ op: 'copy', from: '/data/missing', path: '/data/copied' }]).data).toEqual({ k: 'v', copied: null });
    expect(refused([{ op: 'move', from: '/data/missing', path: '/data/moved' }])).toBe(422);
  });

  it('negative array indices count from the end (add: -1 appends)', () => {
    expect(patch([{ op: 'remove', path: '/metadata/finalizers/-1' }]).metadata.finalizers).toEqual(['x', 'y']);
    expect(patch([{ op: 'replace', path: '/metadata/finalizers/-3', value: 'w' }]).metadata.finalizers).toEqual(['w', 'y', 'z']);
    expect(patch([{ op: 'add', path: '/metadata/finalizers/-1', value: 'n' }]).metadata.finalizers).toEqual(['x', 'y', 'z', 'n']);
    expect(patch([{ op: 'test', path: '/metadata/finalizers/-2', value: 'y' }]).metadata.finalizers).toEqual(['x', 'y', 'z']);
    expect(refused([{ op: 'remove', path: '/metadata/finalizers/-4' }])).toBe(422);
  });

  it('copy and move add at their destination as add does (-1 appends); a move reads it without the moved value', () => {
    expect(patch([{ op: 'copy', from: '/metadata/finalizers/0', path: '/metadata/finalizers/-1' }]).metadata.finalizers).toEqual(['x', 'y', 'z', 'x']);
    expect(patch([{ op: 'move', from: '/data/k', path: '/metadata/finalizers/-1' }]).metadata.finalizers).toEqual(['x', 'y', 'z', 'v']);
    expect(patch([{ op: 'move', from: '/metadata/finalizers/0', path: '/metadata/finalizers/-1' }]).metadata.finalizers).toEqual(['y', 'z', 'x']);
    expect(patch([{ op: 'move', from: '/metadata/finalizers/-1', path: '/metadata/finalizers/0' }]).metadata.finalizers).toEqual(['z', 'x', 'y']);
  });

  it('reads negative indices and Atoi spellings anywhere in a path', () => {
    const withList = (): KubeObject => ({ ...cm(), data: undefined, metadata: { name: 'c', ownerReferences: [{ name: 'a' }, { name: 'b' }] } } as unknown as KubeObject);
    const out = applyPatch('json', info, withList(), [
      { op: 'test', path: '/metadata/ownerReferences/-1/name', value: 'b' },
      { op: 'replace', path: '/metadata/ownerReferences/-2/name', value: 'A' },
    ]);
    expect((out.metadata as { ownerReferences: { name: string }[] }).ownerReferences.map((o) => o.name)).toEqual(['A', 'b']);
    expect(patch([{ op: 'add', path: '/metadata/finalizers/+1', value: 'p' }]).metadata.finalizers).toEqual(['x', 'p', 'y', 'z']);
    expect(patch([{ op: 'replace', path: '/metadata/finalizers/01', value: 'q' }]).metadata.finalizers).toEqual(['x', 'q', 'z']);
    expect(patch([{ op: 'add', path: '/metadata/finalizers/-0', value: 'f' }]).metadata.finalizers).toEqual(['f', 'x', 'y', 'z']);
  });

  it('fails as RFC 6902 where v4 fails too: a missing parent, a remove of a missing key, an index past the end', () => {
    expect(refused([{ op: 'replace', path: '/spec/missing/deeper', value: 1 }])).toBe(422);
    expect(refused([{ op: 'remove', path: '/data/missing' }])).toBe(422);
    expect(refused([{ op: 'move', from: '/metadata', path: '/metadata/labels/m' }])).toBe(422);
    expect(refused([{ op: 'replace', path: '/metadata/finalizers/3', value: 'w' }])).toBe(422);
  });
});
