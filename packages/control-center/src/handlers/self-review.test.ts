import { describe, expect, it } from 'vitest';
import { rbacAuthorizer } from '../pipeline/rbac.js';
import { StatusError } from '../apierrors/status.js';
import { selfSubjectAccessReview, selfSubjectReview } from './self-review.js';

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

describe('SelfSubjectReview', () => {
  it('says who the caller is', () => {
    expect(selfSubjectReview(bob).status).toEqual({ userInfo: { username: 'bob', groups: ['team'] } });
  });
});
