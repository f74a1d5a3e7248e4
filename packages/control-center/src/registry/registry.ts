/**
 * The registry: every resource the control center serves, built-in and from CRDs, looked up by
 * group, version and resource. It follows the CRDs in the store, so a created, changed or deleted
 * CRD changes what is served (and discovery) as soon as its write commits.
 */
import { EventEmitter } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '@hcc/crds';
import type { Store, StoreWatch } from '../storage/store.js';
import type { ResourceInfo } from './types.js';
import { storagePrefix } from './types.js';
import { namespaces } from './builtin/namespaces.js';
import { secrets } from './builtin/secrets.js';
import { configmaps } from './builtin/configmaps.js';
import { events } from './builtin/events.js';
import { leases } from './builtin/leases.js';
import { customresourcedefinitions, isServedCRD, type CRDSpec } from './builtin/customresourcedefinitions.js';
import { customResourceInfo } from './custom-resources.js';
import { prepareCustomResource } from './schema/index.js';
import type { JSONSchemaProps } from './schema/types.js';
import type { ReadTransform, ReadTransformStore } from '../storage/read-transform.js';

/** The built-in resources, in discovery order. */
export const builtinResources: ResourceInfo[] = [namespaces, configmaps, events, secrets, leases, customresourcedefinitions];

/** One API group as discovery shows it. */
export interface GroupInfo {
  name: string;
  /** Served versions, preferred (highest priority) first. */
  versions: string[];
}

/**
 * Orders versions the way Kubernetes does: GA > beta > alpha, higher numbers first, then others
 * alphabetically.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#version-priority
 */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return { rank: 0, major: 0, minor: 0 };
    const rank = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return { rank, major: Number(m[1]), minor: Number(m[3] ?? 0) };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa.rank !== pb.rank) return pb.rank - pa.rank;
  if (pa.rank === 0) return a.localeCompare(b);
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}

/**
 * The registry above. The built-ins are served from construction; {@link Registry.start} adds the store's CRDs and
 * follows their changes until {@link Registry.stop}. Emits `'changed'` (no arguments) whenever what is served changes,
 * after bumping {@link Registry.generation}.
 */
export class Registry extends EventEmitter {
  /** `group/version/resource` → info. */
  private readonly byGVR = new Map<string, ResourceInfo>();
  /** CRD name → the infos built from it. */
  private readonly fromCRD = new Map<string, ResourceInfo[]>();
  /**
   * Versions of stored CRDs that could not be served, by `<crd>/<version>`, with why (a CRD stored
   * before validation refused its definition); they are left out rather than stopping the server.
   */
  readonly unservable = new Map<string, string>();
  private crdWatch?: StoreWatch;
  /** Where the read transforms of custom resources go (see storage/read-transform.ts). */
  private transforms?: Pick<ReadTransformStore, 'setTransform' | 'addWriters'>;
  /** CRD name → the storage bucket and schemas its read transform was set for. */
  private readonly schemasOf = new Map<string, { bucket: string; schemas: string }>();
  /** `group/resource` of what the server serves itself, never taken over by a CRD (in any version). */
  private readonly reserved: Set<string>;
  /** Bumped on every change; discovery and OpenAPI caches key on it. */
  generation = 0;

  /**
   * @param opts.virtualHostedClusters - HostedClusters and NodePools here are the control
   *   center's virtual objects (no operator runs on them), not a management cluster's
   * @param opts.reserved - resources served by their own handlers (the self reviews): like the
   *   built-ins, a CRD of the same group and resource (any version) is stored but not served
   */
  constructor(private readonly opts: { virtualHostedClusters?: boolean; reserved?: readonly { group: string; resource: string }[] } = {}) {
    super();
    // Every open watch of a custom resource listens for 'changed' (its CRD going or changing ends it).
    this.setMaxListeners(0);
    for (const r of builtinResources) this.byGVR.set(`${r.group}/${r.version}/${r.resource}`, r);
    this.reserved = new Set([...builtinResources, ...(opts.reserved ?? [])].map((r) => `${r.group}/${r.resource}`));
  }

  /**
   * Serves every CRD in the store and follows later changes.
   * @param transforms - given, reads of each CRD's objects show its current schema's pruning and
   *   defaults ({@link schemaReadTransform}), set again whenever a CRD's schemas change
   */
  start(store: Store, transforms?: Pick<ReadTransformStore, 'setTransform' | 'addWriters'>): void {
    this.transforms = transforms;
    const prefix = storagePrefix(customresourcedefinitions);
    const { items, revision } = store.list(prefix);
    for (const it of items) this.applyCRD(it.object);
    this.crdWatch = store.watch(prefix, revision, (ev) => {
      if (ev.type === 'DELETED') this.removeCRD(ev.object.metadata.name!);
      else this.applyCRD(ev.object);
    });
  }

  stop(): void {
    this.crdWatch?.stop();
  }

  /** Looks up a resource. */
  lookup(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.byGVR.get(`${group}/${version}/${resource}`);
  }

  /** Finds a resource by group and kind in any served version (preferred first). */
  lookupKind(group: string, kind: string): ResourceInfo | undefined {
    const found = [...this.byGVR.values()].filter((r) => r.group === group && r.kind === kind);
    found.sort((a, b) => compareVersions(a.version, b.version));
    return found[0];
  }

  /** Every served resource. */
  all(): ResourceInfo[] {
    return [...this.byGVR.values()];
  }

  /** Resources served in one group-version, in registration order. */
  resourcesFor(group: string, version: string): ResourceInfo[] {
    return this.all().filter((r) => r.group === group && r.version === version);
  }

  /** Served groups (core excluded), built-ins first, then CRD groups by name. */
  groups(): GroupInfo[] {
    const map = new Map<string, Set<string>>();
    for (const r of this.byGVR.values()) {
      if (r.group === '') continue;
      let s = map.get(r.group);
      if (!s) map.set(r.group, (s = new Set()));
      s.add(r.version);
    }
    const builtinGroups = new Set(builtinResources.map((r) => r.group));
    return [...map.entries()]
      .sort(([a], [b]) => (builtinGroups.has(a) === builtinGroups.has(b) ? a.localeCompare(b) : builtinGroups.has(a) ? -1 : 1))
      .map(([name, versions]) => ({ name, versions: [...versions].sort(compareVersions) }));
  }

  private applyCRD(crd: KubeObject): void {
    const name = crd.metadata.name!;
    const spec = crd.spec as CRDSpec | undefined;
    this.removeCRD(name, false);
    if (!spec?.versions || crd.metadata.deletionTimestamp) {
      // A terminating CRD still serves its resources so the cleanup can delete them.
      if (!crd.metadata.deletionTimestamp) {
        this.changed();
        return;
      }
    }
    const infos: ResourceInfo[] = [];
    // Names another CRD of the group holds (NamesAccepted=False, never Established): not served.
    const served = isServedCRD(crd);
    for (const v of spec?.versions ?? []) {
      if (!v.served || !served) continue;
      let info: ResourceInfo;
      try {
        info = customResourceInfo(crd, v, this.opts);
      } catch (e) {
        // A version this server cannot serve (a CRD stored before its validation refused, say, a
        // printer column's JSONPath that does not parse) is left out, never a crash at start:
        // the other CRDs and versions are served, and this one can still be fixed or deleted.
        this.unservable.set(`${name}/${v.name}`, (e as Error).message);
        continue;
      }
      // A built-in resource wins over a CRD of the same group and resource, in any version: as
      // kube-apiserver serves its own before delegating to apiextensions-apiserver, and the
      // CRD's objects would be the built-in's own (the same storage), unvalidated, and deleted
      // with the CRD.
      if (this.reserved.has(`${info.group}/${info.resource}`)) continue;
      infos.push(info);
      this.byGVR.set(`${info.group}/${info.version}/${info.resource}`, info);
    }
    this.fromCRD.set(name, infos);
    this.setReadTransform(name, spec, infos);
    this.changed();
  }

  private removeCRD(name: string, emit = true): void {
    for (const k of [...this.unservable.keys()]) if (k.startsWith(`${name}/`)) this.unservable.delete(k);
    for (const info of this.fromCRD.get(name) ?? []) {
      const key = `${info.group}/${info.version}/${info.resource}`;
      // Only its own entry: another CRD may serve that key now.
      if (this.byGVR.get(key) === info) this.byGVR.delete(key);
    }
    this.fromCRD.delete(name);
    if (emit) {
      const had = this.schemasOf.get(name);
      if (had) this.transforms?.setTransform(had.bucket, undefined);
      this.schemasOf.delete(name);
      this.changed();
    }
  }

  /**
   * Sets the read transform of a CRD's objects when its versions' schemas (served or not) or its
   * storage version changed, or are new; otherwise adds this CRD event's storage-version infos to
   * the writers whose objects need no transform.
   */
  private setReadTransform(name: string, spec: CRDSpec | undefined, infos: ResourceInfo[]): void {
    if (!this.transforms) return;
    const had = this.schemasOf.get(name);
    if (!infos.length || !spec) {
      if (had) this.transforms.setTransform(had.bucket, undefined);
      this.schemasOf.delete(name);
      return;
    }
    const bucket = storagePrefix(infos[0]!);
    // Every version's schema, served or not: objects are read in the version they are stored in.
    const versions = (spec.versions ?? []).map((v) => ({ name: v.name, storage: v.storage, schema: v.schema?.openAPIV3Schema }));
    const schemas = JSON.stringify(versions);
    // Writes prepared with the storage version's schema store objects that need no transform.
    const writers = infos.filter((i) => i.version === i.storageVersion);
    if (had?.bucket === bucket && had.schemas === schemas) {
      this.transforms.addWriters(bucket, writers);
      return;
    }
    if (had && had.bucket !== bucket) this.transforms.setTransform(had.bucket, undefined);
    this.schemasOf.set(name, { bucket, schemas });
    this.transforms.setTransform(bucket, schemaReadTransform(spec.group, versions), writers);
  }

  private changed(): void {
    this.generation++;
    this.emit('changed');
  }
}

/**
 * The read transform of a CRD's objects (storage/read-transform.ts): what kube-apiserver's storage
 * decoder does to a custom resource read from etcd, with the schema of the version the object is
 * stored in (served or not) — prune unknown fields, drop non-nullable nulls without defaults,
 * apply defaults. Objects of a version the CRD no longer has, or without a schema, are left alone.
 * @param group - the CRD's group
 * @param versions - every version of the CRD, with its `openAPIV3Schema`
 */
export function schemaReadTransform(group: string, versions: readonly { name: string; schema?: Record<string, unknown> }[]): ReadTransform {
  const schemaOf = new Map<string, JSONSchemaProps>();
  for (const v of versions) if (v.schema) schemaOf.set(`${group}/${v.name}`, v.schema as JSONSchemaProps);
  return (obj) => {
    const schema = typeof obj.apiVersion === 'string' ? schemaOf.get(obj.apiVersion) : undefined;
    if (!schema) return undefined;
    const copy = structuredClone(obj) as unknown as Record<string, unknown>;
    prepareCustomResource(copy, schema, 'Ignore');
    return isDeepStrictEqual(copy, obj) ? undefined : (copy as unknown as KubeObject);
  };
}
