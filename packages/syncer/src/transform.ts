/**
 * How an upstream (control center) object becomes its downstream (management cluster) copy,
 * and what of the downstream copy belongs to the operator and must survive every sync.
 *
 * Downstream copy = upstream spec (and data for Secrets/ConfigMaps), upstream labels and
 * annotations without hcc's own placement labels, plus `controlcenter.hcc.dev/synced-by`,
 * the control center's ID (control-center-identity.ts), the upstream uid and generation. Server-owned metadata (uid, resourceVersion, managedFields,
 * ...) never crosses. What the operator added downstream — finalizers, ownerReferences, labels
 * and annotations hcc did not put there, and spec fields it fills when empty (`clusterID`,
 * `infraID`) — is kept.
 */
import {
  AnnotationAdopted,
  AnnotationControlCenter,
  AnnotationControlCenterSeal,
  AnnotationHandedOver,
  AnnotationUpstreamGeneration,
  AnnotationUpstreamUID,
  LabelManagementCluster,
  LabelSyncedBy,
  LabelUpsyncedFrom,
  type KubeObject,
  deepCopyJSON,
  setOwn,
  isJSONObject,
  OperatorGeneratedSpecFields,
} from '@hcc/crds';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { controlCenterStamp } from './control-center-identity.js';

/** Annotation on downstream copies listing the label and annotation keys hcc synced last time. */
export const AnnotationSyncedKeys = 'controlcenter.hcc.dev/synced-keys';

/** Label key prefixes that stay in the control center. */
const upstreamOnlyLabelPrefixes = ['state.controlcenter.hcc.dev/'];
/**
 * Label keys that stay in the control center: the placement, and the mark of a Secret a syncer
 * copied up (a HostedCluster placed elsewhere may reference it; its copy there is not one).
 */
const upstreamOnlyLabels = new Set([LabelManagementCluster, LabelUpsyncedFrom]);
/** Annotation keys that stay in the control center. */
const upstreamOnlyAnnotations = new Set(['kubectl.kubernetes.io/last-applied-configuration', 'controlcenter.hcc.dev/management-cluster-selector']);

/** Spec fields the HyperShift operator fills in when empty and that never change once set: a copy's value is kept whatever upstream says. */
export const operatorDefaultedSpecFields = OperatorGeneratedSpecFields;

const isHccKey = (k: string) => k === LabelSyncedBy || k === AnnotationControlCenter || k === AnnotationControlCenterSeal || k === AnnotationUpstreamUID || k === AnnotationUpstreamGeneration || k === AnnotationSyncedKeys || k === AnnotationAdopted || k === AnnotationHandedOver;

function syncedLabels(up: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(up.metadata.labels ?? {})) {
    if (upstreamOnlyLabels.has(k) || upstreamOnlyLabelPrefixes.some((p) => k.startsWith(p))) continue;
    out[k] = v;
  }
  return out;
}

function syncedAnnotations(up: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(up.metadata.annotations ?? {})) {
    if (upstreamOnlyAnnotations.has(k) || isHccKey(k)) continue;
    out[k] = v;
  }
  return out;
}

/** Merges synced keys into what the downstream copy has, dropping keys hcc synced before that upstream no longer has. */
function mergeKeys(down: Record<string, string> | undefined, want: Record<string, string>, wasSynced: (key: string) => boolean): Record<string, string> {
  const out: Record<string, string> = { ...(down ?? {}) };
  for (const k of Object.keys(out)) if (!Object.hasOwn(want, k) && wasSynced(k)) delete out[k];
  for (const [k, v] of Object.entries(want)) setOwn(out, k, v);
  return out;
}

/**
 * kube-apiserver's limit on the total size of an object's annotations, keys and values, in bytes
 * (apimachinery's TotalAnnotationSizeLimitB).
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/api/validation/objectmeta.go
 */
export const TotalAnnotationSizeLimitB = 256 * 1024;

/** Prefix of a synced-keys record stored gzipped and base64-encoded (when the JSON would not fit). */
const GzipPrefix = 'gzip:';
/**
 * Prefix of a synced-keys record of key digests (when even gzipped names would not fit): the
 * first 6 bytes of each key's SHA-256, base64, labels then annotations, split by `.`. A key whose
 * digest is listed was synced; a digest shared by chance (2^-48 a pair) would only remove a key
 * the operator added that collides with one the user removed.
 */
const DigestPrefix = 'sha256-48:';
const DigestBytes = 6;

const digest = (key: string): Buffer => createHash('sha256').update(key).digest().subarray(0, DigestBytes);

/** The size kube-apiserver counts for annotations: the bytes of every key and value. */
function annotationsSize(annotations: Record<string, string>): number {
  let n = 0;
  for (const [k, v] of Object.entries(annotations)) n += Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}

/**
 * The synced-keys record for a copy whose other annotations are `others`: JSON; gzipped and
 * base64-encoded (`gzip:...`) when the JSON would take the copy's annotations past the size limit
 * (the keys of thousands of annotations repeat a lot); key digests (`sha256-48:...`, 8 characters
 * a key) when even that would not; undefined when nothing fits: the copy still syncs, and the
 * syncer falls back to remembering what it wrote (`remembered` of desiredDownstream), which a
 * restart loses (it says so in an Event).
 */
function encodeSyncedKeys(record: { labels: string[]; annotations: string[] }, others: Record<string, string>): string | undefined {
  const room = TotalAnnotationSizeLimitB - annotationsSize(others) - AnnotationSyncedKeys.length;
  const json = JSON.stringify(record);
  if (Buffer.byteLength(json) <= room) return json;
  const packed = GzipPrefix + gzipSync(json).toString('base64');
  if (packed.length <= room) return packed;
  const digests = (keys: string[]) => Buffer.concat(keys.map(digest)).toString('base64');
  const hashed = `${DigestPrefix}${digests(record.labels)}.${digests(record.annotations)}`;
  return hashed.length <= room ? hashed : undefined;
}

/** What the copy's record says hcc synced: a test per label key and per annotation key. */
function previouslySynced(down: KubeObject | undefined): { labels: (key: string) => boolean; annotations: (key: string) => boolean } {
  const none = { labels: () => false, annotations: () => false };
  const raw = down?.metadata.annotations?.[AnnotationSyncedKeys];
  if (!raw) return none;
  try {
    if (raw.startsWith(DigestPrefix)) {
      const [l = '', a = ''] = raw.slice(DigestPrefix.length).split('.');
      const set = (b64: string) => {
        const buf = Buffer.from(b64, 'base64');
        const out = new Set<string>();
        for (let i = 0; i + DigestBytes <= buf.length; i += DigestBytes) out.add(buf.subarray(i, i + DigestBytes).toString('hex'));
        return out;
      };
      const labels = set(l);
      const annotations = set(a);
      return { labels: (k) => labels.has(digest(k).toString('hex')), annotations: (k) => annotations.has(digest(k).toString('hex')) };
    }
    // Unpacked, a record lists at most the keys of the limit's worth of annotations.
    const text = raw.startsWith(GzipPrefix) ? gunzipSync(Buffer.from(raw.slice(GzipPrefix.length), 'base64'), { maxOutputLength: 4 * TotalAnnotationSizeLimitB }).toString('utf8') : raw;
    const p = JSON.parse(text) as { labels?: unknown; annotations?: unknown };
    const strings = (v: unknown): Set<string> => new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    const labels = strings(p.labels);
    const annotations = strings(p.annotations);
    return { labels: (k) => labels.has(k), annotations: (k) => annotations.has(k) };
  } catch {
    return none;
  }
}

/** The label and annotation keys hcc syncs from an upstream object to its copy. */
export interface SyncedKeys {
  labels: ReadonlySet<string>;
  annotations: ReadonlySet<string>;
}

/** The keys {@link desiredDownstream} syncs from `up` (what the copy's record lists). */
export function syncedKeysOf(up: KubeObject): SyncedKeys {
  return { labels: new Set(Object.keys(syncedLabels(up))), annotations: new Set(Object.keys(syncedAnnotations(up))) };
}

/**
 * The desired downstream copy of an upstream object.
 * @param up - the upstream object (HostedCluster, NodePool, Secret or ConfigMap)
 * @param down - the current downstream copy, if any (its operator-owned parts are kept)
 * @param cluster - the ManagementCluster name (for `synced-by`)
 * @param payloadKeys - top-level fields copied as a whole (`['spec']`, or `['data', 'binaryData', 'type', 'immutable']`)
 * @param remembered - the keys this syncer last synced to the copy, for a copy without a record
 * @param controlCenterID - the ID of the control center the syncer serves (`controlcenter.hcc.dev/control-center-id`,
 *   with its seal); absent: the copy keeps whatever it carries
 */
export function desiredDownstream(up: KubeObject, down: KubeObject | undefined, cluster: string, payloadKeys: string[], remembered?: SyncedKeys, controlCenterID?: string): KubeObject {
  const wantLabels = syncedLabels(up);
  const wantAnnotations = syncedAnnotations(up);
  // A copy without a record (no room for one) falls back to what the syncer remembers writing.
  const prev = down?.metadata.annotations?.[AnnotationSyncedKeys] === undefined && remembered
    ? { labels: (k: string) => remembered.labels.has(k), annotations: (k: string) => remembered.annotations.has(k) }
    : previouslySynced(down);
  const labels = mergeKeys(down?.metadata.labels, wantLabels, prev.labels);
  labels[LabelSyncedBy] = cluster;
  const annotations = mergeKeys(down?.metadata.annotations, wantAnnotations, prev.annotations);
  if (controlCenterID) Object.assign(annotations, controlCenterStamp(controlCenterID, up.metadata.uid ?? ''));
  annotations[AnnotationUpstreamUID] = up.metadata.uid ?? '';
  annotations[AnnotationUpstreamGeneration] = String(up.metadata.generation ?? 0);
  delete annotations[AnnotationSyncedKeys];
  const record = encodeSyncedKeys({ labels: Object.keys(wantLabels).sort(), annotations: Object.keys(wantAnnotations).sort() }, annotations);
  if (record !== undefined) annotations[AnnotationSyncedKeys] = record;
  const metadata: KubeObject['metadata'] = {
    ...(down ? deepCopyJSON(down.metadata) : {}),
    name: up.metadata.name,
    namespace: up.metadata.namespace,
    labels,
    annotations,
  };
  if (!down) {
    delete metadata.finalizers;
    delete metadata.ownerReferences;
  }
  const out: KubeObject = { apiVersion: up.apiVersion, kind: up.kind, metadata };
  for (const k of Object.keys(down ?? {})) if (!['apiVersion', 'kind', 'metadata', ...payloadKeys].includes(k)) out[k] = down![k];
  for (const k of payloadKeys) if (up[k] !== undefined) out[k] = deepCopyJSON(up[k]);
  if (payloadKeys.includes('spec') && down?.spec && out.spec) {
    const spec = out.spec as Record<string, unknown>;
    const dspec = down.spec as Record<string, unknown>;
    // Set on the copy, they never change there (the CRD makes them immutable): a different value
    // upstream (the copy's edited by hand in the management cluster) would only get every patch refused.
    for (const f of operatorDefaultedSpecFields) if (dspec[f]) spec[f] = dspec[f];
  }
  return out;
}

/**
 * The JSON merge patch (RFC 7386) that turns `from` into `to`: changed members are set, members
 * `to` lacks become `null`, objects are compared member by member, arrays and scalars replace
 * whole. A `null` inside `to` cannot be expressed (merge patch reads it as "remove") and removes
 * the member. @returns undefined when they are equal
 * @see https://www.rfc-editor.org/rfc/rfc7386
 */
export function createMergePatch(from: unknown, to: unknown): unknown {
  if (!isJSONObject(from) || !isJSONObject(to)) return isDeepStrictEqual(from, to) ? undefined : to;
  const out: Record<string, unknown> = {};
  // Own keys only: `constructor` or `__proto__` in a ConfigMap's data are keys like any other.
  for (const k of Object.keys(from)) if ((!Object.hasOwn(to, k) || to[k] === null) && from[k] !== null) setOwn(out, k, null);
  for (const k of Object.keys(to)) {
    if (to[k] === null) continue;
    const d = Object.hasOwn(from, k) ? createMergePatch(from[k], to[k]) : to[k];
    if (d !== undefined) setOwn(out, k, d);
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * The merge patch that brings a downstream copy to `desired` in what hcc manages (labels,
 * annotations and the payload keys), computed against the copy as last seen. It carries no
 * resourceVersion: hcc is the only writer of these parts, so writes of the operator (status,
 * finalizers, its own labels) in the meantime are kept instead of failing the sync with a 409.
 * @returns undefined when the copy is already in sync
 */
export function downstreamPatch(desired: KubeObject, down: KubeObject, payloadKeys: string[]): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  for (const k of ['labels', 'annotations'] as const) {
    const d = createMergePatch(down.metadata[k] ?? {}, desired.metadata[k] ?? {});
    if (d !== undefined) metadata[k] = d;
  }
  if (Object.keys(metadata).length) patch.metadata = metadata;
  for (const k of payloadKeys) {
    if (desired[k] === undefined) {
      if (down[k] !== undefined) patch[k] = null;
      continue;
    }
    const d = down[k] === undefined ? desired[k] : createMergePatch(down[k], desired[k]);
    if (d !== undefined) patch[k] = d;
  }
  return Object.keys(patch).length ? patch : undefined;
}

/**
 * The merge patch that hands a Secret or ConfigMap copy over to the syncer of another name for the
 * same management cluster: without `synced-by` it is nobody's, and its upstream uid (kept) makes
 * it that syncer's copy (isOurs) at its next look, not a foreign object to adopt.
 */
export function handOverPatch(): Record<string, unknown> {
  return { metadata: { labels: { [LabelSyncedBy]: null } } };
}

/**
 * The merge patch that hands a taken-over Secret or ConfigMap back to the management cluster when
 * hcc no longer places it there: hcc's own label and annotations (`synced-by`, control center ID,
 * upstream uid and generation, synced keys, adopted) are removed; its data stays as it is.
 */
export function releasePatch(): { metadata: { labels: Record<string, null>; annotations: Record<string, string | null> } } {
  return {
    metadata: {
      labels: { [LabelSyncedBy]: null },
      annotations: { [AnnotationControlCenter]: null, [AnnotationControlCenterSeal]: null, [AnnotationUpstreamUID]: null, [AnnotationUpstreamGeneration]: null, [AnnotationSyncedKeys]: null, [AnnotationAdopted]: null },
    },
  };
}

/**
 * The merge patch that hands a Secret or ConfigMap copy over to the syncer of another control
 * center whose copy uses it: released as {@link releasePatch} does, and marked handed over by
 * control center `from`, so that syncer takes it as its own copy (not as one it adopts).
 */
export function handOverToControlCenterPatch(from: string): Record<string, unknown> {
  const patch = releasePatch();
  patch.metadata.annotations[AnnotationHandedOver] = from;
  return patch;
}
