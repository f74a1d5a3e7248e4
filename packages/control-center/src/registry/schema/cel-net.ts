/**
 * IP addresses, CIDR prefixes and URLs for the Kubernetes CEL library, parsed as Go does:
 * `net/netip.ParseAddr` / `ParsePrefix` (with Kubernetes' extra rejection of zones and IPv4-mapped
 * IPv6 addresses) and `net/url.ParseRequestURI` / `url.Parse`. Pure functions; no CEL types here.
 *
 * Not byte-for-byte Go: host validation of URLs follows url.go's rules for ASCII only.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/cel/library/ip.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/cel/library/cidr.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/cel/library/urls.go
 * @see https://cs.opensource.google/go/go/+/refs/tags/go1.24.0:src/net/url/url.go
 */

/** An IP address: family and value (32 or 128 bits). The CEL type `net.IP`. */
export class IPAddr {
  constructor(
    readonly family: 4 | 6,
    readonly value: bigint,
  ) {}

  /** netip.Addr.String(): dotted quad, or RFC 5952 (lower case, longest zero run compressed). */
  toString(): string {
    if (this.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((this.value >> s) & 0xffn)).join('.');
    const groups = Array.from({ length: 8 }, (_, i) => Number((this.value >> BigInt(112 - 16 * i)) & 0xffffn));
    let bestStart = -1;
    let bestLen = 0;
    for (let i = 0; i < 8; ) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen && j - i >= 2) [bestStart, bestLen] = [i, j - i];
      i = j;
    }
    const hex = (g: number[]): string => g.map((x) => x.toString(16)).join(':');
    if (bestStart < 0) return hex(groups);
    return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
  }

  /** The number of bits of this family. */
  get bits(): number {
    return this.family === 4 ? 32 : 128;
  }

  /** Whether the top `prefix` bits equal those of `other` (same family only). */
  sharesPrefix(other: IPAddr, prefix: number): boolean {
    if (other.family !== this.family) return false;
    const shift = BigInt(this.bits - prefix);
    return this.value >> shift === other.value >> shift;
  }

  /** netip.Addr.IsUnspecified. */
  isUnspecified(): boolean {
    return this.value === 0n;
  }

  /** netip.Addr.IsLoopback: 127.0.0.0/8 or ::1. */
  isLoopback(): boolean {
    return this.family === 4 ? this.value >> 24n === 127n : this.value === 1n;
  }

  /** netip.Addr.IsLinkLocalMulticast: 224.0.0.0/24 or ff02::/16. */
  isLinkLocalMulticast(): boolean {
    return this.family === 4 ? this.value >> 8n === 0xe00000n : this.value >> 112n === 0xff02n;
  }

  /** netip.Addr.IsLinkLocalUnicast: 169.254.0.0/16 or fe80::/10. */
  isLinkLocalUnicast(): boolean {
    return this.family === 4 ? this.value >> 16n === 0xa9fen : this.value >> 118n === 0x3fan;
  }

  /** netip.Addr.IsMulticast: 224.0.0.0/4 or ff00::/8. */
  isMulticast(): boolean {
    return this.family === 4 ? this.value >> 28n === 0xen : this.value >> 120n === 0xffn;
  }

  /** netip.Addr.IsGlobalUnicast: not unspecified, broadcast, loopback, multicast or link-local unicast. */
  isGlobalUnicast(): boolean {
    if (this.family === 4 && this.value === 0xffffffffn) return false;
    return !this.isUnspecified() && !this.isLoopback() && !this.isMulticast() && !this.isLinkLocalUnicast();
  }
}

/** A CIDR prefix as written (address not masked) and its length. The CEL type `net.CIDR`. */
export class CIDRPrefix {
  constructor(
    readonly addr: IPAddr,
    readonly prefixLength: number,
  ) {}

  /** netip.Prefix.String(): `addr/bits`, the address as given. */
  toString(): string {
    return `${this.addr.toString()}/${this.prefixLength}`;
  }

  /** netip.Prefix.Masked(). */
  masked(): CIDRPrefix {
    const host = BigInt(this.addr.bits - this.prefixLength);
    return new CIDRPrefix(new IPAddr(this.addr.family, (this.addr.value >> host) << host), this.prefixLength);
  }

  /** netip.Prefix.Contains. */
  containsIP(ip: IPAddr): boolean {
    return this.addr.sharesPrefix(ip, this.prefixLength);
  }

  /** cidr.go containsCIDR: this prefix is no longer than `other` and contains its address. */
  containsCIDR(other: CIDRPrefix): boolean {
    return this.prefixLength <= other.prefixLength && this.containsIP(other.addr);
  }
}

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return undefined;
    v = (v << 8n) | BigInt(p);
  }
  return v;
}

function parseIPv6(s: string): bigint | undefined {
  let head = s;
  let tail = '';
  const dbl = s.indexOf('::');
  if (dbl >= 0) {
    if (s.indexOf('::', dbl + 1) >= 0) return undefined;
    head = s.slice(0, dbl);
    tail = s.slice(dbl + 2);
  }
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const fields = part.split(':');
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      if (i === fields.length - 1 && f.includes('.')) {
        const v4 = parseIPv4(f);
        if (v4 === undefined) return undefined;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(f)) out.push(parseInt(f, 16));
      else return undefined;
    }
    return out;
  };
  const h = groups(head);
  const t = groups(tail);
  if (!h || !t) return undefined;
  if (head.includes('.') && dbl >= 0) return undefined; // an embedded IPv4 address must come last
  const total = h.length + t.length;
  if (dbl >= 0 ? total > 7 : total !== 8) return undefined;
  const all = [...h, ...Array<number>(8 - total).fill(0), ...t];
  return all.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/**
 * ip.go parseIPAddr: netip.ParseAddr, then no zone and no IPv4-mapped IPv6 address.
 * @returns the address, or an Error worded like upstream's
 */
export function parseIP(raw: string): IPAddr | Error {
  if (raw.includes('%')) {
    return parseIPv6(raw.slice(0, raw.indexOf('%'))) !== undefined
      ? new Error(`IP address ${JSON.stringify(raw)} with zone value is not allowed`)
      : new Error(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ParseAddr(${JSON.stringify(raw)}): unable to parse IP`);
  }
  const v4 = raw.includes(':') ? undefined : parseIPv4(raw);
  if (v4 !== undefined) return new IPAddr(4, v4);
  const v6 = raw.includes(':') ? parseIPv6(raw) : undefined;
  if (v6 === undefined) {
    return new Error(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ParseAddr(${JSON.stringify(raw)}): unable to parse IP`);
  }
  if (v6 >> 32n === 0xffffn) return new Error(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return new IPAddr(6, v6);
}

/**
 * cidr.go parseCIDR: netip.ParsePrefix (decimal bits, no leading zeros, in range), then no zone and
 * no IPv4-mapped IPv6 address.
 * @returns the prefix, or an Error worded like upstream's
 */
export function parseCIDR(raw: string): CIDRPrefix | Error {
  const bad = new Error(`network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): no '/'`);
  const slash = raw.lastIndexOf('/');
  if (slash < 0) return bad;
  const ip = parseIP(raw.slice(0, slash));
  if (ip instanceof Error) {
    return ip.message.includes('zone') || ip.message.includes('mapped')
      ? ip
      : new Error(`network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): ParseAddr(${JSON.stringify(raw.slice(0, slash))}): unable to parse IP`);
  }
  const bits = raw.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bits) || Number(bits) > ip.bits) {
    return new Error(`network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): bad bits after slash: ${JSON.stringify(bits)}`);
  }
  return new CIDRPrefix(ip, Number(bits));
}

/** A parsed URL, with the components urls.go exposes. The CEL type `kubernetes.URL`. */
export interface ParsedURL {
  scheme: string;
  /** `host[:port]`, IPv6 hosts in brackets; '' when absent. */
  host: string;
  /** The path as written (percent-escapes kept), '' when absent. */
  escapedPath: string;
  /** The raw query without `?`. */
  rawQuery: string;
}

const hasCTL = (s: string): boolean => /[\x00-\x1f\x7f]/.test(s);
const badEscape = (s: string): boolean => /%(?![0-9a-fA-F]{2})/.test(s);
/** url.go shouldEscape(c, encodeHost) for ASCII: the characters a host may hold unescaped. */
const hostChars = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%]*$/;

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function parseHost(host: string): string | Error {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) return new Error(`missing ']' in host`);
    if (!validOptionalPort(host.slice(i + 1))) return new Error(`invalid port ${JSON.stringify(host.slice(i + 1))} after host`);
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0 && !validOptionalPort(host.slice(i))) return new Error(`invalid port ${JSON.stringify(host.slice(i))} after host`);
  }
  if (badEscape(host)) return new Error(`invalid URL escape`);
  if (!hostChars.test(host.replace(/[^\x00-\x7f]/g, ''))) return new Error(`invalid character in host name`);
  return host;
}

/**
 * Go url.ParseRequestURI (viaRequest = true): an absolute URI (`scheme:...`) or an absolute path;
 * the fragment is not split off. Used by `isURL` and `url()`.
 * @returns the parsed URL, or an Error with Go's reason
 */
export function parseRequestURI(raw: string): ParsedURL | Error {
  if (hasCTL(raw)) return new Error('net/url: invalid control character in URL');
  if (raw === '') return new Error('empty url');
  if (raw === '*') return { scheme: '', host: '', escapedPath: '*', rawQuery: '' };
  let scheme = '';
  let rest = raw;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return new Error('missing protocol scheme');
      scheme = raw.slice(0, i).toLowerCase();
      rest = raw.slice(i + 1);
    }
    break;
  }
  let rawQuery = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else if (rest.includes('?')) [rest, rawQuery] = [rest.slice(0, rest.indexOf('?')), rest.slice(rest.indexOf('?') + 1)];
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { scheme, host: '', escapedPath: '', rawQuery }; // opaque
    return new Error('invalid URI for request');
  }
  let host = '';
  if (scheme !== '' && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    const at = authority.lastIndexOf('@');
    const h = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (h instanceof Error) return h;
    if (at >= 0 && (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(authority.slice(0, at)) || badEscape(authority.slice(0, at)))) {
      return new Error('net/url: invalid userinfo');
    }
    host = h;
  }
  if (badEscape(rest)) return new Error('invalid URL escape');
  return { scheme, host, escapedPath: rest, rawQuery };
}

/** url.URL.Hostname(): the host without port and without IPv6 brackets. */
export function urlHostname(u: ParsedURL): string {
  const h = u.host;
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') < 0 ? h.length : h.indexOf(']'));
  const i = h.lastIndexOf(':');
  return i < 0 ? h : h.slice(0, i);
}

/** url.URL.Port(): the digits after the last `:` of the host, or ''. */
export function urlPort(u: ParsedURL): string {
  const h = u.host;
  const i = h.lastIndexOf(':');
  if (i < 0 || (h.startsWith('[') && i < h.indexOf(']'))) return '';
  return /^[0-9]+$/.test(h.slice(i + 1)) ? h.slice(i + 1) : '';
}

/** url.URL.Query(): `key → values`, unescaped (`+` is a space); malformed pairs are skipped as Go does. */
export function urlQuery(u: ParsedURL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of u.rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const [k, v] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(k.replace(/\+/g, ' '));
      value = decodeURIComponent(v.replace(/\+/g, ' '));
    } catch {
      continue;
    }
    out.set(key, [...(out.get(key) ?? []), value]);
  }
  return out;
}
