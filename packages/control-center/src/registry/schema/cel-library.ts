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
 * cel-js already has size, has, all/exists/exists_one/map/filter, matches, contains, startsWith,
 * endsWith, lowerAscii, upperAscii, trim, split, join, indexOf, lastIndexOf, substring,
 * duration/timestamp parsing, optionals (`?.`, orValue) and `cel.bind`.
 *
 * Not here (rules using them are skipped, see cel-compile.ts): quantity, format.*, ip.isCanonical,
 * semver, authz, strings.quote/format, math.*, sets.*, base64.*.
 * @see https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apiserver/pkg/cel/library
 * @see https://github.com/google/cel-go/blob/master/ext/strings.go
 */
import { EvaluationError, type Environment } from '@marcbachmann/cel-js';
import { CIDRPrefix, IPAddr, parseCIDR, parseIP, parseRequestURI, urlHostname, urlPort, urlQuery, type ParsedURL } from './cel-net.js';

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

const regexCache = new Map<string, RegExp>();
/** Compiles an RE2 pattern as a JS RegExp (global flag for findAll); RE2-only syntax fails like an unsupported function. */
function compileRegex(pattern: string, global: boolean): RegExp {
  const key = `${global ? 'g' : ''}/${pattern}`;
  let re = regexCache.get(key);
  if (!re) {
    try {
      re = new RegExp(pattern, global ? 'g' : '');
    } catch {
      throw new EvaluationError({ code: 'invalid_regular_expression', message: `Invalid regular expression: ${pattern}` });
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(key, re);
  }
  re.lastIndex = 0;
  return re;
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
  env.registerFunction('list.indexOf(dyn): int', (l: unknown, v: unknown) => BigInt(listOf(l).findIndex((x) => celEqual(x, v))));
  env.registerFunction('list.lastIndexOf(dyn): int', (l: unknown, v: unknown) => {
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

function registerStrings(env: Environment): void {
  env.registerFunction('string.find(string): string', (s: string, re: string) => compileRegex(re, false).exec(s)?.[0] ?? '');
  env.registerFunction('string.findAll(string): list<string>', (s: string, re: string) => [...s.matchAll(compileRegex(re, true))].map((m) => m[0]));
  env.registerFunction('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => {
    if (n === 0n) return [];
    const all = [...s.matchAll(compileRegex(re, true))].map((m) => m[0]);
    return n < 0n ? all : all.slice(0, Number(n));
  });
  env.registerFunction('matches(string, string): bool', (s: string, re: string) => compileRegex(re, false).test(s));
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    const cps = [...s];
    if (i < 0n || i > BigInt(cps.length)) fail(`index out of range: ${i}`);
    return cps[Number(i)] ?? '';
  });
  env.registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) => s.split(from).join(to));
  env.registerFunction('string.replace(string, string, int): string', (s: string, from: string, to: string, n: bigint) => {
    if (n < 0n) return s.split(from).join(to);
    const parts = s.split(from);
    const k = Math.min(Number(n), parts.length - 1);
    return parts.slice(0, k + 1).join(to) + (k + 1 < parts.length ? from + parts.slice(k + 1).join(from) : '');
  });
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
