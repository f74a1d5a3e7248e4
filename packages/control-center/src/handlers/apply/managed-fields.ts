/**
 * `metadata.managedFields`: which field manager owns which fields, and how every write that is
 * not an apply (create, update, patch, status and scale writes) updates it, after
 * k8s.io/apimachinery/pkg/util/managedfields/internal (FieldManager with its layers: strip meta,
 * managed-fields updater, build manager info, cap managers).
 *
 * Guarantees:
 * - One entry per manager identity: `manager` + `operation` + `subresource`, and `apiVersion` for
 *   `Update` entries (an applier keeps one entry across versions). Entries are sorted as upstream
 *   sorts them: Apply before Update, then by time, manager, apiVersion, subresource.
 * - An Update takes ownership of every field it added or changed (other managers lose them) and
 *   every manager loses the fields it removed; its `time` moves only when it took a field.
 * - Never tracked: apiVersion, kind, metadata.{name, namespace, uid, resourceVersion, generation,
 *   creationTimestamp, selfLink, managedFields}; `status` on the main resource of a kind with a
 *   status subresource; `spec` through the status subresource.
 * - The request's own managedFields replace the stored ones when they decode and are non-empty;
 *   `[]` or `[{}]` resets them (upstream's isResetManagedFields and its integration test
 *   TestClearManagedFieldsWithUpdateEmptyList: the docs' "an empty list will not reset" is out of
 *   date); anything else (or any subresource write) keeps the stored ones.
 * - At most 10 Update entries: the oldest merge into `ancient-changes` per apiVersion.
 *
 * Cost: a create writes its one entry straight from the object (created.ts); an update decodes
 * only the stored entries it touches (a manager changing fields it already owns only moves its
 * time). Both give what the general decode-update-encode path gives (tested).
 * @see https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management
 */
import type { KubeObject } from '@hcc/crds';
import type { ResourceInfo } from '../../registry/types.js';
import { fieldPE, fromFieldsV1, PathSet, toFieldsV1 } from './fieldpath.js';
import { createdFieldsV1 } from './created.js';
import type { FieldType } from './schema.js';
import { compare, jsonEqual, TypedValueError, type Comparison } from './typed.js';

/** metav1.ManagedFieldsEntry as JSON. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

/** One manager's decoded entry. */
export interface ManagerFields {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource: string;
  time?: string;
  set: PathSet;
}

/** Decoded managedFields, by manager identity (see {@link managerIdentity}). */
export type Managed = Map<string, ManagerFields>;

/** The manager recorded when a request names none and sends no User-Agent. */
export const UnknownManager = 'unknown';

/**
 * The identity of an entry, as upstream's BuildManagerIdentifier: the JSON of manager, operation,
 * apiVersion (Update only) and subresource.
 */
export function managerIdentity(manager: string, operation: 'Apply' | 'Update', apiVersion: string, subresource: string): string {
  const id: Record<string, string> = {};
  if (manager) id.manager = manager;
  id.operation = operation;
  if (operation === 'Update' && apiVersion) id.apiVersion = apiVersion;
  if (subresource) id.subresource = subresource;
  return JSON.stringify(id);
}

/**
 * How conflict messages name a manager: `"kubectl"`, `"x" with subresource "status"`, and
 * ` using <apiVersion>` for Update entries.
 */
export function printManager(m: Pick<ManagerFields, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

/**
 * Decodes stored or requested managedFields.
 * @throws Error naming the first invalid entry (bad operation, empty apiVersion, fieldsType other than FieldsV1, malformed FieldsV1)
 */
export function decodeManagedFields(entries: unknown): Managed {
  const managed: Managed = new Map();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((raw: unknown, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`managed fields entry ${i} must be an object`);
    const e = raw as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new Error('apiVersion must not be empty');
    if (!e.fieldsType) throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const set = fromFieldsV1(e.fieldsV1);
    const m: ManagerFields = { manager: e.manager ?? '', operation: e.operation, apiVersion: e.apiVersion, subresource: e.subresource ?? '', set };
    if (e.time) m.time = e.time;
    managed.set(managerIdentity(m.manager, m.operation, m.apiVersion, m.subresource), m);
  });
  return managed;
}

const seconds = (t: string | undefined): number => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);
const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Encodes managedFields, sorted as upstream; undefined when no manager owns anything. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  const list = [...managed.values()].filter((m) => !m.set.isEmpty());
  if (!list.length) return undefined;
  return sortEntries(
    list.map((m) => {
      const e: ManagedFieldsEntry = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion };
      if (m.time) e.time = m.time;
      e.fieldsType = 'FieldsV1';
      e.fieldsV1 = toFieldsV1(m.set);
      if (m.subresource) e.subresource = m.subresource;
      return e;
    }),
  );
}

/** Fields no manager ever owns (upstream's stripMetaManager). Removed as members only. */
export const stripSet = PathSet.of(
  [fieldPE('apiVersion')],
  [fieldPE('kind')],
  [fieldPE('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [fieldPE('metadata'), fieldPE(f)]),
);

const statusSet = PathSet.of([fieldPE('status')]);
const specSet = PathSet.of([fieldPE('spec')]);

/**
 * The fields a write through `subresource` may not set, so never owns (the strategy's
 * GetResetFields): `status` on the main resource of a kind with a status subresource, `spec`
 * through `status`.
 */
export function resetFieldsOf(info: Pick<ResourceInfo, 'subresources'>, subresource: string): PathSet | undefined {
  if (subresource === 'status') return specSet;
  if (subresource === '' && info.subresources.status) return statusSet;
  return undefined;
}

/** Removes `excluded` (recursively) from every set of a comparison. */
export function excludeFields(c: Comparison, excluded: PathSet | undefined): Comparison {
  if (!excluded) return c;
  return { removed: c.removed.recursiveDifference(excluded), modified: c.modified.recursiveDifference(excluded), added: c.added.recursiveDifference(excluded) };
}

/** A shallow copy of an object without `metadata.managedFields` (what is compared and merged). */
export function withoutManagedFields(obj: KubeObject): KubeObject {
  if (!obj.metadata || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _mf, ...metadata } = obj.metadata as KubeObject['metadata'] & { managedFields?: unknown };
  return { ...obj, metadata } as KubeObject;
}

/** Whether a request asks to clear managedFields: `[]` or `[{}]`. */
export function isResetManagedFields(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  if (v.length === 0) return true;
  if (v.length !== 1 || typeof v[0] !== 'object' || v[0] === null) return false;
  return Object.values(v[0] as Record<string, unknown>).every((x) => x === undefined || x === null || x === '');
}

/** Upstream's DefaultMaxUpdateManagers. */
export const MaxUpdateManagers = 10;

/**
 * Merges the oldest Update entries into `ancient-changes` buckets (one per apiVersion) until at
 * most `max` Update entries remain (upstream's capManagersManager).
 */
export function capUpdateManagers(managed: Managed, max = MaxUpdateManagers): void {
  const updaters = [...managed.entries()].filter(([, m]) => m.operation === 'Update');
  if (updaters.length <= max) return;
  updaters.sort(([ia, a], [ib, b]) => seconds(a.time) - seconds(b.time) || cmpStr(ia, ib));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const [id, m] = updaters[i]!;
    const bucket = managerIdentity('ancient-changes', 'Update', m.apiVersion, '');
    const first = firstByVersion.get(m.apiVersion);
    if (first === undefined) {
      firstByVersion.set(m.apiVersion, id);
      continue;
    }
    if (!managed.has(bucket)) {
      const f = managed.get(first)!;
      managed.delete(first);
      managed.set(bucket, { ...f, manager: 'ancient-changes', subresource: '' });
    }
    const b = managed.get(bucket)!;
    managed.set(bucket, { ...b, set: m.set.union(b.set), ...(m.time ? { time: m.time } : {}) });
    managed.delete(id);
    length--;
  }
}

/** What an Update operation needs. */
export interface UpdateTracking {
  /** The stored object; undefined on create. */
  live: KubeObject | undefined;
  /** The object about to be stored (its managedFields are ignored). */
  obj: KubeObject;
  /** `metadata.managedFields` as the request sent them. */
  requestManagedFields: unknown;
  /** Stands in for `live` on create: the kind's zero value. */
  zero: KubeObject;
  manager: string;
  /** The request's apiVersion (`group/version`). */
  apiVersion: string;
  /** '' for the main resource, else `status` or `scale`. */
  subresource: string;
  type: FieldType;
  reset: PathSet | undefined;
  /** RFC 3339 time of the write. */
  now: string;
}

/**
 * Computes managedFields after an Update operation: the stored (or requested) entries, with the
 * manager owning what it added or changed.
 * @returns the entries to store; undefined when nothing is owned. If the objects cannot be
 * compared (a map-list item without its key), the stored entries unchanged, as upstream's
 * UpdateNoErrors does.
 */
export function trackUpdate(u: UpdateTracking): ManagedFieldsEntry[] | undefined {
  if (!u.live && u.requestManagedFields === undefined) {
    const fields = createdFields(u);
    if (fields !== SLOW) return fields;
  }
  const liveEntries = u.live?.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  let comparison: Comparison;
  try {
    comparison = excludeFields(compare(withoutManagedFields(u.live ?? u.zero), withoutManagedFields(u.obj), u.type), u.reset);
  } catch (e) {
    if (e instanceof TypedValueError) return liveEntries;
    throw e;
  }
  let managed: Managed | undefined;
  const req = u.requestManagedFields;
  if (!u.subresource && req !== undefined && req !== liveEntries && !jsonEqual(req, liveEntries)) {
    if (isResetManagedFields(req)) managed = new Map();
    else {
      try {
        const decoded = decodeManagedFields(req);
        if (decoded.size) managed = decoded;
      } catch {
        // Invalid managedFields in a request: keep the stored ones.
      }
    }
  }
  const nothingChanged = comparison.removed.isEmpty() && comparison.modified.isEmpty() && comparison.added.isEmpty();
  if (!managed && nothingChanged) return liveEntries;
  const updater = { manager: u.manager || UnknownManager, operation: 'Update' as const, apiVersion: u.apiVersion, subresource: u.subresource };
  if (!managed) {
    const fast = updateEntries(liveEntries, comparison, updater, u.now);
    if (fast !== SLOW) return fast;
    try {
      managed = decodeManagedFields(liveEntries);
    } catch {
      managed = new Map();
    }
  }
  updateManaged(managed, comparison, updater, u.now);
  capUpdateManagers(managed);
  return encodeManagedFields(managed);
}

/** A create's single entry, written straight from the object (created.ts); SLOW when an item cannot be identified. */
function createdFields(u: UpdateTracking): ManagedFieldsEntry[] | undefined | typeof SLOW {
  const reset = new Set<string>();
  for (const pe of u.reset?.members.values() ?? []) if (pe.kind === 'field') reset.add(pe.name);
  let fieldsV1: Record<string, unknown> | undefined;
  try {
    fieldsV1 = createdFieldsV1(withoutManagedFields(u.obj) as Record<string, unknown>, u.zero as Record<string, unknown>, u.type, reset);
  } catch (e) {
    if (e instanceof TypedValueError) return SLOW;
    throw e;
  }
  if (!fieldsV1) return undefined;
  const e: ManagedFieldsEntry = { manager: u.manager || UnknownManager, operation: 'Update', apiVersion: u.apiVersion, time: u.now, fieldsType: 'FieldsV1', fieldsV1 };
  if (u.subresource) e.subresource = u.subresource;
  return [e];
}

/** {@link updateEntries} could not take the fast path. */
export const SLOW = Symbol('slow');

/** Whether a raw FieldsV1 node marks its path as a member: `{}` or `{".": {}, ...}`. */
const isMemberNode = (v: unknown): boolean => {
  if (typeof v !== 'object' || v === null) return false;
  for (const k in v) return k === '.' || '.' in v;
  return true;
};

/** Whether any member of `set` is a member of the raw FieldsV1 object. */
function intersectsRaw(raw: Record<string, unknown>, set: PathSet): boolean {
  for (const k of set.members.keys()) if (isMemberNode(raw[k])) return true;
  for (const [k, c] of set.children) {
    const sub = raw[k];
    if (typeof sub === 'object' && sub !== null && intersectsRaw(sub as Record<string, unknown>, c.set)) return true;
  }
  return false;
}

/** Whether every member of `set` is a member of the raw FieldsV1 object. */
function containsAllRaw(raw: Record<string, unknown>, set: PathSet): boolean {
  for (const k of set.members.keys()) if (!isMemberNode(raw[k])) return false;
  for (const [k, c] of set.children) {
    const sub = raw[k];
    if (c.set.isEmpty()) continue;
    if (typeof sub !== 'object' || sub === null || !containsAllRaw(sub as Record<string, unknown>, c.set)) return false;
  }
  return true;
}

const sortEntries = (list: ManagedFieldsEntry[]): ManagedFieldsEntry[] =>
  list.sort(
    (p, q) =>
      cmpStr(p.operation ?? '', q.operation ?? '') ||
      seconds(p.time) - seconds(q.time) ||
      cmpStr(p.manager ?? '', q.manager ?? '') ||
      cmpStr(p.apiVersion ?? '', q.apiVersion ?? '') ||
      cmpStr(p.subresource ?? '', q.subresource ?? ''),
  );

/**
 * {@link updateManaged} on stored (canonically encoded) entries without decoding the ones the
 * update does not touch: the common case of a manager changing fields it already owns costs a
 * few lookups. Returns SLOW when the entries need the general path (malformed entries, or more
 * than {@link MaxUpdateManagers} updaters).
 */
export function updateEntries(entries: ManagedFieldsEntry[] | undefined, comparison: Comparison, updater: Omit<ManagerFields, 'set' | 'time'>, now: string): ManagedFieldsEntry[] | undefined | typeof SLOW {
  const list = entries ?? [];
  if (!Array.isArray(list)) return SLOW;
  const changed = comparison.modified.union(comparison.added);
  const touched = changed.union(comparison.removed);
  const mine = changed.difference(comparison.removed).difference(stripSet);
  const out: ManagedFieldsEntry[] = [];
  let updaters = 0;
  let selfDone = mine.isEmpty();
  for (const e of list) {
    if (typeof e !== 'object' || e === null || (e.operation !== 'Apply' && e.operation !== 'Update') || !e.apiVersion || e.fieldsType !== 'FieldsV1') return SLOW;
    const raw = (e.fieldsV1 ?? {}) as Record<string, unknown>;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return SLOW;
    if (e.operation === 'Update') updaters++;
    const isSelf = !selfDone && e.operation === 'Update' && (e.manager ?? '') === updater.manager && e.apiVersion === updater.apiVersion && (e.subresource ?? '') === updater.subresource;
    if (isSelf && containsAllRaw(raw, mine) && !intersectsRaw(raw, comparison.removed)) {
      // Already owns everything it changed: only the time moves.
      out.push({ ...e, time: now });
      selfDone = true;
      continue;
    }
    if (!isSelf && !intersectsRaw(raw, touched)) {
      out.push(e);
      continue;
    }
    let set: PathSet;
    try {
      set = fromFieldsV1(raw).difference(changed).difference(comparison.removed);
    } catch {
      return SLOW;
    }
    if (isSelf) {
      out.push({ ...e, time: now, fieldsV1: toFieldsV1(set.union(mine)) });
      selfDone = true;
    } else if (!set.isEmpty()) out.push({ ...e, fieldsV1: toFieldsV1(set) });
  }
  if (!selfDone) {
    updaters++;
    const e: ManagedFieldsEntry = { manager: updater.manager, operation: 'Update', apiVersion: updater.apiVersion, time: now, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(mine) };
    if (updater.subresource) e.subresource = updater.subresource;
    out.push(e);
  }
  if (updaters > MaxUpdateManagers) return SLOW;
  return out.length ? sortEntries(out) : undefined;
}

/**
 * Records an Update in decoded managers (mutated): every manager loses the fields the update
 * changed or removed; the updater gains what it changed (never the strip-set fields) and its time
 * moves, if it gained anything. structured-merge-diff's `Updater.Update` with upstream's
 * managed-fields updater around it.
 */
export function updateManaged(managed: Managed, comparison: Comparison, updater: Omit<ManagerFields, 'set' | 'time'>, now: string): void {
  const changed = comparison.modified.union(comparison.added);
  for (const [id, m] of managed) {
    const set = m.set.difference(changed).difference(comparison.removed);
    if (set.isEmpty()) managed.delete(id);
    else if (set !== m.set) managed.set(id, { ...m, set });
  }
  const mine = changed.difference(comparison.removed).difference(stripSet);
  if (mine.isEmpty()) return;
  const id = managerIdentity(updater.manager, 'Update', updater.apiVersion, updater.subresource);
  const prev = managed.get(id);
  managed.set(id, { ...updater, operation: 'Update', time: now, set: prev ? mine.union(prev.set) : mine });
}
