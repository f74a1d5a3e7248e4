/**
 * With an authorization policy and anonymous access on, what an anonymous request may do is what
 * upstream's bootstrap roles give `system:unauthenticated`: the public-info paths, not discovery,
 * OpenAPI (system:discovery is bound to system:authenticated only) or /metrics, and not the self reviews
 * (system:basic-user likewise); an authenticated user gets all of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from './control-center.js';
import { loadRBACPolicy, rbacAuthorizer } from './pipeline/rbac.js';
import { startTestControlCenter } from './testing/in-process.js';

describe('anonymous access under a policy', () => {
  let cc: RunningControlCenter;
  beforeAll(async () => {
    cc = await startTestControlCenter({
      allowAnonymous: true,
      tokenFile: undefined,
      authorizer: rbacAuthorizer(loadRBACPolicy('apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: none}\nrules: []\n', 'policy.yaml')),
    });
  });
  afterAll(async () => {
    await cc?.close();
  });
  const get = async (path: string, token?: string) => {
    const res = await fetch(cc.url + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { code: res.status, body: await res.text() };
  };

  it('gives anonymous requests the public-info paths only', async () => {
    for (const p of ['/healthz', '/livez', '/readyz', '/version']) expect((await get(p)).code, p).toBe(200);
    for (const p of ['/api', '/apis', '/api/v1', '/apis/authorization.k8s.io/v1', '/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1', '/metrics']) {
      const r = await get(p);
      expect(r.code, p).toBe(403);
      expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', reason: 'Forbidden', message: `forbidden: User "system:anonymous" cannot get path "${p}"` });
      expect((await get(p, cc.adminToken)).code, p).toBe(200);
    }
  });

  it('refuses a wrong token on the public-info paths (anonymous only without credentials), and a single check to whom the policy does not give it', async () => {
    for (const p of ['/healthz', '/livez', '/readyz', '/version']) {
      expect((await get(p, 'wrong-token')).code, p).toBe(401);
      expect((await get(p, cc.adminToken)).code, p).toBe(200);
    }
    // /readyz/NAME is upstream's system:monitoring's (`/readyz/*`), not public info.
    const one = await get('/readyz/serving');
    expect(one.code).toBe(403);
    expect(JSON.parse(one.body)).toMatchObject({ reason: 'Forbidden', message: 'forbidden: User "system:anonymous" cannot get path "/readyz/serving"' });
    expect(await get('/readyz/serving', cc.adminToken)).toEqual({ code: 200, body: 'ok' });
    // A path nothing serves: authorized first, as kube-apiserver does (403), a 404 to the admin.
    for (const p of ['/debug/x', '/logs', '/nothing/here']) {
      const r = await get(p);
      expect(r.code, p).toBe(403);
      expect(JSON.parse(r.body)).toMatchObject({ reason: 'Forbidden', message: `forbidden: User "system:anonymous" cannot get path "${p}"` });
      expect((await get(p, cc.adminToken)).code, p).toBe(404);
    }
  });

  it('refuses anonymous self reviews (system:basic-user is for authenticated users)', async () => {
    const review = (token?: string) =>
      fetch(`${cc.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      });
    expect((await review()).status).toBe(403);
    expect((await review(cc.adminToken)).status).toBe(201);
  });
});
