/**
 * A HostedCluster or NodePool may come without `spec`: upstream's field is `json:"spec,omitempty"`,
 * not required, so the API takes one without. HyperShift's typed client decodes it as the spec
 * struct's zero value; the sim's informers do the same (withSpec), and its writes leave such an
 * empty spec out again (withoutEmptySpec), as the API would refuse it.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go
 */

/**
 * The object with `spec` set to `{}` when it has none (its informers' transform): Go's zero value of
 * the spec struct, as HyperShift's typed client decodes a HostedCluster or NodePool sent without one.
 */
export function withSpec<T extends { spec?: unknown }>(obj: T): T {
  if (obj.spec === undefined || obj.spec === null) (obj as { spec: unknown }).spec = {};
  return obj;
}

/**
 * The object to write back: without `spec` when it is empty (`{}`, what {@link withSpec} gave one
 * sent without a spec), since the API would refuse an empty spec for the fields its schema then
 * requires (release, pullSecret, platform, ...), where it takes the object with none; a copy, the
 * object itself when its spec is not empty.
 */
export function withoutEmptySpec<T extends { spec?: unknown }>(obj: T): T {
  const spec = obj.spec;
  if (spec === null || typeof spec !== 'object' || Object.keys(spec).length > 0) return obj;
  const { spec: _empty, ...rest } = obj;
  return rest as T;
}
