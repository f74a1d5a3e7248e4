/**
 * The FieldsV1 a create gives its manager, written straight from the new object: the fast path of
 * `toFieldsV1(compare(zero, obj).added − stripSet − reset)` for the most frequent write. Every node
 * of a created object is added, so every node is a member: leaves (scalars, atomic values, empty
 * maps and lists) are `{}`, inner nodes `{".": {}, ...}`; nodes the kind's zero value already has
 * (built-in `metadata`, a struct `spec`) are not members, and the strip-set fields
 * (apiVersion, kind, metadata.name, uid, ...) and reset fields (status) are left out.
 *
 * Guarantee: equal to the general path (managed-fields.test.ts checks both on real manifests).
 */
import { isJSONObject } from '@hcc/crds';
import { comparePE, fieldPE, pathString, peKey, type PathElement } from './path-element.js';
import { fieldTypeOf, resolve, type FieldType } from './schema.js';
import { listItemPE } from './typed.js';

type Obj = Record<string, unknown>;

/** Metadata fields never owned (upstream's stripMetaManager). */
const strippedMeta = new Set(['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']);

/**
 * FieldsV1 of a created object, or undefined when it owns nothing.
 * @param zero - the kind's zero value (zeroObject): its top-level maps are not members
 * @param reset - top-level fields never owned (e.g. `status`)
 * @throws TypedValueError for list items without keys (the caller falls back)
 */
export function createdFieldsV1(obj: Obj, zero: Obj, type: FieldType, reset: ReadonlySet<string>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj).sort()) {
    const v = obj[k];
    if (v === undefined || k === 'apiVersion' || k === 'kind' || reset.has(k)) continue;
    const t = fieldTypeOf(type, k);
    if (k === 'metadata' && isJSONObject(v)) {
      const meta: Record<string, unknown> = {};
      const mt = resolve(t, v);
      for (const mk of Object.keys(v).sort()) {
        if (v[mk] === undefined || strippedMeta.has(mk)) continue;
        meta[`f:${mk}`] = node(v[mk], fieldTypeOf(mt, mk), [fieldPE('metadata'), fieldPE(mk)]);
      }
      if (Object.keys(meta).length) out['f:metadata'] = meta;
      continue;
    }
    const n = node(v, t, [fieldPE(k)]);
    if (isJSONObject(zero[k]) && isJSONObject(v) && resolve(t, v).kind === 'map') {
      // Present in the zero value: not added itself, only its children (an empty map is unchanged).
      const { '.': _self, ...children } = n;
      if (Object.keys(children).length) out[`f:${k}`] = children;
      continue;
    }
    out[`f:${k}`] = n;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The FieldsV1 node of an added value: `{}` for a leaf, else `{".": {}, ...children}`. */
function node(v: unknown, declared: FieldType, path: PathElement[]): Record<string, unknown> {
  const t = resolve(declared, v);
  if (t.kind === 'scalar' || t.atomic) return {};
  if (t.kind === 'map') {
    if (!isJSONObject(v)) return {};
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    if (!keys.length) return {};
    const out: Record<string, unknown> = { '.': {} };
    for (const k of keys.sort()) {
      path.push(fieldPE(k));
      out[`f:${k}`] = node(v[k], fieldTypeOf(t, k), path);
      path.pop();
    }
    return out;
  }
  if (!Array.isArray(v) || v.length === 0) return {};
  const elem = t.elem();
  const where = () => pathString(path);
  const items = new Map<string, { pe: PathElement; values: unknown[] }>();
  v.forEach((item, i) => {
    const pe = listItemPE(t, item, where, i);
    const key = peKey(pe);
    const g = items.get(key);
    if (g) g.values.push(item);
    else items.set(key, { pe, values: [item] });
  });
  const out: Record<string, unknown> = { '.': {} };
  for (const [key, g] of [...items].sort((a, b) => comparePE(a[1].pe, b[1].pe))) {
    if (g.values.length > 1) {
      // Duplicates are one member without children, as compare records them.
      out[key] = {};
      continue;
    }
    path.push(g.pe);
    out[key] = node(g.values[0], elem, path);
    path.pop();
  }
  return out;
}
