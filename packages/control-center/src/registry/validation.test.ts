import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { dedupOwnerReferences, validateObjectMeta, validateOwnerReferences } from './validation.js';

const ref = (o: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u1', ...o });

describe('validateOwnerReferences (apimachinery ValidateOwnerReferences)', () => {
  it('accepts complete references with at most one controller', () => {
    expect(validateOwnerReferences([ref({ controller: true }), ref({ uid: 'u2', name: 'b', controller: false })])).toEqual([]);
  });

  it.each([
    [{ apiVersion: '' }, 'metadata.ownerReferences.apiVersion', 'version must not be empty'],
    [{ apiVersion: 'apps/' }, 'metadata.ownerReferences.apiVersion', 'version must not be empty'],
    [{ kind: '' }, 'metadata.ownerReferences.kind', 'must not be empty'],
    [{ name: '' }, 'metadata.ownerReferences.name', 'must not be empty'],
    [{ uid: '' }, 'metadata.ownerReferences.uid', 'must not be empty'],
    [{ kind: 'Event' }, 'metadata.ownerReferences', '/v1, Kind=Event is disallowed from being an owner'],
  ])('refuses %j', (o, fieldPath, detail) => {
    const errs = validateOwnerReferences([ref(o)]);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ field: fieldPath, detail });
  });

  it('refuses two controllers, naming both', () => {
    const errs = validateOwnerReferences([ref({ controller: true, name: 'a' }), ref({ controller: true, name: 'b', uid: 'u2' })]);
    expect(errs.map((e) => e.detail)).toEqual(['Only one reference can have Controller set to true. Found "true" in references for ConfigMap/a and ConfigMap/b']);
  });

  it('refuses what is not a list of objects', () => {
    expect(validateOwnerReferences('x')).toHaveLength(1);
    expect(validateOwnerReferences([7])).toHaveLength(1);
  });
});

describe('dedupOwnerReferences', () => {
  it('drops exact repeats and warns with their uids, keeping order', () => {
    const obj = { metadata: { name: 'x', ownerReferences: [ref(), ref({ uid: 'u2' }), ref()] } } as unknown as KubeObject;
    expect(dedupOwnerReferences(obj)).toMatch(/^metadata\.ownerReferences contains duplicate entries; .* duplicate UID\(s\) observed: u1$/);
    expect(obj.metadata.ownerReferences?.map((r) => r.uid)).toEqual(['u1', 'u2']);
    expect(dedupOwnerReferences(obj)).toBeUndefined();
  });
});

describe('validateObjectMeta: generateName', () => {
  const meta = (m: Record<string, unknown>) => ({ metadata: { namespace: 'ns', ...m } }) as unknown as KubeObject;
  it('checks it as a name prefix (a trailing "-" allowed), before the name generated from it', () => {
    expect(validateObjectMeta(meta({ generateName: 'web-', name: 'web-x1y2z' }), true, 'subdomain')).toEqual([]);
    const errs = validateObjectMeta(meta({ generateName: 'Bad_', name: 'Bad_kcq4t' }), true, 'subdomain');
    expect(errs.map((e) => e.field)).toEqual(['metadata.generateName', 'metadata.name']);
    expect(errs[0]).toMatchObject({ type: 'FieldValueInvalid', badValue: 'Bad_' });
    expect(validateObjectMeta({ metadata: { generateName: 'Team-', name: 'Team-abcde' } } as unknown as KubeObject, false, 'label').map((e) => e.field)).toEqual(['metadata.generateName', 'metadata.name']);
  });
});
