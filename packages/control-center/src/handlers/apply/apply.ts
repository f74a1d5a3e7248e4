/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`): merges an applied configuration
 * into the live object by the schema's list and map semantics, gives the applier ownership of
 * exactly the fields it applied, removes fields it applied before and no longer applies unless
 * another manager owns them, and refuses to change fields other managers own (409 Conflict)
 * unless forced, in which case it takes them over. After structured-merge-diff's
 * `merge.Updater.Apply` and the apimachinery field manager layers around it (version check,
 * strip meta, last-applied manager and updater).
 *
 * Contract: returns the object to store (managedFields set), or throws a Status error; never
 * writes. The caller stores it through the normal update path (preconditions, strategy,
 * validation, no-op detection). Applying to a missing object creates it.
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/merge/update.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/lastappliedmanager.go
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/
 */
import { isJSONObject, type KubeObject } from '@hcc/crds';
import * as apierrors from '../../apierrors/status.js';
import type { ResourceInfo } from '../../registry/types.js';
import { goJSON, pathString, type Path, type PathSet } from './fieldpath.js';
import {
  decodeManagedFields,
  encodeManagedFields,
  excludeFields,
  managerIdentity,
  printManager,
  resetFieldsOf,
  stripSet,
  withoutManagedFields,
  type Managed,
  type ManagerFields,
} from './managed-fields.js';
import { typeOf, zeroObject, type FieldType } from './schema.js';
import { compare, ensureNamedFieldsAreMembers, jsonEqual, merge, removeItems, toFieldSet, TypedValueError } from './typed.js';

/** kubectl's client-side apply annotation. */
export const LastAppliedConfigAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/** The manager kubectl uses for `apply --server-side`; only it migrates from client-side apply. */
export const KubectlManager = 'kubectl';

type Obj = Record<string, unknown>;

/** One field another manager owns and the apply would change. */
export interface Conflict {
  manager: Pick<ManagerFields, 'manager' | 'operation' | 'apiVersion' | 'subresource'>;
  path: Path;
}

/** Inputs of {@link applyToManaged}. */
export interface ApplyInput {
  /** The live object without managedFields (the kind's zero value on create). */
  live: unknown;
  /** The applied configuration. */
  config: unknown;
  managed: Managed;
  /** The applier's entry (its set is computed). */
  applier: Omit<ManagerFields, 'set' | 'time'>;
  force: boolean;
  type: FieldType;
  /** Fields the endpoint does not let the applier own (status on the main resource, spec on status). */
  reset?: PathSet;
  /** RFC 3339 time stamped on the applier's entry when the object changes. */
  now: string;
}

/** The outcome of {@link applyToManaged}: the new object and managers, or the conflicts. */
export type ApplyOutput = { object: unknown; managed: Managed; changed: boolean; conflicts?: undefined } | { conflicts: Conflict[] };

/**
 * Applies a configuration to decoded managers: merge, prune what the applier dropped, then
 * check conflicts. Pure; the structured-merge-diff `Updater.Apply` step plus strip-meta.
 * @throws TypedValueError for values that do not fit their list types
 */
export function applyToManaged(a: ApplyInput): ApplyOutput {
  const id = managerIdentity(a.applier.manager, 'Apply', a.applier.apiVersion, a.applier.subresource);
  const merged = merge(a.live, a.config, a.type);
  const previous = a.managed.get(id);
  let applied = toFieldSet(a.config, a.type);
  if (a.reset) applied = applied.recursiveDifference(a.reset);
  const managers: Managed = new Map(a.managed);
  managers.set(id, { ...a.applier, operation: 'Apply', set: applied });
  const object = prune(merged, managers, previous?.set, a.type);

  const comparison = excludeFields(compare(a.live, object, a.type), a.reset);
  const changedFields = comparison.modified.union(comparison.added);
  const conflicts: Conflict[] = [];
  for (const [mid, m] of managers) {
    if (mid === id) continue;
    const c = m.set.intersection(changedFields);
    if (!c.isEmpty()) c.iterate((path) => conflicts.push({ manager: m, path }));
  }
  if (conflicts.length && !a.force) return { conflicts };
  for (const [mid, m] of managers) {
    if (mid === id) continue;
    const set = m.set.difference(changedFields).difference(comparison.removed);
    if (set.isEmpty()) managers.delete(mid);
    else if (set !== m.set) managers.set(mid, { ...m, set });
  }
  const mine = applied.difference(stripSet);
  const changed = !jsonEqual(a.live, object);
  if (mine.isEmpty()) managers.delete(id);
  else {
    const time = changed ? a.now : previous?.time;
    managers.set(id, { ...a.applier, operation: 'Apply', set: mine, ...(time ? { time } : {}) });
  }
  return { object: changed ? object : a.live, managed: managers, changed };
}

/**
 * Removes the fields the applier applied last time (`lastSet`) and no longer applies, unless a
 * manager (including the applier's new set) owns them: structured-merge-diff's prune,
 * addBackOwnedItems and addBackDanglingItems.
 */
function prune(merged: unknown, managers: Managed, lastSet: PathSet | undefined, type: FieldType): unknown {
  if (!lastSet || lastSet.isEmpty()) return merged;
  const named = (s: PathSet) => ensureNamedFieldsAreMembers(s, type);
  const last = named(lastSet);
  const pruned0 = removeItems(merged, last, type);
  let owned: PathSet | undefined;
  for (const m of managers.values()) owned = owned ? owned.union(m.set) : m.set;
  const mergedSet = named(toFieldSet(merged, type));
  const pruned1 = removeItems(merged, mergedSet.difference(named(toFieldSet(pruned0, type)).union(named(owned!))), type);
  return removeItems(merged, mergedSet.difference(named(toFieldSet(pruned1, type))).intersection(last), type);
}

/**
 * The 409 for apply conflicts, worded as upstream's NewConflictError: one cause per field, reason
 * `FieldManagerConflict`.
 */
export function conflictError(conflicts: Conflict[]): apierrors.StatusError {
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const m = printManager(c.manager);
    if (!byManager.has(m)) byManager.set(m, []);
    byManager.get(m)!.push(pathString(c.path));
  }
  const managers = [...byManager.keys()].sort();
  let message: string;
  if (conflicts.length === 1) message = `Apply failed with 1 conflict: conflict with ${managers[0]}: ${byManager.get(managers[0]!)![0]}`;
  else {
    const lines: string[] = [];
    for (const m of managers) lines.push(`conflicts with ${m}:`, ...byManager.get(m)!.map((p) => `- ${p}`));
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  const causes = managers.flatMap((m) => byManager.get(m)!.map((field) => ({ reason: 'FieldManagerConflict', message: `conflict with ${m}`, field })));
  return new apierrors.StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Conflict', details: { causes }, code: 409 });
}

/** What {@link applyConfiguration} needs. */
export interface ApplyRequest {
  info: ResourceInfo;
  /** The stored object (served version), undefined when absent. */
  live: KubeObject | undefined;
  /** The decoded apply body. */
  config: unknown;
  /** Namespace and name from the URL. */
  namespace: string;
  name: string;
  /** The `fieldManager` query parameter (required, validated by the caller). */
  manager: string;
  force: boolean;
  subresource: '' | 'status';
  /** RFC 3339 time of the request. */
  now: string;
}

const gvkString = (group: string, version: string, kind: string): string => `${group}/${version}, Kind=${kind}`;

function parseAPIVersion(v: unknown): { group: string; version: string } {
  if (typeof v !== 'string' || v === '') return { group: '', version: '' };
  const parts = v.split('/');
  if (parts.length === 1) return { group: '', version: v };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

/**
 * Checks an apply configuration names the group, version and kind the endpoint serves, as
 * kube-apiserver's field manager requires of every apply patch (of a subresource too: an apply to
 * /scale must say `autoscaling/v1`, `Scale`).
 * @param config - the decoded apply configuration (an object)
 * @throws StatusError 400 `invalid object type: <group>/<version>, Kind=<kind>` (what the body says)
 */
export function checkApplyObjectType(config: Record<string, unknown>, want: { group: string; version: string; kind: string }): void {
  const gv = parseAPIVersion(config.apiVersion);
  const kind = typeof config.kind === 'string' ? config.kind : '';
  if (gv.group !== want.group || gv.version !== want.version || kind !== want.kind) throw apierrors.badRequest(`invalid object type: ${gvkString(gv.group, gv.version, kind)}`);
}

/**
 * Applies a configuration to the live object (or to nothing, creating it).
 * @returns the object to store, with managedFields
 * @throws StatusError 400 (wrong apiVersion/kind `invalid object type: ...`, managedFields in the
 * body, missing name on create, list items without keys), 409 (conflicts, unless `force`; a uid in
 * a configuration that would create the object), 500
 * (stored managedFields that do not decode)
 */
export function applyConfiguration(r: ApplyRequest): KubeObject {
  const { info } = r;
  if (!isJSONObject(r.config)) throw apierrors.badRequest('error decoding patch: the apply configuration must be an object');
  const config = structuredClone(r.config);
  checkApplyObjectType(config, info);
  const apiVersion = String(config.apiVersion);
  const meta = config.metadata;
  if (meta !== undefined && meta !== null && !isJSONObject(meta)) throw apierrors.badRequest(`error decoding patch: metadata must be an object`);
  if (isJSONObject(meta) && meta.managedFields !== undefined && meta.managedFields !== null) throw apierrors.badRequest('metadata.managedFields must be nil');
  const configName = isJSONObject(meta) && typeof meta.name === 'string' ? meta.name : '';
  if (!r.live && configName !== r.name) throw apierrors.badRequest(`the name of the object (${configName}) does not match the name on the URL (${r.name})`);

  const type = typeOf(info);
  const where = `${r.namespace}/${r.name}; ${gvkString(info.group, info.version, info.kind)}`;
  try {
    merge(undefined, config, type); // validates list items and duplicates of the configuration
  } catch (e) {
    if (e instanceof TypedValueError) throw apierrors.badRequest(`failed to create typed patch object (${where}): ${e.message}`);
    throw e;
  }
  let managed: Managed;
  try {
    managed = decodeManagedFields(r.live?.metadata.managedFields);
  } catch (e) {
    throw apierrors.internalError(`failed to decode managed fields: ${(e as Error).message}`);
  }
  const live = withoutManagedFields(r.live ?? zeroObject(info));
  const input: ApplyInput = {
    live,
    config,
    managed,
    applier: { manager: r.manager, operation: 'Apply', apiVersion, subresource: r.subresource },
    force: r.force,
    type,
    reset: resetFieldsOf(info, r.subresource),
    now: r.now,
  };
  let out: ApplyOutput;
  try {
    out = applyToManaged(input);
    if (out.conflicts && r.manager === KubectlManager && r.live) {
      // Upgrading from client-side apply: conflicts on fields the last-applied annotation set are allowed.
      const allowed = allowedConflictsFromLastApplied(r.live, live, type, apiVersion);
      if (allowed) {
        const remaining = out.conflicts.filter((c) => !allowed.has(c.path));
        out = remaining.length ? { conflicts: remaining } : applyToManaged({ ...input, force: true });
      }
    }
  } catch (e) {
    if (e instanceof TypedValueError) throw apierrors.internalError(`failed to create typed live object (${where}): ${e.message}`);
    throw e;
  }
  if (out.conflicts) throw conflictError(out.conflicts);

  const object = out.object as KubeObject;
  // As patch.go's applyPatch: an apply that creates the object may not name a uid (an exported
  // manifest of an object since deleted is not silently made anew).
  const uid = object.metadata?.uid;
  if (!r.live && typeof uid === 'string' && uid !== '') {
    throw apierrors.conflict({ group: info.group, resource: info.resource }, r.name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`);
  }
  const metadata: KubeObject['metadata'] & { managedFields?: unknown } = { ...(object.metadata ?? {}) };
  const entries = encodeManagedFields(out.managed);
  if (entries) metadata.managedFields = entries;
  else delete metadata.managedFields;
  // Keep the client-side apply annotation in step when kubectl applies server-side.
  const annotations = metadata.annotations as Record<string, string> | undefined;
  if (r.manager === KubectlManager && annotations?.[LastAppliedConfigAnnotation]) {
    metadata.annotations = { ...annotations, [LastAppliedConfigAnnotation]: buildLastApplied(config) };
  }
  return { ...object, metadata };
}

/**
 * The fields a conflict may take over when kubectl moves from client-side to server-side apply:
 * those in the last-applied annotation whose live value is still what was applied.
 */
function allowedConflictsFromLastApplied(liveWithMeta: KubeObject, live: unknown, type: FieldType, apiVersion: string): PathSet | undefined {
  const text = liveWithMeta.metadata.annotations?.[LastAppliedConfigAnnotation];
  if (!text) return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJSONObject(lastApplied) || lastApplied.apiVersion !== apiVersion) return undefined;
  try {
    const set = toFieldSet(lastApplied, type);
    const c = compare(lastApplied, live, type);
    return set.difference(c.modified).difference(c.added).difference(c.removed);
  } catch {
    return undefined;
  }
}

/** The last-applied annotation kubectl would write for `config`: its JSON without that annotation, keys sorted, newline-terminated. */
function buildLastApplied(config: Obj): string {
  const copy: Obj = { ...config };
  if (isJSONObject(config.metadata) && isJSONObject(config.metadata.annotations)) {
    const { [LastAppliedConfigAnnotation]: _drop, ...rest } = config.metadata.annotations;
    copy.metadata = { ...config.metadata, annotations: rest };
  }
  return `${goJSON(copy)}\n`;
}
