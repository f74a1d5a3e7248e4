/**
 * An authorizer from RBAC policy rules, for resource requests: what a ClusterRole bound to a user
 * or group allows, matched as kube-apiserver's RBAC authorizer matches rules (verbs, API groups,
 * resources as `resource` or `resource/subresource`, `*` wildcards, resourceNames only for
 * requests that name an object). Members of `system:masters` may do everything, as upstream.
 * Non-resource URLs are not matched here: the control center serves discovery and health to every
 * authenticated user.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/rbac/
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/rbac/v1/evaluation_helpers.go
 */
import { parseAllDocuments } from 'yaml';
import type { Authorizer } from './authorize.js';
import type { UserInfo } from './authenticate.js';
import type { RequestInfo } from './request-info.js';

/** One rule of a Role or ClusterRole (rbac.authorization.k8s.io/v1 PolicyRule). */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** A role's rules bound to users and groups (what a ClusterRoleBinding or RoleBinding says). */
export interface RuleBinding {
  subjects: { kind: 'User' | 'Group'; name: string }[];
  rules: PolicyRule[];
  /** Set for a RoleBinding: the rules apply only to requests in this namespace. */
  namespace?: string;
}

const has = (list: readonly string[] | undefined, v: string): boolean => !!list && (list.includes('*') || list.includes(v));

/** evaluation_helpers.go ResourceMatches: `resource`, `resource/subresource`, `*`, `*\/subresource`. */
function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

/** Whether one rule allows a resource request (RuleAllows). */
export function ruleAllows(rule: PolicyRule, ri: Pick<RequestInfo, 'verb' | 'group' | 'resource' | 'subresource' | 'name'>): boolean {
  if (!has(rule.verbs, ri.verb)) return false;
  if (!has(rule.apiGroups, ri.group)) return false;
  if (!resourceMatches(rule, ri.resource, ri.subresource)) return false;
  if (rule.resourceNames?.length) return ri.name !== '' && rule.resourceNames.includes(ri.name);
  return true;
}

/**
 * The authorizer for these bindings.
 * @returns allowed when the user is in `system:masters` or a binding naming the user or one of its
 *   groups has a rule that allows the request; else denied without a reason, as upstream
 */
export function rbacAuthorizer(bindings: readonly RuleBinding[]): Authorizer {
  return (user: UserInfo, ri: RequestInfo) => {
    if (user.groups.includes('system:masters')) return { allowed: true };
    if (!ri.isResourceRequest) return { allowed: true };
    for (const b of bindings) {
      if (b.namespace !== undefined && b.namespace !== ri.namespace) continue;
      const bound = b.subjects.some((s) => (s.kind === 'User' ? s.name === user.name : user.groups.includes(s.name)));
      if (bound && b.rules.some((r) => ruleAllows(r, ri))) return { allowed: true };
    }
    // kube-apiserver's RBAC authorizer gives no reason for a denial: the message ends with the request.
    return { allowed: false, reason: '' };
  };
}

interface RBACObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  rules?: PolicyRule[];
  roleRef?: { kind?: string; name?: string };
  subjects?: { kind?: string; name?: string; namespace?: string }[];
}

/**
 * Reads ClusterRoles, Roles, ClusterRoleBindings and RoleBindings (rbac.authorization.k8s.io/v1,
 * YAML or JSON, several documents, `List`s too) into bindings for {@link rbacAuthorizer}: the
 * same manifests a cluster would get. A ServiceAccount subject is the user
 * `system:serviceaccount:<namespace>:<name>`. Other kinds are ignored.
 * @param source - the file name, for error messages
 * @throws Error naming the document when YAML does not parse, a binding names a role the text does
 *   not define, or a rule or subject is malformed
 */
export function loadRBACPolicy(text: string, source: string): RuleBinding[] {
  const objects: RBACObject[] = [];
  const docs = parseAllDocuments(text);
  for (const [i, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
    if (doc.errors.length) throw new Error(`${source}: document ${i + 1}: ${doc.errors[0]!.message}`);
    const o = doc.toJS() as RBACObject & { items?: RBACObject[] };
    if (!o || typeof o !== 'object') continue;
    if (o.kind === 'List' || o.kind?.endsWith('List')) objects.push(...(o.items ?? []));
    else objects.push(o);
  }
  const rbac = objects.filter((o) => o.apiVersion === 'rbac.authorization.k8s.io/v1');
  const roles = new Map<string, PolicyRule[]>();
  const what = (o: RBACObject) => `${o.kind} "${o.metadata?.name ?? ''}"`;
  for (const o of rbac) {
    if (o.kind !== 'ClusterRole' && o.kind !== 'Role') continue;
    for (const r of o.rules ?? []) {
      if (!Array.isArray(r.verbs) || r.verbs.length === 0) throw new Error(`${source}: ${what(o)}: every rule needs verbs`);
    }
    roles.set(o.kind === 'Role' ? `Role/${o.metadata?.namespace ?? 'default'}/${o.metadata?.name}` : `ClusterRole/${o.metadata?.name}`, o.rules ?? []);
  }
  const out: RuleBinding[] = [];
  for (const o of rbac) {
    if (o.kind !== 'ClusterRoleBinding' && o.kind !== 'RoleBinding') continue;
    const ns = o.metadata?.namespace ?? 'default';
    const ref = o.roleRef?.kind === 'Role' ? `Role/${ns}/${o.roleRef.name}` : `ClusterRole/${o.roleRef?.name}`;
    const rules = roles.get(ref);
    if (!rules) throw new Error(`${source}: ${what(o)} refers to ${o.roleRef?.kind} "${o.roleRef?.name}", which is not defined in this file`);
    const subjects = (o.subjects ?? []).map((s): RuleBinding['subjects'][number] => {
      if (s.kind === 'ServiceAccount') return { kind: 'User' as const, name: `system:serviceaccount:${s.namespace ?? ns}:${s.name}` };
      if (s.kind === 'User' || s.kind === 'Group') return { kind: s.kind, name: s.name ?? '' };
      throw new Error(`${source}: ${what(o)}: subject kind must be User, Group or ServiceAccount, got "${s.kind}"`);
    });
    out.push({ subjects, rules, ...(o.kind === 'RoleBinding' ? { namespace: ns } : {}) });
  }
  return out;
}
