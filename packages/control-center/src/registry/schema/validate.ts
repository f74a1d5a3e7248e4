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
import { asSchema, compiledCache } from './compiled.js';
import { compileRE2, type Pattern } from './cel-regex.js';

type Kind = 'null' | 'boolean' | 'string' | 'integer' | 'number' | 'array' | 'object';
type JSONObject = Record<string, unknown>;

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
import { isJSONObject } from '@hcc/crds';
import { goFloat } from '../../go-float.js';

export { isJSONObject };

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

/**
 * Compiles a schema `pattern` (unanchored) with RE2's syntax and meaning, as kube-apiserver's
 * OpenAPI validation compiles it with Go's `regexp` (see cel-regex.ts).
 * @returns the pattern, or the Error saying why RE2 refuses it
 */
export function compilePattern(pattern: string): Pattern | Error {
  try {
    return compileRE2(pattern);
  } catch (e) {
    return e as Error;
  }
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

/** `[...v].length` without the array: code points, a lone surrogate counting as one. */
function runeCount(v: string): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < v.length) {
      const d = v.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

export { asSchema };

/**
 * A schema node compiled for the SchemaValidator pass: everything that does not depend on the value
 * is computed once per schema object (cached by identity, so a schema must not be mutated after its
 * first use), and the checks that cannot apply are skipped.
 */
class Check {
  readonly types: string[];
  readonly format: string;
  readonly typeChecked: boolean;
  readonly composition: boolean;
  readonly stringChecks: boolean;
  readonly pattern: Pattern | Error | undefined;
  readonly formatChecks: boolean;
  readonly formatSupported: boolean;
  readonly numberChecks: boolean;
  readonly enumValues: unknown[] | undefined;
  /** The string, number and boolean members of the enum (jsonEqual on a scalar is `===`). */
  readonly enumScalars: Set<unknown> | undefined;
  readonly enumHasComposite: boolean;
  readonly propertyCount: boolean;
  readonly required: string[];
  readonly props: Map<string, Check> = new Map();
  readonly propList: [string, Check][] = [];
  readonly patternProps: [Pattern, Check][] = [];
  /** The first loop of checkObject (patternProperties, additionalProperties) has work to do. */
  keyLoop = false;
  additional: Check | undefined;
  items: Check | undefined;
  tupleItems: Check[] | undefined;
  anyOf: Check[] | undefined;
  oneOf: Check[] | undefined;
  allOf: Check[] | undefined;
  not: Check | undefined;
  /** The structural subtree (properties, items, additionalProperties) has a `set` or `map` list. */
  listTypesBelow = false;
  /** The structural subtree has an `x-kubernetes-embedded-resource` node. */
  embeddedBelow = false;
  /** Structural children, for the list-type and embedded-resource walks. */
  structItems: Check | undefined;
  structAdditional: Check | undefined;

  constructor(readonly s: JSONSchemaProps) {
    this.types = schemaTypes(s);
    this.format = effectiveFormat(s);
    this.typeChecked = this.types.length > 0 || this.format !== '';
    this.composition = !!(s.anyOf?.length || s.oneOf?.length || s.allOf?.length || s.not || s.dependencies);
    this.stringChecks = s.maxLength !== undefined || s.minLength !== undefined || !!s.pattern;
    this.pattern = s.pattern ? compilePattern(s.pattern) : undefined;
    this.formatChecks = !!s.format;
    this.formatSupported = isSupportedFormat(s.format);
    this.numberChecks = s.multipleOf !== undefined || s.minimum !== undefined || s.maximum !== undefined;
    this.enumValues = s.enum?.length ? s.enum : undefined;
    this.enumScalars = this.enumValues ? new Set(this.enumValues.filter((e) => typeof e === 'string' || typeof e === 'number' || typeof e === 'boolean')) : undefined;
    this.enumHasComposite = !!this.enumValues?.some((e) => typeof e === 'object' && e !== null);
    this.propertyCount = s.minProperties !== undefined || s.maxProperties !== undefined;
    this.required = s.required ?? [];
  }

  /** Compiles the children; separate from the constructor so shared subschemas are compiled once. */
  link(): void {
    const s = this.s;
    for (const [name, ps] of Object.entries(s.properties ?? {})) {
      const c = checkOf(ps);
      this.props.set(name, c);
      this.propList.push([name, c]);
    }
    for (const [p, ps] of Object.entries(s.patternProperties ?? {})) {
      const re = compilePattern(p);
      if (!(re instanceof Error)) this.patternProps.push([re, checkOf(ps)]);
    }
    if (isJSONObject(s.additionalProperties)) this.additional = checkOf(s.additionalProperties as JSONSchemaProps);
    this.keyLoop = this.patternProps.length > 0 || s.additionalProperties === false || this.additional !== undefined;
    if (s.items && !Array.isArray(s.items)) this.items = checkOf(s.items);
    else if (Array.isArray(s.items)) this.tupleItems = s.items.map(checkOf);
    if (s.anyOf?.length) this.anyOf = s.anyOf.map(checkOf);
    if (s.oneOf?.length) this.oneOf = s.oneOf.map(checkOf);
    if (s.allOf?.length) this.allOf = s.allOf.map(checkOf);
    if (s.not) this.not = checkOf(s.not);
    this.structItems = itemsOf(s) ? this.items : undefined;
    this.structAdditional = this.additional;
    const lt = s['x-kubernetes-list-type'];
    const children = [...this.propList.map(([, c]) => c), ...(this.structItems ? [this.structItems] : []), ...(this.structAdditional ? [this.structAdditional] : [])];
    this.listTypesBelow = lt === 'set' || lt === 'map' || children.some((c) => c.listTypesBelow);
    this.embeddedBelow = !!s['x-kubernetes-embedded-resource'] || children.some((c) => c.embeddedBelow);
  }
}

/** The compiled form of a schema node (see {@link Check}). */
const checkOf = compiledCache((s) => new Check(s));

function checkType(v: unknown, kind: Kind, c: Check, path: string, errs: FieldError[]): void {
  const types = c.types;
  const format = c.format;
  if (kind === 'null') {
    if (types.length && !types.includes('null') && !c.s.nullable) {
      errs.push(field.typeInvalid(path, 'null', `${path} in body must be of type ${types.join(',')}: "null"`));
    }
    return;
  }
  const inferredFormat = kind === 'integer' ? 'int64' : kind === 'number' ? 'double' : '';
  const isFloatInt = kind === 'number' && types.includes('integer') && isFloat64AJSONInteger(v as number);
  const isIntFloat = kind === 'integer' && types.includes('number');
  if (kind !== 'string' && kind !== 'array' && format !== '' && !(types.includes(kind) || inferredFormat === format || isFloatInt || isIntFloat)) {
    errs.push(field.typeInvalid(path, inferredFormat, `${path} in body must be of type ${format}: ${JSON.stringify(inferredFormat)}`));
    return;
  }
  const numeric = types.includes('number') || types.includes('integer');
  if (!numeric && format !== '' && (kind === 'string' || kind === 'array')) return;
  if (!(types.includes(kind) || isFloatInt || isIntFloat)) {
    errs.push(field.typeInvalid(path, kind, `${path} in body must be of type ${types.join(',')}: "${kind}"`));
  }
}

/** Errors of one value against one schema, in a fresh list (composition counts them). */
function errorsOf(v: unknown, c: Check, path: string): FieldError[] {
  const out: FieldError[] = [];
  validateInto(v, c, path, out);
  return out;
}

function checkComposition(v: unknown, c: Check, path: string, errs: FieldError[]): void {
  const s = c.s;
  const q = (): string => JSON.stringify(path);
  if (c.anyOf) {
    let best: FieldError[] | undefined;
    let ok = false;
    for (const sub of c.anyOf) {
      const r = errorsOf(v, sub, path);
      if (r.length === 0) {
        ok = true;
        break;
      }
      if (!best || r.length < best.length) best = r;
    }
    if (!ok) errs.push(field.invalid(path, '', `${q()} must validate at least one schema (anyOf)`), ...(best ?? []));
  }
  if (c.oneOf) {
    let best: FieldError[] | undefined;
    let valid = 0;
    for (const sub of c.oneOf) {
      const r = errorsOf(v, sub, path);
      if (r.length === 0) valid++;
      else if (valid === 0 && (!best || r.length < best.length)) best = r;
    }
    if (valid === 0) errs.push(field.invalid(path, '', `${q()} must validate one and only one schema (oneOf). Found none valid`), ...(best ?? []));
    else if (valid > 1) errs.push(field.invalid(path, '', `${q()} must validate one and only one schema (oneOf). Found ${valid} valid alternatives`));
  }
  if (c.allOf) {
    let valid = 0;
    for (const sub of c.allOf) {
      const r = errorsOf(v, sub, path);
      if (r.length === 0) valid++;
      for (const e of r) errs.push(e);
    }
    if (valid !== c.allOf.length) {
      errs.push(field.invalid(path, '', `${q()} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`));
    }
  }
  if (c.not && errorsOf(v, c.not, path).length === 0) errs.push(field.invalid(path, '', `${q()} must not validate the schema (not)`));
  if (s.dependencies && isJSONObject(v)) {
    for (const key of Object.keys(v)) {
      const dep = s.dependencies[key];
      if (!dep) continue;
      if (Array.isArray(dep)) {
        for (const d of dep) if (!hasOwn(v, d)) errs.push(field.invalid(path, '', `${q()} has a dependency on ${d}`));
      } else {
        validateInto(v, checkOf(dep), `${path}.${key}`, errs);
      }
    }
  }
}

function checkString(v: string, c: Check, path: string, errs: FieldError[]): void {
  const s = c.s;
  if (s.maxLength !== undefined || s.minLength !== undefined) {
    const runes = runeCount(v);
    if (s.maxLength !== undefined && runes > s.maxLength) {
      errs.push(tooLong(path, s.maxLength));
      return;
    }
    if (s.minLength !== undefined && runes < s.minLength) {
      errs.push(field.invalid(path, v, `${path} in body should be at least ${s.minLength} chars long`));
      return;
    }
  }
  const re = c.pattern;
  if (re) {
    if (re instanceof Error) errs.push(field.invalid(path, v, `${path} in body should match '${s.pattern}, but pattern is invalid: ${re.message}'`));
    else if (!re.test(v)) errs.push(field.invalid(path, v, `${path} in body should match '${s.pattern}'`));
  }
}

const int32Range = (n: number): boolean => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;
const int64Range = (n: number): boolean => Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63;

function checkFormatOf(v: unknown, kind: Kind, c: Check, path: string, errs: FieldError[]): void {
  const format = c.s.format!;
  if (kind === 'string' && c.formatSupported && !checkFormat(format, v as string)) {
    errs.push(field.typeInvalid(path, v, `${path} in body must be of type ${format}: ${JSON.stringify(v)}`));
    return;
  }
  if (kind === 'integer' && (format === 'int32' || format === 'int64')) {
    const ok = format === 'int32' ? int32Range(v as number) : int64Range(v as number);
    if (!ok) errs.push(field.invalid(path, v, `Checked value must be of type integer with format ${format} in ${path}`));
  }
}

function checkNumber(v: number, kind: Kind, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
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
}

function checkSlice(v: unknown[], c: Check, path: string, errs: FieldError[]): void {
  const s = c.s;
  if (c.items) {
    for (let i = 0; i < v.length; i++) validateInto(v[i], c.items, `${path}[${i}]`, errs);
  } else if (c.tupleItems) {
    const tuple = c.tupleItems;
    for (let i = 0; i < tuple.length && i < v.length; i++) validateInto(v[i], tuple[i]!, `${path}[${i}]`, errs);
  }
  if (s.minItems !== undefined && v.length < s.minItems) {
    errs.push(field.invalid(path, v.length, `${path} in body should have at least ${s.minItems} items`));
  }
  if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(tooMany(path, v.length, s.maxItems));
  if (s.uniqueItems && v.some((x, i) => v.slice(0, i).some((y) => jsonEqual(x, y)))) {
    errs.push(field.invalid(path, '', `${path} in body shouldn't contain duplicates`));
  }
}

function checkEnum(v: unknown, c: Check, path: string, errs: FieldError[]): void {
  const values = c.enumValues!;
  // kube-openapi never matches null against an enum, even one listing null.
  if (v !== null && v !== undefined) {
    if (typeof v === 'object' ? c.enumHasComposite && values.some((e) => e !== null && jsonEqual(v, e)) : v === v && c.enumScalars!.has(v)) return;
  }
  errs.push(field.notSupported(path, sortedKeys(v ?? null), values.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
}

function checkObject(v: JSONObject, c: Check, path: string, errs: FieldError[]): void {
  const s = c.s;
  if (c.propertyCount || c.keyLoop) {
    const keys = Object.keys(v);
    if (s.minProperties !== undefined && keys.length < s.minProperties) {
      errs.push(field.invalid(path, keys.length, `${path} in body should have at least ${s.minProperties} properties`));
      return;
    }
    if (s.maxProperties !== undefined && keys.length > s.maxProperties) {
      errs.push(tooMany(path, keys.length, s.maxProperties));
      return;
    }
    if (c.keyLoop) {
      for (const k of keys) {
        const regular = c.props.has(k);
        let matched = false;
        for (const [re, ps] of c.patternProps) {
          if (!re.test(k)) continue;
          matched = true;
          validateInto(v[k], ps, childPath(path, k), errs);
        }
        if (regular || matched) continue;
        if (s.additionalProperties === false) errs.push(field.invalid(path, k, `${childPath(path, k)} in body is a forbidden property`));
        else if (c.additional) validateInto(v[k], c.additional, childPath(path, k), errs);
      }
    }
  }
  for (const [name, ps] of c.propList) {
    if (hasOwn(v, name)) validateInto(v[name], ps, childPath(path, name), errs);
  }
  for (const k of c.required) if (!hasOwn(v, k)) errs.push(field.required(childPath(path, k)));
}

/** The kube-openapi SchemaValidator pass: every validator that applies to the value's kind, in upstream's order. */
function validateInto(v: unknown, c: Check, path: string, errs: FieldError[]): void {
  const kind = kindOf(v);
  if (kind === 'null') {
    if (c.typeChecked) checkType(v, kind, c, path, errs);
    if (c.enumValues) checkEnum(v, c, path, errs);
    return;
  }
  if (c.typeChecked) checkType(v, kind, c, path, errs);
  if (c.composition) checkComposition(v, c, path, errs);
  if (kind === 'string' && c.stringChecks) checkString(v as string, c, path, errs);
  if (c.formatChecks) checkFormatOf(v, kind, c, path, errs);
  if ((kind === 'integer' || kind === 'number') && c.numberChecks) checkNumber(v as number, kind, c.s, path, errs);
  if (kind === 'array') checkSlice(v as unknown[], c, path, errs);
  if (c.enumValues) checkEnum(v, c, path, errs);
  if (kind === 'object') checkObject(v as JSONObject, c, path, errs);
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

/** listtype.ValidateListSetsAndMaps: `set` elements and `map` keys must be unique (only subtrees that have such lists are walked). */
function validateListTypes(v: unknown, c: Check, path: string, errs: FieldError[]): void {
  if (Array.isArray(v)) {
    const lt = c.s['x-kubernetes-list-type'];
    if (lt === 'set') for (const i of nonUniqueIndices(v)) errs.push(field.duplicate(`${path}[${i}]`, sortedKeys(v[i])));
    else if (lt === 'map') for (const e of validateListMap(path, c.s, v)) errs.push(e);
    const items = c.structItems;
    if (items?.listTypesBelow) for (let i = 0; i < v.length; i++) validateListTypes(v[i], items, `${path}[${i}]`, errs);
  } else if (isJSONObject(v)) {
    const ap = c.structAdditional;
    if (ap?.listTypesBelow) for (const k of Object.keys(v)) validateListTypes(v[k], ap, `${path}[${k}]`, errs);
    if (c.propList.length) {
      for (const k of Object.keys(v)) {
        const ps = c.props.get(k);
        if (ps?.listTypesBelow) validateListTypes(v[k], ps, childPath(path, k), errs);
      }
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

/** objectmeta.Validate (not at the resource root): checks every nested `x-kubernetes-embedded-resource` object (only subtrees that have one are walked). */
function validateEmbedded(v: unknown, c: Check, path: string, errs: FieldError[]): void {
  if (isJSONObject(v)) {
    if (c.s['x-kubernetes-embedded-resource']) validateEmbeddedResource(path, v, errs);
    for (const k of Object.keys(v)) {
      const ps = c.props.get(k);
      if (ps) {
        if (ps.embeddedBelow) validateEmbedded(v[k], ps, childPath(path, k), errs);
      } else if (c.structAdditional?.embeddedBelow) validateEmbedded(v[k], c.structAdditional, `${path}[${k}]`, errs);
    }
  } else if (Array.isArray(v)) {
    const items = c.structItems;
    if (items?.embeddedBelow) for (let i = 0; i < v.length; i++) validateEmbedded(v[i], items, `${path}[${i}]`, errs);
  }
}

/**
 * Validates `value` (found at `fieldPath`) against `schema`.
 * @param fieldPath - where the value sits in the object, e.g. `spec`; `''` for a whole object
 * @returns every error, schema errors first, then list-type, then embedded-resource errors; empty when valid
 */
export function validateValue(value: unknown, schema: JSONSchemaProps, fieldPath: string): FieldError[] {
  const c = checkOf(schema);
  const errs: FieldError[] = [];
  validateInto(value, c, fieldPath, errs);
  if (c.listTypesBelow) validateListTypes(value, c, fieldPath, errs);
  if (c.embeddedBelow) validateEmbedded(value, c, fieldPath, errs);
  return errs;
}
