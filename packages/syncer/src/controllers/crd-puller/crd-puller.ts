/**
 * CRD puller (`--pull-crds`): copies the HostedCluster and NodePool CRDs installed in the
 * management cluster (by the real HyperShift operator) up to the control center when they are
 * newer than what it serves, so the virtual API validates with the operator's own schema.
 *
 * "Newer" is a partial order on schemas, so two clusters with different operators never flap:
 * a CRD is newer than another when it serves every version the other serves and, for each,
 * its schema holds every field path and enum value of the other's, with at least one more.
 * The pulled CRD keeps hcc's `Management Cluster` printer column and is annotated
 * `controlcenter.hcc.dev/pulled-from: <cluster>`. It pulls only while an admin sets
 * `spec.pullCRDs` on the cluster's ManagementCluster ({@link pullAllowed}).
 */
import type { Logger } from 'pino';
import { isDeepStrictEqual } from 'node:util';
import { isNotFound, type RestClient } from '@hcc/client';
import { AnnotationPulledFrom, CRDResource, ManagementClusterResource, PulledCRDs, type KubeObject, type ManagementCluster } from '@hcc/crds';

export { AnnotationPulledFrom };

/** The CRDs the puller follows. */
export const pulledCRDs: readonly string[] = PulledCRDs;

interface Version {
  name: string;
  served?: boolean;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  additionalPrinterColumns?: { name: string; jsonPath: string }[];
}

/** Every field path and enum value of a schema: `spec.platform.type`, `spec.platform.type=AWS`, `spec.services[]`. */
export function schemaSignature(schema: Record<string, unknown> | undefined, prefix = '', out = new Set<string>()): Set<string> {
  if (!schema || typeof schema !== 'object') return out;
  for (const v of (schema.enum as unknown[] | undefined) ?? []) out.add(`${prefix}=${JSON.stringify(v)}`);
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [k, sub] of Object.entries(props ?? {})) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.add(p);
    schemaSignature(sub, p, out);
  }
  if (schema.items && typeof schema.items === 'object') schemaSignature(schema.items as Record<string, unknown>, `${prefix}[]`, out);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') schemaSignature(schema.additionalProperties as Record<string, unknown>, `${prefix}{}`, out);
  return out;
}

function served(crd: KubeObject): Map<string, Set<string>> {
  const m = new Map<string, Set<string>>();
  for (const v of ((crd.spec as { versions?: Version[] } | undefined)?.versions ?? [])) if (v.served !== false) m.set(v.name, schemaSignature(v.schema?.openAPIV3Schema));
  return m;
}

/** Whether candidate is newer than current (see the module comment). */
export function isNewer(candidate: KubeObject, current: KubeObject): boolean {
  const a = served(candidate);
  const b = served(current);
  let more = false;
  for (const [v, sig] of b) {
    const c = a.get(v);
    if (!c) return false;
    for (const p of sig) if (!c.has(p)) return false;
    if (c.size > sig.size) more = true;
  }
  if (a.size > b.size) more = true;
  return more;
}

/**
 * The CRD to store upstream: the downstream spec with hcc's printer columns and the control
 * center's categories (`all`, which HyperShift's own CRDs do not have) kept.
 */
export function pulledCRD(down: KubeObject, up: KubeObject, cluster: string): KubeObject {
  const upVersions = ((up.spec as { versions?: Version[] }).versions ?? []);
  const spec = structuredClone(down.spec) as { versions?: Version[]; names?: { categories?: string[] } };
  const upCategories = (up.spec as { names?: { categories?: string[] } }).names?.categories;
  if (upCategories && spec.names) spec.names.categories = upCategories;
  for (const v of spec.versions ?? []) {
    const ours = upVersions.find((u) => u.name === v.name)?.additionalPrinterColumns?.filter((c) => c.jsonPath.includes('controlcenter')) ?? [];
    const cols = v.additionalPrinterColumns ?? [];
    for (const c of ours) if (!cols.some((x) => x.name === c.name)) cols.push(c);
    if (cols.length) v.additionalPrinterColumns = cols;
  }
  return {
    ...up,
    metadata: { ...up.metadata, annotations: { ...(up.metadata.annotations ?? {}), [AnnotationPulledFrom]: cluster } },
    spec,
  };
}

/**
 * Whether an admin lets this cluster's CRDs replace the control center's: `spec.pullCRDs` on its
 * ManagementCluster (the control center refuses the syncer's CRD writes otherwise, and the syncer
 * may not set it: trusting one cluster's CRDs for the whole fleet is the admin's choice).
 * @throws ApiError when the ManagementCluster cannot be read (404 before it is registered)
 */
export async function pullAllowed(upstream: RestClient, cluster: string): Promise<boolean> {
  const mc = await upstream.get<ManagementCluster>(ManagementClusterResource, undefined, cluster);
  return mc.spec?.pullCRDs === true;
}

/** The warning of a syncer with `--pull-crds` whose ManagementCluster does not allow it (yet). */
export function pullNotAllowedMessage(cluster: string): string {
  return `--pull-crds: not pulling CRDs until an admin trusts this cluster's CRDs for the whole fleet: kubectl patch managementcluster ${cluster} --type=merge -p '{"spec":{"pullCRDs":true}}' (on the control center)`;
}

/**
 * One pass: for each followed CRD, pull the downstream one up when it is newer.
 * @returns names of the CRDs updated
 */
export async function pullCRDsOnce(deps: { cluster: string; upstream: RestClient; downstream: RestClient; log: Logger }): Promise<string[]> {
  const updated: string[] = [];
  for (const name of pulledCRDs) {
    let down: KubeObject;
    let up: KubeObject;
    try {
      down = await deps.downstream.get<KubeObject>(CRDResource, undefined, name);
      up = await deps.upstream.get<KubeObject>(CRDResource, undefined, name);
    } catch (err) {
      if (isNotFound(err)) continue;
      throw err;
    }
    if (isDeepStrictEqual(down.spec, up.spec) || !isNewer(down, up)) continue;
    await deps.upstream.update(CRDResource, undefined, pulledCRD(down, up, deps.cluster));
    deps.log.info({ controller: 'crd-puller', crd: name, from: deps.cluster }, 'pulled a newer CRD into the control center');
    updated.push(name);
  }
  return updated;
}
