/**
 * Walks over objects with their {@link FieldType}: the set of fields an object sets, the
 * difference between two objects, the merge of an applied configuration into a live object, and
 * the removal of a set of fields, as structured-merge-diff's `typed` package does them.
 *
 * Values are plain JSON (`undefined` = absent). Inputs are never mutated; outputs share unchanged
 * subtrees with their inputs, so callers clone before mutating. Maps keep the live object's key
 * order, new keys after. `null` where a map or list is expected counts as an empty one (upstream's
 * nil map/list).
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/typed/tofieldset.go
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/typed/compare.go
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/typed/merge.go
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/typed/remove.go
 */
import { isJSONObject, ownValue, setOwn } from '@hcc/crds';
import { fieldPE, keyPE, pathString, peKey, PathSet, valuePE, type Path, type PathElement } from './fieldpath.js';
import { fieldTypeOf, resolve, UNTYPED, type FieldType } from './schema.js';

type Obj = Record<string, unknown>;
const asMap = (v: unknown): Obj | undefined => (isJSONObject(v) ? v : undefined);
const asList = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);
const mapEmpty = (m: Obj | undefined): boolean => {
  if (!m) return true;
  for (const _ in m) return false;
  return true;
};

/** A value that does not fit its type (e.g. a map-list item without its key); `path` says where. */
export class TypedValueError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path ? `${path}: ` : ''}${detail}`);
    this.name = 'TypedValueError';
  }
}

/** Deep equality of JSON values (key order ignored; 1 and 1.0 are the same number). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let n = 0;
  for (const k in a as Obj) {
    if ((a as Obj)[k] === undefined) continue;
    n++;
    if (!jsonEqual((a as Obj)[k], (b as Obj)[k])) return false;
  }
  for (const k in b as Obj) if ((b as Obj)[k] !== undefined) n--;
  return n === 0;
}

/**
 * The path element of a list item: its value for sets, its key fields (schema defaults filling
 * missing keys) for map lists.
 * @throws TypedValueError for items that cannot be identified
 */
export function listItemPE(t: FieldType, item: unknown, where: () => string, index: number): PathElement {
  if (t.listType === 'map') {
    if (item === null) throw new TypedValueError(where(), `element ${index}: associative list with keys may not have a null element`);
    if (!isJSONObject(item)) throw new TypedValueError(where(), `element ${index}: associative list with keys may not have non-map elements`);
    const fields: [string, unknown][] = [];
    for (const k of t.keys) {
      let v = item[k];
      if (v === undefined) v = t.keyDefault(k);
      if (v === undefined) throw new TypedValueError(where(), `element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
      fields.push([k, v]);
    }
    return keyPE(fields);
  }
  if (isJSONObject(item)) throw new TypedValueError(where(), `element ${index}: associative list without keys has an element that's a map type`);
  if (Array.isArray(item)) throw new TypedValueError(where(), `element ${index}: not supported: associative list with lists as elements`);
  if (item === null) throw new TypedValueError(where(), `element ${index}: associative list without keys has an element that's an explicit null`);
  return valuePE(item);
}

/** Indexes the items of an associative list by element key; later duplicates are reported, or dropped when `allowDuplicates`. */
function indexItems(t: FieldType, list: unknown[] | undefined, path: PathElement[], allowDuplicates: boolean): { order: { key: string; pe: PathElement }[]; items: Map<string, unknown> } {
  const order: { key: string; pe: PathElement }[] = [];
  const items = new Map<string, unknown>();
  if (!list) return { order, items };
  const where = () => pathString(path);
  for (let i = 0; i < list.length; i++) {
    const pe = listItemPE(t, list[i], where, i);
    const key = peKey(pe);
    if (items.has(key)) {
      if (allowDuplicates) continue;
      throw new TypedValueError(where(), `duplicate entries for key ${pathString([pe])}`);
    }
    items.set(key, list[i]);
    order.push({ key, pe });
  }
  return { order, items };
}

/**
 * The fields an object sets: every scalar and atomic value, every list item, and every map key
 * that is not a named struct field (named fields are implied by their children).
 */
export function toFieldSet(v: unknown, t: FieldType): PathSet {
  const set = new PathSet();
  walkToSet(v, t, set, []);
  return set;
}

function walkToSet(v: unknown, declared: FieldType, set: PathSet, path: PathElement[]): void {
  const t = resolve(declared, v);
  if (t.kind === 'scalar' || t.atomic) {
    set.insert(path);
    return;
  }
  if (t.kind === 'list') {
    const list = asList(v);
    if (!list) return;
    const elem = t.elem();
    const where = () => pathString(path);
    for (let i = 0; i < list.length; i++) {
      const pe = listItemPE(t, list[i], where, i);
      path.push(pe);
      walkToSet(list[i], elem, set, path);
      set.insert(path);
      path.pop();
    }
    return;
  }
  const m = asMap(v);
  if (!m) return;
  for (const k in m) {
    const val = m[k];
    if (val === undefined) continue;
    const named = t.field(k);
    path.push(fieldPE(k));
    walkToSet(val, named ?? t.elem(), set, path);
    if (!named) set.insert(path);
    path.pop();
  }
}

/** Fields removed, changed and added from `lhs` to `rhs`; no path is in two of them. */
export interface Comparison {
  removed: PathSet;
  modified: PathSet;
  added: PathSet;
}

/** True when two objects have no differences. */
export const isSame = (c: Comparison): boolean => c.removed.isEmpty() && c.modified.isEmpty() && c.added.isEmpty();

/**
 * Compares two objects field by field. Leaves (scalars, atomic values, empty maps and lists) are
 * compared by value; a subtree present on one side only adds or removes every path inside it,
 * including its own.
 */
export function compare(lhs: unknown, rhs: unknown, t: FieldType): Comparison {
  const c: Comparison = { removed: new PathSet(), modified: new PathSet(), added: new PathSet() };
  walkCompare(lhs, rhs, t, c, []);
  return c;
}

function walkCompare(lhs: unknown, rhs: unknown, declared: FieldType, c: Comparison, path: PathElement[]): void {
  const t = resolve(declared, rhs !== undefined ? rhs : lhs);
  const lt = lhs !== undefined && rhs !== undefined ? resolve(declared, lhs) : t;
  let leaf = t.kind === 'scalar' || t.atomic || lt.kind !== t.kind;
  if (!leaf && t.kind === 'map') {
    const lm = asMap(lhs);
    const rm = asMap(rhs);
    if (mapEmpty(lm) && mapEmpty(rm)) leaf = true;
    else {
      if (lm) {
        for (const k in lm) {
          if (lm[k] === undefined) continue;
          path.push(fieldPE(k));
          walkCompare(lm[k], ownValue(rm, k), fieldTypeOf(t, k), c, path);
          path.pop();
        }
      }
      if (rm) {
        for (const k in rm) {
          if (rm[k] === undefined || ownValue(lm, k) !== undefined) continue;
          path.push(fieldPE(k));
          walkCompare(undefined, rm[k], fieldTypeOf(t, k), c, path);
          path.pop();
        }
      }
    }
  } else if (!leaf && t.kind === 'list') {
    const ll = asList(lhs);
    const rl = asList(rhs);
    if ((!ll || ll.length === 0) && (!rl || rl.length === 0)) leaf = true;
    else compareListItems(t, ll, rl, c, path);
  }
  if (leaf) {
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    else if (!jsonEqual(lhs, rhs)) c.modified.insert(path);
    return;
  }
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

function compareListItems(t: FieldType, ll: unknown[] | undefined, rl: unknown[] | undefined, c: Comparison, path: PathElement[]): void {
  const elem = t.elem();
  const where = () => pathString(path);
  const groups = new Map<string, { pe: PathElement; l: unknown[]; r: unknown[] }>();
  const group = (item: unknown, i: number, side: 'l' | 'r') => {
    const pe = listItemPE(t, item, where, i);
    const key = peKey(pe);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { pe, l: [], r: [] }));
    g[side].push(item);
  };
  ll?.forEach((item, i) => group(item, i, 'l'));
  rl?.forEach((item, i) => group(item, i, 'r'));
  for (const g of groups.values()) {
    path.push(g.pe);
    if (g.l.length <= 1 && g.r.length <= 1) walkCompare(g.l[0], g.r[0], elem, c, path);
    else if (g.l.length >= 2 && g.r.length >= 2) {
      // Duplicates before and after: compared as one atomic value.
      if (!jsonEqual(g.l, g.r)) c.modified.insert(path);
    } else if (g.l.length >= 2) {
      if (g.r.length) walkCompare(undefined, g.r[0], elem, c, path);
      c.removed.insert(path);
    } else {
      if (g.l.length) walkCompare(g.l[0], undefined, elem, c, path);
      c.added.insert(path);
    }
    path.pop();
  }
}

/**
 * Merges an applied configuration (`rhs`) into a live object (`lhs`): granular maps merge key by
 * key, associative lists merge item by item (live order kept, applied items in applied order),
 * everything else (scalars, atomic maps and lists) takes the applied value.
 * @throws TypedValueError for list items without keys, or duplicate items in the configuration
 */
export function merge(lhs: unknown, rhs: unknown, t: FieldType): unknown {
  return walkMerge(lhs, rhs, t, []);
}

function walkMerge(lhs: unknown, rhs: unknown, declared: FieldType, path: PathElement[]): unknown {
  const t = resolve(declared, rhs !== undefined ? rhs : lhs);
  const lt = lhs !== undefined && rhs !== undefined ? resolve(declared, lhs) : t;
  const keepRHS = () => (rhs !== undefined ? rhs : lhs);
  if (t.kind === 'scalar' || t.atomic || lt.kind !== t.kind) return keepRHS();
  if (t.kind === 'map') {
    const lm = asMap(lhs);
    const rm = asMap(rhs);
    if (mapEmpty(lm) && mapEmpty(rm)) return keepRHS();
    const out: Obj = {};
    if (lm) {
      for (const k in lm) {
        if (lm[k] === undefined) continue;
        const r = ownValue(rm, k);
        path.push(fieldPE(k));
        const v = r === undefined ? lm[k] : walkMerge(lm[k], r, fieldTypeOf(t, k), path);
        path.pop();
        if (v !== undefined) setOwn(out, k, v);
      }
    }
    if (rm) {
      for (const k in rm) {
        if (rm[k] === undefined || ownValue(lm, k) !== undefined) continue;
        path.push(fieldPE(k));
        setOwn(out, k, walkMerge(undefined, rm[k], fieldTypeOf(t, k), path));
        path.pop();
      }
    }
    return out;
  }
  const ll = asList(lhs);
  const rl = asList(rhs);
  if ((!ll || ll.length === 0) && (!rl || rl.length === 0)) return keepRHS();
  return mergeListItems(t, ll, rl, path);
}

/** The item order of structured-merge-diff v4 `visitListItems`: live order, applied items placed by the applied order. */
function mergeListItems(t: FieldType, ll: unknown[] | undefined, rl: unknown[] | undefined, path: PathElement[]): unknown[] {
  const elem = t.elem();
  const rhs = indexItems(t, rl, path, false);
  const lhs = indexItems(t, ll, path, true);
  const out: unknown[] = [];
  const mergeItem = (key: string, pe: PathElement) => {
    path.push(pe);
    const l = lhs.items.get(key);
    const r = rhs.items.get(key);
    const v = r === undefined ? l : l === undefined ? walkMerge(undefined, r, elem, path) : walkMerge(l, r, elem, path);
    path.pop();
    if (v !== undefined) out.push(v);
  };
  const shared = rhs.order.filter((e) => lhs.items.has(e.key));
  let sharedIdx = 0;
  let nextShared: string | undefined = shared[sharedIdx++]?.key;
  const advanceShared = () => {
    nextShared = shared[sharedIdx++]?.key;
  };
  const lLen = lhs.order.length;
  const rLen = rhs.order.length;
  for (let lI = 0, rI = 0; lI < lLen || rI < rLen; ) {
    if (lI < lLen && rI < rLen) {
      const le = lhs.order[lI]!;
      if (le.key === rhs.order[rI]!.key) {
        mergeItem(le.key, le.pe);
        lI++;
        rI++;
        advanceShared();
        continue;
      }
      if (rhs.items.has(le.key) && nextShared !== undefined && nextShared !== le.key) {
        // A shared item, but not the one wanted in this round.
        lI++;
        continue;
      }
    }
    if (lI < lLen) {
      const le = lhs.order[lI]!;
      if (!rhs.items.has(le.key)) {
        mergeItem(le.key, le.pe);
        lI++;
        continue;
      }
    }
    if (rI < rLen) {
      const re = rhs.order[rI]!;
      mergeItem(re.key, re.pe);
      rI++;
      if (nextShared === re.key) advanceShared();
    }
  }
  return out;
}

/**
 * Removes the fields of `set` from an object: a member path removes the whole subtree there; maps
 * and lists emptied by the removal are dropped (upstream leaves `null`, which the CRD pruner or
 * the typed decoder then drops).
 */
export function removeItems(v: unknown, set: PathSet, t: FieldType): unknown {
  return walkRemove(v, set, t, []);
}

function walkRemove(v: unknown, set: PathSet, declared: FieldType, path: PathElement[]): unknown {
  const t = resolve(declared, v);
  if (t.kind === 'scalar' || t.atomic) return v;
  if (t.kind === 'list') {
    const list = asList(v);
    if (!list || list.length === 0) return v;
    const elem = t.elem();
    const where = () => pathString(path);
    const out: unknown[] = [];
    for (let i = 0; i < list.length; i++) {
      const pe = listItemPE(t, list[i], where, i);
      const key = peKey(pe);
      if (set.members.has(key)) continue;
      const sub = set.children.get(key);
      if (!sub) {
        out.push(list[i]);
        continue;
      }
      path.push(pe);
      const r = walkRemove(list[i], sub.set, elem, path);
      path.pop();
      if (r !== undefined) out.push(r);
    }
    return out.length ? out : undefined;
  }
  const m = asMap(v);
  if (!m || mapEmpty(m)) return v;
  const out: Obj = {};
  for (const k in m) {
    if (m[k] === undefined) continue;
    const key = `f:${k}`;
    if (set.members.has(key)) continue;
    const sub = set.children.get(key);
    if (!sub) {
      setOwn(out, k, m[k]);
      continue;
    }
    path.push(fieldPE(k));
    const r = walkRemove(m[k], sub.set, fieldTypeOf(t, k), path);
    path.pop();
    if (r !== undefined) setOwn(out, k, r);
  }
  return mapEmpty(out) ? undefined : out;
}

/**
 * Adds every named struct field that has members below it as a member itself, so that removing a
 * set also removes the structs it emptied (`a.b.c` makes `a` a member if `a` is a named field,
 * but not `a.b` if `b` is a map key).
 */
export function ensureNamedFieldsAreMembers(set: PathSet, t: FieldType): PathSet {
  const out = new PathSet();
  for (const [k, pe] of set.members) out.members.set(k, pe);
  for (const [k, c] of set.children) {
    let ct: FieldType = UNTYPED;
    if (c.pe.kind === 'field' && t.kind === 'map') {
      const named = t.field(c.pe.name);
      if (named) out.members.set(k, c.pe);
      ct = named ?? t.elem();
    } else if (c.pe.kind === 'key' && t.kind === 'list') ct = t.elem();
    out.children.set(k, { pe: c.pe, set: ensureNamedFieldsAreMembers(c.set, ct) });
  }
  return out;
}

/** A path as a list of elements, for callers building paths by hand (tests). */
export const path = (...p: (string | PathElement)[]): Path => p.map((x) => (typeof x === 'string' ? fieldPE(x) : x));
