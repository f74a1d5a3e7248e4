import { describe, expect, it } from 'vitest';
import { compileRE2, findAll, InvalidPatternError } from './cel-regex.js';

describe('compileRE2', () => {
  it.each([
    // RE2's meaning where JavaScript's RegExp reads the same text otherwise
    { pattern: '^(\\w+\\S+)$', input: 'quay.io/x:4.17\u00a0', want: true },
    { pattern: '^(\\w+\\S+)$', input: 'quay.io/x:4.17\v', want: true },
    { pattern: '^(\\w+\\S+)$', input: 'quay.io/x:4.17 ', want: false },
    { pattern: '^a.c$', input: 'a\rc', want: true },
    { pattern: '^a.c$', input: 'a\u2028c', want: true },
    { pattern: '^a.c$', input: 'a\nc', want: false },
    { pattern: '^a.c$', input: 'a\u{1F600}c', want: true },
    { pattern: '^[[:alpha:]]+$', input: 'abc', want: true },
    { pattern: '^[[:alpha:]]+$', input: 'déf', want: false },
    { pattern: '^\\pL+$', input: 'déf', want: true },
    { pattern: '(?i)^abc$', input: 'ABC', want: true },
    { pattern: '^\\Qa.b\\E$', input: 'axb', want: false },
    { pattern: 'ab\\z', input: 'ab\n', want: false },
    { pattern: 'ab$', input: 'ab\n', want: false },
    { pattern: '^a{,2}$', input: 'a{,2}', want: true },
  ])('$pattern against $input', ({ pattern, input, want }) => {
    expect(compileRE2(pattern).test(input)).toBe(want);
  });

  it('gives the first match at or after a position, in UTF-16 indices', () => {
    expect(compileRE2('.b').exec('a\u{1F600}b', 0)).toEqual({ start: 1, end: 4, text: '\u{1F600}b' });
    expect(compileRE2('[0-9]+').exec('a12b345', 3)).toEqual({ start: 4, end: 7, text: '345' });
    expect(compileRE2('z').exec('abc', 0)).toBeUndefined();
  });

  it('matches in time linear in the input: patterns that make a backtracking engine hang answer at once', () => {
    // V8 takes seconds for ^(a+)+$ against 30 characters, and doubles with each one more.
    const s = `${'a'.repeat(5000)}!`;
    expect(compileRE2('^(a+)+$').test(s)).toBe(false);
    expect(compileRE2('^(a|a)+$').test(s)).toBe(false);
    expect(compileRE2('^(\\w+\\S+)$').test(`${'a'.repeat(100_000)} `)).toBe(false);
  });

  it('refuses what RE2 refuses, with Go\'s message', () => {
    expect(() => compileRE2('(a)\\1')).toThrow(InvalidPatternError);
    expect(() => compileRE2('a(?=b)')).toThrow(/^error parsing regexp: /);
    expect(() => compileRE2('a{2,1}')).toThrow(InvalidPatternError);
    // Nested repeats whose copies exceed 1,000 (Go's repeatIsValid).
    expect(() => compileRE2('(a{100}){100}')).toThrow(/invalid repeat count/);
  });

  it('findAll follows Go: an empty match right after the previous one is skipped', () => {
    expect(findAll(compileRE2('a*'), 'baaac', -1)).toEqual(['', 'aaa', '']);
    expect(findAll(compileRE2('x*'), '\u{1F600}', -1)).toEqual(['', '']);
    expect(findAll(compileRE2('[0-9]'), 'a1b2c3', 2)).toEqual(['1', '2']);
    expect(findAll(compileRE2('\\pN'), 'a1b2', -1)).toEqual(['1', '2']);
  });
});
