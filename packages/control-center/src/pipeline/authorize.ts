/**
 * Authorization stage: decides whether a user may perform a request. The first version allows
 * everything; the stage exists so per-syncer rights (a syncer may only touch what is placed on
 * its cluster) slot in without touching handlers.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authorization/
 */
import type { RequestInfo } from './request-info.js';
import type { UserInfo } from './authenticate.js';
import * as apierrors from '../apierrors/status.js';

/** An authorizer answers allow, or deny with a reason. */
export type Authorizer = (user: UserInfo, ri: RequestInfo) => { allowed: true } | { allowed: false; reason: string };

/** Allows every request. */
export const alwaysAllow: Authorizer = () => ({ allowed: true });

/** Applies an authorizer. @throws StatusError 403 */
export function authorize(authorizer: Authorizer, user: UserInfo, ri: RequestInfo): void {
  const d = authorizer(user, ri);
  if (!d.allowed) {
    throw apierrors.forbidden({ group: ri.group, resource: ri.resource }, ri.name, `User "${user.name}" cannot ${ri.verb} resource "${ri.resource}" in API group "${ri.group}"${ri.namespace ? ` in the namespace "${ri.namespace}"` : ''}${d.reason ? `: ${d.reason}` : ''}`);
  }
}
