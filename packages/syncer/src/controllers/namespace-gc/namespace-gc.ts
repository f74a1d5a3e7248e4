/**
 * Namespace clean-up in the management cluster: a namespace the syncer created (labelled
 * `controlcenter.hcc.dev/synced-by: <cluster>`) is deleted once nothing is placed in it any more —
 * no HostedCluster, NodePool, Secret or ConfigMap of this cluster's upstream selection and no copy
 * hcc made there — and nobody else put anything there: deleting the namespace would delete it
 * too (an Agent platform's InfraEnv and Agents, a Role, a Deployment). Every namespaced kind the
 * management cluster serves (discovery, as the namespace controller enumerates them) is listed
 * first; what the cluster puts in every namespace (isClusterOwned: Kubernetes' and OpenShift's
 * defaults) and Events do not count. A kind
 * the syncer may not list (403) or that fails to list keeps the namespace: it cannot tell.
 * Namespaces hcc did not create are never touched, nor those another control center's syncer
 * created under this cluster's name (control-center-identity.ts), whose copies count as foreign.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/namespace/deletion/namespaced_resources_deleter.go
 */
import type { Logger } from 'pino';
import { isConflict, isNotFound, type ResourceRef, type RestClient } from '@hcc/client';
import { LabelSyncedBy, NamespaceResource, type KubeObject } from '@hcc/crds';
import { refs } from '../../side-writer.js';
import { isOwnCopy, type ControlCenterIdentity } from '../../control-center-identity.js';

/** The ServiceAccounts OpenShift's controllers create in every namespace (Kubernetes: `default`). */
const defaultServiceAccounts = new Set(['default', 'builder', 'deployer']);
/** The RoleBindings OpenShift's controllers create in every namespace. */
const defaultRoleBindings = new Set(['system:image-pullers', 'system:image-builders', 'system:deployers']);

/**
 * Objects the cluster itself puts in every namespace: Kubernetes' `kube-root-ca.crt` ConfigMap,
 * `default` ServiceAccount and (before 1.24, and on OpenShift before 4.16) the token Secrets its
 * tokens controller generated for the default ServiceAccounts (`<sa>-token-<5 characters>`), and
 * on OpenShift (where HyperShift usually runs) the `builder`/`deployer` ServiceAccounts, their
 * image-pull (`dockercfg`) Secrets, the `system:image-pullers`/`-builders`/`deployers`
 * RoleBindings and `openshift-service-ca.crt`. A token Secret a user made (any other name, or for
 * another ServiceAccount) is the user's: it keeps the namespace.
 * @see https://docs.openshift.com/container-platform/4.16/authentication/understanding-and-creating-service-accounts.html
 * @see https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/ (legacy token Secrets)
 */
export function isClusterOwned(kind: string, o: KubeObject): boolean {
  const name = o.metadata.name ?? '';
  switch (kind) {
    case 'ConfigMap':
      return name === 'kube-root-ca.crt' || name === 'openshift-service-ca.crt';
    case 'Secret':
      return isDefaultServiceAccountSecret(o);
    case 'ServiceAccount':
      return defaultServiceAccounts.has(name);
    case 'RoleBinding':
      return defaultRoleBindings.has(name);
    default:
      return false;
  }
}

/**
 * Whether a Secret is one the cluster made for a default ServiceAccount: OpenShift's image-pull
 * `dockercfg` Secret, or the legacy tokens controller's `<sa>-token-xxxxx` (5 characters of
 * `[a-z0-9]`, as apiserver's SimpleNameGenerator).
 */
function isDefaultServiceAccountSecret(o: KubeObject): boolean {
  const sa = o.metadata.annotations?.['kubernetes.io/service-account.name'] ?? '';
  if (!defaultServiceAccounts.has(sa)) return false;
  return o.type === 'kubernetes.io/dockercfg' || (o.type === 'kubernetes.io/service-account-token' && new RegExp(`^${sa}-token-[a-z0-9]{5}$`).test(o.metadata.name ?? ''));
}

/** Kinds that never keep a namespace: Events about what was there (core and events.k8s.io). */
const ignoredKinds = new Set(['Event']);

interface APIResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
}

/** A namespaced kind to look for in a namespace: where to list it, and its Kind. */
export interface NamespacedKind {
  ref: ResourceRef;
  kind: string;
}

/**
 * Every namespaced, listable kind the cluster serves (core v1 and each group's preferred
 * version), from discovery. Subresources and Events are left out.
 * @throws the client's error when discovery itself fails
 */
export async function namespacedKinds(client: RestClient): Promise<NamespacedKind[]> {
  const out: NamespacedKind[] = [];
  const add = (group: string, version: string, resources: APIResource[] | undefined) => {
    for (const r of resources ?? []) {
      if (!r.namespaced || r.name.includes('/') || !r.verbs?.includes('list') || ignoredKinds.has(r.kind)) continue;
      out.push({ ref: { group, version, resource: r.name, namespaced: true }, kind: r.kind });
    }
  };
  const core = await client.raw<{ resources?: APIResource[] }>('GET', '/api/v1');
  add('', 'v1', core.resources);
  const groups = await client.raw<{ groups?: { name: string; preferredVersion?: { version: string } }[] }>('GET', '/apis');
  for (const g of groups.groups ?? []) {
    const version = g.preferredVersion?.version;
    if (!version) continue;
    const list = await client.raw<{ resources?: APIResource[] }>('GET', `/apis/${g.name}/${version}`);
    add(g.name, version, list.resources);
  }
  return out;
}

/** The object that keeps a namespace: its kind and name, to look for it again. */
export interface KeptBy {
  kind: NamespacedKind;
  name: string;
}

/** An object that keeps a namespace: what to report, and where to look for it again. */
export interface ForeignObject {
  /** `Kind/name`, or `Kind (cannot list ...)` when the kind could not be listed. */
  what: string;
  /** The object's kind and name; absent when the kind could not be listed or had more than one page. */
  at?: KeptBy;
}

/** The kinds the syncer copies into a management cluster (group/Kind): only these can be its copies. */
const copiedKinds = new Set(Object.entries(refs).map(([kind, ref]) => `${ref.group}/${kind}`));

/** Whose copies count as the syncer's own: its cluster's name and its control center. */
export interface CopyOwner {
  cluster: string;
  controlCenter?: ControlCenterIdentity;
}

/**
 * Whether an object in a namespace hcc created is neither this cluster's copy (one of the kinds
 * the syncer copies, labelled synced-by this cluster, not another control center's) nor the
 * cluster's own default. A Lease or a Role someone labelled synced-by is still foreign: the syncer
 * never makes those.
 */
function isForeign(owner: CopyOwner, kind: NamespacedKind, o: KubeObject): boolean {
  const copy = copiedKinds.has(`${kind.ref.group}/${kind.kind}`) && isOwnCopy(owner.cluster, owner.controlCenter, o);
  return !copy && !isClusterOwned(kind.kind, o);
}

/**
 * The first object in a namespace that neither this syncer's cluster copy nor Kubernetes made, or
 * undefined. One list per kind (at most 500 items; a second page counts as foreign); a kind that
 * cannot be listed counts as foreign too (`Kind (cannot list: ...)`).
 * @param kinds - what to look for; from {@link namespacedKinds}
 */
export async function foreignObjectIn(downstream: RestClient, owner: CopyOwner, namespace: string, kinds: NamespacedKind[]): Promise<ForeignObject | undefined> {
  for (const kind of kinds) {
    const { ref } = kind;
    let list;
    try {
      list = await downstream.list<KubeObject>(ref, { namespace, limit: 500 });
    } catch (err) {
      if (isNotFound(err)) continue; // the kind went away since discovery
      return { what: `${kind.kind} (cannot list ${ref.group ? `${ref.resource}.${ref.group}` : ref.resource}: ${(err as Error).message}; kept to be safe)` };
    }
    const other = list.items.find((o) => isForeign(owner, kind, o));
    if (other) return { what: `${kind.kind}/${other.metadata.name}`, at: { kind, name: other.metadata.name! } };
    if (list.metadata.continue) return { what: `${kind.kind}/… (more than one page: kept to be safe)` };
  }
  return undefined;
}

/**
 * Whether the object that kept a namespace at the last sweep still keeps it: it still exists and
 * is still foreign. One list by `metadata.name` (the syncer's ClusterRole grants list, not get, on
 * every kind) instead of a discovery pass and a list per kind. An error keeps the namespace (it
 * cannot tell), except 404: the kind is gone.
 */
async function stillKeeps(downstream: RestClient, owner: CopyOwner, namespace: string, at: KeptBy): Promise<boolean> {
  try {
    const list = await downstream.list<KubeObject>(at.kind.ref, { namespace, fieldSelector: `metadata.name=${at.name}` });
    return list.items.some((o) => o.metadata.name === at.name && isForeign(owner, at.kind, o));
  } catch (err) {
    return !isNotFound(err);
  }
}

/** What the sweep reads. */
export interface NamespaceGCDeps extends CopyOwner {
  downstream: RestClient;
  /** Whether anything placed on this cluster, upstream or as a copy downstream, lives in the namespace. */
  inUse(namespace: string): boolean;
  /**
   * The object that kept each namespace at the last sweep, by namespace; the caller keeps it
   * across sweeps. A kept namespace is then re-checked with one GET of that object, and searched
   * again (discovery and a list per kind) only once it is gone.
   */
  kept?: Map<string, KeptBy>;
  /**
   * Why each namespace was last said to be kept, by namespace (the caller keeps it across sweeps):
   * a new reason is logged at info, the same one again at debug.
   */
  keptReasons?: Map<string, string>;
  log: Logger;
}

/**
 * One sweep.
 * @returns the namespaces deleted
 */
export async function sweepNamespaces(deps: NamespaceGCDeps): Promise<string[]> {
  const list = await deps.downstream.list<KubeObject>(NamespaceResource, { labelSelector: `${LabelSyncedBy}=${deps.cluster}` });
  const deleted: string[] = [];
  const kept = deps.kept ?? new Map();
  const listed = new Set(list.items.map((ns) => ns.metadata.name!));
  for (const name of kept.keys()) if (!listed.has(name)) kept.delete(name);
  for (const name of deps.keptReasons?.keys() ?? []) if (!listed.has(name)) deps.keptReasons!.delete(name);
  let kinds: NamespacedKind[] | undefined;
  for (const ns of list.items) {
    const name = ns.metadata.name!;
    if (ns.metadata.deletionTimestamp || !isOwnCopy(deps.cluster, deps.controlCenter, ns) || deps.inUse(name)) continue;
    const before = kept.get(name);
    if (before && (await stillKeeps(deps.downstream, deps, name, before))) continue;
    kept.delete(name);
    kinds ??= await namespacedKinds(deps.downstream);
    const foreign = await foreignObjectIn(deps.downstream, deps, name, kinds);
    if (foreign) {
      if (foreign.at) kept.set(name, foreign.at);
      // Once at info per namespace and reason (an operator asks why a namespace stays), then at debug.
      const said = deps.keptReasons?.get(name) === foreign.what;
      deps.keptReasons?.set(name, foreign.what);
      deps.log[said ? 'debug' : 'info']({ controller: 'namespace-gc', namespace: name, object: foreign.what }, 'kept a namespace hcc created: something else lives there');
      continue;
    }
    try {
      await deps.downstream.delete(NamespaceResource, undefined, name, { preconditions: { uid: ns.metadata.uid } });
      deleted.push(name);
      deps.log.info({ controller: 'namespace-gc', namespace: name, result: 'deleted' }, 'deleted a namespace nothing placed here uses');
    } catch (err) {
      // Gone, already being deleted (a 409 since the list), or another namespace of that name now (the uid precondition's 409): left to the next sweep.
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
  return deleted;
}
