/**
 * String formats a CRD schema may name in `format`, checked as kube-apiserver checks them: the
 * go-openapi/strfmt default registry, restricted to the formats apiextensions-apiserver keeps
 * (every other format, e.g. `int32` or `k8s-short-name`, is stripped and never checked upstream).
 * Names are normalised like go-openapi does (`date-time` → `datetime`).
 *
 * Not byte-for-byte Go: `uri` and `email` are approximations of net/url.ParseRequestURI and
 * net/mail.ParseAddress; `duration` accepts Go durations and strfmt's `3 days` forms.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apiserver/validation/formats.go
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/validation/strfmt/default.go
 */
import { isJSONObject, setOwn } from '@hcc/crds';
import { isIP } from 'node:net';

const re = (r: RegExp) => (s: string): boolean => r.test(s);

/** Go net.ParseIP: dotted quad without leading zeros, or IPv6 without a zone. */
function parseIP(s: string): boolean {
  if (s.includes('%')) return false;
  return isIP(s) !== 0;
}

/** Go net.ParseCIDR: `ip/bits` with bits in range for the family. */
function isCIDR(s: string): boolean {
  const i = s.indexOf('/');
  if (i < 0) return false;
  const ip = s.slice(0, i);
  const bits = s.slice(i + 1);
  if (!/^\d{1,3}$/.test(bits) || !parseIP(ip)) return false;
  return Number(bits) <= (isIP(ip) === 4 ? 32 : 128);
}

const macRes = [
  /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/,
  /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){7}$/,
  /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){19}$/,
  /^[0-9a-fA-F]{2}(-[0-9a-fA-F]{2}){5}$/,
  /^[0-9a-fA-F]{2}(-[0-9a-fA-F]{2}){7}$/,
  /^[0-9a-fA-F]{2}(-[0-9a-fA-F]{2}){19}$/,
  /^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4}){2}$/,
  /^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4}){3}$/,
  /^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4}){9}$/,
];

const hostnameRe =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$/u;

/** strfmt.IsHostname: RFC 1034 labels, at most 255 bytes, labels at most 63 bytes. */
function isHostname(s: string): boolean {
  if (!hostnameRe.test(s)) return false;
  if (Buffer.byteLength(s) > 255) return false;
  return s.split('.').every((p) => Buffer.byteLength(p) <= 63);
}

/** Go time.Parse("2006-01-02", s). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  return d <= days;
}

/** strfmt.IsDateTime: a full-date, `t`, then `hh:mm:ss[.frac](z|±hh:mm)` (case-insensitive). */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(parts[1]!);
  if (!m) return false;
  return m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

/** Approximates Go url.ParseRequestURI: an absolute URI (`scheme:...`) or an absolute path. */
function isRequestURI(s: string): boolean {
  if (s === '' || /[\s\x00-\x1f\x7f]/.test(s)) return false;
  if (/%(?![0-9a-fA-F]{2})/.test(s)) return false;
  if (s.startsWith('/')) return true;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(s);
  if (!m) return false;
  const rest = m[2]!;
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split(/[/?#]/)[0]!;
    const host = authority.slice(authority.lastIndexOf('@') + 1);
    if (host.startsWith('[')) return /^\[[0-9a-fA-F:.]+(%[^\]]*)?\](:\d*)?$/.test(host);
    return /^[^:[\]]*(:\d*)?$/.test(host);
  }
  return true;
}

/** Approximates Go mail.ParseAddress: `local@domain`, optionally as `Name <local@domain>`. */
function isEmail(s: string): boolean {
  const addr = /^[^<>]*<([^<>]+)>\s*$/.exec(s)?.[1] ?? s;
  return /^[^\s@<>()[\],;:"\\]+@[^\s@<>()[\],;:"\\]+$/.test(addr.trim()) && !addr.trim().endsWith('.');
}

function isISBN10(s: string): boolean {
  const x = s.replace(/[\s-]/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(x)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(x[i]);
  sum += 10 * (x[9] === 'X' ? 10 : Number(x[9]));
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const x = s.replace(/[\s-]/g, '');
  if (!/^(?:[0-9]{13})$/.test(x)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(x[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(x[12]);
}

function isCreditCard(s: string): boolean {
  const x = s.replace(/[\s-]+/g, '');
  if (!/^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/.test(x)) {
    return false;
  }
  let sum = 0;
  let double = false;
  for (let i = x.length - 1; i >= 0; i--) {
    let d = Number(x[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const goDurationRe = /^[-+]?(\d*(\.\d*)?(ns|us|µs|μs|ms|s|m|h))+$/;
const strfmtDurationRe = /^(-\s?)?\d+\s*(ns|us|ms|s|m|h|d|w|(nano|micro|milli)?sec(ond)?s?|min(ute)?s?|hours?|days?|weeks?)$/;

/** strfmt.ParseDuration: Go `time.ParseDuration` syntax, or `<n> <unit>` such as `3 days`. */
function isDuration(s: string): boolean {
  if (s === '0' || (goDurationRe.test(s) && /\d/.test(s))) return true;
  return strfmtDurationRe.test(s.trim());
}

const byteRe = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
/** Padded standard base64, empty included (what Go's base64.StdEncoding decodes once line breaks are gone). */
const stdBase64Re = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Whether Go's `base64.StdEncoding` decodes `s` (how kube-apiserver's JSON decoder reads `[]byte`
 * fields such as Secret `data` and ConfigMap `binaryData`): padded standard base64, where `\r`
 * and `\n` anywhere are ignored (kustomize and `base64` wrap long values); `""` is empty data.
 * @see https://pkg.go.dev/encoding/base64#Encoding.Decode
 */
export function isStdBase64(s: string): boolean {
  return stdBase64Re.test(withoutLineBreaks(s));
}

/**
 * Where Go's `base64.StdEncoding` stops decoding `s`: the offset it reports in
 * `illegal base64 data at input byte N` (an alphabet-less character, misplaced padding, or the
 * start of a final group cut short), or undefined when `s` decodes (see {@link isStdBase64}).
 * @see https://pkg.go.dev/encoding/base64#CorruptInputError
 */
export function base64ErrorOffset(s: string): number | undefined {
  if (isStdBase64(s)) return undefined;
  const nextNonBreak = (i: number): number => {
    while (i < s.length && (s[i] === '\r' || s[i] === '\n')) i++;
    return i;
  };
  let group = 0; // characters of the current 4-character group read so far (line breaks skipped)
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\r' || c === '\n') continue;
    if (c !== '=') {
      if (!/[A-Za-z0-9+/]/.test(c)) return i;
      group = (group + 1) % 4;
      continue;
    }
    // Padding: "=" may close a group of 3, "==" a group of 2; only line breaks may follow.
    if (group < 2) return i;
    let k = i + 1;
    if (group === 2) {
      k = nextNonBreak(k);
      if (k === s.length) return s.length;
      if (s[k] !== '=') return k - 1;
      k++;
    }
    k = nextNonBreak(k);
    return k < s.length ? k : undefined;
  }
  return s.length - group;
}

/** `s` without `\r` and `\n` (a copy only when it has any). */
const withoutLineBreaks = (s: string): string => (s.includes('\n') || s.includes('\r') ? s.replace(/[\r\n]/g, '') : s);

/**
 * Rewrites, in place, each string value of a map of base64 values (Secret `data`, ConfigMap
 * `binaryData`) as kube-apiserver serves it back after decoding and re-encoding it: without the
 * line breaks Go's decoder ignores, and with the unused bits before the padding zeroed (`YR==`
 * decodes to the byte `a` and is served as `YQ==`). Anything that is not such a map, or not
 * base64, is left for validation to report.
 */
export function canonicalBase64Values(map: unknown): void {
  if (!isJSONObject(map)) return;
  for (const k of Object.keys(map)) {
    const v = map[k];
    if (typeof v !== 'string') continue;
    let w = withoutLineBreaks(v);
    // Only a padded value has unused bits; Buffer's decoder is lenient, so re-encode valid ones only.
    if (w.endsWith('=') && stdBase64Re.test(w)) w = Buffer.from(w, 'base64').toString('base64');
    if (w !== v) setOwn(map, k, w);
  }
}
const rgbPart = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';

/** The formats kube-apiserver validates for custom resources, by normalised name. */
const validators: Record<string, (s: string) => boolean> = {
  bsonobjectid: re(/^[0-9a-fA-F]{24}$/),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: (s) => parseIP(s) && s.includes('.'),
  ipv6: (s) => parseIP(s) && s.includes(':'),
  cidr: isCIDR,
  mac: (s) => macRes.some((r) => r.test(s)),
  uuid: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i),
  uuid3: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i),
  uuid4: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i),
  uuid5: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: re(/^\d{3}[- ]?\d{2}[- ]?\d{4}$/),
  hexcolor: re(/^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/),
  rgbcolor: re(new RegExp(`^rgb\\(${rgbPart},${rgbPart},${rgbPart}\\)$`)),
  byte: re(byteRe),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/** go-openapi's name normalisation: dashes are dropped (`date-time` is `datetime`). */
export const normalizeFormat = (format: string): string => format.replace(/-/g, '');

/** Whether kube-apiserver checks this string format for custom resources. */
export const isSupportedFormat = (format: string | undefined): boolean =>
  !!format && Object.prototype.hasOwnProperty.call(validators, normalizeFormat(format));

/**
 * Checks a string against a supported format.
 * @returns true when valid, or when the format is not one upstream checks
 */
export function checkFormat(format: string, value: string): boolean {
  const f = normalizeFormat(format);
  return Object.prototype.hasOwnProperty.call(validators, f) ? validators[f]!(value) : true;
}
