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
import type { JSONSchemaProps } from './types.js';
import { additionalOf, isJSONObject, itemsOf } from './validate.js';

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const copy = (v: unknown): unknown => (v === undefined ? null : structuredClone(v));
const isNonNullableNull = (x: unknown, s: JSONSchemaProps | undefined): boolean => x === null && !!s && !s.nullable;

/**
 * Applies the schema's defaults to `value`, in place (structural part only: properties, items,
 * additionalProperties).
 */
export function applyDefaults(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (!schema) return;
  if (isJSONObject(value)) {
    for (const [k, prop] of Object.entries(schema.properties ?? {})) {
      if (prop.default === undefined || prop.default === null) continue;
      if (!hasOwn(value, k) || isNonNullableNull(value[k], prop)) value[k] = copy(prop.default);
    }
    const ap = additionalOf(schema);
    for (const k of Object.keys(value)) {
      if (schema.properties && hasOwn(schema.properties, k)) applyDefaults(value[k], schema.properties[k]);
      else if (ap) {
        if (isNonNullableNull(value[k], ap)) value[k] = copy(ap.default);
        applyDefaults(value[k], ap);
      }
    }
  } else if (Array.isArray(value)) {
    const items = itemsOf(schema);
    for (let i = 0; i < value.length; i++) {
      if (isNonNullableNull(value[i], items)) value[i] = copy(items!.default);
      applyDefaults(value[i], items);
    }
  }
}

/** The schema of a map key: its property, else the additionalProperties schema. */
function schemaForField(k: string, s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  if (!s) return undefined;
  if (s.properties && hasOwn(s.properties, k)) return s.properties[k];
  return additionalOf(s);
}

/**
 * Drops, in place, `null` values whose schema is neither `nullable` nor has a `default` (defaulted
 * ones are left for {@link applyDefaults}). Root `metadata` is left alone.
 */
export function pruneNonNullableNullsWithoutDefaults(value: unknown, schema: JSONSchemaProps | undefined, isResourceRoot = true): void {
  if (isJSONObject(value)) {
    for (const k of Object.keys(value)) {
      if (isResourceRoot && k === 'metadata') continue;
      const s = schemaForField(k, schema);
      if (value[k] === null && s && !s.nullable && (s.default === undefined || s.default === null)) delete value[k];
      else pruneNonNullableNullsWithoutDefaults(value[k], s, false);
    }
  } else if (Array.isArray(value)) {
    const items = itemsOf(schema);
    for (const v of value) pruneNonNullableNullsWithoutDefaults(v, items, false);
  }
}
