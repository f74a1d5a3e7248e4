/**
 * Impersonation (`kubectl --as USER --as-group GROUP --as-uid UID --as-user-extra KEY=VALUE`): a
 * user allowed the `impersonate` verb acts as another user, as kube-apiserver's WithImpersonation
 * filter builds and checks it:
 * - a user name of the form `system:serviceaccount:<ns>:<name>` is that ServiceAccount: the check
 *   is on `serviceaccounts` `<name>` in `<ns>`, and without `--as-group` it is in the groups
 *   `system:serviceaccounts` and `system:serviceaccounts:<ns>`; any other name is checked on `users`;
 * - each group on `groups`, each extra value on `userextras/<key>`, the uid on `uids`
 *   (authentication.k8s.io);
 * - `system:anonymous` is in `system:unauthenticated`; any other user is in
 *   `system:authenticated`, unless the groups name either of the two.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#user-impersonation
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/filters/impersonation.go
 */
import type { FastifyRequest } from 'fastify';
import * as apierrors from '../apierrors/status.js';
import type { UserInfo } from './authenticate.js';
import { AuthenticatedGroup, attributesOf, authorize, type Authorizer } from './authorize.js';

/** kube's `user.Anonymous` and `user.AllUnauthenticated`. */
const AnonymousUser = 'system:anonymous';
const UnauthenticatedGroup = 'system:unauthenticated';
const ServiceAccountPrefix = 'system:serviceaccount:';
const ExtraHeaderPrefix = 'impersonate-extra-';
const AuthenticationGroup = 'authentication.k8s.io';

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The namespace and name of a ServiceAccount user name, as k8s.io/apiserver's
 * serviceaccount.SplitUsername reads it (a DNS-1123 label and a DNS-1123 subdomain); undefined for
 * any other name.
 */
export function serviceAccountOf(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(ServiceAccountPrefix)) return undefined;
  const parts = username.slice(ServiceAccountPrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (namespace.length > 63 || !dns1123Label.test(namespace)) return undefined;
  if (name.length > 253 || !dns1123Subdomain.test(name)) return undefined;
  return { namespace, name };
}

/** An extra's key from its header name: percent-decoded, or as it is when it does not decode (unescapeExtraKey). */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Whether any header is an `Impersonate-Extra-<key>` (Node lower-cases header names). */
function hasExtraHeader(headers: FastifyRequest['headers']): boolean {
  for (const k in headers) if (k.startsWith(ExtraHeaderPrefix)) return true;
  return false;
}

/**
 * The user a request acts as: the authenticated one, or the one its `Impersonate-User`,
 * `Impersonate-Group`, `Impersonate-Uid` and `Impersonate-Extra-<key>` headers name when `real`
 * may impersonate each of them.
 * @throws StatusError 403 naming the first of them `real` may not impersonate; 400 for groups, a
 *   uid or extras without a user
 */
export function impersonatedUser(req: FastifyRequest, real: UserInfo, authorizer: Authorizer): UserInfo {
  const h = req.headers;
  // The common case, checked without building headersDistinct (or an array of names) on every request.
  if (h['impersonate-user'] === undefined && h['impersonate-group'] === undefined && h['impersonate-uid'] === undefined && !hasExtraHeader(h)) return real;
  const distinct = req.raw.headersDistinct;
  // As buildImpersonationRequests reads them: the first Impersonate-User and Impersonate-Uid
  // (http.Header.Get), acted on only when not empty; every Impersonate-Group; every extra value.
  const name = distinct['impersonate-user']?.[0] ?? '';
  const uid = distinct['impersonate-uid']?.[0] ?? '';
  const groups = distinct['impersonate-group'] ?? [];
  // No prototype: a key is whatever the header says (`__proto__`, `constructor` too), as Go's map.
  const extra: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [k, values] of Object.entries(distinct)) {
    if (!k.startsWith(ExtraHeaderPrefix) || !values) continue;
    (extra[unescapeExtraKey(k.slice(ExtraHeaderPrefix.length))] ??= []).push(...values);
  }
  const hasExtra = Object.keys(extra).length > 0;
  if (name === '') {
    if (groups.length || uid !== '' || hasExtra) throw apierrors.badRequest('impersonating groups, a uid or extra fields requires impersonating a user (Impersonate-User)');
    return real;
  }
  const check = (attrs: { group?: string; resource: string; subresource?: string; namespace?: string; name: string }) =>
    authorize(authorizer, real, attributesOf({ isResourceRequest: true, verb: 'impersonate', ...attrs }));
  const sa = serviceAccountOf(name);
  if (sa) check({ resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name });
  else check({ resource: 'users', name });
  for (const g of groups) check({ resource: 'groups', name: g });
  for (const [key, values] of Object.entries(extra)) for (const v of values) check({ group: AuthenticationGroup, resource: 'userextras', subresource: key, name: v });
  if (uid !== '') check({ group: AuthenticationGroup, resource: 'uids', name: uid });

  const out = [...groups];
  if (sa && groups.length === 0) out.push('system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`);
  if (name === AnonymousUser) {
    if (!out.includes(UnauthenticatedGroup)) out.push(UnauthenticatedGroup);
  } else if (!out.includes(AuthenticatedGroup) && !out.includes(UnauthenticatedGroup)) {
    out.push(AuthenticatedGroup);
  }
  return { name, groups: out, ...(uid !== '' ? { uid } : {}), ...(hasExtra ? { extra } : {}) };
}
