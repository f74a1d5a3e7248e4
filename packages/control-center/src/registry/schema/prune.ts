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
import { compiledCache } from './compiled.js';

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

const join = (path: string, k: string): string => (path ? `${path}.${k}` : k);
const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null;

/** A schema node compiled for pruning (cached by schema identity: a schema must not be mutated after its first use). */
class Pruner {
  readonly preserve: boolean;
  readonly embedded: boolean;
  readonly props = new Map<string, Pruner>();
  /** `additionalProperties` is set (a schema, or even a boolean): every key is declared. */
  readonly additionalSet: boolean;
  additional: Pruner | undefined;
  items: Pruner | undefined;

  constructor(readonly s: JSONSchemaProps) {
    this.preserve = !!s['x-kubernetes-preserve-unknown-fields'];
    this.embedded = !!s['x-kubernetes-embedded-resource'];
    this.additionalSet = s.additionalProperties !== undefined;
  }

  link(): void {
    const s = this.s;
    for (const [k, ps] of Object.entries(s.properties ?? {})) this.props.set(k, prunerOf(ps));
    const ap = s.additionalProperties;
    if (typeof ap === 'object' && ap !== null && !Array.isArray(ap)) this.additional = prunerOf(ap);
    if (s.items && !Array.isArray(s.items)) this.items = prunerOf(s.items);
  }

  /** The sub-schema a map key is pruned with (undefined: none, everything below goes), or `false` when the key is not declared at all. */
  keyPruner(k: string): Pruner | undefined | false {
    const p = this.props.get(k);
    if (p) return p;
    if (this.additionalSet) return this.additional;
    return false;
  }
}

const prunerOf = compiledCache((s) => new Pruner(s));

/** A value with no schema: every field of every object in it is dropped. */
function pruneAll(x: object, path: string, out: string[]): void {
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) if (isContainer(x[i])) pruneAll(x[i], `${path}[${i}]`, out);
    return;
  }
  const o = x as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    out.push(join(path, k));
    delete o[k];
  }
}

function pruneNode(x: object, p: Pruner, path: string, embedded: boolean, out: string[]): void {
  if (p.preserve) {
    skipPrune(x, p, path, embedded, out);
    return;
  }
  if (Array.isArray(x)) {
    const items = p.items;
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      if (!isContainer(v)) continue;
      if (items) pruneNode(v, items, `${path}[${i}]`, items.embedded, out);
      else pruneAll(v, `${path}[${i}]`, out);
    }
    return;
  }
  const o = x as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (embedded && metaFields.has(k)) continue;
    const sub = p.keyPruner(k);
    if (sub === false) {
      if (!metaFields.has(k) || path !== '') out.push(join(path, k));
      delete o[k];
    } else {
      const v = o[k];
      if (!isContainer(v)) continue;
      if (sub) pruneNode(v, sub, join(path, k), sub.embedded, out);
      else pruneAll(v, join(path, k), out);
    }
  }
}

function skipPrune(x: object, p: Pruner, path: string, embedded: boolean, out: string[]): void {
  if (Array.isArray(x)) {
    const items = p.items;
    if (!items) return;
    for (let i = 0; i < x.length; i++) if (isContainer(x[i])) skipPrune(x[i], items, `${path}[${i}]`, items.embedded, out);
    return;
  }
  const o = x as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (embedded && metaFields.has(k)) continue;
    const sub = p.keyPruner(k);
    if (sub === false) continue;
    const v = o[k];
    if (!isContainer(v)) continue;
    if (sub) pruneNode(v, sub, join(path, k), sub.embedded, out);
    else pruneAll(v, join(path, k), out);
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
  const p = prunerOf(schema);
  if (isContainer(value)) pruneNode(value, p, '', isResourceRoot || p.embedded, out);
  return out.sort();
}
