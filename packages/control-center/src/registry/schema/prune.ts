/**
 * Pruning of custom resources: drops, in place, every field the structural schema does not declare,
 * exactly as apiextensions-apiserver does while decoding a request or reading from storage, and
 * reports what it dropped so the server can answer `fieldValidation=Strict` (400
 * `strict decoding error: unknown field "spec.x"`) or `Warn` (warning `unknown field "spec.x"`).
 *
 * Rules (pruning.PruneWithOptions):
 * - only `properties`, `items` and `additionalProperties` declare fields (never allOf/anyOf/...);
 * - `x-kubernetes-preserve-unknown-fields: true` keeps undeclared fields at that node (declared
 *   children are still pruned by their own schema; array items inherit the preservation);
 * - `additionalProperties` (a schema, or even a boolean) keeps every key of a map;
 * - at the resource root, and in `x-kubernetes-embedded-resource` objects, `apiVersion`, `kind` and
 *   `metadata` are never touched (ObjectMeta is coerced elsewhere);
 * - an object or list without any schema loses all its fields.
 *
 * Paths look like `spec.platform.kubevirt.baseDomain`, `spec.items[0].foo`, sorted (Go sort.Strings).
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/schema/pruning/algorithm.go
 */
import type { JSONSchemaProps } from './types.js';
import { additionalOf, isJSONObject, itemsOf } from './validate.js';

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);
const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** The sub-schema a map key is pruned with, or `false` when the key is not declared at all. */
function keySchema(s: JSONSchemaProps, k: string): JSONSchemaProps | undefined | false {
  if (s.properties && hasOwn(s.properties, k)) return s.properties[k];
  if (s.additionalProperties !== undefined) return additionalOf(s); // `true`/`false` keep the key, with no schema below
  return false;
}

const join = (path: string, k: string): string => (path ? `${path}.${k}` : k);

function pruneNode(x: unknown, s: JSONSchemaProps | undefined, path: string, embedded: boolean, out: string[]): void {
  if (s?.['x-kubernetes-preserve-unknown-fields']) {
    skipPrune(x, s, path, embedded, out);
    return;
  }
  if (Array.isArray(x)) {
    const items = s ? itemsOf(s) : undefined;
    x.forEach((v, i) => pruneNode(v, items, `${path}[${i}]`, !!items?.['x-kubernetes-embedded-resource'], out));
    return;
  }
  if (!isJSONObject(x)) return;
  if (!s) {
    for (const k of Object.keys(x)) {
      out.push(join(path, k));
      delete x[k];
    }
    return;
  }
  for (const k of Object.keys(x)) {
    if (embedded && metaFields.has(k)) continue;
    const sub = keySchema(s, k);
    if (sub === false) {
      if (!metaFields.has(k) || path !== '') out.push(join(path, k));
      delete x[k];
    } else {
      pruneNode(x[k], sub, join(path, k), !!sub?.['x-kubernetes-embedded-resource'], out);
    }
  }
}

function skipPrune(x: unknown, s: JSONSchemaProps, path: string, embedded: boolean, out: string[]): void {
  if (Array.isArray(x)) {
    const items = itemsOf(s);
    if (!items) return;
    x.forEach((v, i) => skipPrune(v, items, `${path}[${i}]`, !!items['x-kubernetes-embedded-resource'], out));
    return;
  }
  if (!isJSONObject(x)) return;
  for (const k of Object.keys(x)) {
    if (embedded && metaFields.has(k)) continue;
    const sub = keySchema(s, k);
    if (sub !== false) pruneNode(x[k], sub, join(path, k), !!sub?.['x-kubernetes-embedded-resource'], out);
  }
}

/**
 * Removes, in place, the fields of `value` that `schema` does not declare.
 * @param value - a decoded JSON object (a whole custom resource when `isResourceRoot`)
 * @param isResourceRoot - keep root `apiVersion`/`kind`/`metadata` (default true)
 * @returns the dotted paths of the removed fields, sorted
 */
export function prune(value: unknown, schema: JSONSchemaProps | undefined, isResourceRoot = true): string[] {
  const out: string[] = [];
  const s = schema ?? {};
  pruneNode(value, s, '', isResourceRoot || !!s['x-kubernetes-embedded-resource'], out);
  return out.sort();
}
