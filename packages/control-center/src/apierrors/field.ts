/**
 * Field paths and field errors, after k8s.io/apimachinery/pkg/util/validation/field.
 * A FieldError becomes one entry of `Status.details.causes` (`reason`, `message`, `field`).
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/util/validation/field/errors.go
 */

/** A field path such as `spec.platform.type` or `spec.config[0].name`. */
export type FieldPath = string;

/**
 * Builds a field path from segments: strings are keys, numbers are list indexes.
 * @example path('spec', 'config', 0, 'name') === 'spec.config[0].name'
 */
export function path(...segments: (string | number)[]): FieldPath {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (out === '') out = s;
    else out += `.${s}`;
  }
  return out;
}

/** Appends segments to an existing path. */
export function child(base: FieldPath, ...segments: (string | number)[]): FieldPath {
  const tail = path(...segments);
  if (!base) return tail;
  if (tail.startsWith('[')) return base + tail;
  return `${base}.${tail}`;
}

/** The `type` of a field error; also the Status cause `reason` (`FieldValueRequired`, ...). */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'FieldValueUnknown';

/** One problem with one field. */
export interface FieldError {
  type: FieldErrorType;
  field: FieldPath;
  /** The offending value, when there is one (rendered into the message). */
  badValue?: unknown;
  /** Detail after the standard prefix, e.g. `must be greater than or equal to 0`. */
  detail?: string;
}

const typeText: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueUnknown: 'Unknown field',
};

/** field.Required: the value is missing (`FieldValueRequired`). */
export const required = (field: FieldPath, detail?: string): FieldError => ({ type: 'FieldValueRequired', field, detail });
/** field.Invalid: `badValue` is not allowed (`FieldValueInvalid`). */
export const invalid = (field: FieldPath, badValue: unknown, detail?: string): FieldError => ({ type: 'FieldValueInvalid', field, badValue, detail });
/** field.TypeInvalid: `badValue` has the wrong type (`FieldValueTypeInvalid`). */
export const typeInvalid = (field: FieldPath, badValue: unknown, detail?: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, badValue, detail });
/** field.NotSupported: `badValue` is none of `valid`, which the detail lists (`FieldValueNotSupported`). */
export const notSupported = (field: FieldPath, badValue: unknown, valid: unknown[]): FieldError => ({
  type: 'FieldValueNotSupported',
  field,
  badValue,
  detail: valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : undefined,
});
/** field.Forbidden: the field may not be set or changed like this (`FieldValueForbidden`). */
export const forbidden = (field: FieldPath, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail });
/** field.Duplicate: `badValue` occurs more than once (`FieldValueDuplicate`). */
export const duplicate = (field: FieldPath, badValue: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, badValue });
/** field.TooLong: `badValue` is longer than `max` bytes (`FieldValueTooLong`). */
export const tooLong = (field: FieldPath, badValue: unknown, max: number): FieldError => ({
  type: 'FieldValueTooLong', field, badValue, detail: `may not be more than ${max} bytes`,
});
/** field.TooMany: `actual` items, more than `max` (`FieldValueTooMany`). */
export const tooMany = (field: FieldPath, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany', field, badValue: actual, detail: `must have at most ${max} items`,
});
/** A field the schema does not declare (`FieldValueUnknown`), worded as strict decoding does: `unknown field "<path>"`. */
export const unknownField = (field: FieldPath): FieldError => ({ type: 'FieldValueUnknown', field, detail: `unknown field "${field}"` });

/**
 * Renders a bad value as apimachinery does: strings quoted, other scalars bare, objects as JSON,
 * and a bigint as Go prints an unsigned integer with `%#v` (`0x0`: a resourceVersion is a uint64).
 */
function renderValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `0x${v.toString(16)}`;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * The error text apimachinery prints: `spec.capacity: Invalid value: -1: must be greater than or equal to 0`.
 */
export function fieldErrorMessage(e: FieldError): string {
  if (e.type === 'FieldValueUnknown') return `${e.detail ?? `unknown field "${e.field}"`}`;
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * The message without the field path, as apimachinery's `ErrorBody()` (what Status causes carry:
 * kubectl prints `<field>: <body>`): `Invalid value: -1: must be greater than or equal to 0`.
 */
export function fieldErrorBody(e: FieldError): string {
  if (e.type === 'FieldValueUnknown') return `${e.detail ?? `unknown field "${e.field}"`}`;
  let s = `${typeText[e.type]}`;
  const showValue = e.type === 'FieldValueInvalid' || e.type === 'FieldValueTypeInvalid' || e.type === 'FieldValueNotSupported' || e.type === 'FieldValueDuplicate' || e.type === 'FieldValueTooMany';
  if (showValue && e.badValue !== undefined) s += `: ${renderValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}
