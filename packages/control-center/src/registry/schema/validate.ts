/**
 * Validates a JSON value against a CRD's OpenAPI v3 schema the way kube-apiserver validates custom
 * resources, and reports every problem as a FieldError worded like apiextensions-apiserver:
 *
 *   spec.platform.type: Unsupported value: "Foo": supported values: "AWS", "Azure"
 *   spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
 *   spec.clusterName: Required value
 *
 * Three passes, in upstream's order: the kube-openapi schema validator (types, nullable, int-or-string,
 * formats, bounds, lengths, items, properties, required, enum, allOf/anyOf/oneOf/not), then
 * `x-kubernetes-list-type` set/map uniqueness, then embedded-resource `apiVersion`/`kind` checks.
 * All errors are reported, in a deterministic order (schema property order; upstream iterates Go maps).
 *
 * Paths: `fieldPath` names the value (`''` for a whole object); children are `a.b`, list items `a[0]`
 * (list-type errors below a map use `a[key]`, as upstream's field.Path.Key does).
 *
 * Differences from upstream, on purpose: errors of allOf/anyOf/oneOf/not name the field instead of
 * `<nil>`; anyOf/oneOf report the alternative with the fewest errors (upstream: the one with most
 * passing checks); `int32`/`int64` formats are range-checked (upstream strips them); CEL
 * `x-kubernetes-validations` and metadata of embedded resources are not checked.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/validation/validation.go
 * @see https://github.com/kubernetes/kube-openapi/tree/master/pkg/validation/validate
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/schema/listtype/validation.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/schema/objectmeta/validation.go
 */
import * as field from '../../apierrors/field.js';
import type { FieldError } from '../../apierrors/field.js';
import { checkFormat, isSupportedFormat } from './formats.js';
import type { JSONSchemaProps } from './types.js';

type Kind = 'null' | 'boolean' | 'string' | 'integer' | 'number' | 'array' | 'object';
type JSONObject = Record<string, unknown>;

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
export const isJSONObject = (v: unknown): v is JSONObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON kind of a value, as Go sees a decoded value: integral numbers are int64. */
function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    default:
      return 'object';
  }
}

/** Joins a child key onto a path (`''` + `spec` = `spec`). */
export const childPath = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** Go's `%v` for a float64: shortest digits, `%e` form (`1e+06`) when the exponent is < -4 or >= 6. */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mant, e] = v.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(v);
}

/** swag.IsFloat64AJSONInteger: integral, or within a relative 1e-9 of one (positive values only, as Go's uint64 conversion does). */
function isFloat64AJSONInteger(f: number): boolean {
  if (!Number.isFinite(f) || f < -(2 ** 53) || f > 2 ** 53) return false;
  if (Number.isInteger(f)) return true;
  if (f < 0) return false;
  const g = Math.trunc(f);
  if (g === 0) return false;
  return Math.abs(f - g) / (f + g) < 1e-9;
}

/** JSON equality (reflect.DeepEqual on decoded JSON). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isJSONObject(a) && isJSONObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** A deep copy with object keys sorted, so a bad value renders like Go's json.Marshal of a map. */
export function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (isJSONObject(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedKeys(v[k])]));
  return v;
}

/** JSON with sorted object keys, like Go's json.Marshal of a map. */
export function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (isJSONObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

const regexCache = new Map<string, RegExp | Error>();
/** Compiles a schema pattern (unanchored; `u` flag when the pattern allows it). */
export function compilePattern(pattern: string): RegExp | Error {
  let r = regexCache.get(pattern);
  if (!r) {
    try {
      r = new RegExp(pattern, 'u');
    } catch {
      try {
        r = new RegExp(pattern);
      } catch (e) {
        r = e as Error;
      }
    }
    regexCache.set(pattern, r);
  }
  return r;
}

const tooLong = (path: string, max: number): FieldError => ({
  type: 'FieldValueTooLong',
  field: path,
  detail: `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`,
});
const tooMany = (path: string, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field: path,
  badValue: actual,
  detail: `must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
});

/** Types a node accepts: `x-kubernetes-int-or-string` means integer or string. */
function schemaTypes(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return s.type ? [s.type] : [];
}

/** The format upstream keeps for validation ('' when it strips an unsupported one). */
const effectiveFormat = (s: JSONSchemaProps): string => (isSupportedFormat(s.format) ? s.format! : '');

function checkType(v: unknown, kind: Kind, s: JSONSchemaProps, path: string): FieldError[] {
  const types = schemaTypes(s);
  const format = effectiveFormat(s);
  if (types.length === 0 && format === '') return [];
  if (kind === 'null') {
    if (types.length && !types.includes('null') && !s.nullable) {
      return [field.typeInvalid(path, 'null', `${path} in body must be of type ${types.join(',')}: "null"`)];
    }
    return [];
  }
  const inferredFormat = kind === 'integer' ? 'int64' : kind === 'number' ? 'double' : '';
  const isFloatInt = kind === 'number' && types.includes('integer') && isFloat64AJSONInteger(v as number);
  const isIntFloat = kind === 'integer' && types.includes('number');
  if (kind !== 'string' && kind !== 'array' && format !== '' && !(types.includes(kind) || inferredFormat === format || isFloatInt || isIntFloat)) {
    return [field.typeInvalid(path, inferredFormat, `${path} in body must be of type ${format}: ${JSON.stringify(inferredFormat)}`)];
  }
  const numeric = types.includes('number') || types.includes('integer');
  if (!numeric && format !== '' && (kind === 'string' || kind === 'array')) return [];
  if (!(types.includes(kind) || isFloatInt || isIntFloat)) {
    return [field.typeInvalid(path, kind, `${path} in body must be of type ${types.join(',')}: "${kind}"`)];
  }
  return [];
}

function checkComposition(v: unknown, s: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const q = JSON.stringify(path);
  if (s.anyOf?.length) {
    let best: FieldError[] | undefined;
    let ok = false;
    for (const sub of s.anyOf) {
      const r = validateSchema(v, sub, path);
      if (r.length === 0) {
        ok = true;
        break;
      }
      if (!best || r.length < best.length) best = r;
    }
    if (!ok) errs.push(field.invalid(path, '', `${q} must validate at least one schema (anyOf)`), ...(best ?? []));
  }
  if (s.oneOf?.length) {
    let best: FieldError[] | undefined;
    let valid = 0;
    for (const sub of s.oneOf) {
      const r = validateSchema(v, sub, path);
      if (r.length === 0) valid++;
      else if (valid === 0 && (!best || r.length < best.length)) best = r;
    }
    if (valid === 0) errs.push(field.invalid(path, '', `${q} must validate one and only one schema (oneOf). Found none valid`), ...(best ?? []));
    else if (valid > 1) errs.push(field.invalid(path, '', `${q} must validate one and only one schema (oneOf). Found ${valid} valid alternatives`));
  }
  if (s.allOf?.length) {
    let valid = 0;
    for (const sub of s.allOf) {
      const r = validateSchema(v, sub, path);
      if (r.length === 0) valid++;
      errs.push(...r);
    }
    if (valid !== s.allOf.length) {
      errs.push(field.invalid(path, '', `${q} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`));
    }
  }
  if (s.not && validateSchema(v, s.not, path).length === 0) errs.push(field.invalid(path, '', `${q} must not validate the schema (not)`));
  if (s.dependencies && isJSONObject(v)) {
    for (const key of Object.keys(v)) {
      const dep = s.dependencies[key];
      if (!dep) continue;
      if (Array.isArray(dep)) {
        for (const d of dep) if (!hasOwn(v, d)) errs.push(field.invalid(path, '', `${q} has a dependency on ${d}`));
      } else {
        errs.push(...validateSchema(v, dep, `${path}.${key}`));
      }
    }
  }
  return errs;
}

function checkString(v: string, s: JSONSchemaProps, path: string): FieldError[] {
  const runes = [...v].length;
  if (s.maxLength !== undefined && runes > s.maxLength) return [tooLong(path, s.maxLength)];
  if (s.minLength !== undefined && runes < s.minLength) return [field.invalid(path, v, `${path} in body should be at least ${s.minLength} chars long`)];
  if (s.pattern) {
    const re = compilePattern(s.pattern);
    if (re instanceof Error) return [field.invalid(path, v, `${path} in body should match '${s.pattern}, but pattern is invalid: ${re.message}'`)];
    if (!re.test(v)) return [field.invalid(path, v, `${path} in body should match '${s.pattern}'`)];
  }
  return [];
}

const int32Range = (n: number): boolean => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;
const int64Range = (n: number): boolean => Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63;

function checkFormatOf(v: unknown, kind: Kind, s: JSONSchemaProps, path: string): FieldError[] {
  if (!s.format) return [];
  if (kind === 'string' && isSupportedFormat(s.format) && !checkFormat(s.format, v as string)) {
    return [field.typeInvalid(path, v, `${path} in body must be of type ${s.format}: ${JSON.stringify(v)}`)];
  }
  if (kind === 'integer' && (s.format === 'int32' || s.format === 'int64')) {
    const ok = s.format === 'int32' ? int32Range(v as number) : int64Range(v as number);
    if (!ok) return [field.invalid(path, v, `Checked value must be of type integer with format ${s.format} in ${path}`)];
  }
  return [];
}

function checkNumber(v: number, kind: Kind, s: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const isInt = kind === 'integer';
  if (s.multipleOf !== undefined) {
    const f = s.multipleOf;
    const intPath = isInt && Number.isInteger(f);
    if (f < 0) {
      errs.push(field.invalid(path, f, `factor MultipleOf declared for ${path} must be positive: ${intPath ? f : goFloat(f)}`));
    } else if (intPath) {
      if (f !== 0 && v % f !== 0) errs.push(field.invalid(path, v, `${path} in body should be a multiple of ${f}`));
    } else if (f !== 0) {
      const mult = f < 1 ? (1 / f) * v : v / f;
      if (!isFloat64AJSONInteger(mult)) errs.push(field.invalid(path, v, `${path} in body should be a multiple of ${goFloat(f)}`));
    }
  }
  if (s.minimum !== undefined) {
    const min = isInt ? Math.trunc(s.minimum) : s.minimum;
    const ex = !!s.exclusiveMinimum;
    if (ex ? v <= min : v < min) {
      errs.push(field.invalid(path, v, `${path} in body should be greater than${ex ? '' : ' or equal to'} ${isInt ? min : goFloat(min)}`));
    }
  }
  if (s.maximum !== undefined) {
    const max = isInt ? Math.trunc(s.maximum) : s.maximum;
    const ex = !!s.exclusiveMaximum;
    if (ex ? v >= max : v > max) {
      errs.push(field.invalid(path, v, `${path} in body should be less than${ex ? '' : ' or equal to'} ${isInt ? max : goFloat(max)}`));
    }
  }
  return errs;
}

function checkSlice(v: unknown[], s: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s.items && !Array.isArray(s.items)) {
    const items = s.items;
    v.forEach((x, i) => errs.push(...validateSchema(x, items, `${path}[${i}]`)));
  } else if (Array.isArray(s.items)) {
    s.items.forEach((sub, i) => {
      if (i < v.length) errs.push(...validateSchema(v[i], sub, `${path}[${i}]`));
    });
  }
  if (s.minItems !== undefined && v.length < s.minItems) {
    errs.push(field.invalid(path, v.length, `${path} in body should have at least ${s.minItems} items`));
  }
  if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(tooMany(path, v.length, s.maxItems));
  if (s.uniqueItems && v.some((x, i) => v.slice(0, i).some((y) => jsonEqual(x, y)))) {
    errs.push(field.invalid(path, '', `${path} in body shouldn't contain duplicates`));
  }
  return errs;
}

function checkEnum(v: unknown, s: JSONSchemaProps, path: string): FieldError[] {
  if (!s.enum?.length) return [];
  // kube-openapi never matches null against an enum, even one listing null.
  if (v !== null && v !== undefined && s.enum.some((e) => e !== null && jsonEqual(v, e))) return [];
  return [field.notSupported(path, sortedKeys(v ?? null), s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))))];
}

function checkObject(v: JSONObject, s: JSONSchemaProps, path: string): FieldError[] {
  const keys = Object.keys(v);
  if (s.minProperties !== undefined && keys.length < s.minProperties) {
    return [field.invalid(path, keys.length, `${path} in body should have at least ${s.minProperties} properties`)];
  }
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) return [tooMany(path, keys.length, s.maxProperties)];
  const errs: FieldError[] = [];
  const props = s.properties ?? {};
  const patterns = Object.entries(s.patternProperties ?? {});
  const matching = (k: string) => patterns.filter(([p]) => {
    const re = compilePattern(p);
    return !(re instanceof Error) && re.test(k);
  });
  for (const k of keys) {
    const regular = hasOwn(props, k);
    const matched = matching(k);
    for (const [, ps] of matched) errs.push(...validateSchema(v[k], ps, childPath(path, k)));
    if (regular || matched.length) continue;
    if (s.additionalProperties === false) errs.push(field.invalid(path, k, `${childPath(path, k)} in body is a forbidden property`));
    else if (isJSONObject(s.additionalProperties)) errs.push(...validateSchema(v[k], s.additionalProperties, childPath(path, k)));
  }
  for (const [name, ps] of Object.entries(props)) {
    if (hasOwn(v, name)) errs.push(...validateSchema(v[name], ps, childPath(path, name)));
  }
  for (const k of s.required ?? []) if (!hasOwn(v, k)) errs.push(field.required(childPath(path, k)));
  return errs;
}

/** The kube-openapi SchemaValidator pass: every validator that applies to the value's kind, in upstream's order. */
function validateSchema(v: unknown, s: JSONSchemaProps, path: string): FieldError[] {
  const kind = kindOf(v);
  if (kind === 'null') return [...checkType(v, kind, s, path), ...checkEnum(v, s, path)];
  const errs = [...checkType(v, kind, s, path), ...checkComposition(v, s, path)];
  if (kind === 'string') errs.push(...checkString(v as string, s, path));
  errs.push(...checkFormatOf(v, kind, s, path));
  if (kind === 'integer' || kind === 'number') errs.push(...checkNumber(v as number, kind, s, path));
  if (kind === 'array') errs.push(...checkSlice(v as unknown[], s, path));
  errs.push(...checkEnum(v, s, path));
  if (kind === 'object') errs.push(...checkObject(v as JSONObject, s, path));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// structural walks (listtype and objectmeta validation only follow properties/items/additionalProperties)

/** The element schema of a structural array node. */
export const itemsOf = (s: JSONSchemaProps | undefined): JSONSchemaProps | undefined =>
  s?.items && !Array.isArray(s.items) ? s.items : undefined;
/** The value schema of a structural map node (undefined for none or a boolean). */
export const additionalOf = (s: JSONSchemaProps | undefined): JSONSchemaProps | undefined =>
  isJSONObject(s?.additionalProperties) ? (s!.additionalProperties as JSONSchemaProps) : undefined;

const UNSPECIFIED = Symbol('unspecified key');

/** listtype.validateListSet: indices of the second appearance of each repeated element. */
function nonUniqueIndices(list: unknown[]): number[] {
  const seen = new Map<unknown, number>();
  const out: number[] = [];
  list.forEach((x, i) => {
    const key = typeof x === 'object' && x !== null ? `json:${canonicalJSON(x)}` : x;
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

function validateListMap(path: string, s: JSONSchemaProps, list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isJSONObject(x)) return [field.invalid(`${path}[${i}]`, x, 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keyFields = s['x-kubernetes-list-map-keys'] ?? [];
  if (keyFields.length === 1) {
    const kf = keyFields[0]!;
    const keys = list.map((x) => (x === null || !hasOwn(x as JSONObject, kf) ? UNSPECIFIED : (x as JSONObject)[kf]));
    return nonUniqueIndices(keys).map((i) => field.duplicate(`${path}[${i}]`, keys[i] === UNSPECIFIED ? {} : { [kf]: sortedKeys(keys[i]) }));
  }
  const keys = list.map((x) => {
    const key: JSONObject = {};
    if (x !== null) for (const kf of [...keyFields].sort()) if (hasOwn(x as JSONObject, kf)) key[kf] = (x as JSONObject)[kf];
    return key;
  });
  return nonUniqueIndices(keys).map((i) => field.duplicate(`${path}[${i}]`, sortedKeys(keys[i])));
}

/** listtype.ValidateListSetsAndMaps: `set` elements and `map` keys must be unique. */
function validateListTypes(v: unknown, s: JSONSchemaProps | undefined, path: string, errs: FieldError[]): void {
  if (!s) return;
  if (Array.isArray(v)) {
    const lt = s['x-kubernetes-list-type'];
    if (lt === 'set') for (const i of nonUniqueIndices(v)) errs.push(field.duplicate(`${path}[${i}]`, sortedKeys(v[i])));
    else if (lt === 'map') errs.push(...validateListMap(path, s, v));
    const items = itemsOf(s);
    if (items) v.forEach((x, i) => validateListTypes(x, items, `${path}[${i}]`, errs));
  } else if (isJSONObject(v)) {
    const ap = additionalOf(s);
    if (ap) for (const k of Object.keys(v)) validateListTypes(v[k], ap, `${path}[${k}]`, errs);
    if (s.properties) {
      for (const k of Object.keys(v)) if (hasOwn(s.properties, k)) validateListTypes(v[k], s.properties[k], childPath(path, k), errs);
    }
  }
}

const dns1035Re = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 63) errs.push('must be no more than 63 characters');
  if (!dns1035Re.test(value)) {
    errs.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return errs;
}

/** objectmeta.validateEmbeddedResource, without the ObjectMeta part. */
function validateEmbeddedResource(path: string, x: JSONObject, errs: FieldError[]): void {
  const av = childPath(path, 'apiVersion');
  const kp = childPath(path, 'kind');
  if (!hasOwn(x, 'apiVersion')) errs.push(field.required(av));
  if (!hasOwn(x, 'kind')) errs.push(field.required(kp));
  if (hasOwn(x, 'apiVersion')) {
    const v = x.apiVersion;
    if (typeof v !== 'string') errs.push(field.invalid(av, v, 'must be a string'));
    else if (v.length === 0) errs.push(field.required(av));
    else if (v !== '/' && (v.match(/\//g)?.length ?? 0) > 1) errs.push(field.invalid(av, v, `unexpected GroupVersion string: ${v}`));
  }
  if (hasOwn(x, 'kind')) {
    const v = x.kind;
    if (typeof v !== 'string') errs.push(field.invalid(kp, v, 'must be a string'));
    else if (v.length === 0) errs.push(field.required(kp));
    else {
      const e = isDNS1035Label(v.toLowerCase());
      if (e.length) errs.push(field.invalid(kp, v, `may have mixed case, but should otherwise match: ${e.join(',')}`));
    }
  }
}

/** objectmeta.Validate (not at the resource root): checks every nested `x-kubernetes-embedded-resource` object. */
function validateEmbedded(v: unknown, s: JSONSchemaProps | undefined, path: string, errs: FieldError[]): void {
  if (!s) return;
  if (isJSONObject(v)) {
    if (s['x-kubernetes-embedded-resource']) validateEmbeddedResource(path, v, errs);
    for (const k of Object.keys(v)) {
      if (s.properties && hasOwn(s.properties, k)) validateEmbedded(v[k], s.properties[k], childPath(path, k), errs);
      else if (additionalOf(s)) validateEmbedded(v[k], additionalOf(s), `${path}[${k}]`, errs);
    }
  } else if (Array.isArray(v)) {
    const items = itemsOf(s);
    v.forEach((x, i) => validateEmbedded(x, items, `${path}[${i}]`, errs));
  }
}

/**
 * Validates `value` (found at `fieldPath`) against `schema`.
 * @param fieldPath - where the value sits in the object, e.g. `spec`; `''` for a whole object
 * @returns every error, schema errors first, then list-type, then embedded-resource errors; empty when valid
 */
export function validateValue(value: unknown, schema: JSONSchemaProps, fieldPath: string): FieldError[] {
  const errs = validateSchema(value, schema, fieldPath);
  validateListTypes(value, schema, fieldPath, errs);
  validateEmbedded(value, schema, fieldPath, errs);
  return errs;
}
