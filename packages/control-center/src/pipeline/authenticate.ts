/**
 * Authentication stage: maps a request to a user. Bearer tokens from a static token map (the
 * admin token written into the admin kubeconfig, syncer tokens); requests without credentials
 * are `system:anonymous`, allowed only while anonymous access is on (the default for local use).
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#static-token-file
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { StatusError } from '../apierrors/status.js';
import { AuthenticatedGroup, type Authorizer } from './authorize.js';
import { impersonatedUser } from './impersonate.js';

/** Who made a request. */
export interface UserInfo {
  name: string;
  groups: string[];
  /** The token file's uid column (or an impersonated uid), when set. */
  uid?: string;
  /** Extra attributes, only an impersonated user has them (`Impersonate-Extra-<key>`). */
  extra?: Record<string, string[]>;
}

declare module 'fastify' {
  interface FastifyRequest {
    user: UserInfo;
  }
}

/** Options of the authentication stage. */
export interface AuthenticationOptions {
  /** token → user. */
  tokens: Map<string, UserInfo>;
  /** Whether requests without credentials are accepted as system:anonymous. */
  allowAnonymous: boolean;
}

const unauthorized = () =>
  new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });

/**
 * Resolves the user of one request. The Authorization header is read as kube-apiserver's bearer
 * token authenticator reads it: trimmed, split on single spaces, `Bearer` (any case) then the token
 * as the second part — so `Bearer  TOKEN` (two spaces) carries an empty token, a 401. A header of
 * another scheme is no bearer token: the request is then anonymous, if that is allowed.
 * @throws StatusError 401
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go
 */
export function authenticate(req: FastifyRequest, opts: AuthenticationOptions): UserInfo {
  const auth = (req.headers.authorization ?? '').trim();
  const parts = auth ? auth.split(' ') : [];
  if (parts.length >= 2 && parts[0]!.toLowerCase() === 'bearer') {
    const user = parts[1] ? opts.tokens.get(parts[1]) : undefined;
    if (!user) throw unauthorized();
    // Every authenticated user is in system:authenticated, as kube-apiserver's group adder makes it.
    return user.groups.includes(AuthenticatedGroup) ? user : { ...user, groups: [...user.groups, AuthenticatedGroup] };
  }
  if (!opts.allowAnonymous) throw unauthorized();
  return { name: 'system:anonymous', groups: ['system:unauthenticated'] };
}

/**
 * Registers the stage as an onRequest hook; the health endpoints and `/version` stay open to
 * requests without credentials (as upstream's system:public-info-viewer, bound to unauthenticated
 * users too), while a wrong token there is a 401 as anywhere; a single check (`/readyz/NAME`)
 * needs a user, who is then authorized for the path (upstream's system:monitoring has `/readyz/*`); `/metrics` needs a
 * user like any request, as kube-apiserver's (then authorized as a non-resource GET). With
 * `authorizer`, requests may impersonate another user (pipeline/impersonate.ts).
 */
export function registerAuthentication(app: FastifyInstance, opts: AuthenticationOptions, authorizer?: Authorizer): void {
  app.decorateRequest('user', undefined as unknown as UserInfo);
  // upstream's system:public-info-viewer: nonResourceURLs /healthz, /livez, /readyz, /version, /version/.
  const open = new Set(['/healthz', '/readyz', '/livez', '/version', '/version/']);
  app.addHook('onRequest', async (req) => {
    const path = req.url.split('?')[0]!;
    if (open.has(path)) {
      // Open without credentials (a probe sends none); credentials that are sent must be good, as
      // kube-apiserver falls back to anonymous only when a request carries none.
      req.user = (req.headers.authorization ?? '').trim() ? authenticate(req, { ...opts, allowAnonymous: true }) : { name: 'system:anonymous', groups: [] };
      return;
    }
    const user = authenticate(req, opts);
    req.user = authorizer ? impersonatedUser(req, user, authorizer) : user;
  });
}
