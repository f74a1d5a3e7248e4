/**
 * What the compiled schema walks (structural validation, pruning, defaulting, CEL) share: how a
 * schema position is read, and the per-node cache of compiled forms.
 */
import type { JSONSchemaProps } from './types.js';

const emptySchema: JSONSchemaProps = {};

/**
 * A schema position as compiled walks read it: anything that is not an object (a malformed
 * schema) reads as `{}`, so it can key a WeakMap.
 */
export const asSchema = (s: unknown): JSONSchemaProps => (typeof s === 'object' && s !== null ? (s as JSONSchemaProps) : emptySchema);

/** A compiled form of one schema node; `link()` compiles its children (after the node is cached). */
export interface CompiledNode {
  link(): void;
}

/**
 * A cache of compiled forms by schema node identity: `of(schema)` builds a node's form once with
 * `make`, caches it, then links it, so recursive or shared schema nodes terminate and are compiled
 * once. A schema must not be mutated after its first use (CRD updates bring new schema objects).
 * @param make - compiles one node (without its children)
 * @returns `of(schema)`, for any schema position (see {@link asSchema})
 */
export function compiledCache<T extends CompiledNode>(make: (s: JSONSchemaProps) => T): (schema: unknown) => T {
  const cache = new WeakMap<JSONSchemaProps, T>();
  return (schema) => {
    const s = asSchema(schema);
    let c = cache.get(s);
    if (!c) {
      c = make(s);
      cache.set(s, c);
      c.link();
    }
    return c;
  };
}
