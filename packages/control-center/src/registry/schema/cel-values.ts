/**
 * Binds JSON values to CEL values the way apiextensions-apiserver's UnstructuredToVal does, typed by
 * the structural schema: `integer` → int (bigint), `number` → double, int-or-string → int or
 * string, string formats `date-time`/`date` → timestamp, `duration` → duration, `byte` → bytes,
 * objects with `properties` → only the declared fields (names escaped: `a-b` → `a__dash__b`),
 * objects with `additionalProperties` → maps, preserve-unknown-fields objects without properties →
 * empty objects, embedded resources → `apiVersion`, `kind`, `metadata.name`/`generateName` plus
 * their properties.
 *
 * Upstream compares `x-kubernetes-list-type: set` and `map` lists without regard to order. cel-js
 * compares lists in order, so {@link toCELAligned} binds `oldSelf` with its set/map-list elements
 * put in the order of the matching elements of `self`: `self == oldSelf` is then order-insensitive
 * as upstream. Only the element order of `oldSelf` (e.g. `oldSelf[0]`) can differ from upstream.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/values.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/cel/escaping.go
 */
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { checkFormat } from './formats.js';
import type { JSONSchemaProps } from './types.js';
import { additionalOf, canonicalJSON, isJSONObject, itemsOf } from './validate.js';
import { compiledCache } from './compiled.js';
import { setOwn } from '@hcc/crds';

type JSONObject = Record<string, unknown>;

const celReserved = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace',
  'return', 'var', 'void', 'while',
]);

/**
 * cel.Escape: a property name as CEL sees it (`__` → `__underscores__`, `.` → `__dot__`, `-` →
 * `__dash__`, `/` → `__slash__`, reserved words → `__word__`).
 * @returns the escaped name, or undefined when the name cannot be a CEL field (upstream drops it)
 */
export function escapeCELName(name: string): string | undefined {
  if (escaped.has(name)) return escaped.get(name);
  const out = escapeName(name);
  if (escaped.size > 10_000) escaped.clear();
  escaped.set(name, out);
  return out;
}

/** escapeCELName results by name (names come from schemas, so the map stays small). */
const escaped = new Map<string, string | undefined>();

function escapeName(name: string): string | undefined {
  if (celReserved.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  return name.replace(/__|[.\-/]/g, (m) => ({ __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' })[m]!);
}

const goDurationUnitsNs: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go time.ParseDuration into a cel-js Duration; undefined when not a Go duration. */
export function parseGoDuration(s: string): Duration | undefined {
  const m = /^([-+]?)((?:\d*\.?\d*(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(s);
  if (!m || !/\d/.test(s)) return undefined;
  let ns = 0;
  for (const [, num, unit] of m[2]!.matchAll(/(\d*\.?\d*)(ns|us|µs|μs|ms|s|m|h)/g)) {
    if (num === '' || num === '.') return undefined;
    ns += Number(num) * goDurationUnitsNs[unit!]!;
  }
  const sign = m[1] === '-' ? -1 : 1;
  const seconds = Math.trunc(ns / 1e9);
  return new Duration(BigInt(sign * seconds), sign * Math.round(ns - seconds * 1e9));
}

/** A JSON number as CEL int (bigint) when integral, else double. */
const jsonNumber = (v: number): bigint | number => (Number.isInteger(v) ? BigInt(v) : v);


/** Untyped conversion (no schema): integral numbers are ints, like Go's JSON decoding into int64. */
function generic(v: unknown): unknown {
  if (typeof v === 'number') return jsonNumber(v);
  if (Array.isArray(v)) return v.map(generic);
  if (isJSONObject(v)) {
    const out: JSONObject = {};
    for (const k of Object.keys(v)) setOwn(out, k, generic(v[k]));
    return out;
  }
  return v ?? null;
}

function stringValue(v: string, format: string | undefined): unknown {
  switch (format) {
    case 'date-time':
    case 'datetime':
    case 'date':
      return checkFormat(format, v) && !Number.isNaN(Date.parse(v)) ? new Date(v) : v;
    case 'duration':
      return parseGoDuration(v) ?? v;
    case 'byte':
      return checkFormat('byte', v) ? new Uint8Array(Buffer.from(v, 'base64')) : v;
    default:
      return v;
  }
}

const typeAndObjectMeta = new WeakMap<JSONSchemaProps, JSONSchemaProps>();

/** The schema a resource root or embedded resource is seen through: apiVersion, kind and metadata name/generateName. */
export function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  let out = typeAndObjectMeta.get(s);
  if (!out) {
    out = {
      ...s,
      properties: {
        ...s.properties,
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
      },
    };
    typeAndObjectMeta.set(s, out);
  }
  return out;
}

/**
 * How a conversion reuses work: converted objects and arrays of one validation, by schema node,
 * then by value. Only nodes that carry rules (their own or in allOf) are cached: only there does
 * the CEL walk ask for the same conversion again.
 */
export type ConversionCache = Map<JSONSchemaProps, Map<object, unknown>>;

/** A schema node compiled for conversion (cached by schema identity: a schema must not be mutated after its first use). */
class Converter {
  readonly intOrString: boolean;
  readonly isNumber: boolean;
  readonly format: string | undefined;
  readonly embedded: boolean;
  /** Conversions at this node are cached: it or one of its allOf carries rules. */
  readonly cached: boolean;
  items: Converter | undefined;
  additional: Converter | undefined;
  /** Declared properties CEL can name: field name → escaped name and node. */
  readonly props = new Map<string, { name: string; node: Converter }>();

  constructor(readonly s: JSONSchemaProps) {
    this.intOrString = !!s['x-kubernetes-int-or-string'];
    this.isNumber = s.type === 'number';
    this.format = s.format;
    this.embedded = !!s['x-kubernetes-embedded-resource'];
    this.cached = carriesRules(s);
  }

  #asObject: Converter | undefined;

  /** The node as a resource root or embedded resource sees it ({@link withTypeAndObjectMeta}). */
  get asObject(): Converter {
    this.#asObject ??= converterOf(withTypeAndObjectMeta(this.s));
    return this.#asObject;
  }

  link(): void {
    const s = this.s;
    const items = itemsOf(s);
    if (items) this.items = converterOf(items);
    const ap = additionalOf(s);
    if (ap) this.additional = converterOf(ap);
    const props = s.properties ?? {};
    for (const k of Object.keys(props)) {
      const ps = props[k];
      const name = ps && escapeCELName(k);
      if (ps && name !== undefined) this.props.set(k, { name, node: converterOf(ps) });
    }
  }
}

/** Whether a node or one of its allOf overlays (recursively) has `x-kubernetes-validations`. */
function carriesRules(s: JSONSchemaProps): boolean {
  return (s['x-kubernetes-validations']?.length ?? 0) > 0 || (s.allOf ?? []).some((o) => typeof o === 'object' && o !== null && carriesRules(o));
}

const converterOf = compiledCache((s) => new Converter(s));

/**
 * Converts a JSON value to the CEL value bound to `self` for a node with schema `s`.
 * @param isResourceRoot - the root of a resource or an embedded resource (adds apiVersion/kind/metadata)
 * @param cache - optional cache of converted objects and arrays, valid while the JSON is not mutated
 */
export function toCEL(v: unknown, s: JSONSchemaProps | undefined, isResourceRoot = false, cache?: ConversionCache): unknown {
  if (v === null || v === undefined) return null;
  if (!s) return generic(v);
  return convertNode(v, converterOf(s), isResourceRoot, cache);
}

function convertNode(v: unknown, c: Converter, isResourceRoot: boolean, cache: ConversionCache | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object') return convertScalar(v, c);
  const useCache = cache !== undefined && c.cached && !isResourceRoot;
  if (useCache) {
    const hit = cache.get(c.s)?.get(v);
    if (hit !== undefined) return hit;
  }
  const out = convert(v, c, isResourceRoot, cache);
  if (useCache) {
    let byValue = cache.get(c.s);
    if (!byValue) cache.set(c.s, (byValue = new Map()));
    byValue.set(v, out);
  }
  return out;
}

function convertScalar(v: unknown, c: Converter): unknown {
  if (c.intOrString) return typeof v === 'number' ? jsonNumber(v) : v;
  if (typeof v === 'number') return c.isNumber ? v : jsonNumber(v);
  if (typeof v === 'string') return stringValue(v, c.format);
  return v;
}

function convert(v: object, c: Converter, isResourceRoot: boolean, cache: ConversionCache | undefined): unknown {
  if (c.intOrString) return v;
  if (Array.isArray(v)) {
    const items = c.items;
    if (!items) return v.map(generic);
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = convertNode(v[i], items, items.embedded, cache);
    return out;
  }
  const o = v as JSONObject;
  const node = isResourceRoot || c.embedded ? c.asObject : c;
  const ap = node.additional;
  const out: JSONObject = {};
  if (ap) {
    for (const k of Object.keys(o)) setOwn(out, k, convertNode(o[k], ap, ap.embedded, cache));
    return out;
  }
  for (const k of Object.keys(o)) {
    const p = node.props.get(k);
    if (p) out[p.name] = convertNode(o[k], p.node, p.node.embedded, cache);
  }
  return out;
}

/** The key identifying an element of a list-type map (common.MapList): scalar key values only; undefined when unkeyable. */
export function mapListKey(s: JSONSchemaProps, item: unknown): string | undefined {
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  if (!isJSONObject(item) || keys.length === 0) return undefined;
  const parts: unknown[] = [];
  for (const k of keys) {
    const kv = item[k];
    if (!Object.prototype.hasOwnProperty.call(item, k) || (typeof kv !== 'string' && typeof kv !== 'number' && typeof kv !== 'boolean')) return undefined;
    parts.push(kv);
  }
  return JSON.stringify(parts);
}

/** Whether a schema is a list-type map with keys (the only list whose items correlate with old items). */
export const isMapList = (s: JSONSchemaProps | undefined): s is JSONSchemaProps =>
  s?.type === 'array' && s['x-kubernetes-list-type'] === 'map' && (s['x-kubernetes-list-map-keys']?.length ?? 0) > 0;

/**
 * common.MakeMapList(...).Get: the first old element with the same map keys as `item`.
 * @returns undefined when the schema is not a list-type map or no old element matches
 */
export function correlateMapListItem(s: JSONSchemaProps | undefined, oldList: unknown, item: unknown): unknown {
  if (!isMapList(s) || !Array.isArray(oldList)) return undefined;
  const key = mapListKey(s, item);
  if (key === undefined) return undefined;
  return oldList.find((o) => mapListKey(s, o) === key);
}

/** Old list elements reordered to follow the new list (set: by value; map: by keys); unmatched ones keep their order at the end. */
function alignList(s: JSONSchemaProps, oldList: unknown[], newList: unknown[]): { old: unknown; counterpart: unknown }[] {
  const keyOf = s['x-kubernetes-list-type'] === 'map' ? (x: unknown) => mapListKey(s, x) : (x: unknown) => canonicalJSON(x);
  const byKey = new Map<string, number[]>();
  oldList.forEach((o, i) => {
    const k = keyOf(o);
    if (k !== undefined) byKey.set(k, [...(byKey.get(k) ?? []), i]);
  });
  const used = new Set<number>();
  const out: { old: unknown; counterpart: unknown }[] = [];
  for (const n of newList) {
    const k = keyOf(n);
    const idx = k === undefined ? undefined : byKey.get(k)?.find((i) => !used.has(i));
    if (idx === undefined) continue;
    used.add(idx);
    out.push({ old: oldList[idx], counterpart: n });
  }
  oldList.forEach((o, i) => {
    if (!used.has(i)) out.push({ old: o, counterpart: undefined });
  });
  return out;
}

/**
 * Converts an old value for `oldSelf`, with the elements of nested `set` and `map` lists aligned to
 * the order of `counterpart` (the new value at the same place), so cel-js's ordered list equality
 * gives upstream's unordered set/map-list equality.
 */
export function toCELAligned(old: unknown, s: JSONSchemaProps | undefined, counterpart: unknown, isResourceRoot = false): unknown {
  if (old === null || old === undefined || !s || counterpart === null || counterpart === undefined) return toCEL(old, s, isResourceRoot);
  if (Array.isArray(old) && Array.isArray(counterpart)) {
    const items = itemsOf(s);
    const embedded = !!items?.['x-kubernetes-embedded-resource'];
    const lt = s['x-kubernetes-list-type'];
    if (lt === 'set' || isMapList(s)) return alignList(s, old, counterpart).map(({ old: o, counterpart: c }) => toCELAligned(o, items, c, embedded));
    return old.map((o, i) => toCELAligned(o, items, counterpart[i], embedded));
  }
  if (!isJSONObject(old) || !isJSONObject(counterpart) || s['x-kubernetes-int-or-string']) return toCEL(old, s, isResourceRoot);
  const node = isResourceRoot || s['x-kubernetes-embedded-resource'] ? withTypeAndObjectMeta(s) : s;
  const ap = additionalOf(node);
  if (ap) {
    const embedded = !!ap['x-kubernetes-embedded-resource'];
    return Object.fromEntries(Object.entries(old).map(([k, x]) => [k, toCELAligned(x, ap, counterpart[k], embedded)]));
  }
  const out: JSONObject = {};
  const props = node.properties ?? {};
  for (const [k, x] of Object.entries(old)) {
    const ps = Object.prototype.hasOwnProperty.call(props, k) ? props[k] : undefined;
    const name = ps && escapeCELName(k);
    if (ps && name !== undefined) out[name] = toCELAligned(x, ps, counterpart[k], !!ps['x-kubernetes-embedded-resource']);
  }
  return out;
}

/**
 * A rough size of a JSON value for the cost guard: the largest list or map length inside it (at
 * least 1), and its total number of nodes.
 */
export function sizeOf(v: unknown, limit = 1_000_000): { maxLength: number; nodes: number } {
  let maxLength = 1;
  let nodes = 0;
  const stack: unknown[] = [v];
  while (stack.length && nodes < limit) {
    const x = stack.pop();
    nodes++;
    if (Array.isArray(x)) {
      maxLength = Math.max(maxLength, x.length);
      for (const y of x) stack.push(y);
    } else if (isJSONObject(x)) {
      const vals = Object.values(x);
      maxLength = Math.max(maxLength, vals.length);
      for (const y of vals) stack.push(y);
    } else if (typeof x === 'string') {
      maxLength = Math.max(maxLength, Math.ceil(x.length / 100));
    }
  }
  return { maxLength, nodes };
}
