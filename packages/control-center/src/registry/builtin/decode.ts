/**
 * Decoding of a built-in kind's request body (Namespace, Secret, ConfigMap, Event, Lease,
 * CustomResourceDefinition), as kube-apiserver's JSON decoder does it into the Go types of
 * k8s.io/api (sigs.k8s.io/json, with unknown-field detection):
 * - a field of the wrong JSON type cannot be decoded: 400 BadRequest
 *   `Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.type of type string`
 *   (likewise an integer out of its range, a time that is not RFC 3339, or `[]byte` data that is not
 *   base64: `illegal base64 data at input byte 4`, to which hcc adds the field). `null` is the zero value, as in Go;
 * - a field the type does not have cannot be kept (a Go struct has nowhere to put it): it is dropped, and
 *   `fieldValidation=Strict` answers 400 `strict decoding error: unknown field "datas"`, `Warn` (the default)
 *   adds a `Warning` header per field, `Ignore` drops it silently. ObjectMeta counts: `metadata.foo` is unknown.
 * The fields and types are those kube-apiserver publishes in its OpenAPI (openapi/builtin-schemas.ts).
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go
 */
import { isJSONObject, type KubeObject } from '@hcc/crds';
import { objectMetaSchema, sharedBuiltinSchema } from '../../openapi/builtin-schemas.js';
import * as apierrors from '../../apierrors/status.js';
import { base64ErrorOffset } from '../schema/formats.js';
import { prune } from '../schema/prune.js';
import { reportUnknownFields } from '../schema/index.js';
import type { JSONSchemaProps } from '../schema/types.js';
import type { ResourceInfo, StrategyContext } from '../types.js';

/** What decoding needs to know of a kind: its group, version and name, and whether it is a custom resource. */
export type DecodedKind = Pick<ResourceInfo, 'group' | 'version' | 'kind' | 'custom'>;

/** Why a value cannot be decoded into its field: the JSON type it has and the Go type wanted, or a parse error. */
export interface DecodeError {
  /** Go's struct-field path: `Secret.type`, `Lease.spec.renewTime` (no map keys or list indexes, as Go reports it). */
  field: string;
  message: string;
}

/** The JSON type of a non-null value as Go's encoding/json names it in an UnmarshalTypeError: `array`, `bool`, `number`, `string` or `object`. */
export const jsonTypeOf = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? 'number' : typeof v === 'string' ? 'string' : 'object');

/** The Go type a schema node decodes into, as Go's decoder names it in its errors (close enough to find the field). */
function goType(s: JSONSchemaProps): string {
  switch (s.type) {
    case 'string':
      // A base64 field (Secret.data, ConfigMap.binaryData) is a []byte in Go.
      return s.format === 'date-time' ? 'v1.Time' : s.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return s.format === 'int64' ? 'int64' : 'int32';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${s.items && !Array.isArray(s.items) ? goType(s.items) : 'interface {}'}`;
    case 'object':
      return typeof s.additionalProperties === 'object' && s.additionalProperties ? `map[string]${goType(s.additionalProperties)}` : 'struct';
    default:
      return 'interface {}';
  }
}

/** RFC 3339, as Go's time.Parse(time.RFC3339) takes it (what metav1.Time decodes). */
const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * metav1.MicroTime as its UnmarshalJSON parses it, with Go's layout RFC3339Micro
 * (`2006-01-02T15:04:05.000000Z07:00`): exactly six fractional digits. client-go's leader election
 * and event recorder read these fields with the same layout, so a looser value stored here would
 * break them (`kubectl events`: `cannot parse ".5Z" as ".000000"`).
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/micro_time.go
 * @see https://github.com/kubernetes-client/javascript/issues/828
 */
const rfc3339Micro = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/** The MicroTime fields of the built-in kinds, by Go struct-field path; their schemas say only `date-time`. */
export const microTimeFields: ReadonlySet<string> = new Set(['Event.eventTime', 'Event.series.lastObservedTime', 'Lease.spec.acquireTime', 'Lease.spec.renewTime']);

/**
 * Go's time.Parse range error for a time whose fields are out of range (`month out of range`,
 * `day out of range` for 2024-02-30, `hour out of range` for 24:00, ...), or undefined. JavaScript's
 * Date would roll such a time over instead.
 */
function timeRangeError(v: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})/.exec(v);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12) return 'month out of range';
  if (day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return 'day out of range';
  if (hour > 23) return 'hour out of range';
  if (minute > 59) return 'minute out of range';
  if (second > 59) return 'second out of range';
  const zone = /([+-])(\d{2}):(\d{2})$/.exec(v);
  if (zone && (Number(zone[2]) > 23 || Number(zone[3]) > 59)) return 'time zone offset out of range';
  return undefined;
}

/** Go's time.Parse error for a MicroTime that is not RFC3339Micro (the part it stopped at, as Go names it). */
function microTimeError(v: string): string {
  const layout = '2006-01-02T15:04:05.000000Z07:00';
  const head = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.exec(v);
  const rest = head ? v.slice(head[0].length) : v;
  return `parsing time ${JSON.stringify(v)} as "${layout}": cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(head ? '.000000' : '2006')}`;
}

const int32Range = [-(2 ** 31), 2 ** 31 - 1] as const;

/**
 * The first value under `v` that its schema's Go type cannot hold, or undefined (also for a body
 * checked against a schema of its own, as /scale's Scale).
 */
export function decodeError(v: unknown, s: JSONSchemaProps, field: string): DecodeError | undefined {
  if (v === null || v === undefined) return undefined;
  const cannot = (what = jsonTypeOf(v)): DecodeError => ({ field, message: `json: cannot unmarshal ${what} into Go struct field ${field} of type ${goType(s)}` });
  switch (s.type) {
    case 'string':
      if (typeof v !== 'string') return cannot();
      if (s.format === 'byte') {
        const at = base64ErrorOffset(v);
        if (at !== undefined) return { field, message: `illegal base64 data at input byte ${at} (field ${field})` };
      }
      if (s.format === 'date-time' && v !== '' && microTimeFields.has(field)) {
        if (!rfc3339Micro.test(v)) return { field, message: `${microTimeError(v)} (field ${field})` };
      } else if (s.format === 'date-time' && v !== '' && !rfc3339.test(v)) {
        return { field, message: `parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(v)} as RFC 3339 (field ${field})` };
      }
      const range = s.format === 'date-time' && v !== '' ? timeRangeError(v) : undefined;
      if (range) return { field, message: `parsing time ${JSON.stringify(v)}: ${range} (field ${field})` };
      return undefined;
    case 'integer': {
      if (typeof v !== 'number') return cannot();
      const [lo, hi] = s.format === 'int64' ? [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] : int32Range;
      if (!Number.isInteger(v) || v < lo || v > hi) return cannot(`number ${v}`);
      return undefined;
    }
    case 'boolean':
      return typeof v === 'boolean' ? undefined : cannot();
    case 'array': {
      if (!Array.isArray(v)) return cannot();
      const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
      if (!items) return undefined;
      for (const x of v) {
        const e = decodeError(x, items, field);
        if (e) return e;
      }
      return undefined;
    }
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) return cannot();
      const o = v as Record<string, unknown>;
      if (s.properties) {
        for (const [k, ps] of Object.entries(s.properties)) {
          if (!Object.hasOwn(o, k)) continue;
          const e = decodeError(o[k], ps, `${field}.${k}`);
          if (e) return e;
        }
      }
      const ap = s.additionalProperties;
      if (typeof ap === 'object' && ap) {
        for (const x of Object.values(o)) {
          const e = decodeError(x, ap, field);
          if (e) return e;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Decodes a built-in kind's object in place: refuses what its Go type cannot hold, drops unknown
 * fields and reports them per `ctx.fieldValidation` (see the module doc). Of a custom resource
 * only `metadata` is decoded, as apiextensions-apiserver round-trips it through the typed
 * ObjectMeta (schemaobjectmeta.GetObjectMetaWithOptions): a field of the wrong type is a 400, an
 * unknown one (`metadata.foo`) is dropped and reported with the schema's unknown fields (queued
 * in `ctx.strictErrors`, after them, as upstream appends them), null fields (`labels:` left
 * empty in a template) are removed and null label or annotation values are `""`, as Go decodes
 * them; the rest its schema prunes. Kinds without a published schema
 * are left alone.
 * @param stored - the stored object on update: unknown fields it already had (written before hcc
 *   decoded built-ins) are dropped without being reported
 * @param opts.keepNulls - leave null fields (an apply configuration, where null has a meaning); by
 *   default they are removed, as Go decodes null into the zero value the API leaves out
 * Duplicate fields the body decoder found (`ctx.strictErrors`) are reported with the unknown ones.
 * @throws StatusError 400 BadRequest for a value of the wrong type, or unknown or duplicate fields under Strict
 */
export function decodeBuiltin(obj: KubeObject, info: DecodedKind, ctx: StrategyContext, stored?: KubeObject, opts: { keepNulls?: boolean } = {}): void {
  if (info.custom) {
    // Null metadata fields are left out, null label and annotation values are "".
    if (!opts.keepNulls && isJSONObject(obj.metadata)) decodeNulls(obj.metadata, objectMetaSchema as JSONSchemaProps);
    decodeCustomResourceMetadata(obj, info, ctx, stored);
    return;
  }
  const schema = sharedBuiltinSchema(info.group, info.version, info.kind) as JSONSchemaProps | undefined;
  if (!schema) return;
  const err = typeError(obj, info, schema);
  // A field an older hcc stored with the wrong type does not block updates that leave that field
  // wrong in the same way (a label on such a Secret); a new wrongly typed field does.
  if (err && !(stored && typeError(stored, info, schema)?.message === err.message)) throw apierrors.cannotBeHandled(info.kind, info.version, err.message);
  // Go decodes null into the zero value: a struct field's the API serves by leaving it out, a
  // string map value's or list item's as "" (`data: {a: }` in YAML stores a="").
  if (!opts.keepNulls) decodeNullsOf(obj, schema);
  normalizeTimes(obj, schema, info.kind);
  const unknown = unknownFieldsOf(obj, schema);
  if (ctx.fieldValidation === 'Ignore') return;
  const before = stored && unknown.length ? new Set(unknownFieldsOf(structuredClone(stored), schema)) : undefined;
  reportUnknownFields(before ? unknown.filter((f) => !before.has(f)) : unknown, info.kind, info.version, ctx);
}

/** The first value of `obj` its kind's Go type cannot hold, or undefined. */
function typeError(obj: KubeObject, info: DecodedKind, schema: JSONSchemaProps): DecodeError | undefined {
  const { metadata, ...rest } = obj;
  let err = decodeError(metadata, objectMetaSchema as JSONSchemaProps, `${info.kind}.metadata`) ?? decodeError(rest, schema, info.kind);
  forEachCRDSchema(obj, (node, path) => void (err ??= jsonSchemaPropsWalk(node, path, path.replace(/\[\d+\]/g, ''), [], false)));
  return err;
}

/**
 * A custom resource's `metadata` as ObjectMeta: refuses a value of the wrong type (one the stored
 * object already had the same way excepted), drops unknown fields and queues them for the
 * schema's report (`unknown field "metadata.foo"`), except those the stored object already had.
 * @throws StatusError 400 BadRequest for a value ObjectMeta cannot hold
 */
function decodeCustomResourceMetadata(obj: KubeObject, info: DecodedKind, ctx: StrategyContext, stored?: KubeObject): void {
  const m = obj.metadata as unknown;
  if (!isJSONObject(m)) return;
  const metaSchema = objectMetaSchema as JSONSchemaProps;
  const err = decodeError(m, metaSchema, `${info.kind}.metadata`);
  if (err && !(stored && decodeError(stored.metadata, metaSchema, `${info.kind}.metadata`)?.message === err.message)) throw apierrors.cannotBeHandled(info.kind, info.version, err.message);
  const unknown = prune(m, metaSchema, false);
  if (!unknown.length || ctx.fieldValidation === 'Ignore') return;
  const before = stored && isJSONObject(stored.metadata) ? new Set(prune(structuredClone(stored.metadata), metaSchema, false)) : undefined;
  const fresh = before ? unknown.filter((f) => !before.has(f)) : unknown;
  if (fresh.length) {
    const strictErrors = (ctx.strictErrors ??= []);
    for (const f of fresh.sort()) strictErrors.push(`unknown field ${JSON.stringify(`metadata.${f}`)}`);
  }
}

/**
 * Go's zero value for a map value or list item of schema `s`, when it is a scalar: `''` for a
 * string (a `[]byte` one included: the empty data), `0`, `false`; undefined for anything else.
 */
function zeroOf(s: JSONSchemaProps | undefined): unknown {
  switch (s?.type) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}

/**
 * Null as Go's decoder leaves it in the typed object, in place, with `s` the schema of `v` (undefined
 * where the type has none: an unknown field, which pruning drops later):
 * - a null struct field is the zero value, which the API serves by leaving the field out: removed;
 * - a null value of a scalar map (labels, annotations, ConfigMap and Secret data) or item of a
 *   scalar list (finalizers) is stored as that zero value: `labels: {team: }` in a YAML manifest
 *   (JSON `null`) is the label `team=""`, as kube-apiserver stores it, never a key lost;
 * - any other null (an object or list value of a map, an object list item) is removed from a map
 *   and left in a list, where validation names it.
 * @see https://github.com/Arnavion/k8s-openapi/issues/114 (a ConfigMap's `data: {nulldata: null}` read back as `""`)
 */
function decodeNulls(v: unknown, s: JSONSchemaProps | undefined): void {
  if (Array.isArray(v)) {
    const items = s?.items && !Array.isArray(s.items) ? s.items : undefined;
    const zero = zeroOf(items);
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x === null) {
        if (zero !== undefined) v[i] = zero;
      } else if (typeof x === 'object') decodeNulls(x, items);
    }
    return;
  }
  if (!v || typeof v !== 'object') return;
  const o = v as Record<string, unknown>;
  const ap = s && typeof s.additionalProperties === 'object' && s.additionalProperties ? s.additionalProperties : undefined;
  for (const k of Object.keys(o)) {
    const ps = s?.properties?.[k];
    const x = o[k];
    if (x === null) {
      const zero = ps ? undefined : zeroOf(ap);
      if (zero === undefined) delete o[k];
      else o[k] = zero;
    } else if (typeof x === 'object') decodeNulls(x, ps ?? ap);
  }
}

/** {@link decodeNulls} of a built-in object: its `metadata` as ObjectMeta, the rest with the kind's schema. */
function decodeNullsOf(obj: KubeObject, schema: JSONSchemaProps): void {
  for (const k of Object.keys(obj)) {
    const x = (obj as Record<string, unknown>)[k];
    if (x === null) delete (obj as Record<string, unknown>)[k];
    else if (typeof x === 'object') decodeNulls(x, k === 'metadata' ? (objectMetaSchema as JSONSchemaProps) : schema.properties?.[k]);
  }
}

/** Drops, in place, the fields of `obj` (ObjectMeta included) its kind does not have; returns their paths, sorted. */
function unknownFieldsOf(obj: KubeObject, schema: JSONSchemaProps): string[] {
  const out = prune(obj, schema, true);
  if (obj.metadata && typeof obj.metadata === 'object') for (const f of prune(obj.metadata, objectMetaSchema, false)) out.push(`metadata.${f}`);
  forEachCRDSchema(obj, (node, path) => void jsonSchemaPropsWalk(node, path, path, out, true));
  return out.sort();
}

/** Calls `fn` with each `spec.versions[i].schema.openAPIV3Schema` of a CustomResourceDefinition (any other object: none). */
function forEachCRDSchema(obj: KubeObject, fn: (schema: unknown, path: string) => void): void {
  if (obj.kind !== 'CustomResourceDefinition') return;
  const versions = (obj.spec as { versions?: unknown } | undefined)?.versions;
  if (!Array.isArray(versions)) return;
  versions.forEach((v, i) => {
    const schema = (v as { schema?: { openAPIV3Schema?: unknown } } | null)?.schema?.openAPIV3Schema;
    if (schema !== undefined && schema !== null) fn(schema, `spec.versions[${i}].schema.openAPIV3Schema`);
  });
}

/**
 * The keywords of apiextensions/v1 JSONSchemaProps and the JSON they decode from. `schema`: a
 * JSONSchemaProps; `schemas`: a list of them; `schemaMap`: a map of them; `schemaOrBool`,
 * `schemaOrArray`, `schemaOrStrings`: Go's union types; `any`: free JSON (default, example).
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apis/apiextensions/v1/types_jsonschema.go
 */
const jsonSchemaKeywords: Record<string, string> = {
  id: 'string', $schema: 'string', $ref: 'string', description: 'string', type: 'string', format: 'string', title: 'string',
  default: 'any', example: 'any', enum: 'list',
  maximum: 'number', exclusiveMaximum: 'bool', minimum: 'number', exclusiveMinimum: 'bool', multipleOf: 'number',
  maxLength: 'int64', minLength: 'int64', pattern: 'string', maxItems: 'int64', minItems: 'int64', uniqueItems: 'bool',
  maxProperties: 'int64', minProperties: 'int64', required: 'strings',
  items: 'schemaOrArray', allOf: 'schemas', oneOf: 'schemas', anyOf: 'schemas', not: 'schema',
  properties: 'schemaMap', additionalProperties: 'schemaOrBool', patternProperties: 'schemaMap',
  dependencies: 'schemaOrStringsMap', additionalItems: 'schemaOrBool', definitions: 'schemaMap',
  externalDocs: 'externalDocs', nullable: 'bool',
  'x-kubernetes-preserve-unknown-fields': 'bool', 'x-kubernetes-embedded-resource': 'bool', 'x-kubernetes-int-or-string': 'bool',
  'x-kubernetes-list-map-keys': 'strings', 'x-kubernetes-list-type': 'string', 'x-kubernetes-map-type': 'string',
  'x-kubernetes-validations': 'rules',
};
const ruleFields: Record<string, string> = { rule: 'string', message: 'string', messageExpression: 'string', reason: 'string', fieldPath: 'string', optionalOldSelf: 'bool' };
const externalDocsFields: Record<string, string> = { description: 'string', url: 'string' };

/**
 * Decodes one JSONSchemaProps node of a CRD's schema, as Go decodes it into the struct: the first
 * keyword of the wrong JSON type is returned as a decode error; unknown keywords are dropped (when
 * `drop`) and their paths (`…openAPIV3Schema.properties[spec].properties[color].maxLenght`, upstream's
 * form) added to `unknown`. `goPath` is the struct-field path Go's errors name.
 */
function jsonSchemaPropsWalk(node: unknown, path: string, goPath: string, unknown: string[], drop: boolean): DecodeError | undefined {
  if (node === null || node === undefined) return undefined;
  const field = `CustomResourceDefinition.${goPath}`;
  if (!isJSONObject(node)) return { field, message: `json: cannot unmarshal ${jsonTypeOf(node)} into Go struct field ${field} of type v1.JSONSchemaProps` };
  for (const k of Object.keys(node)) {
    const kind = jsonSchemaKeywords[k];
    const v = node[k];
    const at = `${path}.${k}`;
    const go = `${field}.${k}`;
    if (!kind) {
      unknown.push(at);
      if (drop) delete node[k];
      continue;
    }
    const err = keywordError(kind, v, at, `${goPath}.${k}`, go, unknown, drop);
    if (err) return err;
  }
  return undefined;
}

function keywordError(kind: string, v: unknown, at: string, goPath: string, go: string, unknown: string[], drop: boolean): DecodeError | undefined {
  if (v === null || v === undefined) return undefined;
  const cannot = (goType: string): DecodeError => ({ field: go, message: `json: cannot unmarshal ${jsonTypeOf(v)} into Go struct field ${go} of type ${goType}` });
  const walk = (x: unknown, p: string) => jsonSchemaPropsWalk(x, p, goPath, unknown, drop);
  switch (kind) {
    case 'string':
      return typeof v === 'string' ? undefined : cannot('string');
    case 'bool':
      return typeof v === 'boolean' ? undefined : cannot('bool');
    case 'number':
      return typeof v === 'number' ? undefined : cannot('float64');
    case 'int64':
      return typeof v === 'number' && Number.isInteger(v) ? undefined : cannot('int64');
    case 'any':
      return undefined;
    case 'list':
      return Array.isArray(v) ? undefined : cannot('[]v1.JSON');
    case 'strings':
      return Array.isArray(v) && v.every((x) => typeof x === 'string') ? undefined : cannot('[]string');
    case 'schema':
      return walk(v, at);
    case 'schemas': {
      if (!Array.isArray(v)) return cannot('[]v1.JSONSchemaProps');
      for (let i = 0; i < v.length; i++) {
        const e = walk(v[i], `${at}[${i}]`);
        if (e) return e;
      }
      return undefined;
    }
    case 'schemaOrArray':
      return Array.isArray(v) ? keywordError('schemas', v, at, goPath, go, unknown, drop) : walk(v, at);
    case 'schemaOrBool':
      return typeof v === 'boolean' ? undefined : walk(v, at);
    case 'schemaMap':
    case 'schemaOrStringsMap': {
      if (!isJSONObject(v)) return cannot('map[string]v1.JSONSchemaProps');
      for (const [name, x] of Object.entries(v)) {
        const e = kind === 'schemaOrStringsMap' && Array.isArray(x) ? keywordError('strings', x, `${at}[${name}]`, goPath, go, unknown, drop) : walk(x, `${at}[${name}]`);
        if (e) return e;
      }
      return undefined;
    }
    case 'externalDocs':
      return fieldsError(v, externalDocsFields, at, go, unknown, drop, 'v1.ExternalDocumentation');
    case 'rules': {
      if (!Array.isArray(v)) return cannot('v1.ValidationRules');
      for (let i = 0; i < v.length; i++) {
        const e = fieldsError(v[i], ruleFields, `${at}[${i}]`, go, unknown, drop, 'v1.ValidationRule');
        if (e) return e;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** A small struct of scalar fields (a ValidationRule, ExternalDocumentation). */
function fieldsError(v: unknown, fields: Record<string, string>, at: string, go: string, unknown: string[], drop: boolean, goType: string): DecodeError | undefined {
  if (v === null || v === undefined) return undefined;
  if (!isJSONObject(v)) return { field: go, message: `json: cannot unmarshal ${jsonTypeOf(v)} into Go struct field ${go} of type ${goType}` };
  for (const k of Object.keys(v)) {
    const kind = fields[k];
    if (!kind) {
      unknown.push(`${at}.${k}`);
      if (drop) delete v[k];
      continue;
    }
    const e = keywordError(kind, v[k], `${at}.${k}`, '', `${go}.${k}`, unknown, drop);
    if (e) return e;
  }
  return undefined;
}

/**
 * A time as the Go type re-encodes it: in UTC, metav1.Time to whole seconds (RFC 3339, the
 * fraction dropped), MicroTime with six fractional digits (RFC3339Micro). Undefined for a value
 * that is not a parseable RFC 3339 time (left as it is).
 * @example canonicalTime('2024-01-01T02:00:00.5+02:00', false) === '2024-01-01T00:00:00Z'
 */
export function canonicalTime(v: string, micro: boolean): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/.exec(v);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]!.toUpperCase()}${m[3]!.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  const seconds = new Date(ms).toISOString().slice(0, 19);
  return micro ? `${seconds}.${(m[2] ?? '').slice(0, 6).padEnd(6, '0')}Z` : `${seconds}Z`;
}

/** Rewrites, in place, the `date-time` fields of a built-in object (not its metadata) to {@link canonicalTime}. */
function normalizeTimes(obj: KubeObject, schema: JSONSchemaProps, kind: string): void {
  const walk = (v: unknown, s: JSONSchemaProps, field: string): unknown => {
    if (typeof v === 'string') {
      if (s.format !== 'date-time' || v === '') return v;
      return canonicalTime(v, microTimeFields.has(field)) ?? v;
    }
    if (!isJSONObject(v) || !s.properties) return v;
    for (const [k, ps] of Object.entries(s.properties)) {
      if (k === 'metadata' || !Object.hasOwn(v, k)) continue;
      const next = walk(v[k], ps, `${field}.${k}`);
      if (next !== v[k]) v[k] = next;
    }
    return v;
  };
  walk(obj, schema, kind);
}
