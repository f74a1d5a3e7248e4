import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { randomBytes } from 'node:crypto';
import { createMergePatch, desiredDownstream, downstreamPatch, AnnotationSyncedKeys, TotalAnnotationSizeLimitB } from './transform.js';

const up: KubeObject = {
  apiVersion: 'hypershift.openshift.io/v1beta1',
  kind: 'HostedCluster',
  metadata: {
    name: 'ex',
    namespace: 'clusters',
    uid: 'u-1',
    generation: 3,
    resourceVersion: '77',
    labels: { team: 'a', 'controlcenter.hcc.dev/management-cluster': 'mgmt-1' },
    annotations: { note: 'x', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
    finalizers: ['controlcenter.hcc.dev/syncer'],
    managedFields: [{}],
  },
  spec: { release: { image: 'img:4.16' }, clusterID: '', infraID: '' },
  status: { conditions: [] },
};

describe('desiredDownstream', () => {
  it('copies spec and user metadata, never server fields or hcc placement', () => {
    const d = desiredDownstream(up, undefined, 'mgmt-1', ['spec']);
    expect(d.metadata).toMatchObject({ name: 'ex', namespace: 'clusters' });
    expect(d.metadata.labels).toEqual({ team: 'a', 'controlcenter.hcc.dev/synced-by': 'mgmt-1' });
    expect(d.metadata.annotations).toMatchObject({ note: 'x', 'controlcenter.hcc.dev/upstream-uid': 'u-1', 'controlcenter.hcc.dev/upstream-generation': '3' });
    expect(d.metadata.annotations).not.toHaveProperty('kubectl.kubernetes.io/last-applied-configuration');
    for (const f of ['uid', 'resourceVersion', 'finalizers', 'managedFields', 'generation']) expect(d.metadata).not.toHaveProperty(f);
    expect(d.spec).toEqual(up.spec);
    expect(d).not.toHaveProperty('status');
  });

  it("never copies a copied-up Secret's upsynced-from label into another management cluster", () => {
    const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ex-admin-kubeconfig', namespace: 'clusters', uid: 's-1', labels: { team: 'a', 'controlcenter.hcc.dev/upsynced-from': 'mgmt-1' } }, data: { kubeconfig: 'eA==' } };
    const d = desiredDownstream(secret, undefined, 'mgmt-2', ['type', 'data', 'immutable']);
    expect(d.metadata.labels).toEqual({ team: 'a', 'controlcenter.hcc.dev/synced-by': 'mgmt-2' });
  });

  it('keeps what the operator owns downstream', () => {
    const down: KubeObject = {
      ...desiredDownstream(up, undefined, 'mgmt-1', ['spec']),
      status: { conditions: [{ type: 'Available', status: 'True' }] },
    };
    down.metadata = {
      ...down.metadata,
      uid: 'd-1',
      resourceVersion: '5',
      finalizers: ['hypershift.openshift.io/finalizer'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'y', uid: 'z' }],
      labels: { ...down.metadata.labels, 'hypershift.openshift.io/auto-created-for-infra': 'ex' },
    };
    (down.spec as Record<string, unknown>).clusterID = 'generated-by-operator';
    const d = desiredDownstream(up, down, 'mgmt-1', ['spec']);
    expect(d.metadata.finalizers).toEqual(['hypershift.openshift.io/finalizer']);
    expect(d.metadata.ownerReferences).toHaveLength(1);
    expect(d.metadata.labels).toHaveProperty('hypershift.openshift.io/auto-created-for-infra', 'ex');
    expect((d.spec as Record<string, unknown>).clusterID).toBe('generated-by-operator');
    expect(d.status).toEqual(down.status);
    expect(downstreamPatch(d, down, ['spec'])).toBeUndefined();
  });

  it('removes a label the user removed upstream, but not the operator-added ones', () => {
    const first = desiredDownstream(up, undefined, 'mgmt-1', ['spec']);
    const down = { ...first, metadata: { ...first.metadata, labels: { ...first.metadata.labels, operator: 'yes' } } };
    const up2 = { ...up, metadata: { ...up.metadata, labels: { 'controlcenter.hcc.dev/management-cluster': 'mgmt-1' } } };
    const d = desiredDownstream(up2, down, 'mgmt-1', ['spec']);
    expect(d.metadata.labels).toEqual({ operator: 'yes', 'controlcenter.hcc.dev/synced-by': 'mgmt-1' });
    expect(JSON.parse(d.metadata.annotations![AnnotationSyncedKeys]!)).toEqual({ labels: [], annotations: ['note'] });
  });

  it("keeps a copy with thousands of annotation keys within kube-apiserver's annotation size limit, and still removes a key removed upstream", () => {
    const size = (a: Record<string, string>) => Object.entries(a).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
    // 2,500 keys of 60 characters: 150 KB, well within the limit upstream; listing them again as JSON would double it.
    const many = Object.fromEntries(Array.from({ length: 2500 }, (_, i) => [`k${String(i).padStart(4, '0')}-${'x'.repeat(54)}`, '']));
    const big = { ...up, metadata: { ...up.metadata, annotations: many } };
    const first = desiredDownstream(big, undefined, 'mgmt-1', ['spec']);
    expect(size(first.metadata.annotations!)).toBeLessThanOrEqual(TotalAnnotationSizeLimitB);
    expect(first.metadata.annotations![AnnotationSyncedKeys]).toMatch(/^gzip:/);
    const removedKey = Object.keys(many)[7]!;
    const after = desiredDownstream({ ...big, metadata: { ...big.metadata, annotations: Object.fromEntries(Object.entries(many).filter(([k]) => k !== removedKey)) } }, first, 'mgmt-1', ['spec']);
    expect(after.metadata.annotations).not.toHaveProperty(removedKey);
    expect(Object.keys(after.metadata.annotations!).filter((k) => k.startsWith('k'))).toHaveLength(2499);
    // A small record stays plain JSON.
    expect(JSON.parse(desiredDownstream(up, undefined, 'mgmt-1', ['spec']).metadata.annotations![AnnotationSyncedKeys]!)).toEqual({ labels: ['team'], annotations: ['note'] });
  });

  it('records digests of the keys when even gzipped names would not fit, and still removes a key removed upstream', () => {
    // Keys that do not compress (random), 200 KB of them.
    const random = Object.fromEntries(Array.from({ length: 2000 }, () => [randomBytes(50).toString('hex'), '']));
    const big = { ...up, metadata: { ...up.metadata, annotations: { ...random, 'hypershift.openshift.io/force-upgrade-to': 'quay.io/x:1' } } };
    const first = desiredDownstream(big, undefined, 'mgmt-1', ['spec']);
    expect(first.metadata.annotations![AnnotationSyncedKeys]).toMatch(/^sha256-48:/);
    expect(Object.entries(first.metadata.annotations!).reduce((n, [k, v]) => n + k.length + v.length, 0)).toBeLessThanOrEqual(TotalAnnotationSizeLimitB);
    // The operator adds one of its own; the user removes one upstream: that one goes, the operator's stays.
    const down = { ...first, metadata: { ...first.metadata, annotations: { ...first.metadata.annotations, 'hypershift.openshift.io/operator-note': 'x' } } };
    const { 'hypershift.openshift.io/force-upgrade-to': _gone, ...rest } = big.metadata.annotations;
    const after = desiredDownstream({ ...big, metadata: { ...big.metadata, annotations: rest } }, down, 'mgmt-1', ['spec']);
    expect(after.metadata.annotations).not.toHaveProperty('hypershift.openshift.io/force-upgrade-to');
    expect(after.metadata.annotations).toHaveProperty('hypershift.openshift.io/operator-note', 'x');
    expect(Object.keys(after.metadata.annotations!).filter((k) => random[k] !== undefined)).toHaveLength(2000);
  });

  it('leaves the record out when nothing fits (the syncer says so): the copy stays within the limit', () => {
    const random = Object.fromEntries(Array.from({ length: 2580 }, () => [randomBytes(50).toString('hex'), '']));
    const d = desiredDownstream({ ...up, metadata: { ...up.metadata, annotations: random } }, undefined, 'mgmt-1', ['spec']);
    expect(d.metadata.annotations).not.toHaveProperty(AnnotationSyncedKeys);
    expect(Object.entries(d.metadata.annotations!).reduce((n, [k, v]) => n + k.length + v.length, 0)).toBeLessThanOrEqual(TotalAnnotationSizeLimitB);
  });

  it('corrects local drift of spec', () => {
    const first = desiredDownstream(up, undefined, 'mgmt-1', ['spec']);
    const drifted = { ...first, spec: { ...(first.spec as object), release: { image: 'edited-locally' } } };
    expect(downstreamPatch(desiredDownstream(up, drifted, 'mgmt-1', ['spec']), drifted, ['spec'])).toEqual({ spec: { release: { image: 'img:4.16' } } });
    expect((desiredDownstream(up, drifted, 'mgmt-1', ['spec']).spec as { release: { image: string } }).release.image).toBe('img:4.16');
  });
});

describe('createMergePatch (RFC 7386)', () => {
  it('sets changed members, nulls removed ones, recurses into objects and replaces arrays whole', () => {
    expect(createMergePatch({ a: 1, b: { c: 1, d: 2 }, e: [1, 2], f: 'x' }, { a: 1, b: { c: 2 }, e: [1], g: true })).toEqual({ b: { c: 2, d: null }, e: [1], f: null, g: true });
    expect(createMergePatch({ a: { b: 1 } }, { a: { b: 1 } })).toBeUndefined();
    expect(createMergePatch({ a: 1 }, { a: null })).toEqual({ a: null });
    expect(createMergePatch({ a: { b: 1 } }, { a: 'flat' })).toEqual({ a: 'flat' });
    expect(createMergePatch({}, { a: { b: null, c: 1 } })).toEqual({ a: { b: null, c: 1 } });
    // An explicit null on both sides is no change (no write that only re-deletes it).
    expect(createMergePatch({ a: null, b: 1 }, { a: null, b: 1 })).toBeUndefined();
  });

  it('treats keys named like Object.prototype members (constructor, __proto__) as keys', () => {
    // A ConfigMap's data may hold any key matching [-._a-zA-Z0-9]+.
    expect(createMergePatch({ constructor: 'x', toString: 'y', a: '1' }, { a: '1' })).toEqual({ constructor: null, toString: null });
    const to = JSON.parse('{"__proto__":"p","valueOf":"v"}') as Record<string, unknown>;
    const patch = createMergePatch({}, to) as Record<string, unknown>;
    expect(JSON.stringify(patch)).toBe('{"__proto__":"p","valueOf":"v"}');
    expect(Object.getPrototypeOf(patch)).toBe(Object.prototype);
    expect(createMergePatch(JSON.parse('{"__proto__":"p"}'), {})).toEqual(JSON.parse('{"__proto__":null}'));
  });

  it('round-trips: applying the patch to `from` gives `to`', () => {
    const apply = (t: unknown, p: unknown): unknown => {
      if (typeof p !== 'object' || p === null || Array.isArray(p)) return p;
      const out: Record<string, unknown> = typeof t === 'object' && t !== null && !Array.isArray(t) ? { ...(t as Record<string, unknown>) } : {};
      for (const [k, v] of Object.entries(p)) if (v === null) delete out[k];
      else out[k] = apply(out[k], v);
      return out;
    };
    const from = { spec: { release: { image: 'a' }, services: [{ service: 'APIServer' }], dns: { baseDomain: 'x', privateZoneID: 'z' } }, labels: { a: '1' } };
    const to = { spec: { release: { image: 'b' }, services: [], dns: { baseDomain: 'x' }, pausedUntil: 'true' }, labels: { b: '2' } };
    expect(apply(from, createMergePatch(from, to))).toEqual(to);
  });
});
