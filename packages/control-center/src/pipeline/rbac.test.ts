import { describe, expect, it } from 'vitest';
import { loadRBACPolicy, rbacAuthorizer, ruleAllows } from './rbac.js';
import { resolveRequestInfo } from './request-info.js';

const ri = (method: string, url: string) => resolveRequestInfo(method, url, Object.fromEntries(new URL(url, 'http://x').searchParams));

describe('ruleAllows (RBAC rule matching)', () => {
  it('matches verbs, groups, resource/subresource and wildcards as kube-apiserver does', () => {
    const hc = { verbs: ['get', 'patch'], apiGroups: ['hypershift.openshift.io'], resources: ['hostedclusters'] };
    expect(ruleAllows(hc, ri('GET', '/apis/hypershift.openshift.io/v1beta1/namespaces/a/hostedclusters/x'))).toBe(true);
    expect(ruleAllows(hc, ri('PATCH', '/apis/hypershift.openshift.io/v1beta1/namespaces/a/hostedclusters/x'))).toBe(true);
    expect(ruleAllows(hc, ri('PUT', '/apis/hypershift.openshift.io/v1beta1/namespaces/a/hostedclusters/x'))).toBe(false);
    // A subresource needs its own entry.
    expect(ruleAllows(hc, ri('GET', '/apis/hypershift.openshift.io/v1beta1/namespaces/a/hostedclusters/x/status'))).toBe(false);
    expect(ruleAllows({ ...hc, resources: ['hostedclusters/status'] }, ri('GET', '/apis/hypershift.openshift.io/v1beta1/namespaces/a/hostedclusters/x/status'))).toBe(true);
    expect(ruleAllows({ ...hc, resources: ['*/status'] }, ri('GET', '/apis/hypershift.openshift.io/v1beta1/namespaces/a/hostedclusters/x/status'))).toBe(true);
    // The core group is "".
    expect(ruleAllows({ verbs: ['*'], apiGroups: [''], resources: ['*'] }, ri('DELETE', '/api/v1/namespaces/a/secrets/s'))).toBe(true);
    expect(ruleAllows({ verbs: ['*'], apiGroups: [''], resources: ['*'] }, ri('GET', '/apis/hypershift.openshift.io/v1beta1/hostedclusters'))).toBe(false);
    // watch and list are their own verbs.
    expect(ruleAllows({ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }, ri('GET', '/api/v1/secrets?watch=true'))).toBe(false);
  });

  it('applies resourceNames only to requests that name an object', () => {
    const rule = { verbs: ['get', 'list'], apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], resourceNames: ['a.example.com'] };
    expect(ruleAllows(rule, ri('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/a.example.com'))).toBe(true);
    expect(ruleAllows(rule, ri('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/b.example.com'))).toBe(false);
    expect(ruleAllows(rule, ri('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'))).toBe(false);
  });
});

describe('loadRBACPolicy + rbacAuthorizer', () => {
  const policy = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules:
  - {apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}
subjects:
  - {kind: ServiceAccount, name: bot, namespace: tools}
  - {kind: Group, name: readers}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: writer, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: writer}
subjects: [{kind: User, name: alice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: writer, namespace: team-a}
rules: [{apiGroups: [""], resources: ["configmaps"], verbs: ["create"]}]
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: bot, namespace: tools}
`;
  const authz = rbacAuthorizer(loadRBACPolicy(policy, 'policy.yaml'));
  const user = (name: string, groups: string[] = []) => ({ name, groups });

  it('binds service accounts, groups and users; a RoleBinding only in its namespace; masters may do all', () => {
    expect(authz(user('system:serviceaccount:tools:bot'), ri('GET', '/api/v1/namespaces/x/configmaps')).allowed).toBe(true);
    expect(authz(user('system:serviceaccount:tools:bot'), ri('DELETE', '/api/v1/namespaces/x/configmaps/c')).allowed).toBe(false);
    expect(authz(user('carol', ['readers']), ri('GET', '/api/v1/namespaces/x/configmaps/c')).allowed).toBe(true);
    expect(authz(user('alice'), ri('POST', '/api/v1/namespaces/team-a/configmaps')).allowed).toBe(true);
    expect(authz(user('alice'), ri('POST', '/api/v1/namespaces/team-b/configmaps')).allowed).toBe(false);
    expect(authz(user('admin', ['system:masters']), ri('DELETE', '/api/v1/namespaces/x')).allowed).toBe(true);
    expect(authz(user('nobody'), ri('GET', '/api/v1/namespaces/x/configmaps')).allowed).toBe(false);
  });

  it('rejects a binding to a role the file does not define, and bad YAML, naming the file', () => {
    const dangling = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: ClusterRole, name: missing}\nsubjects: []\n';
    expect(() => loadRBACPolicy(dangling, 'p.yaml')).toThrow('p.yaml: ClusterRoleBinding "b" refers to ClusterRole "missing", which is not defined in this file');
    expect(() => loadRBACPolicy('a: [b\n', 'p.yaml')).toThrow(/^p\.yaml: document 1: /);
    const noVerbs = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules: [{resources: [x]}]\n';
    expect(() => loadRBACPolicy(noVerbs, 'p.yaml')).toThrow('every rule needs verbs');
  });
});
