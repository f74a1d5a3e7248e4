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
import type { RunningControlCenter } from '../control-center.js';
import { loadRBACPolicy, rbacAuthorizer } from '../pipeline/rbac.js';
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
    writeFileSync(path.join(dir, 'tokens.csv'), 'updater-token,updater,u1\nnsadmin-token,nsadmin,u2\n');
    cc = await startTestControlCenter({ tokenFile: path.join(dir, 'tokens.csv'), authorizer: rbacAuthorizer(loadRBACPolicy(policy, 'policy.yaml')), namespaces: ['team-a'] });
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
});
