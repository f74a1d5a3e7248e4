/**
 * Structural-schema handling for custom resources: pruning, defaulting and validation against a CRD
 * version's `openAPIV3Schema`, in the order kube-apiserver applies them to a request body.
 *
 * Upstream order (apiextensions-apiserver customresource_handler.go + strategy): decode (with
 * unknown-field detection) → prune unknown fields (reported for `fieldValidation=Strict|Warn`) →
 * drop non-nullable nulls without defaults → default → validate (schema, list types, embedded
 * resources). With `Strict`, a body with unknown fields is rejected at decode time, before
 * defaulting and validation.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/customresource_handler.go (schemaCoercingDecoder, unstructuredSchemaCoercer)
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/registry/customresource/validator.go
 */
import type { FieldError } from '../../apierrors/field.js';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaults.js';
import { prune } from './prune.js';
import type { FieldValidation, JSONSchemaProps } from './types.js';
import { validateValue } from './validate.js';

export * from './types.js';
export { validateValue, jsonEqual, canonicalJSON } from './validate.js';
export { prune } from './prune.js';
export { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaults.js';
export { checkFormat, isSupportedFormat, normalizeFormat } from './formats.js';

/** Options of {@link checkCustomResource}. */
export interface CheckOptions {
  /** The request's `fieldValidation`; `Ignore` prunes silently. */
  fieldValidation: FieldValidation;
}

/** Outcome of {@link checkCustomResource}. */
export interface CheckResult {
  /** Validation errors (empty when valid, and always empty when Strict found unknown fields). */
  errors: FieldError[];
  /** Sorted paths of pruned unknown fields, e.g. `spec.platform.kubevirt.baseDomain`; empty for `Ignore`. */
  unknownFields: string[];
}

/** The message of upstream's strict decoding error for these paths (the server answers 400 BadRequest). */
export const strictDecodingErrorMessage = (unknownFields: readonly string[]): string =>
  `strict decoding error: ${unknownFields.map((f) => `unknown field "${f}"`).join(', ')}`;

/** The warnings upstream adds for `fieldValidation=Warn`, one per path. */
export const unknownFieldWarnings = (unknownFields: readonly string[]): string[] => unknownFields.map((f) => `unknown field "${f}"`);

/** The root schema without `metadata` (ObjectMeta is validated and defaulted by the generic registry). */
function withoutMetadata(schema: JSONSchemaProps): JSONSchemaProps {
  const { metadata: _m, ...properties } = schema.properties ?? {};
  return {
    ...schema,
    ...(schema.properties ? { properties } : {}),
    ...(schema.required ? { required: schema.required.filter((r) => r !== 'metadata') } : {}),
  };
}

/**
 * Prunes, defaults and validates a custom resource in place, in upstream's order. Root `apiVersion`,
 * `kind` and `metadata` are never pruned, defaulted or validated here.
 * @param obj - the decoded object; mutated (pruned, defaulted)
 * @returns validation errors and the unknown fields that were pruned. When `Strict` finds unknown
 *   fields the object is only pruned and `errors` is empty: the caller must answer 400
 *   `strict decoding error: unknown field "..."` (see {@link strictDecodingErrorMessage}).
 */
export function checkCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps, opts: CheckOptions): CheckResult {
  const pruned = prune(obj, schema, true);
  const unknownFields = opts.fieldValidation === 'Ignore' ? [] : pruned;
  pruneNonNullableNullsWithoutDefaults(obj, schema, true);
  if (opts.fieldValidation === 'Strict' && unknownFields.length) return { errors: [], unknownFields };
  const root = withoutMetadata(schema);
  applyDefaults(obj, root);
  const { metadata: _m, ...rest } = obj;
  return { errors: validateValue(rest, root, ''), unknownFields };
}
