/**
 * Field manager names: the `fieldManager` parameter's validation, and the name kube-apiserver
 * records when a write names none (the User-Agent's product token, e.g. `kubectl`).
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/rest.go (managerOrUserAgent)
 */
import type { FieldError } from '../../apierrors/field.js';
import * as field from '../../apierrors/field.js';

/** Longest accepted `fieldManager`, in bytes. */
export const FieldManagerMaxLength = 128;

/**
 * The manager name kube-apiserver derives from a User-Agent when a request names none: the part
 * before the first `/`, printable characters only, at most 128 bytes (`kubectl/v1.35.0 (linux/amd64)`
 * → `kubectl`).
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/rest.go (prefixFromUserAgent)
 */
export function prefixFromUserAgent(userAgent: string): string {
  const head = userAgent.split('/')[0] ?? '';
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!isPrint(ch)) continue;
    const n = Buffer.byteLength(ch);
    if (bytes + n > FieldManagerMaxLength) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** The manager of a non-apply write: `fieldManager` when given, else derived from the User-Agent. */
export const managerOrUserAgent = (fieldManager: string, userAgent: string): string => fieldManager || prefixFromUserAgent(userAgent);

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const isPrint = (ch: string): boolean => printable.test(ch);

/**
 * Validates a `fieldManager` query parameter: at most 128 bytes of printable characters.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/validation/validation.go (ValidateFieldManager)
 */
export function validateFieldManager(fieldManager: string, fieldPath = 'fieldManager'): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > FieldManagerMaxLength) errs.push(field.tooLong(fieldPath, fieldManager, FieldManagerMaxLength));
  let pos = 0;
  for (const ch of fieldManager) {
    if (!isPrint(ch)) {
      const cp = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(field.invalid(fieldPath, fieldManager, `invalid character U+${cp} (at position ${pos})`));
    }
    pos += Buffer.byteLength(ch);
  }
  return errs;
}
