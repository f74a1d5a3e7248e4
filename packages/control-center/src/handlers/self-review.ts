/**
 * The reviews a user asks about themselves, as kube-apiserver answers them (create-only, nothing
 * stored): `SelfSubjectAccessReview` (authorization.k8s.io/v1; `kubectl auth can-i`) asks the
 * authorizer whether the caller may do something; `SelfSubjectRulesReview` (`kubectl auth can-i
 * --list`) lists what the caller may do in a namespace; `SelfSubjectReview`
 * (authentication.k8s.io/v1; `kubectl auth whoami`) says who the caller is.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authorization/#checking-api-access
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#self-subject-review
 */
import { allowAllRules, attributesOf, type Authorizer } from '../pipeline/authorize.js';
import type { UserInfo } from '../pipeline/authenticate.js';
import * as apierrors from '../apierrors/status.js';
import * as field from '../apierrors/field.js';

/** Paths of the two reviews. */
export const SelfSubjectAccessReviewPath = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
export const SelfSubjectReviewPath = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
export const SelfSubjectRulesReviewPath = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

/**
 * Answers a SelfSubjectAccessReview: the request body with `status.allowed` (and a `reason` when
 * the authorizer gave one).
 * @throws StatusError 400 for a body that is not a SelfSubjectAccessReview, 422 unless exactly one
 *   of resourceAttributes and nonResourceAttributes is set (upstream's validation)
 */
export function selfSubjectAccessReview(body: unknown, user: UserInfo, authorizer: Authorizer): Record<string, unknown> {
  const review = body as { kind?: string; spec?: { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: { path?: string; verb?: string } } } | undefined;
  if (!review || typeof review !== 'object' || (review.kind !== undefined && review.kind !== 'SelfSubjectAccessReview')) {
    throw apierrors.badRequest('the body must be a SelfSubjectAccessReview (authorization.k8s.io/v1)');
  }
  const ra = review.spec?.resourceAttributes;
  const nra = review.spec?.nonResourceAttributes;
  if (!ra && !nra) {
    throw apierrors.invalid({ group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview' }, '', [
      field.invalid('spec.resourceAttributes', '', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'),
    ]);
  }
  if (ra && nra) {
    throw apierrors.invalid({ group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview' }, '', [
      field.invalid('spec.nonResourceAttributes', nra, 'cannot be specified in combination with resourceAttributes'),
    ]);
  }
  // Exactly one of the two is set (checked above).
  const decision = authorizer(
    user,
    nra ? attributesOf({ isResourceRequest: false, path: nra.path ?? '', verb: nra.verb ?? '' }) : attributesOf({ ...ra, isResourceRequest: true, verb: ra!.verb ?? '' }),
  );
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec: review.spec,
    status: decision.allowed ? { allowed: true } : { allowed: false, ...(decision.reason ? { reason: decision.reason } : {}) },
  };
}

/** Answers a SelfSubjectReview: who the caller is. */
export function selfSubjectReview(user: UserInfo): Record<string, unknown> {
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    metadata: { creationTimestamp: null },
    status: { userInfo: { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups } },
  };
}

/**
 * Answers a SelfSubjectRulesReview: the request with `status` listing the caller's resource and
 * non-resource rules in `spec.namespace` (the authorizer's `rules`; without them, everything).
 * @throws StatusError 400 for a body that is not a SelfSubjectRulesReview, 422 without `spec.namespace`
 *   (upstream: `spec.namespace: Required value`)
 */
export function selfSubjectRulesReview(body: unknown, user: UserInfo, authorizer: Authorizer): Record<string, unknown> {
  const review = body as { kind?: string; spec?: { namespace?: unknown } } | undefined;
  if (!review || typeof review !== 'object' || (review.kind !== undefined && review.kind !== 'SelfSubjectRulesReview')) {
    throw apierrors.badRequest('the body must be a SelfSubjectRulesReview (authorization.k8s.io/v1)');
  }
  const namespace = review.spec?.namespace;
  if (typeof namespace !== 'string' || namespace === '') {
    throw apierrors.invalid({ group: 'authorization.k8s.io', kind: 'SelfSubjectRulesReview' }, '', [field.required('spec.namespace')]);
  }
  const rules = (authorizer.rules ?? allowAllRules)(user, namespace);
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    metadata: { creationTimestamp: null },
    spec: { namespace },
    status: rules,
  };
}
