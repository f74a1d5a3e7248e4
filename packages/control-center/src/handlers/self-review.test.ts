import { describe, expect, it } from 'vitest';
import { rbacAuthorizer } from '../pipeline/rbac.js';
import { StatusError } from '../apierrors/status.js';
import { selfSubjectAccessReview, selfSubjectReview, selfSubjectRulesReview } from './self-review.js';
import { managementClusterAuthorizer } from '../pipeline/management-cluster-authorizer.js';
import { alwaysAllow } from '../pipeline/authorize.js';
import type { Store } from '../storage/store.js';
import { request, useTestControlCenter } from '../testing/in-process.js';

const authz = rbacAuthorizer([{ subjects: [{ kind: 'User', name: 'bob' }], rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] }] }]);
const bob = { name: 'bob', groups: ['team'] };
const review = (resourceAttributes: Record<string, string>) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } });

describe('SelfSubjectAccessReview', () => {
  it('asks the authorizer about the caller and answers the review with status.allowed', () => {
    expect(selfSubjectAccessReview(review({ verb: 'get', resource: 'secrets', name: 's1', namespace: 'n' }), bob, authz).status).toEqual({ allowed: true });
    expect(selfSubjectAccessReview(review({ verb: 'get', resource: 'secrets', name: 's2', namespace: 'n' }), bob, authz).status).toEqual({ allowed: false });
    expect(selfSubjectAccessReview(review({ verb: 'list', resource: 'secrets', namespace: 'n' }), bob, authz).status).toEqual({ allowed: false });
    expect(selfSubjectAccessReview(review({ verb: 'delete', resource: 'secrets' }), { name: 'root', groups: ['system:masters'] }, authz).status).toEqual({ allowed: true });
    expect(selfSubjectAccessReview({ kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } } }, bob, authz).status).toEqual({ allowed: true });
  });

  it("passes a list or watch's labelSelector (raw or as requirements) to the authorizer, as a request's", () => {
    const seen: (string | undefined)[] = [];
    const bySelector = Object.assign((_u: unknown, ri: { verb: string; labelSelector?: string }) => {
      seen.push(ri.labelSelector);
      return ri.labelSelector === 'state=Sync' || ri.labelSelector === 'state in (Sync)' ? { allowed: true as const } : { allowed: false as const, reason: 'needs state=Sync' };
    }, {});
    const ask = (labelSelector: unknown, verb = 'list') =>
      selfSubjectAccessReview({ kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb, resource: 'secrets', labelSelector } } }, bob, bySelector).status;
    expect(ask({ rawSelector: 'state=Sync' })).toEqual({ allowed: true });
    expect(ask({ requirements: [{ key: 'state', operator: 'In', values: ['Sync'] }] })).toEqual({ allowed: true });
    expect(ask({ rawSelector: 'state=Other' })).toEqual({ allowed: false, reason: 'needs state=Sync' });
    expect(ask(undefined)).toEqual({ allowed: false, reason: 'needs state=Sync' });
    // Only lists and watches carry a selector (a get does not).
    expect(ask({ rawSelector: 'state=Sync' }, 'get')).toEqual({ allowed: false, reason: 'needs state=Sync' });
    expect(seen).toEqual(['state=Sync', 'state in (Sync)', 'state=Other', undefined, undefined]);
    // Both forms at once: refused, as kube-apiserver's validation does.
    expect(() => ask({ rawSelector: 'state=Sync', requirements: [{ key: 'a', operator: 'Exists' }] })).toThrow('may not be specified at the same time as requirements');
  });

  it('refuses a review without attributes (422) and a body of another kind (400)', () => {
    const codeOf = (fn: () => unknown): number | undefined => {
      try {
        fn();
      } catch (e) {
        return (e as StatusError).code;
      }
      return undefined;
    };
    expect(codeOf(() => selfSubjectAccessReview({ kind: 'SelfSubjectAccessReview', spec: {} }, bob, authz))).toBe(422);
    expect(codeOf(() => selfSubjectAccessReview({ kind: 'Pod' }, bob, authz))).toBe(400);
  });
});

describe('SelfSubjectRulesReview', () => {
  const rulesOf = (user: { name: string; groups: string[] }, a = managementClusterAuthorizer(alwaysAllow, {} as Store)) =>
    selfSubjectRulesReview({ kind: 'SelfSubjectRulesReview', spec: { namespace: 'clusters' } }, user, a).status as Record<string, unknown>;

  it("marks a syncer's rules incomplete, saying what narrows them, as kube's Node authorizer marks a node's", () => {
    // The policy lets everyone do everything, but the syncer of mgmt-1 may not (a single can-i says so).
    const syncer = { name: 'hcc:syncer:mgmt-1', groups: ['hcc:syncers', 'system:authenticated'] };
    const r = rulesOf(syncer);
    expect(r.incomplete).toBe(true);
    expect(r.evaluationError).toBe(
      'the ManagementCluster authorizer does not support rule resolution: the syncer of management cluster "mgmt-1" may read only the Secrets and ConfigMaps of mgmt-1, write only what is placed on mgmt-1, and impersonate nobody',
    );
    expect(selfSubjectAccessReview(review({ verb: 'list', resource: 'secrets', namespace: 'clusters' }), syncer, managementClusterAuthorizer(alwaysAllow, {} as Store)).status).toMatchObject({ allowed: false });
    // With RBAC, the policy's rules are listed, still marked incomplete.
    const withRBAC = rulesOf(syncer, managementClusterAuthorizer(rbacAuthorizer([{ subjects: [{ kind: 'Group', name: 'hcc:syncers' }], rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] }]), {} as Store));
    expect(withRBAC.incomplete).toBe(true);
    expect(withRBAC.resourceRules).toContainEqual(expect.objectContaining({ verbs: ['get'], resources: ['secrets'] }));
  });

  it('lists every other user\'s rules as complete', () => {
    expect(rulesOf({ name: 'admin', groups: ['system:masters'] })).toEqual({ resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false });
    // A fleet credential in hcc:syncers not named hcc:syncer:<cluster> is not a syncer identity.
    expect(rulesOf({ name: 'fleet', groups: ['hcc:syncers'] }).incomplete).toBe(false);
  });
});

describe('SelfSubjectReview', () => {
  it('says who the caller is', () => {
    expect(selfSubjectReview(bob).status).toEqual({ userInfo: { username: 'bob', groups: ['team'] } });
  });
});

describe('review request bodies', () => {
  const cc = useTestControlCenter({ crds: [] });
  const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
  const SSRR = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
  const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

  it('decodes a review as kube-apiserver decodes a built-in kind: unknown fields by fieldValidation, wrong types and kinds refused', async () => {
    const withBogus = { ...review({ verb: 'get', resource: 'secrets' }), spec: { resourceAttributes: { verb: 'get', resource: 'secrets', bogus: 1 } } };
    const strict = await request(cc(), 'POST', `${SSAR}?fieldValidation=Strict`, withBogus);
    expect(strict.code).toBe(400);
    expect(strict.body.message).toBe('SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: strict decoding error: unknown field "spec.resourceAttributes.bogus"');
    const warn = await request(cc(), 'POST', `${SSAR}?fieldValidation=Warn`, withBogus);
    expect([warn.code, warn.body.status]).toEqual([201, { allowed: true }]);
    expect(warn.headers.get('warning')).toBe('299 - "unknown field \\"spec.resourceAttributes.bogus\\""');
    const ignore = await request(cc(), 'POST', `${SSAR}?fieldValidation=Ignore`, withBogus);
    expect([ignore.code, ignore.headers.get('warning')]).toEqual([201, null]);
    // Duplicate fields are strict-decoding errors too.
    const dup = await request(cc(), 'POST', `${SSRR}?fieldValidation=Strict`, '{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","spec":{"namespace":"a","namespace":"b"}}');
    expect([dup.code, dup.body.message]).toEqual([400, 'SelfSubjectRulesReview in version "v1" cannot be handled as a SelfSubjectRulesReview: strict decoding error: duplicate field "spec.namespace"']);

    const wrongType = await request(cc(), 'POST', SSAR, { ...review({}), spec: { resourceAttributes: { verb: 7, resource: 'secrets' } } });
    expect(wrongType.code).toBe(400);
    expect(wrongType.body.message).toMatch(/^SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: json: cannot unmarshal number into Go struct field \w+\.spec\.resourceAttributes\.verb of type string$/);
    const wrongKind = await request(cc(), 'POST', SSAR, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'a' } });
    expect([wrongKind.code, wrongKind.body.message]).toEqual([400, 'the kind in the data (SelfSubjectRulesReview) does not match the expected kind (SelfSubjectAccessReview)']);
    const wrongVersion = await request(cc(), 'POST', SSRR, { apiVersion: 'authorization.k8s.io/v1beta1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'a' } });
    expect([wrongVersion.code, wrongVersion.body.message]).toEqual([400, 'the API version in the data (authorization.k8s.io/v1beta1) does not match the expected API version (authorization.k8s.io/v1)']);

    // A body without kind or apiVersion takes them from the URL, as for every built-in kind.
    const bare = await request(cc(), 'POST', SSRR, { spec: { namespace: 'a' } });
    expect([bare.code, bare.body.kind, bare.body.spec]).toEqual([201, 'SelfSubjectRulesReview', { namespace: 'a' }]);
    // whoami with or without a body.
    for (const body of [undefined, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { creationTimestamp: null }, status: {} }]) {
      const who = await request(cc(), 'POST', SSR, body);
      expect([who.code, who.body.status.userInfo.username]).toEqual([201, 'admin']);
    }
  });
});
