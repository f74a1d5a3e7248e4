/**
 * An authorizer from RBAC policy rules, for resource requests: what a ClusterRole bound to a user
 * or group allows, matched as kube-apiserver's RBAC authorizer matches rules (verbs, API groups,
 * resources as `resource` or `resource/subresource`, `*` wildcards, resourceNames only for
 * requests that name an object), and non-resource URLs (`/metrics`) by a ClusterRole's
 * `nonResourceURLs` (exact, `*`, or a `prefix*`). Members of `system:masters` may do everything,
 * as upstream; discovery, OpenAPI, `/version` and health are granted as upstream's bootstrap roles
 * grant them.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/rbac/
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/rbac/v1/evaluation_helpers.go
 */
import { isJSONObject } from '@hcc/crds';
import { parseAllDocuments } from 'yaml';
import { goYAMLOptions } from '@hcc/client';
import { allowAllRules, AuthenticatedGroup, MastersGroup, type Authorizer, type NonResourceRule, type ResourceRule, type RulesResolver } from './authorize.js';
import type { UserInfo } from './authenticate.js';
import type { RequestInfo } from './request-info.js';
/**
 * One rule of a Role or ClusterRole (rbac.authorization.k8s.io/v1 PolicyRule): a resource rule
 * (verbs, apiGroups, resources, resourceNames) or, in a ClusterRole only, a non-resource rule
 * (verbs and nonResourceURLs), never both.
 */
export type PolicyRule = ResourceRule & { nonResourceURLs?: string[] };
/** A role's rules bound to users and groups (what a ClusterRoleBinding or RoleBinding says). */
export interface RuleBinding {
  subjects: { kind: 'User' | 'Group'; name: string }[];
  rules: PolicyRule[];
  /** Set for a RoleBinding: the rules apply only to requests in this namespace. */
  namespace?: string;
}
/** Whether a binding gives its rules to this user (by name or group) for requests in `namespace`. */
function appliesTo(b: RuleBinding, user: UserInfo, namespace: string): boolean {
  if (b.namespace !== undefined && b.namespace !== namespace) return false;
  return b.subjects.some((s) => (s.kind === 'User' ? s.name === user.name : user.groups.includes(s.name)));
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
/**
 * Whether one rule allows a GET (or other verb) of the non-resource `path`
 * (evaluation_helpers.go NonResourceURLMatches: `*`, the path itself, or a `prefix*`).
 */
function nonResourceRuleAllows(rule: PolicyRule, verb: string, path: string): boolean {
  if (!rule.nonResourceURLs || !has(rule.verbs, verb)) return false;
  return rule.nonResourceURLs.some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))));
}
/** Whether one rule allows a resource request (RuleAllows). */
export function ruleAllows(rule: PolicyRule, ri: Pick<RequestInfo, 'verb' | 'group' | 'resource' | 'subresource' | 'name'>): boolean {
  if (!has(rule.verbs, ri.verb)) return false;
  if (!has(rule.apiGroups, ri.group)) return false;
  if (!resourceMatches(rule, ri.resource, ri.subresource)) return false;
  if (rule.resourceNames?.length) return ri.name !== '' && rule.resourceNames.includes(ri.name);
  return true;
}
/** Paths everyone may GET, unauthenticated users too (upstream's system:public-info-viewer role). */
const publicInfoPaths = ['/healthz', '/livez', '/readyz', '/version', '/version/'];
/** Paths every authenticated user may GET besides (upstream's system:discovery role, not bound to system:unauthenticated since 1.14). */
const discoveryPaths = ['/api', '/apis', '/openapi'];
const discoveryPrefixes = ['/api/', '/apis/', '/openapi/'];
/** Whether `user` may GET the non-resource `path`, as those two bootstrap roles allow it. */
function isPublicPath(user: UserInfo, path: string): boolean {
  if (publicInfoPaths.includes(path)) return true;
  if (!user.groups.includes(AuthenticatedGroup)) return false;
  return discoveryPaths.includes(path) || discoveryPrefixes.some((p) => path.startsWith(p));
}
/**
 * What upstream's bootstrap ClusterRole `system:basic-user` gives every authenticated user: asking
 * what it may do and who it is (`kubectl auth can-i`, `kubectl auth whoami`).
 * @see https://kubernetes.io/docs/reference/access-authn-authz/rbac/#discovery-roles
 */
export const basicUserBinding: RuleBinding = {
  subjects: [{ kind: 'Group', name: AuthenticatedGroup }],
  rules: [
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
  ],
};

/**
 * The authorizer for these bindings (and {@link basicUserBinding}).
 * @returns allowed when the user is in `system:masters` or a binding naming the user or one of its
 *   groups has a rule that allows the request; else denied without a reason, as upstream
 */
export function rbacAuthorizer(policy: readonly RuleBinding[]): Authorizer {
  const bindings = [basicUserBinding, ...policy];
  const authorizer: Authorizer = (user: UserInfo, ri: RequestInfo) => {
    if (user.groups.includes(MastersGroup)) return { allowed: true };
    // Non-resource URLs: what upstream's bootstrap system:public-info-viewer (everyone) and
    // system:discovery (authenticated users) grant, and the policy's ClusterRoleBindings (a
    // RoleBinding's rules apply in its namespace; a non-resource request is in none).
    if (!ri.isResourceRequest) {
      if (ri.verb === 'get' && isPublicPath(user, ri.path)) return { allowed: true };
      for (const b of bindings) if (appliesTo(b, user, '') && b.rules.some((r) => nonResourceRuleAllows(r, ri.verb, ri.path))) return { allowed: true };
      return { allowed: false, reason: '' };
    }
    for (const b of bindings) {
      if (appliesTo(b, user, ri.namespace) && b.rules.some((r) => ruleAllows(r, ri))) return { allowed: true };
    }
    // kube-apiserver's RBAC authorizer gives no reason for a denial: the message ends with the request.
    return { allowed: false, reason: '' };
  };
  authorizer.rules = rbacRules(bindings);
  return authorizer;
}
/**
 * The rules these bindings give a user in a namespace, as kube-apiserver's RBAC rule resolver
 * lists them for a SelfSubjectRulesReview: every rule of a ClusterRoleBinding naming the user or
 * one of its groups, and of such a RoleBinding in that namespace; the public non-resource paths
 * every user may GET. `system:masters` may do everything.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authorization/#checking-api-access
 */
export function rbacRules(bindings: readonly RuleBinding[]): RulesResolver {
  return (user, namespace) => {
    if (user.groups.includes(MastersGroup)) return allowAllRules(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [
      {
        verbs: ['get'],
        nonResourceURLs: user.groups.includes(AuthenticatedGroup) ? [...publicInfoPaths, ...discoveryPaths, ...discoveryPrefixes.map((p) => `${p}*`)] : [...publicInfoPaths],
      },
    ];
    for (const b of bindings) {
      if (!appliesTo(b, user, namespace)) continue;
      for (const r of b.rules) {
        if (r.nonResourceURLs) {
          // As upstream's rule resolver: only ClusterRoleBindings give non-resource rules.
          if (b.namespace === undefined) nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] });
          continue;
        }
        resourceRules.push({ verbs: [...r.verbs], apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])], ...(r.resourceNames?.length ? { resourceNames: [...r.resourceNames] } : {}) });
      }
    }
    return { resourceRules, nonResourceRules, incomplete: false };
  };
}

interface RBACObject {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
  rules?: unknown;
  roleRef?: { apiGroup?: unknown; kind?: unknown; name?: unknown };
  subjects?: unknown;
  items?: unknown;
}
const RBACAPIVersion = 'rbac.authorization.k8s.io/v1';
const rbacKinds = new Set(['ClusterRole', 'Role', 'ClusterRoleBinding', 'RoleBinding']);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const ruleFields = new Set(['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs']);
const roleFields = new Set(['apiVersion', 'kind', 'metadata', 'rules']);
const bindingFields = new Set(['apiVersion', 'kind', 'metadata', 'roleRef', 'subjects']);
const roleRefFields = new Set(['apiGroup', 'kind', 'name']);
const subjectFields = new Set(['kind', 'name', 'namespace', 'apiGroup']);
const RBACGroup = 'rbac.authorization.k8s.io';
/** Refuses fields the type does not have, as `kubectl apply`'s strict field validation does (a typo must not widen a rule). */
function strictFields(o: Record<string, unknown>, known: ReadonlySet<string>, where: string): void {
  const unknown = Object.keys(o).filter((k) => !known.has(k));
  if (unknown.length) throw new Error(`${where}: strict decoding error: ${unknown.map((k) => `unknown field "${k}"`).join(', ')}`);
}
/** apimachinery's path-segment name rule, which RBAC objects follow. */
function checkName(name: string, where: string): void {
  if (name === '.' || name === '..' || /[/%]/.test(name)) throw new Error(`${where}: metadata.name: Invalid value: ${JSON.stringify(name)}: may not be '.' or '..' and may not contain '/' or '%'`);
}
/**
 * A rule checked field by field (rbac/validation ValidatePolicyRule): a non-resource rule only in
 * a ClusterRole, and never with apiGroups, resources or resourceNames.
 * @param namespaced - the rule is a Role's
 * @throws Error naming what is wrong
 */
function policyRule(r: unknown, where: string, namespaced: boolean): PolicyRule {
  if (!isJSONObject(r)) throw new Error(`${where}: a rule must be an object with verbs, apiGroups and resources`);
  strictFields(r, ruleFields, where);
  if (!isStringList(r.verbs) || r.verbs.length === 0) throw new Error(`${where}: verbs must be a non-empty list of strings`);
  for (const f of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
    if (r[f] !== undefined && !isStringList(r[f])) throw new Error(`${where}: ${f} must be a list of strings`);
  }
  const urls = r.nonResourceURLs as string[] | undefined;
  if (urls?.length) {
    if (namespaced) throw new Error(`${where}: nonResourceURLs: Invalid value: ${JSON.stringify(urls)}: namespaced rules cannot apply to non-resource URLs`);
    if ((r.apiGroups as string[] | undefined)?.length || (r.resources as string[] | undefined)?.length || (r.resourceNames as string[] | undefined)?.length) {
      throw new Error(`${where}: nonResourceURLs: Invalid value: ${JSON.stringify(urls)}: rules cannot apply to both regular resources and non-resource URLs`);
    }
    return { verbs: r.verbs, nonResourceURLs: urls };
  }
  if (!r.resources || (r.resources as string[]).length === 0) throw new Error(`${where}: resources must be a non-empty list of strings`);
  if (!r.apiGroups || (r.apiGroups as string[]).length === 0) throw new Error(`${where}: apiGroups must be a non-empty list of strings ("" is the core group)`);
  return { verbs: r.verbs, apiGroups: r.apiGroups as string[], resources: r.resources as string[], ...(r.resourceNames ? { resourceNames: r.resourceNames as string[] } : {}) };
}
/**
 * Reads ClusterRoles, Roles, ClusterRoleBindings and RoleBindings (rbac.authorization.k8s.io/v1,
 * YAML or JSON, several documents, `List`s too) into bindings for {@link rbacAuthorizer}: the
 * same manifests a cluster would get. A ServiceAccount subject is the user
 * `system:serviceaccount:<namespace>:<name>`. Objects of other kinds are ignored; the RBAC kinds
 * are validated as kube-apiserver validates them (a ClusterRoleBinding refers to a ClusterRole, a
 * RoleBinding to a Role of its namespace or a ClusterRole; ServiceAccount subjects of a
 * ClusterRoleBinding name their namespace).
 * @param source - the file name, for error messages
 * @throws Error, one line naming the file and the object, when the text is not YAML, holds no RBAC
 *   object, uses another RBAC apiVersion, defines a role twice, binds a role it does not define,
 *   or has a malformed rule, roleRef or subject
 */
export function loadRBACPolicy(text: string, source: string): RuleBinding[] {
  const objects: RBACObject[] = [];
  const docs = parseAllDocuments(text, goYAMLOptions);
  for (const [i, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
    const err = doc.errors[0];
    if (err) throw new Error(`${source}: document ${i + 1} is not valid YAML: ${err.message.split('\n')[0]}`);
    let o: unknown;
    try {
      o = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      throw new Error(`${source}: document ${i + 1}: ${(e as Error).message.split('\n')[0]}`);
    }
    if (o === null || o === undefined) continue;
    if (!isJSONObject(o)) throw new Error(`${source}: document ${i + 1} is not an object (a ClusterRole, Role, ClusterRoleBinding, RoleBinding or List)`);
    if (typeof o.kind === 'string' && o.kind.endsWith('List')) {
      if (!Array.isArray(o.items)) throw new Error(`${source}: document ${i + 1}: a ${o.kind} needs a list of items`);
      objects.push(...(o.items as RBACObject[]).filter(isJSONObject));
    } else objects.push(o as RBACObject);
  }
  const what = (o: RBACObject) => (typeof o.metadata?.name === 'string' && o.metadata.name ? `${String(o.kind)} "${o.metadata.name}"` : `a ${String(o.kind)} without metadata.name`);
  const rbac: RBACObject[] = [];
  for (const o of objects) {
    const inGroup = typeof o.apiVersion === 'string' && o.apiVersion.startsWith(`${RBACGroup}/`);
    if (!rbacKinds.has(o.kind as string)) {
      if (inGroup) throw new Error(`${source}: no matches for kind ${JSON.stringify(o.kind)} in version ${JSON.stringify(o.apiVersion)} (ClusterRole, Role, ClusterRoleBinding or RoleBinding)`);
      continue;
    }
    if (o.apiVersion === undefined) throw new Error(`${source}: ${what(o)} has no apiVersion; only ${RBACAPIVersion} is served`);
    if (o.apiVersion !== RBACAPIVersion) throw new Error(`${source}: ${what(o)} has apiVersion ${JSON.stringify(o.apiVersion)}; only ${RBACAPIVersion} is served`);
    if (typeof o.metadata?.name !== 'string' || !o.metadata.name) throw new Error(`${source}: a ${String(o.kind)} needs metadata.name`);
    checkName(o.metadata.name, `${source}: ${what(o)}`);
    const isRole = o.kind === 'ClusterRole' || o.kind === 'Role';
    if (isRole && 'aggregationRule' in o) throw new Error(`${source}: ${what(o)}: aggregationRule is not supported; list the rules`);
    strictFields(o as Record<string, unknown>, isRole ? roleFields : bindingFields, `${source}: ${what(o)}`);
    rbac.push(o);
  }
  if (rbac.length === 0) throw new Error(`${source}: no ClusterRole, Role, ClusterRoleBinding or RoleBinding (${RBACAPIVersion}) in the file`);
  const nsOf = (o: RBACObject) => (typeof o.metadata?.namespace === 'string' && o.metadata.namespace ? o.metadata.namespace : 'default');
  const roles = new Map<string, PolicyRule[]>();
  for (const o of rbac) {
    if (o.kind !== 'ClusterRole' && o.kind !== 'Role') continue;
    const key = o.kind === 'Role' ? `Role/${nsOf(o)}/${o.metadata!.name}` : `ClusterRole/${o.metadata!.name}`;
    if (roles.has(key)) throw new Error(`${source}: ${what(o)} is defined twice`);
    if (o.rules !== undefined && o.rules !== null && !Array.isArray(o.rules)) throw new Error(`${source}: ${what(o)}: rules must be a list`);
    roles.set(key, ((o.rules as unknown[] | null | undefined) ?? []).map((r, i) => policyRule(r, `${source}: ${what(o)} rule ${i + 1}`, o.kind === 'Role')));
  }
  const out: RuleBinding[] = [];
  const bindings = new Set<string>();
  for (const o of rbac) {
    if (o.kind !== 'ClusterRoleBinding' && o.kind !== 'RoleBinding') continue;
    const ns = nsOf(o);
    const id = o.kind === 'RoleBinding' ? `${ns}/${o.metadata!.name}` : String(o.metadata!.name);
    if (bindings.has(`${o.kind}/${id}`)) throw new Error(`${source}: ${what(o)} is defined twice`);
    bindings.add(`${o.kind}/${id}`);
    if (!isJSONObject(o.roleRef)) throw new Error(`${source}: ${what(o)}: roleRef is required`);
    strictFields(o.roleRef, roleRefFields, `${source}: ${what(o)} roleRef`);
    if (o.roleRef.apiGroup !== RBACGroup) throw new Error(`${source}: ${what(o)}: roleRef.apiGroup: Unsupported value: ${JSON.stringify(o.roleRef.apiGroup ?? '')}: supported values: "${RBACGroup}"`);
    const refKind = o.roleRef?.kind;
    const allowed = o.kind === 'ClusterRoleBinding' ? ['ClusterRole'] : ['ClusterRole', 'Role'];
    if (typeof refKind !== 'string' || !allowed.includes(refKind)) {
      throw new Error(`${source}: ${what(o)}: roleRef.kind: Unsupported value: ${JSON.stringify(refKind)}: supported values: ${allowed.map((k) => `"${k}"`).join(', ')}`);
    }
    const ref = refKind === 'Role' ? `Role/${ns}/${String(o.roleRef?.name)}` : `ClusterRole/${String(o.roleRef?.name)}`;
    const rules = roles.get(ref);
    if (!rules) throw new Error(`${source}: ${what(o)} refers to ${refKind} "${String(o.roleRef?.name)}"${refKind === 'Role' ? ` in namespace "${ns}"` : ''}, which is not defined in this file`);
    if (o.subjects !== undefined && o.subjects !== null && !Array.isArray(o.subjects)) throw new Error(`${source}: ${what(o)}: subjects must be a list`);
    const subjects = ((o.subjects as unknown[] | null | undefined) ?? []).map((s, i): RuleBinding['subjects'][number] => {
      const at = `${source}: ${what(o)} subject ${i + 1}`;
      if (!isJSONObject(s) || typeof s.name !== 'string' || !s.name) throw new Error(`${at}: needs kind and name`);
      strictFields(s, subjectFields, at);
      if (s.kind === 'ServiceAccount') {
        const sns = typeof s.namespace === 'string' && s.namespace ? s.namespace : o.kind === 'RoleBinding' ? ns : undefined;
        if (!sns) throw new Error(`${at}: a ServiceAccount subject needs its namespace`);
        return { kind: 'User', name: `system:serviceaccount:${sns}:${s.name}` };
      }
      if (s.kind === 'User' || s.kind === 'Group') return { kind: s.kind, name: s.name };
      throw new Error(`${at}: kind must be User, Group or ServiceAccount, got ${JSON.stringify(s.kind)}`);
    });
    out.push({ subjects, rules, ...(o.kind === 'RoleBinding' ? { namespace: ns } : {}) });
  }
  return out;
}