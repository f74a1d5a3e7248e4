import { describe, expect, it } from 'vitest';
import { compileExpression } from './cel-compile.js';
import { parseCIDR, parseIP, parseRequestURI } from './cel-net.js';

/** Evaluates an expression with `self` bound; errors come back as `error: <summary>`. */
function evaluate(expression: string, self?: unknown): unknown {
  const c = compileExpression(expression);
  if (!c.ok) return `unsupported: ${c.reason}`;
  try {
    return c.program({ self });
  } catch (e) {
    return `error: ${(e as Error).message.split('\n')[0]}`;
  }
}

describe('Kubernetes CEL library', () => {
  it.each([
    // urls.go examples
    { name: 'isURL absolute', input: "isURL('https://user:pass@example.com:80/path?query=val#fragment')", want: true },
    { name: 'isURL path', input: "isURL('/absolute-path')", want: true },
    { name: 'isURL bad port', input: "isURL('https://a:b:c/')", want: false },
    { name: 'isURL relative', input: "isURL('../relative-path')", want: false },
    { name: 'isURL empty', input: "isURL('')", want: false },
    { name: 'getScheme', input: "url('https://example.com/').getScheme()", want: 'https' },
    { name: 'getHost with port', input: "url('https://example.com:80/').getHost()", want: 'example.com:80' },
    { name: 'getHost ipv6', input: "url('https://[::1]:80/').getHost()", want: '[::1]:80' },
    { name: 'getHostname ipv6', input: "url('https://[::1]:80/').getHostname()", want: '::1' },
    { name: 'getPort', input: "url('https://example.com:80/').getPort()", want: '80' },
    { name: 'getPort absent', input: "url('https://example.com/').getPort()", want: '' },
    { name: 'getEscapedPath', input: "url('https://example.com/path with spaces/').getEscapedPath()", want: '/path%20with%20spaces/' },
    { name: 'getQuery', input: "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", want: new Map([['k1', ['a']], ['k2', ['b', 'c']]]) },
    { name: 'url() error', input: "url('../x')", want: 'error: URL parse error during conversion from string: parse "../x": invalid URI for request' },
    // ip.go examples
    { name: 'isIP v4', input: "isIP('127.0.0.1')", want: true },
    { name: 'isIP v6', input: "isIP('::1')", want: true },
    { name: 'isIP bad octet', input: "isIP('127.0.0.256')", want: false },
    { name: 'isIP leading zero', input: "isIP('127.0.0.01')", want: false },
    { name: 'isIP zone', input: "isIP('fe80::1%eth0')", want: false },
    { name: 'isIP mapped', input: "isIP('::ffff:1.2.3.4')", want: false },
    { name: 'family', input: "ip('::1').family() == 6 && ip('10.0.0.1').family() == 4", want: true },
    { name: 'string(ip) canonical', input: "string(ip('2001:DB8::0:0:0:ABCD'))", want: '2001:db8::abcd' },
    { name: 'loopback', input: "ip('127.0.0.1').isLoopback() && ip('::1').isLoopback() && !ip('192.168.0.1').isLoopback()", want: true },
    { name: 'link-local', input: "ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() && ip('224.0.0.1').isLinkLocalMulticast()", want: true },
    { name: 'global unicast', input: "ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()", want: true },
    { name: 'unspecified', input: "ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified()", want: true },
    // cidr.go examples
    { name: 'isCIDR', input: "isCIDR('192.168.0.0/16') && isCIDR('::1/128') && !isCIDR('192.168.0.0/33') && !isCIDR('10.0.0.0')", want: true },
    { name: 'containsIP', input: "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && !cidr('192.168.0.0/24').containsIP('192.168.1.1')", want: true },
    { name: 'containsCIDR', input: "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24') && !cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/16'))", want: true },
    { name: 'prefix and masked', input: "cidr('192.168.1.5/24').prefixLength() == 24 && string(cidr('192.168.1.5/24').masked()) == '192.168.1.0/24' && string(cidr('192.168.1.5/24').ip()) == '192.168.1.5'", want: true },
    { name: 'cidr families differ', input: "cidr('::/0').containsIP('1.2.3.4')", want: false },
    // lists.go
    { name: 'isSorted', input: '[1, 2, 3].isSorted() && !["b", "a"].isSorted()', want: true },
    { name: 'sum', input: '[1, 2, 3].sum()', want: 6n },
    { name: 'min max', input: '[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3', want: true },
    { name: 'min empty', input: '[].min()', want: 'error: min called on empty list' },
    { name: 'indexOf', input: "['a', 'b', 'a'].indexOf('a') == 0 && ['a', 'b', 'a'].lastIndexOf('a') == 2 && [1].indexOf(5) == -1", want: true },
    { name: 'ext lists', input: '[3, 1, 1].distinct().sort() == [1, 3] && [[1], [2]].flatten() == [1, 2] && [1, 2, 3].slice(1, 2) == [2] && [1, 2].reverse() == [2, 1]', want: true },
    // regex.go, strings
    { name: 'find', input: "'abc 123'.find('[0-9]+')", want: '123' },
    { name: 'find none', input: "'abc'.find('[0-9]+')", want: '' },
    { name: 'findAll', input: "'123 abc 456'.findAll('[0-9]+')", want: ['123', '456'] },
    { name: 'findAll limit', input: "'123 abc 456'.findAll('[0-9]+', 1)", want: ['123'] },
    { name: 'replace', input: "'a.b.c'.replace('.', '-') == 'a-b-c' && 'a.b.c'.replace('.', '-', 1) == 'a-b.c'", want: true },
    { name: 'charAt and reverse', input: "'héllo'.charAt(1) == 'é' && 'abc'.reverse() == 'cba'", want: true },
    { name: 'built in strings', input: "'A,B'.lowerAscii().split(',') == ['a', 'b'] && ['a', 'b'].join('-') == 'a-b' && ' x '.trim() == 'x' && 'abc'.indexOf('c') == 2", want: true },
    { name: 'global matches', input: "matches('abc', '^a')", want: true },
    // time
    { name: 'duration of a duration', input: "duration(duration('5m')).getSeconds() == 300", want: true },
    // macros and optionals that cel-js provides
    { name: 'macros', input: '[1, 2, 3].exists_one(x, x == 2) && [1, 2].map(x, x * 2) == [2, 4] && [1, 2, 3].filter(x, x > 1).size() == 2', want: true },
    { name: 'optionals', input: "self.?a.orValue('d') == 'd' && optional.of(1).hasValue()", self: {}, want: true },
  ])('$name', ({ input, want, ...rest }) => {
    expect(evaluate(input, (rest as { self?: unknown }).self)).toEqual(want);
  });

  it.each([
    { name: 'v4', input: '10.1.2.3', want: '10.1.2.3' },
    { name: 'v6 compress longest run', input: '2001:0:0:1:0:0:0:1', want: '2001:0:0:1::1' },
    { name: 'v6 embedded v4', input: '64:ff9b::1.2.3.4', want: '64:ff9b::102:304' },
    { name: 'v6 no single-group compression', input: '1:0:2:3:4:5:6:7', want: '1:0:2:3:4:5:6:7' },
    { name: 'bad', input: '1::2::3', want: 'IP Address "1::2::3" parse error during conversion from string: ParseAddr("1::2::3"): unable to parse IP' },
  ])('parseIP $name', ({ input, want }) => {
    const ip = parseIP(input);
    expect(ip instanceof Error ? ip.message : ip.toString()).toEqual(want);
  });

  it.each([
    { name: 'ok', input: '10.0.0.0/8', want: '10.0.0.0/8' },
    { name: 'leading zero bits', input: '10.0.0.0/08', want: 'network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"' },
    { name: 'mapped', input: '::ffff:1.2.3.4/120', want: 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed' },
  ])('parseCIDR $name', ({ input, want }) => {
    const c = parseCIDR(input);
    expect(c instanceof Error ? c.message : c.toString()).toEqual(want);
  });

  it.each([
    { name: 'mailto is opaque', input: 'mailto:a@b.c', want: { scheme: 'mailto', host: '' } },
    { name: 'scheme lower cased', input: 'HTTPS://Example.com/x', want: { scheme: 'https', host: 'Example.com' } },
    { name: 'control character', input: 'https://a/\n', want: 'net/url: invalid control character in URL' },
    { name: 'bad escape', input: 'https://a/%zz', want: 'invalid URL escape' },
    { name: 'missing scheme', input: ':foo', want: 'missing protocol scheme' },
  ])('parseRequestURI $name', ({ input, want }) => {
    const u = parseRequestURI(input);
    expect(u instanceof Error ? u.message : { scheme: u.scheme, host: u.host }).toEqual(want);
  });
});

describe('CEL strings and regular expressions as cel-go evaluates them (code points, RE2)', () => {
  const e = '\u{1F600}'; // one code point, two UTF-16 code units
  it.each([
    // RE2, not JavaScript's RegExp (matches, find, findAll; receiver and global forms)
    { input: "'abc'.matches('^[[:alpha:]]+$')", want: true },
    { input: "'ab1'.matches('^[[:alpha:]]+$')", want: false },
    { input: "'été'.matches('^\\\\pL+$')", want: true },
    { input: "'a1'.matches('^\\\\pL+$')", want: false },
    { input: `'${e}${e}${e}'.matches('^.{1,3}$')`, want: true },
    { input: `'${e}ab'.matches('^.ab$')`, want: true },
    { input: "'a\\rb'.matches('^a.b$')", want: true },
    { input: "'a\\nb'.matches('^a.b$')", want: false },
    { input: "'x\u00a0'.matches('^(\\\\w+\\\\S+)$')", want: true },
    { input: "'x\\v'.matches('^(\\\\w+\\\\S+)$')", want: true },
    { input: "'x '.matches('^(\\\\w+\\\\S+)$')", want: false },
    { input: "'ABC'.matches('(?i)^abc$')", want: true },
    { input: "'a.b'.matches('^\\\\Qa.b\\\\E$')", want: true },
    { input: "'axb'.matches('^\\\\Qa.b\\\\E$')", want: false },
    { input: "'ab\\n'.matches('ab\\\\z')", want: false },
    { input: "'ab'.matches('ab\\\\z')", want: true },
    { input: "'a{,2}'.matches('^a{,2}$')", want: true },
    { input: "matches('http://x', '^https?://')", want: true },
    { input: "'quay.io/ocp:4.17.3-x86_64'.matches('^(\\\\w+\\\\S+)$')", want: true },
    { input: `'a${e}b'.find('.b')`, want: `${e}b` },
    { input: "'baaac'.findAll('a*')", want: ['', 'aaa', ''] },
    { input: `'${e}x${e}y'.findAll('[^xy]')`, want: [e, e] },
    { input: "'a1b22c333'.findAll('[0-9]+', 2)", want: ['1', '22'] },
    // code points, not UTF-16 code units
    { input: `'${e}x'.indexOf('x')`, want: 1n },
    { input: `'${e}x${e}x'.indexOf('x', 2)`, want: 3n },
    { input: `'${e}ab'.lastIndexOf('b')`, want: 2n },
    { input: `'${e}ab'.lastIndexOf('')`, want: 3n },
    { input: "''.indexOf('a')", want: -1n },
    { input: "''.lastIndexOf('a')", want: -1n },
    { input: "'abc'.indexOf('c', 5)", want: -1n },
    { input: "'abc'.indexOf('c', -1)", want: 'error: index out of range: -1' },
    { input: `'${e}b'.substring(1)`, want: 'b' },
    { input: `'${e}ab'.substring(1, 2)`, want: 'a' },
    { input: "'abc'.substring(2, 1)", want: 'error: invalid substring range. start: 2, end: 1' },
    { input: "'abc'.substring(4)", want: 'error: index out of range: 4' },
    { input: `'${e}ab'.split('')`, want: [e, 'a', 'b'] },
    { input: "'a/b/c'.split('/', 2)", want: ['a', 'b/c'] },
    { input: "'a/b/c'.split('/', 0)", want: [] },
    { input: `'${e}a'.replace('', '-')`, want: `-${e}-a-` },
    { input: "'abc'.replace('', '-', 2)", want: '-a-bc' },
    { input: "'aaa'.replace('a', 'b', 2)", want: 'bba' },
    { input: "'ÄB'.lowerAscii()", want: 'Äb' },
    { input: "'äb'.upperAscii()", want: 'äB' },
    { input: "'\\u0085x\\ufeff'.trim()", want: 'x\ufeff' },
    // the Kubernetes lists library keeps working under the same names
    { input: "[1, 2, 3, 2].indexOf(2)", want: 1n },
    { input: "[1, 2, 3, 2].lastIndexOf(2)", want: 3n },
    { input: "[[1], [2]].all(l, l.indexOf(l[0]) == 0) && ['ab'].exists(s, s.matches('^[[:lower:]]+$'))", want: true },
  ])('$input', ({ input, want }) => {
    expect(evaluate(input)).toEqual(want);
  });

  it('evaluates rules on self (dyn) the same way', () => {
    expect(evaluate("self.str.indexOf('x') <= 1 && self.rx.matches('^.{1,3}$') && self.sub.substring(1) == 'b'", { str: `${e}x`, rx: `${e}${e}${e}`, sub: `${e}b` })).toBe(true);
  });
});

describe('replaced functions under unary operators and in macros', () => {
  it.each([
    { input: "!'abc'.matches('^[[:alpha:]]+$')", want: false },
    { input: "!'abc'.matches('(?i)ABC')", want: false },
    { input: "['abc', 'a1'].filter(x, !x.matches('^[[:alpha:]]+$'))", want: ['a1'] },
    { input: "-'x\u{1F600}y'.indexOf('y')", want: -2n },
    { input: "!('x\u{1F600}y'.substring(1, 2) == 'y')", want: true },
    { input: "!(!'a\u00a0b'.matches('\\\\s'))", want: false },
  ])('$input', ({ input, want }) => {
    expect(evaluate(input)).toEqual(want);
  });
});
