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

  it('lets unauthenticated users GET only the public-info paths, authenticated ones discovery too (bootstrap roles)', () => {
    const anonymous = user('system:anonymous', ['system:unauthenticated']);
    const someone = user('nobody', ['system:authenticated']);
    const nonResource = (path: string) => ({ ...ri('GET', '/healthz'), isResourceRequest: false, path, verb: 'get' });
    for (const p of ['/healthz', '/livez', '/readyz', '/version']) {
      expect(authz(anonymous, nonResource(p)).allowed, p).toBe(true);
      expect(authz(someone, nonResource(p)).allowed, p).toBe(true);
    }
    for (const p of ['/api', '/apis', '/apis/apps/v1', '/openapi/v3']) {
      expect(authz(anonymous, nonResource(p)).allowed, p).toBe(false);
      expect(authz(someone, nonResource(p)).allowed, p).toBe(true);
    }
    expect(authz.rules!(anonymous, '').nonResourceRules).toEqual([{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }]);
    // system:basic-user: every authenticated user may ask about itself, nobody else.
    const review = { ...ri('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'), group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews', verb: 'create' };
    expect(authz(someone, review).allowed).toBe(true);
    expect(authz(anonymous, review).allowed).toBe(false);
  });

  it('grants non-resource URLs by a ClusterRole bound by a ClusterRoleBinding (exact, prefix*, *), never by a RoleBinding', () => {
    const head = 'apiVersion: rbac.authorization.k8s.io/v1\n';
    const monitoring = rbacAuthorizer(
      loadRBACPolicy(
        `${head}kind: ClusterRole\nmetadata: {name: monitoring}\nrules: [{nonResourceURLs: [/metrics, "/debug/*"], verbs: [get]}]\n---\n` +
          `${head}kind: ClusterRole\nmetadata: {name: all-paths}\nrules: [{nonResourceURLs: ["*"], verbs: ["*"]}]\n---\n` +
          `${head}kind: ClusterRoleBinding\nmetadata: {name: prom}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: monitoring}\nsubjects: [{kind: ServiceAccount, name: prometheus, namespace: monitoring}]\n---\n` +
          `${head}kind: ClusterRoleBinding\nmetadata: {name: ops}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: all-paths}\nsubjects: [{kind: Group, name: ops}]\n---\n` +
          `${head}kind: RoleBinding\nmetadata: {name: local, namespace: x}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: all-paths}\nsubjects: [{kind: User, name: local}]\n`,
        'policy.yaml',
      ),
    );
    const nonResource = (path: string, verb = 'get') => ({ ...ri('GET', '/healthz'), isResourceRequest: false, path, verb });
    const prom = user('system:serviceaccount:monitoring:prometheus', ['system:authenticated']);
    expect(monitoring(prom, nonResource('/metrics')).allowed).toBe(true);
    expect(monitoring(prom, nonResource('/debug/pprof/heap')).allowed).toBe(true);
    expect(monitoring(prom, nonResource('/metrics', 'post')).allowed).toBe(false);
    expect(monitoring(prom, nonResource('/metricsx')).allowed).toBe(false);
    expect(monitoring(user('someone', ['system:authenticated']), nonResource('/metrics')).allowed).toBe(false);
    expect(monitoring(user('o', ['ops']), nonResource('/anything', 'post')).allowed).toBe(true);
    expect(monitoring(user('local'), nonResource('/metrics')).allowed).toBe(false);
    // A non-resource rule grants no resource, and a resource request never matches it.
    expect(monitoring(prom, ri('GET', '/api/v1/namespaces/x/configmaps')).allowed).toBe(false);
    // can-i --list: the ClusterRoleBinding's non-resource rules after the public ones, none from the RoleBinding.
    expect(monitoring.rules!(prom, '').nonResourceRules.slice(1)).toEqual([{ verbs: ['get'], nonResourceURLs: ['/metrics', '/debug/*'] }]);
    expect(monitoring.rules!(prom, '').resourceRules.filter((r) => r.resources?.length === 0)).toEqual([]);
    expect(monitoring.rules!(user('local'), 'x').nonResourceRules).toHaveLength(1);
  });

  it('rejects malformed policies with one line naming the file and the object', () => {
    const head = 'apiVersion: rbac.authorization.k8s.io/v1\n';
    const role = `${head}kind: ClusterRole\nmetadata: {name: r}\nrules: [{apiGroups: [""], resources: [secrets], verbs: [get]}]\n---\n`;
    const cases: [string, string][] = [
      [`${head}kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: missing}\nsubjects: []\n`, 'p.yaml: ClusterRoleBinding "b" refers to ClusterRole "missing", which is not defined in this file'],
      ['a: [b\n', 'p.yaml: document 1 is not valid YAML: '],
      ['', 'p.yaml: no ClusterRole, Role, ClusterRoleBinding or RoleBinding (rbac.authorization.k8s.io/v1) in the file'],
      ['just a string\n', 'p.yaml: document 1 is not an object'],
      ['apiVersion: rbac.authorization.k8s.io/v1beta1\nkind: ClusterRole\nmetadata: {name: r}\n', 'has apiVersion "rbac.authorization.k8s.io/v1beta1"; only rbac.authorization.k8s.io/v1 is served'],
      ['kind: ClusterRole\nrules: 5\n', 'p.yaml: a ClusterRole without metadata.name has no apiVersion; only rbac.authorization.k8s.io/v1 is served'],
      [`${head}kind: ClusterRole\nmetadata: {name: r}\nrules: [{resources: [x], apiGroups: [""]}]\n`, 'ClusterRole "r" rule 1: verbs must be a non-empty list of strings'],
      [`${head}kind: ClusterRole\nmetadata: {name: r}\nrules: [{resources: [x], apiGroups: [""], verbs: get}]\n`, 'verbs must be a non-empty list of strings'],
      [`${head}kind: ClusterRole\nmetadata: {name: r}\nrules: [null]\n`, 'rule 1: a rule must be an object'],
      [`${head}kind: ClusterRole\nmetadata: {name: r}\nrules: oops\n`, 'ClusterRole "r": rules must be a list'],
      [`${role}${role}`, 'ClusterRole "r" is defined twice'],
      [`${role}${head}kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}\nsubjects: {kind: User, name: a}\n`, 'ClusterRoleBinding "b": subjects must be a list'],
      [`${role}${head}kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}\nsubjects: [null]\n`, 'subject 1: needs kind and name'],
      [`${role}${head}kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}\nsubjects: [{kind: ServiceAccount, name: sa}]\n`, 'a ServiceAccount subject needs its namespace'],
      [`${role}${head}kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}\nsubjects: [{kind: Robot, name: x}]\n`, 'kind must be User, Group or ServiceAccount, got "Robot"'],
      // A ClusterRoleBinding cannot grant a namespaced Role everywhere (upstream refuses it too).
      [`${head}kind: Role\nmetadata: {name: r, namespace: default}\nrules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]\n---\n${head}kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}\nsubjects: [{kind: User, name: a}]\n`, 'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"'],
      [`${role}${head}kind: RoleBinding\nmetadata: {name: b, namespace: x}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Banana, name: r}\nsubjects: []\n`, 'roleRef.kind: Unsupported value: "Banana": supported values: "ClusterRole", "Role"'],
      ['{"kind": "List", "items": 5}', 'a List needs a list of items'],
      // A typo must not widen a rule (resourceName instead of resourceNames) or drop subjects.
      [`${head}kind: ClusterRole\nmetadata: {name: r}\nrules: [{apiGroups: [""], resources: [secrets], resourceName: [one], verbs: [get]}]\n`, 'strict decoding error: unknown field "resourceName"'],
      [`${role}${head}kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}\nsubject: [{kind: User, name: a}]\n`, 'strict decoding error: unknown field "subject"'],
      [`${head}kind: ClusterRoleBindng\nmetadata: {name: b}\n`, 'no matches for kind "ClusterRoleBindng"'],
      [`${role}${head}kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: foo, kind: ClusterRole, name: r}\nsubjects: []\n`, 'roleRef.apiGroup: Unsupported value: "foo": supported values: "rbac.authorization.k8s.io"'],
      [`${role}${head}kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}\n---\n${head}kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}\n`, 'ClusterRoleBinding "b" is defined twice'],
      [`${head}kind: ClusterRole\nmetadata: {name: R/x}\n`, 'metadata.name: Invalid value: "R/x"'],
      [`${head}kind: Role\nmetadata: {name: r, namespace: x}\nrules: [{nonResourceURLs: [/metrics], verbs: [get]}]\n`, 'Role "r" rule 1: nonResourceURLs: Invalid value: ["/metrics"]: namespaced rules cannot apply to non-resource URLs'],
      [`${head}kind: ClusterRole\nmetadata: {name: r}\nrules: [{nonResourceURLs: [/metrics], apiGroups: [""], resources: [secrets], verbs: [get]}]\n`, 'nonResourceURLs: Invalid value: ["/metrics"]: rules cannot apply to both regular resources and non-resource URLs'],
      [`${head}kind: ClusterRole\nmetadata: {name: r}\nrules: [{nonResourceURLs: /metrics, verbs: [get]}]\n`, 'nonResourceURLs must be a list of strings'],
    ];
    for (const [text, message] of cases) {
      let err: Error | undefined;
      try {
        loadRBACPolicy(text, 'p.yaml');
      } catch (e) {
        err = e as Error;
      }
      expect(err?.message, text).toContain(message);
      expect(err!.message.startsWith('p.yaml: '), err!.message).toBe(true);
      expect(err!.message.includes('\n'), err!.message).toBe(false);
    }
  });

  it('puts every authenticated user in system:authenticated only through authentication (a binding to it applies to whoever carries it)', () => {
    const a = rbacAuthorizer(loadRBACPolicy(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}
subjects: [{kind: Group, name: system:authenticated}]
`, 'p.yaml'));
    expect(a(user('dave', ['system:authenticated']), ri('GET', '/api/v1/namespaces/x/configmaps')).allowed).toBe(true);
    expect(a(user('system:anonymous', ['system:unauthenticated']), ri('GET', '/api/v1/namespaces/x/configmaps')).allowed).toBe(false);
  });
});
