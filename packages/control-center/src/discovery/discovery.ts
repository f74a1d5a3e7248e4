/**
 * API discovery: legacy documents (`/api`, `/api/v1`, `/apis`, `/apis/{g}`, `/apis/{g}/{v}`) and
 * aggregated discovery (`apidiscovery.k8s.io/v2` and `v2beta1`, one document for all groups,
 * what kubectl 1.26+ asks for first), both computed from the registry so a CRD change shows at
 * once. `/version` answers like kube-apiserver's.
 * @see https://kubernetes.io/docs/concepts/overview/kubernetes-api/#discovery-api
 */
import { createHash } from 'node:crypto';
import type { Registry } from '../registry/registry.js';
import type { ResourceInfo } from '../registry/types.js';
import { parseAccept } from '../pipeline/negotiate.js';
import { HccVersion, KubernetesVersion } from '../version.js';
import { hasBinding } from '../handlers/binding.js';
import { reviewKinds, type ReviewKind } from '../handlers/self-review.js';
import { ControlCenterGroup, ControlCenterVersion } from '@hcc/crds';

/**
 * The `storageVersionHash` of a resource in discovery, as kube-apiserver computes it: the first 8
 * bytes of the SHA-256 of `group/version/kind` of its storage version, base64 (12 characters). It
 * changes when the storage version does, which storage-version migrators watch for.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/discovery/storageversionhash.go
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/**
 * The body of `/version`, shaped like kube-apiserver's version.Info: the Kubernetes version served (`gitVersion` with
 * `+hcc.<hcc version>`), and the Node.js version and platform of this process.
 */
export function versionInfo(): Record<string, string> {
  return {
    major: KubernetesVersion.major,
    minor: KubernetesVersion.minor,
    gitVersion: `${KubernetesVersion.gitVersion}+hcc.${HccVersion}`,
    gitCommit: 'hcc',
    gitTreeState: 'clean',
    buildDate: '2026-11-30T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch}`,
  };
}

/** Status subresource verbs, as kube-apiserver lists them. */
const subresourceVerbs = ['get', 'patch', 'update'];

/** What discovery says of a resource: the registry's ResourceInfo, or a review below. */
type DiscoverableResource = Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind' | 'singular' | 'namespaced' | 'verbs' | 'shortNames' | 'categories' | 'subresources' | 'storageVersion'>;

/** A review API: created and answered, never stored (handlers/self-review.ts serves them). */
const review = ({ group, version, resource, kind }: ReviewKind): DiscoverableResource => ({
  group,
  version,
  resource,
  kind,
  singular: kind.toLowerCase(),
  namespaced: false,
  verbs: ['create'],
  shortNames: [],
  categories: [],
  subresources: { status: false },
  storageVersion: 'v1',
});

/**
 * The review APIs the control center serves outside the registry, listed as kube-apiserver lists
 * them, so clients that resolve kinds through discovery (`kubectl create -f` of a
 * SelfSubjectAccessReview, Helm's `.Capabilities.APIVersions`) find them.
 */
const reviewResources: DiscoverableResource[] = reviewKinds.map(review);
const reviewGroups = [...new Set(reviewResources.map((r) => r.group))].map((name) => ({ name, versions: ['v1'] }));

/** The registry's groups (core excluded) and the review groups. */
function allGroups(registry: Registry): { name: string; versions: string[] }[] {
  const groups = registry.groups();
  return [...groups, ...reviewGroups.filter((g) => !groups.some((x) => x.name === g.name))];
}

/** The resources of one group-version: the registry's and the reviews'. */
function resourcesFor(registry: Registry, group: string, version: string): DiscoverableResource[] {
  return [...registry.resourcesFor(group, version), ...reviewResources.filter((r) => r.group === group && r.version === version)];
}

/** Legacy APIResourceList for one group-version: each resource, then its subresources. */
export function apiResourceList(registry: Registry, group: string, version: string): Record<string, unknown> | undefined {
  const resources = resourcesFor(registry, group, version);
  if (resources.length === 0) return undefined;
  const list: Record<string, unknown>[] = [];
  for (const r of resources) {
    list.push({
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
      ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories.length ? { categories: r.categories } : {}),
      storageVersionHash: storageVersionHash(r.group, r.storageVersion, r.kind),
    });
    if (r.subresources.status) list.push({ name: `${r.resource}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: subresourceVerbs });
    if (r.subresources.finalize) list.push({ name: `${r.resource}/finalize`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['update'] });
    if (r.subresources.scale) {
      list.push({ name: `${r.resource}/scale`, singularName: '', namespaced: r.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: subresourceVerbs });
    }
    // As pods/binding: create only, answering a Binding (the scheduler's placement write).
    if (hasBinding(r.group, r.resource)) list.push({ name: `${r.resource}/binding`, singularName: '', namespaced: r.namespaced, group: ControlCenterGroup, version: ControlCenterVersion, kind: 'Binding', verbs: ['create'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources: list };
}

/** Legacy `/api`. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  const gv = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: gv, preferredVersion: gv[0] };
}

/**
 * The paths `GET /` lists (`{"paths": [...]}`), as kube-apiserver's index handler lists the
 * paths its mux serves: `/api`, `/api/v1`, `/apis`, `/apis/`, every group and group-version,
 * and `others` (health, metrics, OpenAPI, version), sorted as Go's sort.Strings sorts them.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/server/routes/index.go
 */
export function listedPaths(registry: Registry, others: readonly string[]): string[] {
  const paths = new Set(['/api', '/api/v1', '/apis', '/apis/', ...others]);
  for (const g of allGroups(registry)) {
    paths.add(`/apis/${g.name}`);
    for (const v of g.versions) paths.add(`/apis/${g.name}/${v}`);
  }
  return [...paths].sort();
}

/** Legacy `/apis`. */
export function apiGroupList(registry: Registry): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: allGroups(registry).map((g) => apiGroup(g.name, g.versions)) };
}

/** Legacy `/apis/{group}`. */
export function apiGroupDoc(registry: Registry, group: string): Record<string, unknown> | undefined {
  const g = allGroups(registry).find((x) => x.name === group);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g.name, g.versions) } : undefined;
}

/** The aggregated discovery version a client asked for in Accept, if any. */
export function wantsAggregated(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  for (const r of parseAccept(accept)) {
    if (r.params.as === 'APIGroupDiscoveryList' && r.params.g === 'apidiscovery.k8s.io' && (r.params.v === 'v2' || r.params.v === 'v2beta1')) {
      return r.params.v;
    }
    if (r.type === 'application/json' && !r.params.as) return undefined;
  }
  return undefined;
}

function discoveryResource(r: DiscoverableResource): Record<string, unknown> {
  const responseKind = { group: r.group, version: r.version, kind: r.kind };
  const subresources: Record<string, unknown>[] = [];
  if (r.subresources.status) subresources.push({ subresource: 'status', responseKind, verbs: subresourceVerbs });
  if (r.subresources.finalize) subresources.push({ subresource: 'finalize', responseKind, verbs: ['update'] });
  if (r.subresources.scale) subresources.push({ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: subresourceVerbs });
  if (hasBinding(r.group, r.resource)) subresources.push({ subresource: 'binding', responseKind: { group: ControlCenterGroup, version: ControlCenterVersion, kind: 'Binding' }, verbs: ['create'] });
  return {
    resource: r.resource,
    responseKind,
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: r.verbs,
    ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
    ...(r.categories.length ? { categories: r.categories } : {}),
    ...(subresources.length ? { subresources } : {}),
  };
}

/** Aggregated discovery: core (`/api`) or every group (`/apis`). */
export function aggregatedDiscovery(registry: Registry, core: boolean, version: 'v2' | 'v2beta1'): Record<string, unknown> {
  const groups = core ? [{ name: '', versions: ['v1'] }] : allGroups(registry);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((g) => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        resources: resourcesFor(registry, g.name, v).map(discoveryResource),
        freshness: 'Current',
      })),
    })),
  };
}
