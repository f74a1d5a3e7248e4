import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { compileRE2, findAll, InvalidPatternError, portableSource } from './cel-regex.js';

describe('portableSource', () => {
  it.each([
    // run natively, with RE2's meaning spelled out
    { pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', want: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
    { pattern: '^(\\w+\\S+)$', want: '^(\\w+[^\\t\\n\\f\\r ]+)$' },
    { pattern: 'a.b', want: 'a[^\\n]b' },
    { pattern: '^(?:[a-z]+\\.)+[a-z]{2,}$', want: '^(?:[a-z]+\\.)+[a-z]{2,}$' },
    // left to re2js
    { pattern: '[^\\s]', want: undefined },
    { pattern: '^[[:alpha:]]+$', want: undefined },
    { pattern: '\\pL', want: undefined },
    { pattern: '(?i)abc', want: undefined },
    { pattern: '(?P<x>a)', want: undefined },
    { pattern: 'ab\\z', want: undefined },
    { pattern: 'a{,3}', want: undefined },
    { pattern: 'a{1001}', want: undefined },
    { pattern: '[]a]', want: undefined },
    { pattern: 'µs', want: undefined },
    { pattern: '\\1', want: undefined },
  ])('$pattern', ({ pattern, want }) => {
    expect(portableSource(pattern)).toBe(want);
  });
});

describe('compileRE2', () => {
  const patterns = [
    '^(\\w+\\S+)$',
    '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
    '^(([a-zA-Z0-9][-a-zA-Z0-9]*\\.)+[a-zA-Z]{2,}|localhost)$',
    '^((\\d{1,3}\\.){3}\\d{1,3}/\\d{1,2})$',
    '^/subscriptions/.*/resourceGroups/.*$',
    'a.c',
    '\\bword\\b',
    '^[^:]*$',
    'x*?y',
    '\\s+',
    '[\\-.]',
    '^\\$\\{[A-Z_]+\\}$',
  ];
  const inputs = ['', 'abc', 'a\rc', 'a\nc', 'a\u00a0c', 'quay.io/x:4.17', 'quay.io/x:4.17\u00a0', 'x y', 'my-cluster-1', 'Ab.example.com', 'localhost', '10.0.0.1/16', '/subscriptions/s/resourceGroups/g', 'a word here', 'a:b', 'xxy', '\u{1F600}.c', 'a\u{1F600}c', '${HOME_DIR}', '-.'];

  it('answers as RE2 itself for every pattern and input, native or not', () => {
    for (const p of patterns) {
      const re = RE2JS.compile(p);
      const ours = compileRE2(p);
      for (const s of inputs) {
        expect([p, s, ours.test(s)]).toEqual([p, s, re.test(s)]);
        const m = re.matcher(s);
        const found = m.find() ? { start: m.start(), end: m.end(), text: m.group() } : undefined;
        expect([p, s, ours.exec(s, 0)]).toEqual([p, s, found]);
      }
    }
  });

  it('answers as RE2 for generated patterns and inputs (a seeded differential check of the native spelling)', () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const atoms = ['a', 'b', '.', '\\s', '\\S', '\\d', '\\w', '\\W', '[a-c]', '[^a]', '[\\d.]', '[-a]', '\\.', '\\b', '\\B', '^', '$', ' ', '\\-', '[a-z0-9-]', '\\t', '\\n', '\\\\', '\\/', '\\{', '\\]', '\\|'];
    const quantifiers = ['', '', '', '*', '+', '?', '{2}', '{1,3}', '{2,}', '*?', '+?', '??'];
    const gen = (depth: number): string => {
      let out = '';
      for (let i = 1 + rnd(2); i > 0; i--) {
        out += depth < 2 && rnd(5) === 0 ? `${rnd(2) ? '(' : '(?:'}${gen(depth + 1)}${rnd(3) === 0 ? `|${gen(depth + 1)}` : ''})` : atoms[rnd(atoms.length)];
        out += quantifiers[rnd(quantifiers.length)];
      }
      return out;
    };
    // Few characters, most of them where RE2 and JavaScript differ, so that short patterns decide on them.
    const chars = ['a', ' ', '\t', '\n', '\r', '\u00a0', '\v', '\u2028', '\u{1F600}', '1', '-', '.', '{', ']', '\\'];
    let native = 0;
    for (let t = 0; t < 3000; t++) {
      const p = gen(0);
      let re: RE2JS;
      try {
        re = RE2JS.compile(p);
      } catch {
        continue;
      }
      if (portableSource(p) !== undefined) native++;
      const ours = compileRE2(p);
      for (let k = 0; k < 6; k++) {
        let s = '';
        for (let n = 1 + rnd(3); n > 0; n--) s += chars[rnd(chars.length)];
        const m = re.matcher(s);
        const found = m.find() ? [m.start(), m.end()] : null;
        const got = ours.exec(s, 0);
        expect([p, s, ours.test(s), got ? [got.start, got.end] : null]).toEqual([p, s, re.test(s), found]);
      }
    }
    expect(native).toBeGreaterThan(1000); // the check covers the native spelling, not only re2js against itself
  });

  it('refuses what RE2 refuses, with Go\'s message', () => {
    expect(() => compileRE2('(a)\\1')).toThrow(InvalidPatternError);
    expect(() => compileRE2('a(?=b)')).toThrow(/^error parsing regexp: /);
    expect(() => compileRE2('a{2,1}')).toThrow(InvalidPatternError);
  });

  it('findAll follows Go: an empty match right after the previous one is skipped', () => {
    expect(findAll(compileRE2('a*'), 'baaac', -1)).toEqual(['', 'aaa', '']);
    expect(findAll(compileRE2('x*'), '\u{1F600}', -1)).toEqual(['', '']);
    expect(findAll(compileRE2('[0-9]'), 'a1b2c3', 2)).toEqual(['1', '2']);
    expect(findAll(compileRE2('\\pN'), 'a1b2', -1)).toEqual(['1', '2']);
  });
});
