import { describe, expect, it } from 'vitest';
import { request, useTestControlCenter } from '../testing/in-process.js';
import { allCRDs } from '@hcc/crds';
import { storageVersionHash } from './discovery.js';

describe('discovery: storageVersionHash', () => {
  it('is kube-apiserver\'s: base64 of the first 8 bytes of sha256("group/version/kind")', () => {
    // The values kube-apiserver serves in /api/v1.
    expect(storageVersionHash('', 'v1', 'Pod')).toBe('xPOwRZ+Yhw8=');
    expect(storageVersionHash('', 'v1', 'ConfigMap')).toBe('qFsyl6wFWjQ=');
    expect(storageVersionHash('', 'v1', 'Secret')).toBe('S6u1pOWzb84=');
  });

  const cc = useTestControlCenter();
  it('differs per kind in one group and per storage version, as served', async () => {
    const core = (await request(cc(), 'GET', '/api/v1')).body.resources as { name: string; storageVersionHash?: string }[];
    const hash = (name: string) => core.find((r) => r.name === name)?.storageVersionHash;
    expect(hash('configmaps')).toBe('qFsyl6wFWjQ=');
    expect(hash('secrets')).toBe('S6u1pOWzb84=');
    expect(storageVersionHash('hypershift.openshift.io', 'v1beta1', 'HostedCluster')).not.toBe(storageVersionHash('hypershift.openshift.io', 'v1beta1', 'NodePool'));
    expect(storageVersionHash('hypershift.openshift.io', 'v1', 'HostedCluster')).not.toBe(storageVersionHash('hypershift.openshift.io', 'v1beta1', 'HostedCluster'));
  });
});

describe('the index: GET /', () => {
  const cc = useTestControlCenter({ crds: allCRDs });
  it('lists the paths served, sorted, each of which answers a GET (as kube-apiserver\'s routes.Index)', async () => {
    const r = await request(cc(), 'GET', '/');
    expect(r.code).toBe(200);
    const paths = r.body.paths as string[];
    expect(paths).toEqual([...paths].sort());
    for (const p of ['/api', '/api/v1', '/apis', '/apis/', '/apis/hypershift.openshift.io', '/apis/hypershift.openshift.io/v1beta1', '/apis/controlcenter.hcc.dev/v1alpha1', '/healthz', '/livez', '/readyz', '/readyz/ping', '/metrics', '/openapi/v2', '/openapi/v3', '/version']) {
      expect(paths).toContain(p);
    }
    for (const p of paths) expect([p, (await request(cc(), 'GET', p)).code]).toEqual([p, 200]);
    expect((await request(cc(), 'GET', '/index.html')).body).toEqual(r.body);
  });
});
