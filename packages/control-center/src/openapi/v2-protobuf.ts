/**
 * Encodes a Swagger 2.0 document (the JSON shape `/openapi/v2` serves) as a gnostic
 * `openapi.v2.Document` protobuf, the form kubectl and client-go ask for with
 * `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`. kubectl before 1.27
 * reads only this form: `kubectl explain`, client-side validation and the dry-run check of
 * `kubectl diff` and `apply --server-dry-run` all come from it.
 *
 * Only the messages and fields hcc's documents use are declared below; their field numbers are
 * gnostic's, so the bytes decode with the full schema. Values gnostic keeps as YAML (`Any.yaml`:
 * defaults, enums, examples, `x-` vendor extensions) are written as JSON, which YAML parsers read.
 * What is not guaranteed: Swagger features hcc never emits (security, `$ref` parameters, file
 * schemas, headers) are not encoded.
 * @see https://github.com/google/gnostic/blob/main/openapiv2/OpenAPIv2.proto
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/util/proto/document.go
 */
import protobuf from 'protobufjs';
import { isJSONObject } from '@hcc/crds';

const proto = `
syntax = "proto3";
package openapi.v2;
message Any { string yaml = 2; }
message NamedAny { string name = 1; Any value = 2; }
message Info { string title = 1; string version = 2; string description = 3; repeated NamedAny vendor_extension = 7; }
message TypeItem { repeated string value = 1; }
message ItemsItem { repeated Schema schema = 1; }
message NamedSchema { string name = 1; Schema value = 2; }
message Properties { repeated NamedSchema additional_properties = 1; }
message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message ExternalDocs { string description = 1; string url = 2; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5;
  double multiple_of = 6; double maximum = 7; bool exclusive_maximum = 8; double minimum = 9; bool exclusive_minimum = 10;
  int64 max_length = 11; int64 min_length = 12; string pattern = 13; int64 max_items = 14; int64 min_items = 15;
  bool unique_items = 16; int64 max_properties = 17; int64 min_properties = 18; repeated string required = 19;
  repeated Any enum = 20; AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23;
  repeated Schema all_of = 24; Properties properties = 25; string discriminator = 26; bool read_only = 27;
  ExternalDocs external_docs = 29; Any example = 30; repeated NamedAny vendor_extension = 31;
}
message BodyParameter { string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; repeated NamedAny vendor_extension = 6; }
message QueryParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 6; string format = 7; bool unique_items = 20; repeated NamedAny vendor_extension = 23; }
message PathParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; string format = 6; bool unique_items = 19; repeated NamedAny vendor_extension = 22; }
message HeaderParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; string format = 6; bool unique_items = 19; repeated NamedAny vendor_extension = 22; }
message NonBodyParameter { oneof oneof { HeaderParameterSubSchema header_parameter_sub_schema = 1; QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; } }
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message JsonReference { string _ref = 1; string description = 2; }
message ParametersItem { oneof oneof { Parameter parameter = 1; JsonReference json_reference = 2; } }
message SchemaItem { oneof oneof { Schema schema = 1; } }
message Response { string description = 1; SchemaItem schema = 2; repeated NamedAny vendor_extension = 5; }
message ResponseValue { oneof oneof { Response response = 1; JsonReference json_reference = 2; } }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message Responses { repeated NamedResponseValue response_code = 1; repeated NamedAny vendor_extension = 2; }
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5;
  repeated string produces = 6; repeated string consumes = 7; repeated ParametersItem parameters = 8; Responses responses = 9;
  repeated string schemes = 10; bool deprecated = 11; repeated NamedAny vendor_extension = 13;
}
message PathItem {
  string _ref = 1; Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5; Operation options = 6;
  Operation head = 7; Operation patch = 8; repeated ParametersItem parameters = 9; repeated NamedAny vendor_extension = 10;
}
message NamedPathItem { string name = 1; PathItem value = 2; }
message Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
message Definitions { repeated NamedSchema additional_properties = 1; }
message Document {
  string swagger = 1; Info info = 2; string host = 3; string base_path = 4; repeated string schemes = 5;
  repeated string consumes = 6; repeated string produces = 7; Paths paths = 8; Definitions definitions = 9;
  repeated NamedAny vendor_extension = 16;
}
`;

const root = protobuf.parse(proto, { keepCase: true }).root;
const DocumentType = root.lookupType('openapi.v2.Document');

/** The `Accept`/`Content-Type` media type of the protobuf form (client-go spells it with `@`, newer clients with `.`). */
export const OpenAPIV2ProtobufMediaType = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

type JSONObject = Record<string, unknown>;
type Message = Record<string, unknown>;

const anyOf = (v: unknown) => ({ yaml: JSON.stringify(v) });

/** `x-` keys of a JSON object as gnostic `NamedAny` vendor extensions. */
function vendorExtensions(o: JSONObject): Message[] {
  return Object.entries(o)
    .filter(([k, v]) => k.startsWith('x-') && v !== undefined)
    .map(([name, v]) => ({ name, value: anyOf(v) }));
}

/** Copies the keys present in `o` from `fields` (JSON name → proto name). */
function pick(o: JSONObject, fields: Record<string, string>): Message {
  const out: Message = {};
  for (const [json, pb] of Object.entries(fields)) if (o[json] !== undefined && o[json] !== null) out[pb] = o[json];
  return out;
}

const schemaScalars = {
  $ref: '_ref', format: 'format', title: 'title', description: 'description', multipleOf: 'multiple_of', maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum', minimum: 'minimum', exclusiveMinimum: 'exclusive_minimum', maxLength: 'max_length',
  minLength: 'min_length', pattern: 'pattern', maxItems: 'max_items', minItems: 'min_items', uniqueItems: 'unique_items',
  maxProperties: 'max_properties', minProperties: 'min_properties', required: 'required', discriminator: 'discriminator', readOnly: 'read_only',
};

/** A JSON Schema object (Swagger 2.0 flavour) as a gnostic `Schema` message. */
export function toSchemaMessage(s: JSONObject): Message {
  const m = pick(s, schemaScalars);
  if (s.default !== undefined) m.default = anyOf(s.default);
  if (s.example !== undefined) m.example = anyOf(s.example);
  if (Array.isArray(s.enum)) m.enum = s.enum.map(anyOf);
  if (s.type !== undefined) m.type = { value: Array.isArray(s.type) ? s.type : [s.type] };
  if (Array.isArray(s.items)) m.items = { schema: s.items.filter(isJSONObject).map(toSchemaMessage) };
  else if (isJSONObject(s.items)) m.items = { schema: [toSchemaMessage(s.items)] };
  if (typeof s.additionalProperties === 'boolean') m.additional_properties = { boolean: s.additionalProperties };
  else if (isJSONObject(s.additionalProperties)) m.additional_properties = { schema: toSchemaMessage(s.additionalProperties) };
  if (Array.isArray(s.allOf)) m.all_of = s.allOf.filter(isJSONObject).map(toSchemaMessage);
  if (isJSONObject(s.properties)) {
    m.properties = { additional_properties: Object.entries(s.properties).filter(([, v]) => isJSONObject(v)).map(([name, v]) => ({ name, value: toSchemaMessage(v as JSONObject) })) };
  }
  if (isJSONObject(s.externalDocs)) m.external_docs = pick(s.externalDocs, { description: 'description', url: 'url' });
  const ext = vendorExtensions(s);
  if (ext.length) m.vendor_extension = ext;
  return m;
}

/** A Swagger parameter as a gnostic `ParametersItem` (body, query, path or header). */
function toParameterMessage(p: JSONObject): Message {
  if (typeof p.$ref === 'string') return { json_reference: { _ref: p.$ref } };
  const base = { ...pick(p, { required: 'required', in: 'in', description: 'description', name: 'name' }), vendor_extension: vendorExtensions(p) };
  if (p.in === 'body') return { parameter: { body_parameter: { ...base, ...(isJSONObject(p.schema) ? { schema: toSchemaMessage(p.schema) } : {}) } } };
  const sub = { ...base, ...pick(p, { type: 'type', format: 'format', uniqueItems: 'unique_items' }) };
  const which = p.in === 'path' ? 'path_parameter_sub_schema' : p.in === 'header' ? 'header_parameter_sub_schema' : 'query_parameter_sub_schema';
  return { parameter: { non_body_parameter: { [which]: sub } } };
}

function toOperationMessage(op: JSONObject): Message {
  const m = pick(op, { tags: 'tags', summary: 'summary', description: 'description', operationId: 'operation_id', produces: 'produces', consumes: 'consumes', schemes: 'schemes', deprecated: 'deprecated' });
  if (Array.isArray(op.parameters)) m.parameters = op.parameters.filter(isJSONObject).map(toParameterMessage);
  if (isJSONObject(op.responses)) {
    m.responses = {
      response_code: Object.entries(op.responses)
        .filter(([, r]) => isJSONObject(r))
        .map(([name, r]) => {
          const resp = r as JSONObject;
          if (typeof resp.$ref === 'string') return { name, value: { json_reference: { _ref: resp.$ref } } };
          return { name, value: { response: { description: String(resp.description ?? ''), ...(isJSONObject(resp.schema) ? { schema: { schema: toSchemaMessage(resp.schema) } } : {}) } } };
        }),
    };
  }
  const ext = vendorExtensions(op);
  if (ext.length) m.vendor_extension = ext;
  return m;
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/** A Swagger 2.0 document as the bytes of a gnostic `openapi.v2.Document`. */
export function encodeOpenAPIV2(doc: JSONObject): Buffer {
  const msg: Message = pick(doc, { swagger: 'swagger', host: 'host', basePath: 'base_path', schemes: 'schemes', consumes: 'consumes', produces: 'produces' });
  if (isJSONObject(doc.info)) msg.info = pick(doc.info, { title: 'title', version: 'version', description: 'description' });
  if (isJSONObject(doc.paths)) {
    msg.paths = {
      path: Object.entries(doc.paths)
        .filter(([, item]) => isJSONObject(item))
        .map(([name, item]) => {
          const it = item as JSONObject;
          const value: Message = {};
          for (const method of methods) if (isJSONObject(it[method])) value[method] = toOperationMessage(it[method] as JSONObject);
          if (Array.isArray(it.parameters)) value.parameters = it.parameters.filter(isJSONObject).map(toParameterMessage);
          return { name, value };
        }),
    };
  }
  if (isJSONObject(doc.definitions)) {
    msg.definitions = { additional_properties: Object.entries(doc.definitions).filter(([, v]) => isJSONObject(v)).map(([name, v]) => ({ name, value: toSchemaMessage(v as JSONObject) })) };
  }
  const ext = vendorExtensions(doc);
  if (ext.length) msg.vendor_extension = ext;
  // protobufjs stops verify/fromObject at 100 nested messages (protoc's default for decoding);
  // a CRD schema 33 properties deep already passes that, and one such CRD made /openapi/v2 a 500
  // for every kubectl before 1.27. The document is hcc's own, and nested no deeper than the
  // 500-level objects it comes from (a few messages per level), so the limit is lifted while it
  // is encoded, and put back.
  return withDeepMessages(() => {
    const err = DocumentType.verify(msg);
    if (err) throw new Error(`openapi v2 document cannot be encoded: ${err}`);
    return Buffer.from(DocumentType.encode(DocumentType.fromObject(msg)).finish());
  });
}

/** Nesting of messages allowed while hcc encodes (or a test decodes) its own OpenAPI v2 document (see encodeOpenAPIV2). */
const OpenAPIV2RecursionLimit = 10_000;

/** Runs `fn` with protobufjs's recursion limits (encoding and decoding) raised to {@link OpenAPIV2RecursionLimit}, then puts them back. */
function withDeepMessages<T>(fn: () => T): T {
  const limit = protobuf.util.recursionLimit;
  const readerLimit = protobuf.Reader.recursionLimit;
  protobuf.util.recursionLimit = Math.max(limit, OpenAPIV2RecursionLimit);
  protobuf.Reader.recursionLimit = Math.max(readerLimit, OpenAPIV2RecursionLimit);
  try {
    return fn();
  } finally {
    protobuf.util.recursionLimit = limit;
    protobuf.Reader.recursionLimit = readerLimit;
  }
}

/** Decodes gnostic bytes back to plain objects (proto field names); for tests. */
export function decodeOpenAPIV2(bytes: Uint8Array): Message {
  return withDeepMessages(() => DocumentType.toObject(DocumentType.decode(bytes), { longs: Number, defaults: false, arrays: true }) as Message);
}
