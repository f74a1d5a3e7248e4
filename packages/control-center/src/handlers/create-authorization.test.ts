/**
 * Creating an object takes the `create` verb whatever the request: a PUT that creates a Lease or
 * an Event (create-on-update) and a server-side apply need it as kube-apiserver's update and patch
 * handlers check it, and POST to a Namespace's own URL, which kube-apiserver does not serve, is a
 * 405 (it was a create authorized as a write inside that namespace: a RoleBinding there let a
 * namespace admin create any Namespace).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { loadRBACPolicy, rbacAuthorizer } from '../pipeline/rbac.js';
import { hostedClusterBody } from '../testing/fixtures.js';
import { request, startTestControlCenter } from '../testing/in-process.js';

const policy = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: updater, namespace: team-a}
rules:
  - {apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "update", "patch"]}
  - {apiGroups: [""], resources: ["events"], verbs: ["get", "update"]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: updater, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: updater}
subjects: [{kind: User, name: updater}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: subresources}
rules: [{apiGroups: ["*"], resources: ["*/status", "*/finalize", "*/scale"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: statususer}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: subresources}
subjects: [{kind: User, name: statususer}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: metrics}
rules: [{nonResourceURLs: ["/metrics"], verbs: ["get"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: metricsuser}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: metrics}
subjects: [{kind: User, name: metricsuser}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: admin-all}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: nsadmin, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin-all}
subjects: [{kind: User, name: nsadmin}]
`;

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/team-a/leases';
const lease = (name: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'team-a' }, spec: { holderIdentity: 'x' } });
const event = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'team-a' },
  involvedObject: { kind: 'ConfigMap', namespace: 'team-a', name: 'c' },
  reason: 'Forged',
  message: 'forged',
  type: 'Normal',
});

describe('creating needs the create verb', () => {
  let cc: RunningControlCenter;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hcc-create-authz-'));
    writeFileSync(path.join(dir, 'tokens.csv'), 'updater-token,updater,u1\nnsadmin-token,nsadmin,u2\nstatus-token,statususer,u3\nmetrics-token,metricsuser,u4\n');
    cc = await startTestControlCenter({ tokenFile: path.join(dir, 'tokens.csv'), authorizer: rbacAuthorizer(loadRBACPolicy(policy, 'policy.yaml')), namespaces: ['team-a'], crds: allCRDs });
  });
  afterAll(async () => {
    await cc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a PUT that would create a Lease or an Event, and an apply that would create, are 403 without create', async () => {
    const put = await request(cc, 'PUT', `${LEASES}/new`, lease('new'), { token: 'updater-token' });
    expect(put.code).toBe(403);
    expect(put.body.message).toBe('leases.coordination.k8s.io "new" is forbidden: User "updater" cannot create resource "leases" in API group "coordination.k8s.io" in the namespace "team-a"');
    const ev = await request(cc, 'PUT', '/api/v1/namespaces/team-a/events/ev1', event('ev1'), { token: 'updater-token' });
    expect(ev.code).toBe(403);
    const apply = await request(cc, 'PATCH', `${LEASES}/applied?fieldManager=m`, lease('applied'), { token: 'updater-token', contentType: 'application/apply-patch+yaml' });
    expect(apply.code).toBe(403);
    for (const p of [`${LEASES}/new`, `${LEASES}/applied`, '/api/v1/namespaces/team-a/events/ev1']) expect((await request(cc, 'GET', p)).code).toBe(404);

    // An existing one takes the update.
    expect((await request(cc, 'PUT', `${LEASES}/new`, lease('new'))).code).toBe(201);
    const got = await request(cc, 'GET', `${LEASES}/new`, undefined, { token: 'updater-token' });
    const updated = await request(cc, 'PUT', `${LEASES}/new`, { ...got.body, spec: { holderIdentity: 'y' } }, { token: 'updater-token' });
    expect(updated.code).toBe(200);
    expect(updated.body.spec.holderIdentity).toBe('y');
  });

  it('POST to a Namespace\'s own URL is a 405 and creates nothing, for a namespace admin and the admin alike', async () => {
    const body = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'evil' } };
    const byNsAdmin = await request(cc, 'POST', '/api/v1/namespaces/team-a', body, { token: 'nsadmin-token' });
    expect(byNsAdmin.code).toBe(405);
    expect(byNsAdmin.body.reason).toBe('MethodNotAllowed');
    expect((await request(cc, 'POST', '/api/v1/namespaces/team-a', body)).code).toBe(405);
    expect((await request(cc, 'POST', '/api/v1/namespaces/team-a/status', body, { token: 'nsadmin-token' })).code).toBe(405);
    expect((await request(cc, 'GET', '/api/v1/namespaces/evil')).code).toBe(404);
    // Creating one stays a cluster-scope create.
    expect((await request(cc, 'POST', '/api/v1/namespaces', body, { token: 'nsadmin-token' })).code).toBe(403);
    expect((await request(cc, 'POST', '/api/v1/namespaces', body)).code).toBe(201);
  });

  it('a DELETE or a watch of a subresource URL never reaches the object (404 unserved, 405 served)', async () => {
    const admin = (m: string, p: string, b?: unknown) => request(cc, m, p, b);
    const as = (m: string, p: string) => request(cc, m, p, undefined, { token: 'status-token' });
    expect((await admin('POST', '/api/v1/namespaces/team-a/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'victim' } })).code).toBe(201);
    expect((await admin('POST', '/api/v1/namespaces/team-a/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'topsecret' }, stringData: { password: 'hunter2' } })).code).toBe(201);
    expect((await admin('POST', '/apis/hypershift.openshift.io/v1beta1/namespaces/team-a/hostedclusters', hostedClusterBody('hc', 'team-a'))).code).toBe(201);
    // Allowed only subresources: the object itself stays out of reach.
    expect((await as('DELETE', '/api/v1/namespaces/team-a/configmaps/victim')).code).toBe(403);
    expect((await as('DELETE', '/api/v1/namespaces/team-a/configmaps/victim/status')).code).toBe(404);
    expect((await as('DELETE', '/api/v1/namespaces/team-a/secrets/topsecret%2Fstatus')).code).toBe(404);
    const hcStatus = await as('DELETE', '/apis/hypershift.openshift.io/v1beta1/namespaces/team-a/hostedclusters/hc/status');
    expect(hcStatus.code).toBe(405);
    expect(hcStatus.body.reason).toBe('MethodNotAllowed');
    expect((await as('DELETE', '/api/v1/namespaces/team-a/finalize')).code).toBe(405);
    const watched = await as('GET', '/api/v1/watch/namespaces/team-a/secrets/topsecret/status');
    expect(watched.code).toBe(404);
    expect(JSON.stringify(watched.body)).not.toContain('aHVudGVyMg');
    for (const p of ['/api/v1/namespaces/team-a/configmaps/victim', '/api/v1/namespaces/team-a/secrets/topsecret', '/apis/hypershift.openshift.io/v1beta1/namespaces/team-a/hostedclusters/hc', '/api/v1/namespaces/team-a']) {
      const got = await admin('GET', p);
      expect(got.code, p).toBe(200);
      expect(got.body.metadata.deletionTimestamp, p).toBeUndefined();
    }
  });

  it('serves no route kube-apiserver lacks: segments past a subresource, a namespaced object at a cluster-scope URL, a built-in POST across namespaces', async () => {
    const admin = (m: string, p: string, b?: unknown) => request(cc, m, p, b);
    expect((await admin('POST', '/api/v1/namespaces/team-a/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shape' } })).code).toBe(201);
    const statusX = await request(cc, 'PATCH', '/api/v1/namespaces/team-a/status/x', { status: { phase: 'Terminating' } }, { token: 'status-token', contentType: 'application/merge-patch+json' });
    expect(statusX.code).toBe(404);
    expect((await admin('GET', '/api/v1/namespaces/team-a/status/x')).code).toBe(404);
    expect((await admin('GET', '/apis/hypershift.openshift.io/v1beta1/namespaces/team-a/hostedclusters/hc/status/x/y')).code).toBe(404);
    expect((await admin('GET', '/api/v1/namespaces/team-a')).body.status.phase).toBe('Active');
    // A namespaced kind's object at a cluster-scope URL.
    const clusterScope = await admin('GET', '/api/v1/configmaps/shape');
    expect(clusterScope.code).toBe(404);
    expect(clusterScope.body.message).toBe('the server could not find the requested resource');
    expect((await admin('GET', '/api/v1/watch/configmaps/shape')).code).toBe(404);
    expect((await admin('GET', '/api/v1/configmaps')).code).toBe(200); // the list across namespaces stays
    expect((await admin('POST', '/api/v1/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).code).toBe(405);
  });

  it('authorizes a non-resource path as served (decoded) and with the request\'s own verb', async () => {
    expect((await request(cc, 'GET', '/metrics', undefined, { token: 'metrics-token' })).code).toBe(200);
    expect((await request(cc, 'GET', '/%6Detrics', undefined, { token: 'metrics-token' })).code).toBe(200);
    // HEAD is the verb "head", which this rule (get) does not give.
    const head = await fetch(`${cc.url}/metrics`, { method: 'HEAD', headers: { authorization: 'Bearer metrics-token' } });
    expect(head.status).toBe(403);
  });
});
