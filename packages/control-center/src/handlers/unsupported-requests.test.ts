/**
 * Requests a resource does not take: PUT or PATCH on a collection and POST to an object or a
 * subresource it serves (405, as kube-apiserver serves no such method there), POST to a
 * subresource it does not serve (404: no route) and a protobuf body for a custom resource (415: custom resources have no protobuf form).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.ex.hcc.dev' },
  spec: { group: 'ex.hcc.dev', scope: 'Namespaced', names: { plural: 'gizmos', kind: 'Gizmo' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
};
/** A second kind, with the status subresource. */
const withStatus = {
  ...crd,
  metadata: { name: 'widgets.ex.hcc.dev' },
  spec: { ...crd.spec, names: { plural: 'widgets', kind: 'Widget' }, versions: [{ ...crd.spec.versions[0], subresources: { status: {} } }] },
};

describe('methods and media types a resource does not take', () => {
  let cc: RunningControlCenter;
  const send = async (method: string, url: string, body: string | Buffer, contentType: string) => {
    const res = await fetch(cc.url + url, { method, headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': contentType }, body });
    return { code: res.status, body: (await res.json()) as { message?: string; reason?: string } };
  };

  beforeAll(async () => {
    cc = await startTestControlCenter();
    await send('POST', CRDS, JSON.stringify(crd), 'application/json');
    await send('POST', CRDS, JSON.stringify(withStatus), 'application/json');
    // Served once established.
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${cc.url}/apis/ex.hcc.dev/v1/widgets`, { headers: { authorization: `Bearer ${cc.adminToken}` } });
      if (res.status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(async () => {
    await cc?.close();
  });

  it.each(['PUT', 'PATCH'])('%s on a collection is 405 MethodNotAllowed, not a 404 about an object named ""', async (method) => {
    const r = await send(method, '/api/v1/namespaces/default/configmaps', '{"metadata":{"name":"x"}}', method === 'PUT' ? 'application/json' : 'application/merge-patch+json');
    expect(r.code).toBe(405);
    expect(r.body.reason).toBe('MethodNotAllowed');
  });

  it.each([
    { name: 'an object', path: '/api/v1/namespaces/default/configmaps/x', want: 405 },
    { name: 'a subresource the kind serves', path: '/apis/ex.hcc.dev/v1/namespaces/default/widgets/x/status', want: 405 },
    { name: 'a subresource a built-in kind does not serve', path: '/api/v1/namespaces/default/configmaps/x/bogus', want: 404 },
    { name: 'status of a custom resource without that subresource', path: '/apis/ex.hcc.dev/v1/namespaces/default/gizmos/x/status', want: 404 },
  ])('POST to $name is $want (no route at all is a 404, as for GET and PUT)', async ({ path, want }) => {
    const r = await send('POST', path, '{"metadata":{"name":"x"}}', 'application/json');
    expect(r.code).toBe(want);
    expect(r.body.reason).toBe(want === 405 ? 'MethodNotAllowed' : 'NotFound');
  });

  it('a protobuf body for a custom resource is 415, listing JSON and YAML only', async () => {
    let r = { code: 0, body: {} as { message?: string; reason?: string } };
    for (let i = 0; i < 50 && r.code !== 415; i++) {
      r = await send('POST', '/apis/ex.hcc.dev/v1/namespaces/default/gizmos', Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a]), 'application/vnd.kubernetes.protobuf');
      if (r.code === 404) await new Promise((res) => setTimeout(res, 50)); // the CRD is being established
    }
    expect(r.code).toBe(415);
    expect(r.body.reason).toBe('UnsupportedMediaType');
    expect(r.body.message).toBe('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
  });

  it('a PATCH with a body that is no patch type is 415, listing the patch types the resource takes', async () => {
    const created = await send('POST', '/apis/ex.hcc.dev/v1/namespaces/default/gizmos', '{"apiVersion":"ex.hcc.dev/v1","kind":"Gizmo","metadata":{"name":"g"}}', 'application/json');
    expect(created.code, JSON.stringify(created.body)).toBe(201);
    await send('POST', '/api/v1/namespaces/default/configmaps', '{"metadata":{"name":"c"}}', 'application/json');
    const prefix = 'the body of the request was in an unknown format - accepted media types include: ';
    const custom = await send('PATCH', '/apis/ex.hcc.dev/v1/namespaces/default/gizmos/g', '{}', 'application/json');
    expect([custom.code, custom.body.message]).toEqual([415, `${prefix}application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`]);
    const builtin = await send('PATCH', '/api/v1/namespaces/default/configmaps/c', '{}', 'application/json');
    expect([builtin.code, builtin.body.message]).toEqual([415, `${prefix}application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml`]);
    // A CBOR apply configuration too, as kube-apiserver without its alpha CBOR feature gate answers it.
    const cbor = await send('PATCH', '/api/v1/namespaces/default/configmaps/c?fieldManager=m', '{}', 'application/apply-patch+cbor');
    expect([cbor.code, cbor.body.message]).toEqual([415, `${prefix}application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml`]);
  });
});
