/**
 * A patch is conditional on the resourceVersion it leaves in the object, whatever its type, as
 * kube-apiserver's GuaranteedUpdate checks the patched object: a JSON patch (RFC 6902) that
 * replaces metadata.resourceVersion with a stale one is a 409 Conflict and writes nothing, on the
 * main resource, /status and /scale, as a merge patch naming it is.
 */
import { describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import { request, useTestControlCenter } from '../testing/in-process.js';
import { hostedClusterBody } from '../testing/fixtures.js';

const CMS = '/api/v1/namespaces/clusters/configmaps';
const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters';
const NPS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/nodepools';
const json = { contentType: 'application/json-patch+json' };
const merge = { contentType: 'application/merge-patch+json' };
const setRV = (rv: string) => ({ op: 'replace', path: '/metadata/resourceVersion', value: rv });

describe('patch preconditions', () => {
  const cc = useTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });

  it('a JSON patch setting a stale resourceVersion is a 409 and writes nothing; the current one applies', async () => {
    const created = await request(cc(), 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: '1' } });
    expect(created.code).toBe(201);
    const stale = created.body.metadata.resourceVersion as string;
    expect((await request(cc(), 'PATCH', `${CMS}/cm`, { data: { b: '2' } }, merge)).code).toBe(200);
    const r = await request(cc(), 'PATCH', `${CMS}/cm`, [setRV(stale), { op: 'add', path: '/data/z', value: '1' }], json);
    expect([r.code, r.body.reason]).toEqual([409, 'Conflict']);
    expect(r.body.message).toContain('the object has been modified');
    const now = await request(cc(), 'GET', `${CMS}/cm`);
    expect(now.body.data).toEqual({ a: '1', b: '2' });
    const ok = await request(cc(), 'PATCH', `${CMS}/cm`, [setRV(now.body.metadata.resourceVersion), { op: 'add', path: '/data/z', value: '1' }], json);
    expect(ok.code).toBe(200);
    expect(ok.body.data).toEqual({ a: '1', b: '2', z: '1' });
    // Without a resourceVersion in the patch, it applies to whatever is current.
    expect((await request(cc(), 'PATCH', `${CMS}/cm`, [{ op: 'add', path: '/data/y', value: '1' }], json)).code).toBe(200);
  });

  it('a JSON patch removing the resourceVersion is unconditional for a ConfigMap and refused for a custom resource', async () => {
    expect((await request(cc(), 'PATCH', `${CMS}/cm`, [{ op: 'remove', path: '/metadata/resourceVersion' }, { op: 'add', path: '/data/x', value: '1' }], json)).code).toBe(200);
    expect((await request(cc(), 'POST', HCS, hostedClusterBody('unconditional'))).code).toBe(201);
    const r = await request(cc(), 'PATCH', `${HCS}/unconditional`, [{ op: 'remove', path: '/metadata/resourceVersion' }, { op: 'add', path: '/metadata/labels', value: { a: 'b' } }], json);
    expect([r.code, r.body.reason]).toEqual([422, 'Invalid']);
    // Named by the resource, as genericregistry.Store.Update names it (kubectl: `The hostedclusters "unconditional" is invalid`).
    expect(r.body.message).toBe('hostedclusters.hypershift.openshift.io "unconditional" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    expect(r.body.details).toMatchObject({ group: 'hypershift.openshift.io', kind: 'hostedclusters', name: 'unconditional' });
  });

  it('a stale resourceVersion in a JSON patch of a HostedCluster, its status, or a NodePool scale is a 409', async () => {
    const created = await request(cc(), 'POST', HCS, hostedClusterBody('hc'));
    expect(created.code).toBe(201);
    const stale = created.body.metadata.resourceVersion as string;
    expect((await request(cc(), 'PATCH', `${HCS}/hc`, { metadata: { annotations: { a: '1' } } }, merge)).code).toBe(200);
    const main = await request(cc(), 'PATCH', `${HCS}/hc`, [setRV(stale), { op: 'add', path: '/metadata/annotations/zz', value: '1' }], json);
    expect(main.code).toBe(409);
    const status = await request(cc(), 'PATCH', `${HCS}/hc/status`, [setRV(stale), { op: 'add', path: '/status', value: { conditions: [] } }], json);
    expect(status.code).toBe(409);
    expect((await request(cc(), 'GET', `${HCS}/hc`)).body.metadata.annotations).toEqual({ a: '1' });

    const np = {
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'NodePool',
      metadata: { name: 'np' },
      spec: { clusterName: 'hc', replicas: 1, management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' } },
    };
    const npCreated = await request(cc(), 'POST', NPS, np);
    expect(npCreated.code, JSON.stringify(npCreated.body)).toBe(201);
    const npStale = npCreated.body.metadata.resourceVersion as string;
    expect((await request(cc(), 'PATCH', `${NPS}/np/scale`, { spec: { replicas: 2 } }, merge)).code).toBe(200);
    for (const [body, opts] of [
      [[setRV(npStale), { op: 'replace', path: '/spec/replicas', value: 5 }], json],
      [{ metadata: { resourceVersion: npStale }, spec: { replicas: 5 } }, merge],
    ] as const) {
      const r = await request(cc(), 'PATCH', `${NPS}/np/scale`, body, opts);
      expect(r.code, JSON.stringify(r.body)).toBe(409);
    }
    expect((await request(cc(), 'GET', `${NPS}/np`)).body.spec.replicas).toBe(2);
    const ok = await request(cc(), 'PATCH', `${NPS}/np/scale`, [{ op: 'replace', path: '/spec/replicas', value: 3 }], json);
    expect([ok.code, ok.body.spec.replicas]).toEqual([200, 3]);
  });
});
