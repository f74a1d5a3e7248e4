/**
 * Authorization stage: decides whether a user may perform a request. The first version allows
 * everything; the stage exists so per-syncer rights (a syncer may only touch what is placed on
 * its cluster) slot in without touching handlers.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authorization/
 */
import type { RequestInfo } from './request-info.js';
import type { UserInfo } from './authenticate.js';
import * as apierrors from '../apierrors/status.js';
import { firstQueryValue } from './list-options.js';

/** The group of every authenticated (or impersonated) user (kube-apiserver's `user.AllAuthenticated`). */
export const AuthenticatedGroup = 'system:authenticated';

/** The group whose members may do everything (kube-apiserver's `user.SystemPrivilegedGroup`). */
export const MastersGroup = 'system:masters';

/**
 * An authorizer answers allow, or deny with a reason. `rules`, when present, lists what it allows
 * (SelfSubjectRulesReview, `kubectl auth can-i --list`); without it the user may do everything.
 */
export interface Authorizer {
  (user: UserInfo, ri: RequestInfo): { allowed: true } | { allowed: false; reason: string };
  rules?: RulesResolver;
}

/** Allows every request. */
export const alwaysAllow: Authorizer = () => ({ allowed: true });

/** One resource rule of a SelfSubjectRulesReview (authorization/v1 ResourceRule). */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}
/** One non-resource rule of a SelfSubjectRulesReview (authorization/v1 NonResourceRule). */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}
/** What a user may do in a namespace: the status of a SelfSubjectRulesReview. */
export interface SubjectRules {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /**
   * True when the list does not say all that decides the user's requests: a syncer's, whose
   * requests the ManagementCluster authorizer narrows to its own cluster's objects (as kube's Node
   * authorizer marks a node's rules incomplete: it cannot list "the pods bound to me" as rules).
   */
  incomplete: boolean;
  /** Why the list is incomplete (kubectl prints it after `the list may be incomplete`). */
  evaluationError?: string;
}
/**
 * Lists the rules that allow a user's requests in a namespace (`kubectl auth can-i --list`); it
 * must agree with the Authorizer it goes with.
 */
export type RulesResolver = (user: UserInfo, namespace: string) => SubjectRules;

/** The rules of a user who may do everything (`system:masters`, or every user without a policy). */
export const allowAllRules: RulesResolver = () => ({
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
});

/**
 * Attributes of a request that did not come from a URL (a SelfSubjectAccessReview, an
 * impersonation check): the given fields, every other one (and every one given as undefined) empty.
 */
export function attributesOf(a: Partial<Omit<RequestInfo, 'parts' | 'apiPrefix'>> & { isResourceRequest: boolean; verb: string }): RequestInfo {
  const out: RequestInfo = { isResourceRequest: a.isResourceRequest, path: '', verb: a.verb, group: '', version: '', namespace: '', resource: '', subresource: '', name: '', parts: [] };
  for (const k of ['path', 'group', 'version', 'namespace', 'resource', 'subresource', 'name'] as const) if (a[k] !== undefined) out[k] = a[k];
  return out;
}

/**
 * The attributes a request is authorized with, as k8s.io/apiserver's RequestInfoFactory sets them
 * beyond what routing needs: a list or watch whose field selector requires `metadata.name=X`
 * (the first such term) is about the object X (so `resourceNames` rules cover
 * `kubectl get x -w`), and a request on `/api/v1/namespaces/{name}` is in the namespace `{name}`
 * (so a RoleBinding there lets its subjects read their own namespace; a list or watch of
 * namespaces stays cluster-scoped). A list's or watch's `labelSelector` is passed on as an
 * attribute, as kube's AuthorizeWithSelectors does (KEP-4601), for the syncer authorizer.
 * @see https://github.com/kubernetes/enhancements/tree/master/keps/sig-auth/4601-authorize-with-selectors
 */
export function authorizationAttributes(ri: RequestInfo, query: Record<string, unknown>): RequestInfo {
  let { name, namespace } = ri;
  // A namespace's own URL puts the request in that namespace (the path's name, not a selector's).
  if (ri.group === '' && ri.resource === 'namespaces' && name && !namespace) namespace = name;
  const fieldSelector = firstQueryValue(query.fieldSelector);
  if (!name && (ri.verb === 'list' || ri.verb === 'watch') && fieldSelector !== '') {
    for (const term of fieldSelector.split(',')) {
      const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
      if (m) {
        name = m[1]!;
        break;
      }
    }
  }
  const labelSelector = ri.verb === 'list' || ri.verb === 'watch' ? firstQueryValue(query.labelSelector) : '';
  if (name === ri.name && namespace === ri.namespace && !labelSelector) return ri;
  return { ...ri, name, namespace, ...(labelSelector ? { labelSelector } : {}) };
}

/**
 * Applies an authorizer. The message is kube-apiserver's forbiddenMessage: the resource with its
 * subresource, and "in the namespace" or "at the cluster scope".
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go
 * @throws StatusError 403
 */
export function authorize(authorizer: Authorizer, user: UserInfo, ri: RequestInfo): void {
  const d = authorizer(user, ri);
  if (!d.allowed && !ri.isResourceRequest) throw apierrors.forbiddenPath(`User "${user.name}" cannot ${ri.verb} path "${ri.path}"${d.reason ? `: ${d.reason}` : ''}`);
  if (!d.allowed) {
    const resource = ri.subresource ? `${ri.resource}/${ri.subresource}` : ri.resource;
    const where = ri.namespace ? `in the namespace "${ri.namespace}"` : 'at the cluster scope';
    throw apierrors.forbidden({ group: ri.group, resource: ri.resource }, ri.name, `User "${user.name}" cannot ${ri.verb} resource "${resource}" in API group "${ri.group}" ${where}${d.reason ? `: ${d.reason}` : ''}`);
  }
}
