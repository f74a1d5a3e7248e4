/**
 * The Kubernetes CEL library on top of @marcbachmann/cel-js: the functions kube-apiserver adds to
 * CEL for CRD validation rules that cel-js lacks. Each is registered with the signature upstream
 * declares and fails with upstream's error text where practical.
 *
 * Registered here: `isURL`/`url` (+ getScheme, getHost, getHostname, getPort, getEscapedPath,
 * getQuery), `isIP`/`ip` (+ family, isUnspecified, isLoopback, isLinkLocalMulticast,
 * isLinkLocalUnicast, isGlobalUnicast, `string(ip)`), `isCIDR`/`cidr` (+ containsIP, containsCIDR,
 * ip, masked, prefixLength, `string(cidr)`), lists (isSorted, sum, min, max, indexOf, lastIndexOf,
 * and cel-go ext lists: distinct, flatten, reverse, slice, sort), regex (find, findAll), strings
 * (charAt, replace, reverse, global `matches`), and `duration(duration)`/`timestamp(timestamp)`.
 * Replacing cel-js's own (see {@link replacedFunctions}): `matches` (RE2, cel-regex.ts), and
 * indexOf, lastIndexOf, substring, split, lowerAscii, upperAscii and trim over code points as
 * cel-go's. cel-js already has size, has, all/exists/exists_one/map/filter, contains, startsWith,
 * endsWith, join, duration/timestamp parsing, optionals (`?.`, orValue) and `cel.bind`. Left as
 * cel-js has them: `<`, `>` on strings compare UTF-16 code units where cel-go compares UTF-8
 * bytes (they differ only between a code point above U+FFFF and one in U+E000–U+FFFF).
 *
 * Not here (rules using them are skipped, see cel-compile.ts): quantity, format.*, ip.isCanonical,
 * semver, authz, strings.quote/format, math.*, sets.*, base64.*.
 * @see https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apiserver/pkg/cel/library
 * @see https://github.com/google/cel-go/blob/master/ext/strings.go
 */
import { EvaluationError, type Environment } from '@marcbachmann/cel-js';
import { CIDRPrefix, IPAddr, parseCIDR, parseIP, parseRequestURI, urlHostname, urlPort, urlQuery, type ParsedURL } from './cel-net.js';
import { compileRE2, findAll, type Pattern } from './cel-regex.js';

/** Error code of failures raised by this library (they reject the object, like upstream's types.NewErr). */
export const kubernetesErrorCode = 'kubernetes_library_error';

const fail = (message: string): never => {
  throw new EvaluationError({ code: kubernetesErrorCode, message });
};

/** The CEL type `kubernetes.URL`. */
export class KubeURL {
  constructor(readonly url: ParsedURL) {}
}

/** CEL equality of two runtime values as cel-js represents them (ints are bigint, doubles number). */
export function celEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) return a == b; // eslint-disable-line eqeqeq
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => celEqual(x, b[i]));
  if (a instanceof Uint8Array) return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    if (a instanceof Map || b instanceof Map) {
      const ea = a instanceof Map ? [...a.entries()] : Object.entries(a);
      const mb = b instanceof Map ? b : new Map(Object.entries(b));
      return ea.length === mb.size && ea.every(([k, v]) => mb.has(k) && celEqual(v, mb.get(k)));
    }
    const ka = Object.keys(a);
    const ob = b as Record<string, unknown>;
    const oa = a as Record<string, unknown>;
    if (ka.length !== Object.keys(b).length) return false;
    if (ka.length === 0 && String(a) !== String(b)) return false; // Duration, custom types
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && celEqual(oa[k], ob[k]));
  }
  return false;
}

/** Ordering of comparable CEL values (int, uint, double, string, bool, timestamp, duration); NaN when not comparable. */
function celCompare(a: unknown, b: unknown): number {
  const num = (v: unknown): number | bigint | undefined =>
    typeof v === 'bigint' || typeof v === 'number' ? v : v instanceof Date ? v.getTime() : typeof v === 'boolean' ? Number(v) : undefined;
  const [na, nb] = [num(a), num(b)];
  if (na !== undefined && nb !== undefined) return na < nb ? -1 : na > nb ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (a && b && typeof a === 'object' && typeof b === 'object' && 'seconds' in a && 'seconds' in b) {
    const [da, db] = [a as { seconds: bigint; nanos: number }, b as { seconds: bigint; nanos: number }];
    return da.seconds !== db.seconds ? (da.seconds < db.seconds ? -1 : 1) : Math.sign(da.nanos - db.nanos);
  }
  return Number.NaN;
}

/**
 * The RE2 pattern `pattern`, compiled (see cel-regex.ts); a pattern RE2 refuses fails the way an
 * unsupported function does (the rule is skipped: upstream would have refused the CRD).
 */
function regex(pattern: string): Pattern {
  try {
    return compileRE2(pattern);
  } catch (e) {
    throw new EvaluationError({ code: 'invalid_regular_expression', message: `invalid regular expression ${JSON.stringify(pattern)}: ${e instanceof Error ? e.message : String(e)}` });
  }
}

const pathEscape = (p: string): string => p.replace(/[^A-Za-z0-9\-._~$&+,/:;=@!'()*%]/gu, (c) => encodeURIComponent(c));

function registerURLs(env: Environment): void {
  env.registerType('kubernetes.URL', KubeURL);
  env.registerFunction('isURL(string): bool', (s: string) => !(parseRequestURI(s) instanceof Error));
  env.registerFunction('url(string): kubernetes.URL', (s: string) => {
    const u = parseRequestURI(s);
    return u instanceof Error ? fail(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: ${u.message}`) : new KubeURL(u);
  });
  env.registerFunction('kubernetes.URL.getScheme(): string', (u: KubeURL) => u.url.scheme);
  env.registerFunction('kubernetes.URL.getHost(): string', (u: KubeURL) => u.url.host);
  env.registerFunction('kubernetes.URL.getHostname(): string', (u: KubeURL) => urlHostname(u.url));
  env.registerFunction('kubernetes.URL.getPort(): string', (u: KubeURL) => urlPort(u.url));
  env.registerFunction('kubernetes.URL.getEscapedPath(): string', (u: KubeURL) => pathEscape(u.url.escapedPath));
  env.registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: KubeURL) => urlQuery(u.url));
}

const asIP = (v: IPAddr | string): IPAddr => {
  if (v instanceof IPAddr) return v;
  const ip = parseIP(v);
  return ip instanceof Error ? fail(ip.message) : ip;
};
const asCIDR = (v: CIDRPrefix | string): CIDRPrefix => {
  if (v instanceof CIDRPrefix) return v;
  const c = parseCIDR(v);
  return c instanceof Error ? fail(c.message) : c;
};

function registerNet(env: Environment): void {
  env.registerType('net.IP', IPAddr);
  env.registerType('net.CIDR', CIDRPrefix);
  env.registerFunction('isIP(string): bool', (s: string) => !(parseIP(s) instanceof Error));
  env.registerFunction('ip(string): net.IP', asIP);
  env.registerFunction('string(net.IP): string', (ip: IPAddr) => ip.toString());
  env.registerFunction('net.IP.family(): int', (ip: IPAddr) => BigInt(ip.family));
  env.registerFunction('net.IP.isUnspecified(): bool', (ip: IPAddr) => ip.isUnspecified());
  env.registerFunction('net.IP.isLoopback(): bool', (ip: IPAddr) => ip.isLoopback());
  env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: IPAddr) => ip.isLinkLocalMulticast());
  env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: IPAddr) => ip.isLinkLocalUnicast());
  env.registerFunction('net.IP.isGlobalUnicast(): bool', (ip: IPAddr) => ip.isGlobalUnicast());
  env.registerFunction('isCIDR(string): bool', (s: string) => !(parseCIDR(s) instanceof Error));
  env.registerFunction('cidr(string): net.CIDR', asCIDR);
  env.registerFunction('string(net.CIDR): string', (c: CIDRPrefix) => c.toString());
  env.registerFunction('net.CIDR.containsIP(string): bool', (c: CIDRPrefix, ip: string) => c.containsIP(asIP(ip)));
  env.registerFunction('net.CIDR.containsIP(net.IP): bool', (c: CIDRPrefix, ip: IPAddr) => c.containsIP(ip));
  env.registerFunction('net.CIDR.containsCIDR(string): bool', (c: CIDRPrefix, o: string) => c.containsCIDR(asCIDR(o)));
  env.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', (c: CIDRPrefix, o: CIDRPrefix) => c.containsCIDR(o));
  env.registerFunction('net.CIDR.ip(): net.IP', (c: CIDRPrefix) => c.addr);
  env.registerFunction('net.CIDR.masked(): net.CIDR', (c: CIDRPrefix) => c.masked());
  env.registerFunction('net.CIDR.prefixLength(): int', (c: CIDRPrefix) => BigInt(c.prefixLength));
}

function listOf(l: unknown): unknown[] {
  return Array.isArray(l) ? l : [...(l as Iterable<unknown>)];
}

function extreme(name: 'min' | 'max', l: unknown[]): unknown {
  if (l.length === 0) return fail(`${name} called on empty list`);
  let best = l[0];
  for (const x of l.slice(1)) {
    const c = celCompare(x, best);
    if (Number.isNaN(c)) return fail(`no such overload: ${name}`);
    if (name === 'min' ? c < 0 : c > 0) best = x;
  }
  return best;
}

function registerLists(env: Environment): void {
  env.registerFunction('list.isSorted(): bool', (l: unknown) => {
    const a = listOf(l);
    return a.every((x, i) => i === 0 || celCompare(a[i - 1], x) <= 0);
  });
  env.registerFunction('list.sum(): dyn', (l: unknown) => {
    const a = listOf(l);
    if (a.length === 0) return 0n;
    if (a.every((x) => typeof x === 'bigint')) return (a as bigint[]).reduce((s, x) => s + x, 0n);
    if (a.every((x) => typeof x === 'number')) return (a as number[]).reduce((s, x) => s + x, 0);
    return fail('no such overload: sum');
  });
  env.registerFunction('list.min(): dyn', (l: unknown) => extreme('min', listOf(l)));
  env.registerFunction('list.max(): dyn', (l: unknown) => extreme('max', listOf(l)));
  env.registerFunction('list.k8sIndexOf(dyn): int', (l: unknown, v: unknown) => BigInt(listOf(l).findIndex((x) => celEqual(x, v))));
  env.registerFunction('list.k8sLastIndexOf(dyn): int', (l: unknown, v: unknown) => {
    const a = listOf(l);
    for (let i = a.length - 1; i >= 0; i--) if (celEqual(a[i], v)) return BigInt(i);
    return -1n;
  });
  env.registerFunction('list.distinct(): list', (l: unknown) => {
    const out: unknown[] = [];
    for (const x of listOf(l)) if (!out.some((y) => celEqual(x, y))) out.push(x);
    return out;
  });
  env.registerFunction('list.flatten(): list', (l: unknown) => listOf(l).flatMap((x) => (Array.isArray(x) ? x : [x])));
  env.registerFunction('list.reverse(): list', (l: unknown) => [...listOf(l)].reverse());
  env.registerFunction('list.slice(int, int): list', (l: unknown, from: bigint, to: bigint) => {
    const a = listOf(l);
    if (from < 0n || to < 0n) fail(`cannot slice(${from}, ${to}), negative indexes not supported`);
    if (from > to) fail(`cannot slice(${from}, ${to}), start index must be less than or equal to end index`);
    if (to > BigInt(a.length)) fail(`cannot slice(${from}, ${to}), list is length ${a.length}`);
    return a.slice(Number(from), Number(to));
  });
  env.registerFunction('list.sort(): list', (l: unknown) => {
    const a = [...listOf(l)];
    if (a.some((x) => Number.isNaN(celCompare(x, a[0])))) fail('list elements must have the same type');
    return a.sort(celCompare);
  });
}

/**
 * Functions of cel-js whose semantics differ from cel-go's, registered here under other names:
 * compileExpression (cel-compile.ts) renames every call of the key in a rule's syntax tree to the
 * value before it type-checks the rule, so `self.indexOf('x')` runs {@link registerStrings}'s
 * version. cel-js's own work on UTF-16 code units and JavaScript RegExps; cel-go's on Unicode code
 * points and RE2 (and `lowerAscii`/`upperAscii` touch ASCII letters only, `trim` trims Go's
 * `unicode.IsSpace`).
 */
export const replacedFunctions: ReadonlyMap<string, string> = new Map([
  ['matches', 'k8sMatches'],
  ['indexOf', 'k8sIndexOf'],
  ['lastIndexOf', 'k8sLastIndexOf'],
  ['substring', 'k8sSubstring'],
  ['split', 'k8sSplit'],
  ['lowerAscii', 'k8sLowerAscii'],
  ['upperAscii', 'k8sUpperAscii'],
  ['trim', 'k8sTrim'],
]);

/** Whether a string has UTF-16 surrogates (code points above U+FFFF), where code units and code points differ. */
const astral = (s: string): boolean => /[\uD800-\uDFFF]/.test(s);
/** The code points of a string, one string each. */
const runesOf = (s: string): string[] => [...s];

/** Where `sub` (non-empty) first occurs in `r` at or after code point `from`, or -1. */
function runeSearch(r: string[], sub: string[], from: number, backwards: boolean): number {
  const at = (i: number) => sub.every((c, j) => r[i + j] === c);
  if (backwards) {
    for (let i = Math.min(from, r.length - sub.length); i >= 0; i--) if (at(i)) return i;
  } else {
    for (let i = from; i <= r.length - sub.length; i++) if (at(i)) return i;
  }
  return -1;
}

/**
 * cel-go's `indexOf`/`lastIndexOf` over code points (ext/strings.go as Kubernetes 1.35 builds it):
 * an empty `sub` is found at `offset`; a negative offset fails with `index out of range: N`, one
 * at or past the end finds nothing.
 */
function indexOf(s: string, sub: string, offset: bigint | undefined, backwards: boolean): bigint {
  const r = astral(s) || astral(sub) ? runesOf(s) : undefined;
  const len = r ? r.length : s.length;
  if (offset === undefined) {
    if (sub === '') return backwards ? BigInt(len) : 0n;
    if (backwards && len === 0) return -1n;
    offset = backwards ? BigInt(len - 1) : 0n;
  }
  if (sub === '') return offset;
  if (offset < 0n) fail(`index out of range: ${offset}`);
  if (offset >= BigInt(len)) return -1n;
  const from = Number(offset);
  if (r) return BigInt(runeSearch(r, runesOf(sub), from, backwards));
  return BigInt(backwards ? s.lastIndexOf(sub, from) : s.indexOf(sub, from));
}

/** cel-go's `substring` over code points, with its errors. */
function substring(s: string, start: bigint, end?: bigint): string {
  const r = astral(s) ? runesOf(s) : undefined;
  const len = BigInt(r ? r.length : s.length);
  const stop = end ?? len;
  if (end !== undefined && start > end) fail(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > len) fail(`index out of range: ${start}`);
  if (stop < 0n || stop > len) fail(`index out of range: ${stop}`);
  return r ? r.slice(Number(start), Number(stop)).join('') : s.slice(Number(start), Number(stop));
}

/** Go's `strings.SplitN` (n < 0: all; 0: none; an empty separator splits between code points). */
function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  const parts = sep === '' ? runesOf(s) : s.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  const head = parts.slice(0, n - 1);
  const consumed = head.reduce((k, p) => k + p.length + sep.length, 0);
  head.push(s.slice(consumed));
  return head;
}

/** Go's `strings.Replace` (n < 0: every occurrence; an empty `from` matches before each code point and at the end). */
function replaceN(s: string, from: string, to: string, n: number): string {
  if (n === 0 || (from !== '' && !s.includes(from))) return s;
  if (from === '') {
    const r = runesOf(s);
    let out = '';
    let done = 0;
    for (const c of r) {
      if (n < 0 || done < n) {
        out += to;
        done++;
      }
      out += c;
    }
    return n < 0 || done < n ? out + to : out;
  }
  const parts = s.split(from);
  const k = n < 0 ? parts.length - 1 : Math.min(n, parts.length - 1);
  return parts.slice(0, k + 1).join(to) + (k + 1 < parts.length ? from + parts.slice(k + 1).join(from) : '');
}

/** Go's `unicode.IsSpace`, which `strings.TrimSpace` trims (JavaScript's `trim` also trims U+FEFF, and not U+0085). */
const goSpace = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const goTrim = new RegExp(`^${goSpace}+|${goSpace}+$`, 'g');

function registerStrings(env: Environment): void {
  env.registerFunction('string.find(string): string', (s: string, re: string) => regex(re).exec(s, 0)?.text ?? '');
  env.registerFunction('string.findAll(string): list<string>', (s: string, re: string) => findAll(regex(re), s, -1));
  env.registerFunction('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => findAll(regex(re), s, Number(n)));
  env.registerFunction('k8sMatches(string, string): bool', (s: string, re: string) => regex(re).test(s));
  env.registerFunction('string.k8sMatches(string): bool', (s: string, re: string) => regex(re).test(s));
  env.registerFunction('string.k8sIndexOf(string): int', (s: string, sub: string) => indexOf(s, sub, undefined, false));
  env.registerFunction('string.k8sIndexOf(string, int): int', (s: string, sub: string, offset: bigint) => indexOf(s, sub, offset, false));
  env.registerFunction('string.k8sLastIndexOf(string): int', (s: string, sub: string) => indexOf(s, sub, undefined, true));
  env.registerFunction('string.k8sLastIndexOf(string, int): int', (s: string, sub: string, offset: bigint) => indexOf(s, sub, offset, true));
  env.registerFunction('string.k8sSubstring(int): string', (s: string, start: bigint) => substring(s, start));
  env.registerFunction('string.k8sSubstring(int, int): string', (s: string, start: bigint, end: bigint) => substring(s, start, end));
  env.registerFunction('string.k8sSplit(string): list<string>', (s: string, sep: string) => splitN(s, sep, -1));
  env.registerFunction('string.k8sSplit(string, int): list<string>', (s: string, sep: string, n: bigint) => splitN(s, sep, Number(n)));
  env.registerFunction('string.k8sLowerAscii(): string', (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase()));
  env.registerFunction('string.k8sUpperAscii(): string', (s: string) => s.replace(/[a-z]+/g, (m) => m.toUpperCase()));
  env.registerFunction('string.k8sTrim(): string', (s: string) => s.replace(goTrim, ''));
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    const cps = [...s];
    if (i < 0n || i > BigInt(cps.length)) fail(`index out of range: ${i}`);
    return cps[Number(i)] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) => replaceN(s, from, to, -1));
  env.registerFunction('string.replace(string, string, int): string', (s: string, from: string, to: string, n: bigint) => replaceN(s, from, to, Number(n)));
  env.registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''));
}

function registerTime(env: Environment): void {
  env.registerFunction('duration(google.protobuf.Duration): google.protobuf.Duration', (d: unknown) => d);
  env.registerFunction('timestamp(google.protobuf.Timestamp): google.protobuf.Timestamp', (t: unknown) => t);
}

/**
 * Registers the Kubernetes CEL library on a cel-js environment (call once, before any parse).
 * @throws Error if cel-js rejects a signature (a bug: the library and cel-js disagree)
 */
export function registerKubernetesLibrary(env: Environment): Environment {
  registerURLs(env);
  registerNet(env);
  registerLists(env);
  registerStrings(env);
  registerTime(env);
  return env;
}
