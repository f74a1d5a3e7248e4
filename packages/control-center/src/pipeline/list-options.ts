/**
 * Validation of the query parameters of a LIST or WATCH (`resourceVersion`,
 * `resourceVersionMatch`, `sendInitialEvents`, `continue`), rule for rule as kube-apiserver's
 * ValidateListOptions with the WatchList feature enabled (the default since Kubernetes 1.32).
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/internalversion/validation/validation.go
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#semantics-for-get-and-list
 */
import * as apierrors from '../apierrors/status.js';
import * as field from '../apierrors/field.js';
import { queryBool } from './request-info.js';

/** A resourceVersion is a uint64 in kube-apiserver; a larger number does not parse. */
const MaxUint64 = 2n ** 64n - 1n;

/** How a LIST's resourceVersion is to be read (metav1.ResourceVersionMatch). */
export type ResourceVersionMatch = '' | 'Exact' | 'NotOlderThan';

/** The list options a LIST or WATCH handler acts on, after validation. */
export interface ListOptions {
  /** `resourceVersion` as sent ('' when absent). */
  resourceVersion: string;
  /** `resourceVersionMatch` as sent ('' when absent). */
  resourceVersionMatch: ResourceVersionMatch;
  /** `sendInitialEvents`: undefined when absent (it is a tri-state upstream). */
  sendInitialEvents: boolean | undefined;
  /** `continue` ('' when absent). */
  continueToken: string;
  /** `timeoutSeconds`, in seconds: undefined when absent; 0 means the default, as absent does. */
  timeoutSeconds: number | undefined;
  /** `limit`, a count of items: the most a LIST page holds; 0 (absent, 0 or negative) for no limit. A WATCH ignores it. */
  limit: number;
}

/** The largest int64 (what strconv.ParseInt takes for `limit` and `timeoutSeconds`). */
const MaxInt64 = 2n ** 63n - 1n;

/**
 * Parses an int64 query parameter (`limit`, `timeoutSeconds`, a DELETE's `gracePeriodSeconds`)
 * as apimachinery's parameter codec decodes it
 * (`Convert_Slice_string_To_int64`: the first value, strconv.ParseInt in base 10, so an optional
 * sign and decimal digits: no exponent, fraction or hex, and within int64).
 * @param name - the parameter's name, for the message
 * @param v - the parsed query value (a string, or an array when repeated)
 * @returns the number, or undefined when absent; `-0` is 0
 * @throws StatusError 400 BadRequest `<name>: Invalid value: "x": strconv.ParseInt: parsing "x": invalid syntax`
 *   (or `value out of range`)
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/runtime/conversion.go
 */
export function parseInt64Query(name: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const raw = firstQueryValue(v);
  const why = !/^[+-]?\d+$/.test(raw) ? 'invalid syntax' : BigInt(raw) > MaxInt64 || BigInt(raw) < -MaxInt64 - 1n ? 'value out of range' : '';
  if (why) throw apierrors.badRequest(`${name}: Invalid value: ${JSON.stringify(raw)}: strconv.ParseInt: parsing ${JSON.stringify(raw)}: ${why}`);
  const n = Number(raw);
  return n === 0 ? 0 : n;
}

/**
 * Parses `timeoutSeconds` as an int64 (parseInt64Query), for LISTs and WATCHes alike. A negative
 * one, which would end a watch before it starts, is refused too.
 * @throws StatusError 400 BadRequest otherwise
 */
function parseTimeoutSeconds(v: unknown): number | undefined {
  const n = parseInt64Query('timeoutSeconds', v);
  if (n !== undefined && n < 0) throw apierrors.badRequest(`timeoutSeconds: Invalid value: ${JSON.stringify(firstQueryValue(v))}: must be greater than or equal to 0`);
  return n;
}

/**
 * Parses `limit` as an int64 (parseInt64Query). As in kube-apiserver's storage, which pages only
 * when the limit is above 0, 0 or a negative limit means no limit.
 * @returns the most items a page holds; 0 for no limit
 * @throws StatusError 400 BadRequest for a limit that is not an int64
 */
function parseLimit(v: unknown): number {
  const n = parseInt64Query('limit', v) ?? 0;
  return n > 0 ? n : 0;
}

/**
 * A query parameter's value as apimachinery's parameter codec reads it into a string field: the
 * first value when the parameter is repeated (`Convert_Slice_string_To_string`), '' when absent.
 * So `?labelSelector=a&labelSelector=b` selects by `a`, never by nothing.
 */
export function firstQueryValue(v: unknown): string {
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined || first === null ? '' : String(first);
}

/**
 * Checks a `resourceVersion` query parameter is '' or a uint64, as the storage versioner parses
 * it (strconv.ParseUint).
 * @throws StatusError 400 `invalid resource version: strconv.ParseUint: parsing "x": invalid syntax`
 *   (or `value out of range`)
 */
export function checkResourceVersionSyntax(rv: string): void {
  if (rv !== '' && !/^\d+$/.test(rv)) {
    throw apierrors.badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  }
  if (rv !== '' && BigInt(rv) > MaxUint64) {
    throw apierrors.badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rv)}: value out of range`);
  }
}

/** A query boolean as apimachinery converts it to *bool: absent is undefined; `0` or `false` (any case) is false; anything else true. */
function optionalBool(v: unknown): boolean | undefined {
  return v === undefined ? undefined : queryBool(v);
}

/**
 * Reads and validates the list options of a request.
 * @param query - the parsed query string
 * @param watch - true for a WATCH (`?watch=true` or a /watch/ path), false for a LIST
 * @returns the options
 * @throws StatusError 422 Invalid (`ListOptions.meta.k8s.io "" is invalid: ...`, one cause per
 *   rule broken) for a forbidden combination; 400 BadRequest for a resourceVersion that is not an
 *   unsigned integer, or one given together with a continue token on a LIST, or for a `limit` or
 *   `timeoutSeconds` that is not an int64
 */
export function listOptions(query: Record<string, unknown>, watch: boolean): ListOptions {
  const opts: ListOptions = {
    resourceVersion: firstQueryValue(query.resourceVersion),
    resourceVersionMatch: firstQueryValue(query.resourceVersionMatch) as ResourceVersionMatch,
    sendInitialEvents: optionalBool(query.sendInitialEvents),
    continueToken: firstQueryValue(query.continue),
    timeoutSeconds: parseTimeoutSeconds(query.timeoutSeconds),
    limit: parseLimit(query.limit),
  };
  const match = opts.resourceVersionMatch;
  const errs: field.FieldError[] = [];
  const rvm = 'resourceVersionMatch';
  if (watch) {
    if (opts.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      errs.push(field.forbidden(rvm, 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match) {
      if (opts.sendInitialEvents === undefined) errs.push(field.forbidden(rvm, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') errs.push(field.notSupported(rvm, match, ['NotOlderThan']));
      if (opts.continueToken) errs.push(field.forbidden(rvm, 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match) {
      if (!opts.resourceVersion) errs.push(field.forbidden(rvm, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (opts.continueToken) errs.push(field.forbidden(rvm, 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(field.notSupported(rvm, match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && opts.resourceVersion === '0') errs.push(field.forbidden(rvm, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (opts.sendInitialEvents !== undefined) errs.push(field.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (errs.length) throw apierrors.invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
  checkResourceVersionSyntax(opts.resourceVersion);
  if (!watch && opts.continueToken && opts.resourceVersion !== '' && opts.resourceVersion !== '0') {
    throw apierrors.badRequest('specifying resource version is not allowed when using continue');
  }
  return opts;
}
