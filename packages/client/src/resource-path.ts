/**
 * URL paths of Kubernetes resources and their query strings.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#standard-api-terminology
 */
import type { ResourceRef } from './types.js';

/**
 * The URL path of a resource, collection or subresource:
 * `/api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]` for the core group and
 * `/apis/{group}/{version}/...` otherwise. `ns` is ignored for cluster-scoped resources and means
 * "all namespaces" when omitted for a namespaced collection.
 * @throws Error when a name is given for a namespaced resource without a namespace
 */
export function resourcePath(ref: ResourceRef, ns?: string, name?: string, subresource?: string): string {
  let p = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  if (ref.namespaced && ns) p += `/namespaces/${encodeURIComponent(ns)}`;
  else if (ref.namespaced && name) throw new Error(`${ref.resource} "${name}": namespace required`);
  p += `/${ref.resource}`;
  if (name) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

/** Appends the defined, non-empty query parameters to `path`. */
export function withQuery(path: string, query: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
