/**
 * Impersonation (`kubectl --as USER --as-group GROUP`): a user allowed the `impersonate` verb on
 * `users` (and on `groups` for each group) acts as another user, as kube-apiserver's
 * WithImpersonation filter does. The impersonated user is in the given groups plus
 * `system:authenticated`. Impersonating a UID or extra fields is refused (hcc's users have none).
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#user-impersonation
 */
import type { FastifyRequest } from 'fastify';
import * as apierrors from '../apierrors/status.js';
import type { UserInfo } from './authenticate.js';
import { AuthenticatedGroup, attributesOf, authorize, type Authorizer } from './authorize.js';


/**
 * The user a request acts as: the authenticated one, or the one its `Impersonate-User` and
 * `Impersonate-Group` headers name when `real` may impersonate them.
 * @throws StatusError 403 when `real` may not impersonate a named user or group, 400 for groups
 *   without a user or for `Impersonate-Uid` / `Impersonate-Extra-*`
 */
export function impersonatedUser(req: FastifyRequest, real: UserInfo, authorizer: Authorizer): UserInfo {
  const h = req.headers;
  // The common case, checked without building headersDistinct on every request.
  if (h['impersonate-user'] === undefined && h['impersonate-group'] === undefined && h['impersonate-uid'] === undefined) return real;
  const distinct = req.raw.headersDistinct;
  const users = distinct['impersonate-user'] ?? [];
  const groups = distinct['impersonate-group'] ?? [];
  const others = Object.keys(distinct).filter((h) => h === 'impersonate-uid' || h.startsWith('impersonate-extra-'));
  if (users.length === 0 && groups.length === 0 && others.length === 0) return real;
  if (users.length !== 1 || !users[0]) throw apierrors.badRequest('impersonating groups, a uid or extra fields requires impersonating a user (Impersonate-User)');
  if (others.length) throw apierrors.badRequest(`impersonating ${others.join(', ')} is not supported`);
  const name = users[0];
  const check = (resource: string, n: string) =>
    authorize(authorizer, real, attributesOf({ isResourceRequest: true, verb: 'impersonate', resource, name: n }));
  check('users', name);
  for (const g of groups) check('groups', g);
  return { name, groups: [...groups.filter((g) => g !== AuthenticatedGroup), AuthenticatedGroup] };
}
