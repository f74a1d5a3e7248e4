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
import type { KubeObject } from '@hcc/crds';
import { decodeObjectBody } from '../pipeline/decode.js';
import { decodeBuiltin } from '../registry/builtin/decode.js';
import { strictErrorsOf, type StrategyContext } from '../registry/types.js';
import { checkTypeMeta } from './object-ops.js';

/** A review kind the control center answers (cluster-scoped, create only, never stored). */
export interface ReviewKind {
  group: string;
  version: string;
  /** The plural resource name in the URL. */
  resource: string;
  kind: string;
}

/** The review kinds, for discovery, OpenAPI (kubectl explain) and the routes. */
export const reviewKinds: readonly ReviewKind[] = [
  { group: 'authentication.k8s.io', version: 'v1', resource: 'selfsubjectreviews', kind: 'SelfSubjectReview' },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview' },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview' },
];

/** The URL path of a review kind. */
export const reviewPath = (r: ReviewKind): string => `/apis/${r.group}/${r.version}/${r.resource}`;

/**
 * Decodes a review's request body as kube-apiserver decodes a built-in kind's: JSON, YAML or
 * protobuf; the body's apiVersion and kind, when set, must be the review's; a value of the wrong
 * type is a 400, and unknown or duplicate fields are handled by `ctx.fieldValidation` (Strict: 400
 * `strict decoding error: unknown field "spec.foo"`; Warn: a warning each in `ctx.warnings`).
 * A SelfSubjectReview, which asks nothing, may come without a body.
 * @returns the review object, with apiVersion and kind set
 * @throws StatusError 400 BadRequest for a body that does not decode as the review kind, 415 for
 *   a content type it cannot take
 */
export function decodeReview(r: ReviewKind, contentType: string | undefined, body: Buffer | undefined, ctx: StrategyContext): KubeObject {
  if (r.kind === 'SelfSubjectReview' && (!body || body.length === 0)) return { apiVersion: `${r.group}/${r.version}`, kind: r.kind, metadata: {} };
  const obj = checkTypeMeta(decodeObjectBody(contentType, body, { strict: strictErrorsOf(ctx) }), r);
  decodeBuiltin(obj, { ...r, custom: false }, ctx);
  return obj;
}

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  /** authorization/v1 LabelSelectorAttributes (kube 1.31+): the list or watch's label selector, raw or as requirements. */
  labelSelector?: { rawSelector?: string; requirements?: { key?: string; operator?: string; values?: string[] }[] };
}

/**
 * The label selector a review's resourceAttributes carry, as a selector string (the attribute a
 * list or watch with `?labelSelector=` is authorized with): `rawSelector`, or the requirements
 * written out (`In`, `NotIn`, `Exists`, `DoesNotExist`). '' when none.
 * @see https://kubernetes.io/docs/reference/kubernetes-api/authorization-resources/self-subject-access-review-v1/
 */
export function reviewLabelSelector(ra: ResourceAttributes | undefined): string {
  const ls = ra?.labelSelector;
  if (!ls) return '';
  if (typeof ls.rawSelector === 'string' && ls.rawSelector) return ls.rawSelector;
  const parts = (ls.requirements ?? []).map((r) => {
    const values = (r.values ?? []).join(',');
    switch (r.operator) {
      case 'In':
        return `${r.key} in (${values})`;
      case 'NotIn':
        return `${r.key} notin (${values})`;
      case 'Exists':
        return `${r.key}`;
      case 'DoesNotExist':
        return `!${r.key}`;
      default:
        return '';
    }
  });
  return parts.every(Boolean) ? parts.join(',') : '';
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
  const ls = ra?.labelSelector;
  if (ls?.rawSelector && ls.requirements?.length) {
    throw apierrors.invalid({ group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview' }, '', [
      field.invalid('spec.resourceAttributes.labelSelector.rawSelector', ls.rawSelector, 'may not be specified at the same time as requirements'),
    ]);
  }
  // Exactly one of the two is set (checked above).
  const decision = authorizer(
    user,
    nra ? attributesOf({ isResourceRequest: false, path: nra.path ?? '', verb: nra.verb ?? '' }) : reviewAttributes(ra!),
  );
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec: review.spec,
    status: decision.allowed ? { allowed: true } : { allowed: false, ...(decision.reason ? { reason: decision.reason } : {}) },
  };
}

/** The authorization attributes of a review's resourceAttributes, with a list or watch's label selector as a request's would carry it. */
function reviewAttributes(ra: ResourceAttributes) {
  const { labelSelector: _ls, ...rest } = ra;
  const attrs = attributesOf({ ...rest, isResourceRequest: true, verb: ra.verb ?? '' });
  const selector = attrs.verb === 'list' || attrs.verb === 'watch' ? reviewLabelSelector(ra) : '';
  return selector ? { ...attrs, labelSelector: selector } : attrs;
}

/** Answers a SelfSubjectReview: who the caller is. */
export function selfSubjectReview(user: UserInfo): Record<string, unknown> {
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    metadata: { creationTimestamp: null },
    status: { userInfo: { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) } },
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
