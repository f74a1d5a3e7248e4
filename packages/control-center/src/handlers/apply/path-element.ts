/**
 * Path elements: one step into an object, as structured-merge-diff's `fieldpath.PathElement`,
 * with their FieldsV1 key form (`f:`, `k:`, `v:`, `i:`), their total order (the order FieldsV1
 * keys are written in) and their text form in conflict messages (`.spec.conditions[type="Ready"]`).
 * Keys and values are written as Go's encoding/json writes them (sorted object keys, HTML
 * characters escaped), so equal elements always have equal keys.
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/fieldpath/element.go
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/fieldpath/serialize-pe.go
 */

/** One step of a path. Key fields are sorted by name. */
export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, unknown])[] }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'index'; readonly index: number };

/** A path from the object root. */
export type Path = readonly PathElement[];

/** A field path element. */
export const fieldPE = (name: string): PathElement => ({ kind: 'field', name });

/** An associative-list key path element; `fields` need not be sorted. */
export const keyPE = (fields: Record<string, unknown> | readonly (readonly [string, unknown])[]): PathElement => {
  const list = Array.isArray(fields) ? [...(fields as [string, unknown][])] : Object.entries(fields);
  list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { kind: 'key', fields: list };
};

/** A set-item path element. */
export const valuePE = (value: unknown): PathElement => ({ kind: 'value', value });

/** An index path element. */
export const indexPE = (index: number): PathElement => ({ kind: 'index', index });

/**
 * JSON as Go's encoding/json (and jsoniter's standard-library mode) writes it: HTML characters and
 * the line/paragraph separators escaped, object keys sorted.
 */
export function goJSON(v: unknown): string {
  if (v === null || typeof v !== 'object') {
    const s = JSON.stringify(v ?? null);
    return typeof v === 'string' ? escapeHTML(s) : s;
  }
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`;
  const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort();
  return `{${keys.map((k) => `${escapeHTML(JSON.stringify(k))}:${goJSON((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

const htmlRe = /[<>&\u2028\u2029]/g;
const htmlEsc: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };
function escapeHTML(s: string): string {
  return htmlRe.test(s) ? s.replace(htmlRe, (c) => htmlEsc[c]!) : s;
}

/** The FieldsV1 key of a path element (`f:spec`, `k:{"type":"Ready"}`, `v:"a"`, `i:0`); canonical, so equal elements have equal keys. */
export function peKey(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map(([n, v]) => `${escapeHTML(JSON.stringify(n))}:${goJSON(v)}`).join(',')}}`;
    case 'value':
      return `v:${goJSON(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** Thrown for FieldsV1 or path-element text that cannot be parsed. */
export class FieldsV1Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldsV1Error';
  }
}

/**
 * Parses a FieldsV1 key into a path element; undefined for an unknown element type (upstream
 * skips those so future formats do not break old readers).
 * @throws FieldsV1Error for malformed keys
 */
export function parsePE(key: string): PathElement | undefined {
  if (key.length < 2 || key[1] !== ':') throw new FieldsV1Error(`invalid path element ${JSON.stringify(key)}: missing colon`);
  const rest = key.slice(2);
  switch (key[0]) {
    case 'f':
      return fieldPE(rest);
    case 'v':
      return valuePE(parseJSON(rest, key));
    case 'k': {
      const o = parseJSON(rest, key);
      if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new FieldsV1Error(`invalid key path element ${JSON.stringify(key)}`);
      return keyPE(o as Record<string, unknown>);
    }
    case 'i': {
      if (!/^-?\d+$/.test(rest)) throw new FieldsV1Error(`invalid index path element ${JSON.stringify(key)}`);
      return indexPE(Number(rest));
    }
    default:
      return undefined;
  }
}

function parseJSON(s: string, key: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    throw new FieldsV1Error(`invalid path element ${JSON.stringify(key)}: not JSON`);
  }
}

const typeRank = (v: unknown): number =>
  typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : typeof v === 'boolean' ? 2 : Array.isArray(v) ? 3 : v !== null && typeof v === 'object' ? 4 : 5;

/** The total order of structured-merge-diff's `value.Compare`: numbers, strings, booleans, lists, maps, null. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compareValues(la[i], lb[i]);
        if (c) return c;
      }
      return la.length - lb.length < 0 ? -1 : la.length > lb.length ? 1 : 0;
    }
    case 4: {
      const ka = Object.keys(a as object).sort();
      const kb = Object.keys(b as object).sort();
      for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
        if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
        const c = compareValues((a as Record<string, unknown>)[ka[i]!], (b as Record<string, unknown>)[kb[i]!]);
        if (c) return c;
      }
      return ka.length < kb.length ? -1 : ka.length > kb.length ? 1 : 0;
    }
    default:
      return 0;
  }
}

const kindRank = { field: 0, key: 1, value: 2, index: 3 } as const;

/** The order of `PathElement.Compare`: fields, then keys, then values, then indexes. */
export function comparePE(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return kindRank[a.kind] < kindRank[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field': {
      const bn = (b as { name: string }).name;
      return a.name < bn ? -1 : a.name > bn ? 1 : 0;
    }
    case 'key': {
      const bf = (b as { fields: readonly (readonly [string, unknown])[] }).fields;
      for (let i = 0; ; i++) {
        if (i >= a.fields.length && i >= bf.length) return 0;
        if (i >= a.fields.length) return -1;
        if (i >= bf.length) return 1;
        const [an, av] = a.fields[i]!;
        const [bn, bv] = bf[i]!;
        if (an !== bn) return an < bn ? -1 : 1;
        const c = compareValues(av, bv);
        if (c) return c;
      }
    }
    case 'value':
      return compareValues(a.value, (b as { value: unknown }).value);
    case 'index': {
      const bi = (b as { index: number }).index;
      return a.index < bi ? -1 : a.index > bi ? 1 : 0;
    }
  }
}

/** Renders a scalar as `value.ToString` does: strings quoted, numbers and booleans bare. */
function valueString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${k}=${valueString((v as Record<string, unknown>)[k])}`)
      .join(', ')}}`;
  }
  return String(v);
}

/** One element as in conflict messages: `.spec`, `[name="x",port=80]`, `[="a"]`, `[3]`. */
export function peString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([n, v]) => `${n}=${valueString(v)}`).join(',')}]`;
    case 'value':
      return `[=${valueString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

/** A path as in conflict messages and `details.causes[].field`, e.g. `.spec.conditions[type="Ready"].status`. */
export const pathString = (p: Path): string => p.map(peString).join('');
