/**
 * Server-side apply to `/scale` over HTTP, as kube-apiserver's ScaleHandler: a conflict with the
 * owner of `spec.replicas` (an apply of the parent) is a 409 unless forced, the applier's entry is
 * an Apply on subresource scale, and an owner forced off loses only the replicas field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../../control-center.js';
import { startTestControlCenter } from '../../testing/in-process.js';

const NPS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/nodepools';
type Entry = { manager: string; operation: string; apiVersion: string; subresource?: string; fieldsV1: { 'f:spec'?: Record<string, unknown> } };

const nodePool = (replicas: number) => ({
  apiVersion: 'hypershift.openshift.io/v1beta1',
  kind: 'NodePool',
  metadata: { name: 'np1', namespace: 'clusters' },
  spec: { clusterName: 'hc1', replicas, management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' } },
});
const scale = (replicas?: number) => ({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'np1', namespace: 'clusters' }, ...(replicas === undefined ? {} : { spec: { replicas } }) });

describe('server-side apply of a Scale', () => {
  let cc: RunningControlCenter;
  const req = async (method: string, url: string, body?: unknown, contentType = 'application/apply-patch+yaml') => {
    const res = await fetch(cc.url + url, { method, headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': contentType }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { code: res.status, body: (await res.json()) as Record<string, any> };
  };
  // By manager (the stored order is upstream's, by time, which ties within a second).
  const entries = async () => ((await req('GET', `${NPS}/np1`)).body.metadata.managedFields as Entry[]).sort((a, b) => a.manager.localeCompare(b.manager)).map((e) => ({ manager: e.manager, operation: e.operation, subresource: e.subresource ?? '', apiVersion: e.apiVersion, spec: Object.keys(e.fieldsV1['f:spec'] ?? {}).sort() }));

  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('conflicts with the apply that owns replicas, takes them with force, and is recorded as an Apply on scale', async () => {
    expect((await req('PATCH', `${NPS}/np1?fieldManager=argo`, nodePool(2))).code).toBe(201);

    const conflict = await req('PATCH', `${NPS}/np1/scale?fieldManager=hpa`, scale(7));
    expect(conflict.code).toBe(409);
    expect(conflict.body).toMatchObject({ reason: 'Conflict', message: 'Apply failed with 1 conflict: conflict with "argo": .spec.replicas' });
    expect(conflict.body.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "argo"', field: '.spec.replicas' }]);
    expect((await req('GET', `${NPS}/np1`)).body.spec.replicas).toBe(2);

    // The same value is no conflict: both own it.
    expect((await req('PATCH', `${NPS}/np1/scale?fieldManager=hpa`, scale(2))).code).toBe(200);
    expect(await entries()).toEqual([
      { manager: 'argo', operation: 'Apply', subresource: '', apiVersion: 'hypershift.openshift.io/v1beta1', spec: ['f:clusterName', 'f:management', 'f:platform', 'f:release', 'f:replicas'] },
      { manager: 'hpa', operation: 'Apply', subresource: 'scale', apiVersion: 'hypershift.openshift.io/v1beta1', spec: ['f:replicas'] },
    ]);

    const forced = await req('PATCH', `${NPS}/np1/scale?fieldManager=hpa&force=true`, scale(7));
    expect(forced.code).toBe(200);
    expect(forced.body).toMatchObject({ kind: 'Scale', spec: { replicas: 7 } });
    expect((await req('GET', `${NPS}/np1`)).body.spec.replicas).toBe(7);
    expect(await entries()).toEqual([
      { manager: 'argo', operation: 'Apply', subresource: '', apiVersion: 'hypershift.openshift.io/v1beta1', spec: ['f:clusterName', 'f:management', 'f:platform', 'f:release'] },
      { manager: 'hpa', operation: 'Apply', subresource: 'scale', apiVersion: 'hypershift.openshift.io/v1beta1', spec: ['f:replicas'] },
    ]);

    // Now argo's apply of another value conflicts with the scale applier.
    const back = await req('PATCH', `${NPS}/np1?fieldManager=argo`, nodePool(3));
    expect(back.code).toBe(409);
    expect(back.body.message).toBe('Apply failed with 1 conflict: conflict with "hpa" with subresource "scale": .spec.replicas');
  });

  it('conflicts with an Update of replicas through the scale subresource too (kubectl scale), naming it as upstream', async () => {
    expect((await req('PATCH', `${NPS}/np1/scale`, { spec: { replicas: 4 } }, 'application/merge-patch+json')).code).toBe(200);
    const conflict = await req('PATCH', `${NPS}/np1/scale?fieldManager=hpa`, scale(5));
    expect(conflict.code).toBe(409);
    expect(conflict.body.message).toMatch(/^Apply failed with 1 conflict: conflict with ".+" with subresource "scale" using autoscaling\/v1: \.spec\.replicas$/);
  });

  it('refuses a body that is no Scale, and without replicas only gives up ownership', async () => {
    const wrong = await req('PATCH', `${NPS}/np1/scale?fieldManager=hpa`, { apiVersion: 'v1', kind: 'ConfigMap' });
    expect([wrong.code, wrong.body.message]).toEqual([400, 'invalid object type: /v1, Kind=ConfigMap']);
    expect((await req('PATCH', `${NPS}/np1/scale?fieldManager=hpa&force=true`, scale(6))).code).toBe(200);
    const none = await req('PATCH', `${NPS}/np1/scale?fieldManager=hpa`, scale());
    expect(none.code).toBe(200);
    expect((await req('GET', `${NPS}/np1`)).body.spec.replicas).toBe(6);
    expect((await entries()).some((e) => e.manager === 'hpa')).toBe(false);
  });

  it('reports a Scale body\'s unknown fields per fieldValidation (PUT, apply, patch), as kube-apiserver decodes a Scale', async () => {
    const body = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'np1', namespace: 'clusters' }, spec: { replicas: 2, foo: 1 }, bar: 2 };
    const put = await req('PUT', `${NPS}/np1/scale?fieldValidation=Strict`, body, 'application/json');
    expect([put.code, put.body.message]).toEqual([400, 'Scale in version "v1" cannot be handled as a Scale: strict decoding error: unknown field "bar", unknown field "spec.foo"']);
    const apply = await req('PATCH', `${NPS}/np1/scale?fieldManager=hpa&force=true&fieldValidation=Strict`, body);
    expect(apply.code).toBe(400);
    const res = await fetch(`${cc.url}${NPS}/np1/scale?fieldValidation=Warn`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { replicas: 3, foo: 1 } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('warning')).toContain('unknown field \\"spec.foo\\"');
  });
});
