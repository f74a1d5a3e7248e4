/**
 * Requests a resource does not take: PUT or PATCH on a collection (405, as kube-apiserver serves
 * no such route) and a protobuf body for a custom resource (415: custom resources have no protobuf form).
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

describe('methods and media types a resource does not take', () => {
  let cc: RunningControlCenter;
  const send = async (method: string, url: string, body: string | Buffer, contentType: string) => {
    const res = await fetch(cc.url + url, { method, headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': contentType }, body });
    return { code: res.status, body: (await res.json()) as { message?: string; reason?: string } };
  };

  beforeAll(async () => {
    cc = await startTestControlCenter();
    await send('POST', CRDS, JSON.stringify(crd), 'application/json');
  });
  afterAll(async () => {
    await cc?.close();
  });

  it.each(['PUT', 'PATCH'])('%s on a collection is 405 MethodNotAllowed, not a 404 about an object named ""', async (method) => {
    const r = await send(method, '/api/v1/namespaces/default/configmaps', '{"metadata":{"name":"x"}}', method === 'PUT' ? 'application/json' : 'application/merge-patch+json');
    expect(r.code).toBe(405);
    expect(r.body.reason).toBe('MethodNotAllowed');
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
  });
});
