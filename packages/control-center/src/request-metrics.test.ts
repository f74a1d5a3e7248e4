/**
 * apiserver_request_total and apiserver_request_duration_seconds: served requests are counted by
 * verb, group, resource, subresource and code; requests for paths the server does not serve are
 * counted without the path's segments, so made-up paths cannot add series.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from './control-center.js';
import { startTestControlCenter } from './testing/in-process.js';

describe('request metrics', () => {
  let cc: RunningControlCenter;
  let auth: { authorization: string };
  beforeAll(async () => {
    cc = await startTestControlCenter();
    auth = { authorization: `Bearer ${cc.adminToken}` };
  });
  afterAll(async () => {
    await cc?.close();
  });
  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(cc.url + path, { method, headers: { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    await res.text();
    return res.status;
  };
  const series = async (name: string) =>
    (await (await fetch(`${cc.url}/metrics`, { headers: auth })).text()).split('\n').filter((l) => l.startsWith(`${name}{`));

  it('counts served requests by verb, group, resource, subresource and code', async () => {
    expect(await request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'metrics' } })).toBe(201);
    expect(await request('GET', '/api/v1/namespaces/metrics')).toBe(200);
    expect(await request('GET', '/api/v1/namespaces/metrics')).toBe(200);
    expect(await request('GET', '/api/v1/namespaces/nope')).toBe(404);
    expect(await request('GET', '/api/v1/namespaces/metrics/status')).toBe(200);
    const total = await series('apiserver_request_total');
    expect(total).toContain('apiserver_request_total{verb="create",group="",resource="namespaces",subresource="",code="201"} 1');
    expect(total).toContain('apiserver_request_total{verb="get",group="",resource="namespaces",subresource="",code="200"} 2');
    expect(total).toContain('apiserver_request_total{verb="get",group="",resource="namespaces",subresource="",code="404"} 1');
    expect(total).toContain('apiserver_request_total{verb="get",group="",resource="namespaces",subresource="status",code="200"} 1');
    const count = await series('apiserver_request_duration_seconds_count');
    expect(count).toContain('apiserver_request_duration_seconds_count{verb="get",group="",resource="namespaces",subresource=""} 3');
  });

  it('counts the reviews, which take only create (405 for the other verbs, as kube-apiserver)', async () => {
    const ssar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'secrets' } } };
    expect(await request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', ssar)).toBe(201);
    expect(await request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })).toBe(201);
    const get = await fetch(`${cc.url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, { headers: auth });
    const status = (await get.json()) as { kind: string; reason: string };
    expect([get.status, status.kind, status.reason]).toEqual([405, 'Status', 'MethodNotAllowed']);
    const total = await series('apiserver_request_total');
    expect(total).toContain('apiserver_request_total{verb="create",group="authorization.k8s.io",resource="selfsubjectaccessreviews",subresource="",code="201"} 1');
    expect(total).toContain('apiserver_request_total{verb="create",group="authentication.k8s.io",resource="selfsubjectreviews",subresource="",code="201"} 1');
    // Counted by Kubernetes verb, as every other request (a GET of a collection is a list).
    expect(total).toContain('apiserver_request_total{verb="list",group="authorization.k8s.io",resource="selfsubjectaccessreviews",subresource="",code="405"} 1');
  });

  it('adds no series for made-up groups, resources or subresources', async () => {
    const before = (await series('apiserver_request_total')).length;
    for (let i = 0; i < 20; i++) {
      expect(await request('GET', `/apis/made-up-${i}.example.com/v1/things-${i}`)).toBe(404);
      expect(await request('GET', `/api/v1/namespaces/metrics/pods-${i}`)).toBe(404);
      expect(await request('GET', `/api/v1/namespaces/metrics/secrets/s/sub-${i}`)).toBe(404);
    }
    const total = await series('apiserver_request_total');
    expect(total.length - before).toBeLessThanOrEqual(2);
    expect(total.join('\n')).not.toMatch(/made-up|things-|sub-|pods-/);
    expect(total).toContain('apiserver_request_total{verb="get",group="",resource="",subresource="",code="404"} 20');
    expect(total).toContain('apiserver_request_total{verb="list",group="",resource="",subresource="",code="404"} 40');
    expect((await series('apiserver_request_duration_seconds_count')).join('\n')).not.toMatch(/made-up|things-|sub-|pods-/);
  });
});
