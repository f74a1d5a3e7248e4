/**
 * Defaulting of custom resources from the `default` values of a structural schema, in place, as
 * apiextensions-apiserver does after pruning and before validation:
 *
 * - a property with a `default` is set when it is missing, or `null` while not `nullable`;
 * - defaults are applied top-down: an object default is set first, then the defaulter recurses into
 *   it (and into every existing object), so nested defaults apply inside it;
 * - list items and map values (`additionalProperties`) that are non-nullable `null` take the
 *   items'/values' default; defaults then apply inside every item and value;
 * - default values are deep-copied, never shared.
 *
 * Also {@link pruneNonNullableNullsWithoutDefaults}, the step upstream runs right after pruning: a
 * `null` where the schema neither allows null nor has a default is dropped, so `spec: null` reads
 * as a missing `spec`.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/schema/defaulting/algorithm.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/schema/defaulting/prunenulls.go
 */
import { deepCopyJSON } from '@hcc/crds';
import type { JSONSchemaProps } from './types.js';
import { additionalOf, itemsOf } from './validate.js';
import { compiledCache } from './compiled.js';

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

const copy = (v: unknown): unknown => (v === undefined ? null : deepCopyJSON(v));
const isNonNullableNull = (x: unknown, s: JSONSchemaProps | undefined): boolean => x === null && !!s && !s.nullable;
const hasDefault = (s: JSONSchemaProps | undefined): boolean => s?.default !== undefined && s.default !== null;
const isContainer = (v: unknown): boolean => typeof v === 'object' && v !== null;

/**
 * A structural schema node compiled for defaulting (cached by schema identity, so a schema must
 * not be mutated after its first use). `work` is false when nothing in the subtree has a default:
 * such subtrees are not walked.
 */
class Defaulter {
  /** Properties with a default, in schema order. */
  readonly defaulted: [string, JSONSchemaProps][] = [];
  readonly props = new Map<string, Defaulter>();
  additional: Defaulter | undefined;
  items: Defaulter | undefined;
  work = false;

  constructor(readonly s: JSONSchemaProps) {}

  link(): void {
    const s = this.s;
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (hasDefault(prop)) this.defaulted.push([k, prop]);
      this.props.set(k, defaulterOf(prop));
    }
    const ap = additionalOf(s);
    const items = itemsOf(s);
    if (ap) this.additional = defaulterOf(ap);
    if (items) this.items = defaulterOf(items);
    this.work =
      this.defaulted.length > 0 ||
      [...this.props.values()].some((d) => d.work) ||
      (ap !== undefined && (hasDefault(ap) || this.additional!.work)) ||
      (items !== undefined && (hasDefault(items) || this.items!.work));
  }
}

const defaulterOf = compiledCache((s) => new Defaulter(s));

function defaultInto(value: unknown, d: Defaulter): void {
  if (Array.isArray(value)) {
    const items = d.items;
    if (!items) return;
    for (let i = 0; i < value.length; i++) {
      if (isNonNullableNull(value[i], items.s)) value[i] = copy(items.s.default);
      if (items.work && isContainer(value[i])) defaultInto(value[i], items);
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const [k, prop] of d.defaulted) {
    if (!hasOwn(obj, k) || isNonNullableNull(obj[k], prop)) obj[k] = copy(prop.default);
  }
  const ap = d.additional;
  for (const k of Object.keys(obj)) {
    const child = d.props.get(k);
    if (child) {
      if (child.work && isContainer(obj[k])) defaultInto(obj[k], child);
    } else if (ap) {
      if (isNonNullableNull(obj[k], ap.s)) obj[k] = copy(ap.s.default);
      if (ap.work && isContainer(obj[k])) defaultInto(obj[k], ap);
    }
  }
}

/**
 * Applies the schema's defaults to `value`, in place (structural part only: properties, items,
 * additionalProperties).
 */
export function applyDefaults(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (!schema || !isContainer(value)) return;
  const d = defaulterOf(schema);
  if (d.work) defaultInto(value, d);
}

/** A structural schema node compiled for {@link pruneNonNullableNullsWithoutDefaults}. */
class NullPruner {
  readonly props = new Map<string, NullPruner>();
  additional: NullPruner | undefined;
  items: NullPruner | undefined;
  /** A `null` here is dropped: not nullable and no default. */
  readonly dropsNull: boolean;

  constructor(readonly s: JSONSchemaProps) {
    this.dropsNull = !s.nullable && !hasDefault(s);
  }

  link(): void {
    for (const [k, prop] of Object.entries(this.s.properties ?? {})) this.props.set(k, nullPrunerOf(prop));
    const ap = additionalOf(this.s);
    const items = itemsOf(this.s);
    if (ap) this.additional = nullPrunerOf(ap);
    if (items) this.items = nullPrunerOf(items);
  }
}

const nullPrunerOf = compiledCache((s) => new NullPruner(s));

function pruneNullsInto(value: unknown, n: NullPruner, isResourceRoot: boolean): void {
  if (Array.isArray(value)) {
    const items = n.items;
    if (items) for (const v of value) if (isContainer(v)) pruneNullsInto(v, items, false);
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (isResourceRoot && k === 'metadata') continue;
    const child = n.props.get(k) ?? n.additional;
    if (!child) continue;
    const x = obj[k];
    if (x === null) {
      if (child.dropsNull) delete obj[k];
    } else if (isContainer(x)) pruneNullsInto(x, child, false);
  }
}

/**
 * Drops, in place, `null` values whose schema is neither `nullable` nor has a `default` (defaulted
 * ones are left for {@link applyDefaults}). Root `metadata` is left alone.
 */
export function pruneNonNullableNullsWithoutDefaults(value: unknown, schema: JSONSchemaProps | undefined, isResourceRoot = true): void {
  if (!schema || !isContainer(value)) return;
  pruneNullsInto(value, nullPrunerOf(schema), isResourceRoot);
}
