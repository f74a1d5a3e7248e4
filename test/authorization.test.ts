/**
 * `hcc control-center --authorization-policy` with real kubectl 1.35: what kube-apiserver's RBAC
 * authorizer, impersonation filter and SelfSubjectAccessReview answer for the same policy and
 * tokens (`auth can-i`, `auth can-i --list`, `auth whoami`), including the cases a fresh user found wrong (server-side apply creating with only
 * `patch`, `--as` ignored, non-resource URLs, the token's uid in `auth whoami`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { kubectl, tempDir } from './helpers/tools.js';
import { startControlCenterProcess, type ControlCenterProcess } from './helpers/processes.js';

/** A ClusterRole with one rule, bound to one user (YAML documents). */
const grant = (role: string, user: string, rule: string) => `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ${role}}
rules: [${rule}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ${user}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${role}}
subjects: [{kind: User, name: ${user}}]
`;
const policy = [
  grant('cm-patch', 'erin', '{apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "patch"]}'),
  grant('s1-only', 'carol', '{apiGroups: [""], resources: ["secrets"], resourceNames: ["s1"], verbs: ["get", "list", "watch", "deletecollection"]}'),
  grant('metrics-reader', 'carol', '{nonResourceURLs: ["/metrics"], verbs: ["get"]}').replace('name: carol}', 'name: carol-metrics}'),
  // What the ServiceAccounts of namespace b may do, bound to their group as RBAC docs do.
  `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cm-view}
rules: [{apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: sa-cm-view, namespace: b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cm-view}
subjects: [{kind: Group, name: "system:serviceaccounts:b"}]
`,
].join('---\n');

describe('authorization policy, as kube-apiserver answers it', () => {
  const t = tempDir('hcc-authz-');
  let cc: ControlCenterProcess;
  const kc = (user: string) => path.join(t.dir, `${user}.kubeconfig`);
  const as = (user: string, args: string[], input?: string) => kubectl('1.35', kc(user), args, { input });

  beforeAll(async () => {
    writeFileSync(path.join(t.dir, 'policy.yaml'), policy);
    writeFileSync(path.join(t.dir, 'tokens.csv'), 'erin-t,erin,uid-erin\ncarol-t,carol,uid-carol\nfrank-t,frank,uid-frank\n');
    cc = await startControlCenterProcess({ extraArgs: ['--token-file', path.join(t.dir, 'tokens.csv'), '--authorization-policy', path.join(t.dir, 'policy.yaml')] });
    const admin = parse(readFileSync(cc.kubeconfig, 'utf8'));
    writeFileSync(kc('admin'), stringify(admin));
    for (const u of ['erin', 'carol', 'frank']) {
      admin.users[0].user = { token: `${u}-t` };
      writeFileSync(kc(u), stringify(admin));
    }
    expect((await as('admin', ['create', 'namespace', 'b'])).code).toBe(0);
    expect((await as('admin', ['create', 'configmap', 'c1', '-n', 'b', '--from-literal=a=b'])).code).toBe(0);
    expect((await as('admin', ['create', 'secret', 'generic', 's1', '-n', 'b', '--from-literal=a=b'])).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await cc?.stop();
    t.cleanup();
  });

  it('needs create, not only patch, for a server-side apply that creates the object', async () => {
    const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: b}\ndata: {z: x}\n`;
    const created = await as('erin', ['apply', '--server-side', '-f', '-'], cm('c9'));
    expect(created.code).not.toBe(0);
    expect(created.stderr).toContain('configmaps "c9" is forbidden: User "erin" cannot create resource "configmaps" in API group "" in the namespace "b"');
    expect((await as('admin', ['get', 'configmap', 'c9', '-n', 'b', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    // Applying to an existing object is a patch, which erin may do.
    const patched = await as('erin', ['apply', '--server-side', '-f', '-'], cm('c1'));
    expect(patched.code, patched.stderr).toBe(0);
  });

  it('impersonates with --as only when allowed, and can-i/whoami answer for the impersonated user', async () => {
    const canI = await as('admin', ['auth', 'can-i', 'delete', 'secrets', '-n', 'b', '--as', 'frank']);
    expect([canI.code, canI.stdout.trim()]).toEqual([1, 'no']);
    const who = await as('admin', ['auth', 'whoami', '--as', 'frank', '-o', 'json']);
    expect(JSON.parse(who.stdout).status.userInfo).toEqual({ username: 'frank', groups: ['system:authenticated'] });
    expect((await as('admin', ['get', 'secrets', '-n', 'b', '--as', 'frank'])).stderr).toContain('User "frank" cannot list resource "secrets"');
    const refused = await as('frank', ['get', 'secrets', '-n', 'b', '--as', 'admin']);
    expect(refused.stderr).toContain('users "admin" is forbidden: User "frank" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('impersonates a ServiceAccount as kube-apiserver does: its groups, the serviceaccounts check, anonymous and uid', async () => {
    const sa = 'system:serviceaccount:b:bot';
    const who = await as('admin', ['auth', 'whoami', '--as', sa, '-o', 'json']);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout).status.userInfo).toEqual({ username: sa, groups: ['system:serviceaccounts', 'system:serviceaccounts:b', 'system:authenticated'] });
    // The usual check of a ServiceAccount's rights answers for its groups' bindings.
    expect((await as('admin', ['auth', 'can-i', 'list', 'configmaps', '-n', 'b', '--as', sa])).stdout.trim()).toBe('yes');
    expect((await as('admin', ['get', 'configmaps', '-n', 'b', '--as', sa, '-o', 'name'])).stdout).toContain('configmap/c1');
    expect((await as('admin', ['auth', 'can-i', 'list', 'configmaps', '-n', 'default', '--as', sa])).stdout.trim()).toBe('no');
    // Given groups replace the ServiceAccount's.
    const grouped = await as('admin', ['auth', 'whoami', '--as', sa, '--as-group', 'g1', '-o', 'json']);
    expect(JSON.parse(grouped.stdout).status.userInfo.groups).toEqual(['g1', 'system:authenticated']);
    // Impersonating a ServiceAccount is checked on serviceaccounts in its namespace, not on users.
    const refused = await as('frank', ['get', 'configmaps', '-n', 'b', '--as', sa]);
    expect(refused.stderr).toContain('serviceaccounts "bot" is forbidden: User "frank" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "b"');
    // system:anonymous is in system:unauthenticated only, and so is a user given that group: neither
    // is in system:authenticated, so neither may ask who it is (system:basic-user) or read discovery
    // (system:discovery), as upstream.
    const anonApi = await as('admin', ['get', '--raw', '/apis', '--as', 'system:anonymous']);
    expect(anonApi.stderr).toContain('Error from server (Forbidden): forbidden: User "system:anonymous" cannot get path "/apis"');
    // Not even `can-i --list`: the review itself is refused.
    expect((await as('admin', ['auth', 'can-i', '--list', '--as', 'system:anonymous'])).code).not.toBe(0);
    expect((await as('admin', ['auth', 'whoami', '--as', 'system:anonymous'])).code).not.toBe(0);
    expect((await as('admin', ['auth', 'whoami', '--as', 'jane', '--as-group', 'system:unauthenticated'])).code).not.toBe(0);
    expect((await as('admin', ['auth', 'whoami', '--as', 'jane', '--as-group', 'g1'])).code).toBe(0);
    const uid = await as('admin', ['auth', 'whoami', '--as', 'jane', '--as-uid', '123', '--as-user-extra', 'scopes=a', '-o', 'json']);
    expect(uid.code, uid.stderr).toBe(0);
    expect(JSON.parse(uid.stdout).status.userInfo).toEqual({ username: 'jane', uid: '123', groups: ['system:authenticated'], extra: { scopes: ['a'] } });
    const noUid = await as('frank', ['get', 'configmaps', '-n', 'b', '--as', 'frank', '--as-uid', '123']);
    expect(noUid.stderr).toContain('users "frank" is forbidden: User "frank" cannot impersonate resource "users"');
  });

  it('lets every authenticated user ask what it may do and who it is (system:basic-user)', async () => {
    expect((await as('frank', ['auth', 'can-i', 'create', 'selfsubjectaccessreviews.authorization.k8s.io'])).stdout.trim()).toBe('yes');
    expect((await as('frank', ['auth', 'can-i', 'create', 'selfsubjectreviews.authentication.k8s.io'])).stdout.trim()).toBe('yes');
    expect((await as('frank', ['auth', 'can-i', 'create', 'subjectaccessreviews.authorization.k8s.io'])).stdout.trim()).toBe('no');
    const list = await as('frank', ['auth', 'can-i', '--list']);
    expect(list.stdout).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/m);
    expect(list.stdout).toMatch(/^selfsubjectreviews\.authentication\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/m);
  });

  it('answers for non-resource URLs as the bootstrap discovery and public-info roles grant them', async () => {
    const can = async (args: string[]) => (await as('frank', ['auth', 'can-i', ...args])).stdout.trim();
    expect(await can(['get', '/healthz'])).toBe('yes');
    expect(await can(['get', '/apis'])).toBe('yes');
    expect(await can(['get', '/metrics'])).toBe('no');
    expect(await can(['post', '/healthz'])).toBe('no');
    // /metrics: only to whom a ClusterRole's nonResourceURLs rule gives it (upstream's system:monitoring).
    const denied = await as('frank', ['get', '--raw', '/metrics']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('Error from server (Forbidden): forbidden: User "frank" cannot get path "/metrics"');
    expect((await as('carol', ['auth', 'can-i', 'get', '/metrics'])).stdout.trim()).toBe('yes');
    const scraped = await as('carol', ['get', '--raw', '/metrics']);
    expect(scraped.code, scraped.stderr).toBe(0);
    expect(scraped.stdout).toContain('# TYPE apiserver_request_total counter');
  });

  it('lists what a user may do with auth can-i --list (SelfSubjectRulesReview), also for --as', async () => {
    const carol = await as('carol', ['auth', 'can-i', '--list', '-n', 'b']);
    expect(carol.code, carol.stderr).toBe(0);
    const row = carol.stdout.split('\n').find((l) => l.startsWith('secrets '));
    expect(row, carol.stdout).toBeDefined();
    expect(row).toContain('[s1]');
    expect(row).toContain('[get list watch deletecollection]');
    expect(carol.stdout).not.toMatch(/^configmaps /m);
    expect(carol.stdout).toMatch(/\[\/healthz\]\s+\[\]\s+\[get\]/);
    const erin = await as('admin', ['auth', 'can-i', '--list', '-n', 'b', '--as', 'erin']);
    expect(erin.code, erin.stderr).toBe(0);
    expect(erin.stdout).toMatch(/^configmaps\s+\[\]\s+\[\]\s+\[get list patch\]/m);
    expect(erin.stdout).not.toMatch(/^secrets /m);
    const admin = await as('admin', ['auth', 'can-i', '--list']);
    expect(admin.stdout).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/m);
    expect(admin.stderr).not.toContain('incomplete');
    // A syncer's rules are the policy's, narrowed by the ManagementCluster authorizer: kubectl says the list is incomplete, and why.
    const syncer = await as('admin', ['auth', 'can-i', '--list', '-n', 'b', '--as', 'hcc:syncer:mgmt-1', '--as-group', 'hcc:syncers']);
    expect(syncer.code, syncer.stderr).toBe(0);
    expect(syncer.stderr).toContain('the list may be incomplete: the ManagementCluster authorizer does not support rule resolution: the syncer of management cluster "mgmt-1" may read only');
  });

  it('shows the token file uid in auth whoami', async () => {
    const who = await as('erin', ['auth', 'whoami', '-o', 'json']);
    expect(JSON.parse(who.stdout).status.userInfo).toEqual({ username: 'erin', uid: 'uid-erin', groups: ['system:authenticated'] });
  });

  it('matches resourceNames against a named watch but not against deletecollection', async () => {
    const list = await as('carol', ['get', 'secrets', '-n', 'b', '--field-selector', 'metadata.name=s1', '-o', 'name']);
    expect([list.code, list.stdout.trim()], list.stderr).toEqual([0, 'secret/s1']);
    const dc = await as('carol', ['delete', 'secrets', '-n', 'b', '--field-selector', 'metadata.name=s1', '--dry-run=server']);
    expect(dc.code).not.toBe(0);
    expect(dc.stderr).toContain('cannot');
  });
});
