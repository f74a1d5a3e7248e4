/**
 * Test-only: a small OpenAPI-schema checker with the Kubernetes semantics the CRD tests need: types,
 * enums, required (a property with a `default` counts as present, as the apiserver defaults before it
 * validates), unknown fields (pruning/strict decoding), string lengths and patterns, numeric bounds, item
 * counts; `null` for a non-nullable field counts as absent (the apiserver prunes it). CEL rules are not
 * evaluated; root `metadata` is skipped (ObjectMeta). Messages are worded like apimachinery's. The real validator lives in the control center.
 */
import type { JSONSchemaProps } from '../crds/crd-types.js';

/** Every violation of `schema` by `value`, as `path: message` strings, in document order. */
export function conform(schema: JSONSchemaProps, value: unknown, path = ''): string[] {
  const out: string[] = [];
  check(schema, value, path, out);
  return out;
}

const show = (v: unknown) => JSON.stringify(v);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function check(schema: JSONSchemaProps, value: unknown, path: string, out: string[]): void {
  const at = path || '<root>';
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && !Number.isInteger(value)) out.push(`${at}: Invalid value: ${show(value)}: must be an integer or a string`);
    else if (typeof value === 'string') checkString(schema, value, at, out);
    return;
  }
  const actual = typeOf(value);
  if (schema.type) {
    const ok = schema.type === actual || (schema.type === 'number' && actual === 'integer');
    if (!ok) {
      out.push(`${at}: Invalid value: "${actual}": ${at} in body must be of type ${schema.type}: "${actual}"`);
      return;
    }
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) {
    out.push(`${at}: Unsupported value: ${show(value)}: supported values: ${schema.enum.map(show).join(', ')}`);
  }
  if (typeof value === 'string') checkString(schema, value, at, out);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) out.push(`${at}: Invalid value: ${value}: ${at} in body should be greater than or equal to ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) out.push(`${at}: Invalid value: ${value}: ${at} in body should be less than or equal to ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) out.push(`${at}: Invalid value: ${value.length}: ${at} in body should have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push(`${at}: Too many: ${value.length}: must have at most ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, i) => check(schema.items!, item, `${path}[${i}]`, out));
  }
  if (isObject(value)) checkObject(schema, value, path, out);
}

function checkString(schema: JSONSchemaProps, value: string, at: string, out: string[]): void {
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength) out.push(`${at}: Invalid value: ${show(value)}: ${at} in body should be at least ${schema.minLength} chars long`);
  if (schema.maxLength !== undefined && length > schema.maxLength) out.push(`${at}: Too long: may not be longer than ${schema.maxLength}`);
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) out.push(`${at}: Invalid value: ${show(value)}: ${at} in body should match '${schema.pattern}'`);
}

function checkObject(schema: JSONSchemaProps, value: Record<string, unknown>, path: string, out: string[]): void {
  const join = (key: string) => (path ? `${path}.${key}` : key);
  const present = (key: string) => value[key] !== undefined && (value[key] !== null || schema.properties?.[key]?.nullable === true);
  for (const key of schema.required ?? []) {
    if (!present(key) && schema.properties?.[key]?.default === undefined) out.push(`${join(key)}: Required value`);
  }
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) out.push(`${path}: Too many: ${count}: must have at most ${schema.maxProperties} items`);
  for (const [key, child] of Object.entries(value)) {
    if (path === '' && key === 'metadata') continue; // ObjectMeta is validated by the apiserver itself, not the schema
    const declared = schema.properties?.[key] ?? schema.additionalProperties;
    if (!declared) {
      if (!schema['x-kubernetes-preserve-unknown-fields']) out.push(`unknown field "${join(key)}"`);
      continue;
    }
    if (child === null && !declared.nullable) continue; // pruned by the apiserver
    check(declared, child, join(key), out);
  }
}
