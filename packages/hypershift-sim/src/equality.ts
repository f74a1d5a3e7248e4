/**
 * Semantic equality of API objects for "skip the write when nothing changed": key order is
 * ignored, and `null` counts as absent (the API server may drop nulls it was sent, e.g.
 * `completionTime: null`, so a literal comparison would write forever).
 */
import { isDeepStrictEqual } from 'node:util';

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = normalize(v);
    return out;
  }
  return value;
}

/** True when `a` and `b` are the same JSON value, up to key order and null/absent fields. */
export const semanticEqual = (a: unknown, b: unknown): boolean => isDeepStrictEqual(normalize(a), normalize(b));
