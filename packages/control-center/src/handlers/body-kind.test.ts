/**
 * What a write body must say about itself, as kube-apiserver decodes it: a custom resource's body
 * names its kind (the unstructured decoder requires it; built-ins take it from the URL), and a
 * `/scale` body is an autoscaling/v1 Scale of the object on the URL with an int32 replicas.
 */
import { describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import { request, useTestControlCenter } from '../testing/in-process.js';
import { hostedClusterBody } from '../testing/fixtures.js';

const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters';
const NPS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/nodepools';

/** A NodePool with two replicas. */
const nodePool = (name: string) => ({
  apiVersion: 'hypershift.openshift.io/v1beta1',
  kind: 'NodePool',
  metadata: { name },
  spec: { clusterName: 'x', replicas: 2, management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' } },
});

describe('write bodies', () => {
  const cc = useTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });

  it("refuses a custom resource body without kind (400 Object 'Kind' is missing), on create and update; a built-in kind takes it from the URL", async () => {
    const { kind: _k, ...noKind } = hostedClusterBody('nokind');
    const r = await request(cc(), 'POST', HCS, noKind);
    expect(r.code).toBe(400);
    expect(r.body.message).toMatch(/^Object 'Kind' is missing in '\{"apiVersion":"hypershift.openshift.io\/v1beta1","metadata":\{"name":"nokind"/);
    expect((await request(cc(), 'GET', `${HCS}/nokind`)).code).toBe(404);
    const created = await request(cc(), 'POST', HCS, hostedClusterBody('withkind'));
    expect(created.code).toBe(201);
    const { kind: _k2, ...putNoKind } = created.body as Record<string, unknown>;
    expect((await request(cc(), 'PUT', `${HCS}/withkind`, putNoKind)).code).toBe(400);
    expect((await request(cc(), 'POST', '/api/v1/namespaces/clusters/configmaps', { metadata: { name: 'no-kind-needed' } })).code).toBe(201);
  });

  it('checks a /scale body as an autoscaling/v1 Scale of the object on the URL', async () => {
    expect((await request(cc(), 'POST', NPS, nodePool('workers'))).code).toBe(201);
    const scale = (body: unknown) => request(cc(), 'PUT', `${NPS}/workers/scale`, body);
    for (const [body, message] of [
      [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'workers' }, spec: { replicas: 4 } }, 'the kind in the data (ConfigMap) does not match the expected kind (Scale)'],
      [{ apiVersion: 'v1', kind: 'Scale', metadata: { name: 'workers' }, spec: { replicas: 4 } }, 'the API version in the data (v1) does not match the expected API version (autoscaling/v1)'],
      [{ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'other' }, spec: { replicas: 4 } }, 'the name of the object (other) does not match the name on the URL (workers)'],
      [{ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'workers', namespace: 'other' }, spec: { replicas: 4 } }, 'the namespace of the provided object does not match the namespace sent on the request'],
      [{ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'workers' }, spec: { replicas: '4' } }, 'json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32'],
      [{ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'workers' }, spec: { replicas: 1.5 } }, 'json: cannot unmarshal number 1.5 into Go struct field ScaleSpec.spec.replicas of type int32'],
    ] as const) {
      const r = await scale(body);
      expect(r.code, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toContain(message);
    }
    // A merge patch that renames the Scale is the same mistake.
    const patched = await request(cc(), 'PATCH', `${NPS}/workers/scale`, { metadata: { name: 'other' }, spec: { replicas: 5 } }, { contentType: 'application/merge-patch+json' });
    expect(patched.code).toBe(400);
    expect((await request(cc(), 'GET', `${NPS}/workers`)).body.spec.replicas).toBe(2);
    // A proper Scale (kind and name may be left out) scales.
    const ok = await scale({ spec: { replicas: 4 } });
    expect(ok.code, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.spec.replicas).toBe(4);
    expect((await scale({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'workers' }, spec: { replicas: 3 } })).body.spec.replicas).toBe(3);
  });

  it('an apply to /scale must name autoscaling/v1 Scale, as every apply configuration names its type', async () => {
    expect((await request(cc(), 'POST', NPS, nodePool('applied'))).code).toBe(201);
    const apply = (body: unknown) => request(cc(), 'PATCH', `${NPS}/applied/scale?fieldManager=ops`, body, { contentType: 'application/apply-patch+yaml' });
    for (const [body, message] of [
      [{ spec: { replicas: 5 } }, 'invalid object type: /, Kind='],
      [{ apiVersion: 'autoscaling/v1', spec: { replicas: 5 } }, 'invalid object type: autoscaling/v1, Kind='],
      [{ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', spec: { replicas: 5 } }, 'invalid object type: hypershift.openshift.io/v1beta1, Kind=NodePool'],
    ] as const) {
      const r = await apply(body);
      expect(r.code, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toBe(message);
    }
    expect((await request(cc(), 'GET', `${NPS}/applied`)).body.spec.replicas).toBe(2);
    // The create's manager owns replicas: without force the apply conflicts with it (see scale-apply.test.ts).
    const conflict = await apply({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'applied' }, spec: { replicas: 5 } });
    expect(conflict.code).toBe(409);
    const ok = await request(cc(), 'PATCH', `${NPS}/applied/scale?fieldManager=ops&force=true`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'applied' }, spec: { replicas: 5 } }, { contentType: 'application/apply-patch+yaml' });
    expect(ok.code, JSON.stringify(ok.body)).toBe(200);
    expect((await request(cc(), 'GET', `${NPS}/applied`)).body.spec.replicas).toBe(5);
  });
});
