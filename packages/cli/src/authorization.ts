/**
 * `--authorization-policy`: RBAC manifests (ClusterRole, Role, ClusterRoleBinding, RoleBinding)
 * that decide what each non-admin identity of a control center or embedded management cluster
 * may do, so a syncer can run with exactly the rights `deploy/syncer/rbac.yaml` grants it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadRBACPolicy, rbacAuthorizer, type Authorizer } from '@hcc/control-center';

/**
 * The authorizer of a policy file, or undefined (everyone authenticated may do everything) when
 * no file is given.
 * @throws Error with the file name when it cannot be read or holds a malformed policy
 */
export function authorizerFromFile(file: string | undefined): Authorizer | undefined {
  if (!file) return undefined;
  const p = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(p, 'utf8');
  } catch (err) {
    throw new Error(`--authorization-policy: cannot read ${p}: ${(err as Error).message}`);
  }
  return rbacAuthorizer(loadRBACPolicy(text, p));
}
