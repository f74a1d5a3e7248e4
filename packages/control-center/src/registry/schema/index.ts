/**
 * Structural-schema handling for custom resources: pruning, defaulting and validation against a CRD
 * version's `openAPIV3Schema`, in the order kube-apiserver applies them to a request body.
 *
 * Upstream order (apiextensions-apiserver customresource_handler.go + strategy): decode (with
 * unknown-field detection) → prune unknown fields (reported for `fieldValidation=Strict|Warn`) →
 * drop non-nullable nulls without defaults → default → validate (schema, list types, embedded
 * resources) → CEL `x-kubernetes-validations` rules (cel.ts), only when the structural errors include
 * no blocking one. With `Strict`, a body with unknown fields is rejected at decode time, before
 * defaulting and validation.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/customresource_handler.go (schemaCoercingDecoder, unstructuredSchemaCoercer)
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/registry/customresource/validator.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/registry/customresource/strategy.go (Validate, ValidateUpdate, hasBlockingErr)
 */
import { isJSONObject } from '@hcc/crds';
import type { FieldError } from '../../apierrors/field.js';
import * as apierrors from '../../apierrors/status.js';
import { takeStrictErrors, type StrategyContext } from '../types.js';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaults.js';
import { prune } from './prune.js';
import type { FieldValidation, JSONSchemaProps } from './types.js';
import { jsonEqual, validateValue } from './validate.js';
import { hasValidationRules, validateCEL } from './cel.js';
import { correlateMapListItem, isMapList } from './cel-values.js';

export * from './types.js';
export { validateValue, jsonEqual, canonicalJSON } from './validate.js';
export { prune } from './prune.js';
export { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaults.js';
export { checkFormat, isSupportedFormat, normalizeFormat } from './formats.js';
export { validateCEL, hasValidationRules, unsupportedRules, resetUnsupportedRules, type UnsupportedRule, type CELValidationOptions, type CELValidationResult } from './cel.js';

/** Options of {@link checkCustomResource}. */
export interface CheckOptions {
  /** The request's `fieldValidation`; `Ignore` prunes silently. */
  fieldValidation: FieldValidation;
  /**
   * The stored object on update/patch (as stored: pruned and defaulted). Enables CEL transition
   * rules (`oldSelf`) and ratcheting; leave it out on create.
   */
  oldObj?: Record<string, unknown>;
  /** Wall-clock budget for the CEL rules of this object, in milliseconds (default: cel.ts `defaultCELBudgetMs`). */
  celBudgetMs?: number;
}

/** Outcome of {@link checkCustomResource}. */
export interface CheckResult {
  /** Validation errors (empty when valid, and always empty when Strict found unknown fields). */
  errors: FieldError[];
  /** Sorted paths of pruned unknown fields, e.g. `spec.platform.kubevirt.baseDomain`; empty for `Ignore`. */
  unknownFields: string[];
  /** CEL rule failures ratcheted on update (the old value already failed them), for `Warning` headers. */
  warnings: string[];
}

/** The error upstream adds instead of running CEL rules when structural validation found a blocking error. */
export const celSkippedError: FieldError = {
  type: 'FieldValueInvalid',
  field: '<nil>',
  badValue: 'null',
  detail: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

/**
 * strategy.go hasBlockingErr: type, required, enum, too-long and too-many errors mean the object
 * does not have the shape its CEL rules were written for.
 */
export const hasBlockingError = (errs: readonly FieldError[]): boolean =>
  errs.some((e) => ['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid'].includes(e.type));

/**
 * The message of upstream's strict decoding error for these paths (the server answers 400
 * BadRequest): unknown fields, then the decoder's other errors (duplicate fields), e.g.
 * `strict decoding error: unknown field "spec.x", duplicate field "spec.replicas"`.
 */
export const strictDecodingErrorMessage = (unknownFields: readonly string[], decoderErrors: readonly string[] = []): string =>
  `strict decoding error: ${unknownFieldWarnings(unknownFields, decoderErrors).join(', ')}`;

/**
 * Reports the unknown fields of a decoded object, with the decoder's strict errors of the request
 * (duplicate fields, taken from `ctx`): under `Strict` a 400 `<Kind> in version "<v>" cannot be
 * handled as a <Kind>: strict decoding error: ...`, under `Warn` a warning each, under `Ignore`
 * nothing.
 * @throws StatusError 400 BadRequest under Strict when there is anything to report
 */
export function reportUnknownFields(unknownFields: readonly string[], kind: string, version: string, ctx: StrategyContext): void {
  const decoderErrors = takeStrictErrors(ctx);
  if (!unknownFields.length && !decoderErrors.length) return;
  if (ctx.fieldValidation === 'Strict') throw apierrors.cannotBeHandled(kind, version, strictDecodingErrorMessage(unknownFields, decoderErrors));
  if (ctx.fieldValidation === 'Warn') for (const w of unknownFieldWarnings(unknownFields, decoderErrors)) ctx.warnings.push(w); // not push(...): 150,000 fields would overflow the stack
}

/** The warnings upstream adds for `fieldValidation=Warn`: one per unknown field path, then one per decoder error. */
export const unknownFieldWarnings = (unknownFields: readonly string[], decoderErrors: readonly string[] = []): string[] => [
  // Quoted as Go's %q quotes them (a quote in a key is escaped).
  ...unknownFields.map((f) => `unknown field ${JSON.stringify(f)}`),
  ...decoderErrors,
];

/** The root schema without `metadata` (ObjectMeta is validated and defaulted by the generic registry). */
function withoutMetadata(schema: JSONSchemaProps): JSONSchemaProps {
  const { metadata: _m, ...properties } = schema.properties ?? {};
  return {
    ...schema,
    ...(schema.properties ? { properties } : {}),
    ...(schema.required ? { required: schema.required.filter((r) => r !== 'metadata') } : {}),
  };
}

/** The root without the top-level fields in `skip` (ratcheting of unchanged top-level fields). */
function withoutFields(root: JSONSchemaProps, skip: ReadonlySet<string>): JSONSchemaProps {
  const properties = Object.fromEntries(Object.entries(root.properties ?? {}).filter(([k]) => !skip.has(k)));
  return { ...root, ...(root.properties ? { properties } : {}), ...(root.required ? { required: root.required.filter((r) => !skip.has(r)) } : {}) };
}

/** A root schema for structural validation and the one CEL rules see (with `metadata` back). */
interface Roots {
  validation: JSONSchemaProps;
  cel: JSONSchemaProps;
}

/** The derived roots of a CRD schema: built once, so the compiled walks (cached by schema identity) are reused. */
interface RootCache extends Roots {
  /** Roots without some top-level fields, by the skipped names joined with NUL. */
  without: Map<string, Roots>;
}

const rootCaches = new WeakMap<JSONSchemaProps, RootCache>();

function rootsFor(validation: JSONSchemaProps, schema: JSONSchemaProps): Roots {
  return {
    validation,
    cel: { ...validation, properties: { ...(validation.properties ?? {}), ...(schema.properties?.metadata ? { metadata: schema.properties.metadata } : {}) } },
  };
}

function rootCacheOf(schema: JSONSchemaProps): RootCache {
  let c = rootCaches.get(schema);
  if (!c) {
    c = { ...rootsFor(withoutMetadata(schema), schema), without: new Map() };
    rootCaches.set(schema, c);
  }
  return c;
}

function rootsWithout(schema: JSONSchemaProps, skip: readonly string[]): Roots {
  const c = rootCacheOf(schema);
  const key = skip.join('\0');
  let r = c.without.get(key);
  if (!r) {
    r = rootsFor(withoutFields(c.validation, new Set(skip)), schema);
    if (c.without.size > 100) c.without.clear();
    c.without.set(key, r);
  }
  return r;
}

/** Outcome of {@link prepareCustomResource}. */
export interface PrepareResult {
  /** Sorted paths of pruned unknown fields; empty for `Ignore`. */
  unknownFields: string[];
  /** `Strict` found unknown fields: the object is only pruned, and must not be checked further. */
  rejected: boolean;
}

/**
 * The mutating half of {@link checkCustomResource}, in upstream's order: prunes unknown fields,
 * drops non-nullable nulls without defaults, then (unless `Strict` found unknown fields) applies
 * defaults. What is left to do ({@link checkPreparedCreate}) only reads the object, so it can run
 * elsewhere (a validation worker) on a copy.
 * @param obj - the decoded object; mutated
 */
export function prepareCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps, fieldValidation: FieldValidation): PrepareResult {
  const pruned = prune(obj, schema, true);
  const unknownFields = fieldValidation === 'Ignore' ? [] : pruned;
  pruneNonNullableNullsWithoutDefaults(obj, schema, true);
  if (fieldValidation === 'Strict' && unknownFields.length) return { unknownFields, rejected: true };
  applyDefaults(obj, rootCacheOf(schema).validation);
  return { unknownFields, rejected: false };
}

/**
 * What kube-apiserver's converter does to a custom resource it converts to another version for a
 * response (`schemaCoercingConverter`): prune the fields the target version's schema does not
 * have and drop non-nullable nulls without a default. No defaults: reads default with the schema
 * of the version an object is stored in (storage/read-transform.ts), not the one it is served in.
 * Changes `obj` in place.
 * @param schema - the target version's `openAPIV3Schema`
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/customresource_handler.go (schemaCoercingConverter, unstructuredSchemaCoercer)
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#defaulting
 */
export function coerceToVersionSchema(obj: Record<string, unknown>, schema: JSONSchemaProps): void {
  prune(obj, schema, true);
  pruneNonNullableNullsWithoutDefaults(obj, schema, true);
}

/** Outcome of {@link checkPreparedCreate}. */
export interface CheckErrors {
  errors: FieldError[];
  warnings: string[];
}

/** Structural validation, then CEL rules unless a blocking error was found (the read-only half of a check). */
function checkPrepared(target: Record<string, unknown>, celTarget: Record<string, unknown>, roots: Roots, celOld: Record<string, unknown> | undefined, celBudgetMs: number | undefined): CheckErrors {
  const found = validateValue(target, roots.validation, '');
  const errors = celOld && found.length ? found.filter((e) => !isRatcheted(e, target, celOld, roots.validation)) : found;
  if (!hasValidationRules(roots.validation)) return { errors, warnings: [] };
  if (hasBlockingError(errors)) return { errors: [...errors, { ...celSkippedError }], warnings: [] };
  const cel = validateCEL(celTarget, roots.cel, {
    ...(celOld ? { oldObj: celOld } : {}),
    ...(celBudgetMs !== undefined ? { budgetMs: celBudgetMs } : {}),
  });
  return { errors: [...errors, ...cel.errors], warnings: cel.warnings };
}

/**
 * Whether a schema error on update is ratcheted away (KEP-4008, CRDValidationRatcheting, GA in
 * 1.33): the value it is about is unchanged from the stored object. Values are correlated with
 * the old object as upstream's `common.CorrelatedObject` does: by object key, and an item of a
 * `x-kubernetes-list-type: map` list with the old item of the same map keys (wherever it was in
 * the list); other lists (atomic, set) correlate only as a whole, so an error inside one counts as
 * unchanged only when the whole list is. A missing required value is never ratcheted, nor a value
 * that is new.
 * @param err - a structural validation error, its path rooted at the object (`spec.taints[0].key`;
 *   a map key may hold dots, `spec.labels.a.b/c`, so keys are matched against the object)
 * @param schema - the schema `obj` was validated against (for list types); `undefined` below
 *   `x-kubernetes-preserve-unknown-fields` or where the schema says nothing
 * @see https://github.com/kubernetes/enhancements/tree/master/keps/sig-api-machinery/4008-crd-ratcheting
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/cel/common/equality.go (CorrelatedObject.Index)
 */
function isRatcheted(err: FieldError, obj: Record<string, unknown>, old: Record<string, unknown>, schema: JSONSchemaProps | undefined): boolean {
  if (err.type === 'FieldValueRequired') return false;
  const parts = [...err.field.matchAll(/\[([^\]]*)\]|([^.[\]]+)/g)].map((m) => m[1] ?? m[2]!);
  // Every way the parts name keys of both objects (a map may hold both `a` and `a.b`): ratcheted
  // only when each way ends at an unchanged value, so an ambiguous path never hides a change.
  const ends: boolean[] = [];
  const walk = (cur: unknown, prev: unknown, i: number, s: JSONSchemaProps | undefined): void => {
    if (ends.length > 64) return; // pathological key sets: give up, the error stands
    if (i < parts.length && Array.isArray(cur) && Array.isArray(prev) && isMapList(s) && /^\d+$/.test(parts[i]!)) {
      // A map list's item correlates with the old item of the same keys, wherever it was.
      const item = cur[Number(parts[i])];
      const oldItem = correlateMapListItem(s, prev, item);
      if (item === undefined || oldItem === undefined) ends.push(false); // a new item: not ratcheted
      else walk(item, oldItem, i + 1, Array.isArray(s.items) ? undefined : s.items);
      return;
    }
    if (i === parts.length || Array.isArray(cur) || Array.isArray(prev)) {
      // The end, or another list: correlated no deeper than the list, which must be unchanged whole.
      ends.push(cur !== undefined && jsonEqual(cur, prev));
      return;
    }
    if (!isJSONObject(cur) || !isJSONObject(prev)) return;
    for (let n = 1, key = parts[i]!; i + n <= parts.length; key += `.${parts[i + n]}`, n++) {
      if (!Object.hasOwn(cur, key)) continue;
      if (Object.hasOwn(prev, key)) walk(cur[key], prev[key], i + n, propertySchema(s, key));
      else ends.push(false); // a way through a key the stored object lacks: new, not ratcheted
    }
  };
  walk(obj, old, 0, schema);
  return ends.length > 0 && ends.length <= 64 && ends.every(Boolean);
}

/** The schema of an object's property `key`: its `properties` entry, else a schema `additionalProperties`. */
function propertySchema(s: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  const ap = s?.additionalProperties;
  return s?.properties?.[key] ?? (typeof ap === 'object' ? ap : undefined);
}

/**
 * The read-only half of {@link checkCustomResource} for a new object: structural validation of
 * everything but `metadata`, then the CEL rules (which see `metadata.name` and `generateName`).
 * Never mutates `obj`.
 * @param obj - an object {@link prepareCustomResource} prepared (not rejected)
 * @param celBudgetMs - wall-clock budget of the CEL rules, in milliseconds (default: cel.ts `defaultCELBudgetMs`)
 */
export function checkPreparedCreate(obj: Record<string, unknown>, schema: JSONSchemaProps, celBudgetMs?: number): CheckErrors {
  const { metadata: _m, ...rest } = obj;
  return checkPrepared(rest, obj, rootCacheOf(schema), undefined, celBudgetMs);
}

/**
 * Prunes, defaults and validates a custom resource in place, in upstream's order, then evaluates its
 * CEL rules (with `opts.oldObj` on update) unless structural validation found a blocking error, in
 * which case upstream's `<nil>: Invalid value: "null": some validation rules were not checked ...`
 * error is added instead ({@link celSkippedError}). Root `apiVersion`, `kind` and `metadata` are
 * never pruned, defaulted or structurally validated here (CEL rules see `metadata.name` and
 * `metadata.generateName`). Equal to {@link prepareCustomResource} then, on create,
 * {@link checkPreparedCreate}.
 * @param obj - the decoded object; mutated (pruned, defaulted)
 * @returns validation errors, the unknown fields that were pruned and ratcheted CEL warnings. When
 *   `Strict` finds unknown fields the object is only pruned and `errors` is empty: the caller must
 *   answer 400 `strict decoding error: unknown field "..."` (see {@link strictDecodingErrorMessage}).
 */
export function checkCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps, opts: CheckOptions): CheckResult {
  const { unknownFields, rejected } = prepareCustomResource(obj, schema, opts.fieldValidation);
  if (rejected) return { errors: [], unknownFields, warnings: [] };
  if (!opts.oldObj) return { ...checkPreparedCreate(obj, schema, opts.celBudgetMs), unknownFields };
  let roots: Roots = rootCacheOf(schema);
  const { metadata: _m, ...rest } = obj;
  let target: Record<string, unknown> = rest;
  let celTarget: Record<string, unknown> = obj;
  let celOld = opts.oldObj;
  // Ratcheting, taken to the top level: on update, a top-level field (spec, status) equal to the
  // stored one is not validated again — every error it could raise is ratcheted away anyway
  // (KEP-4008). Status writes and label patches of large objects then cost almost nothing.
  // Only when the root itself carries no rules, which could relate several top-level fields.
  if (!schema['x-kubernetes-validations']?.length) {
    const old = opts.oldObj;
    const unchanged = Object.keys(rest).filter((k) => Object.hasOwn(old, k) && jsonEqual(rest[k], old[k]));
    if (unchanged.length) {
      const skip = new Set(unchanged);
      target = Object.fromEntries(Object.entries(rest).filter(([k]) => !skip.has(k)));
      celTarget = Object.fromEntries(Object.entries(obj).filter(([k]) => !skip.has(k)));
      celOld = Object.fromEntries(Object.entries(old).filter(([k]) => !skip.has(k)));
      roots = rootsWithout(schema, unchanged);
    }
  }
  return { ...checkPrepared(target, celTarget, roots, celOld, opts.celBudgetMs), unknownFields };
}
