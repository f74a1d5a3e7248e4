/**
 * Regular expressions for CEL's `matches`, `find` and `findAll` as cel-go evaluates them: RE2
 * syntax and semantics over Unicode code points (Go's `regexp`), not JavaScript's RegExp. The two
 * differ where a rule may notice: `\s`/`\S` (RE2: ASCII `[\t\n\f\r ]`; JavaScript adds `\v`,
 * U+00A0 and other Unicode spaces), `.` (RE2: any code point but `\n`; JavaScript: one UTF-16 unit,
 * and not `\r`, U+2028 or U+2029 either), POSIX classes (`[[:alpha:]]`), Unicode classes (`\pL`),
 * flags (`(?i)`), `\z`, `\Q...\E`, and syntax RE2 refuses (backreferences, lookaround).
 *
 * A pattern written only with what both mean alike (ASCII literals and classes, `\d`, `\w`, `\b`,
 * escaped punctuation, groups, alternation, quantifiers, anchors) runs as a JavaScript RegExp with
 * the `u` flag (code points), `.` and `\s`/`\S` spelled out as RE2 means them. Every other pattern
 * runs on re2js, a port of RE2 (slower: ~1–2 µs per match of a short string, against ~0.1 µs).
 * Compiled patterns are cached by text (at most 1,000, then the cache starts over).
 * @see https://github.com/google/re2/wiki/Syntax
 * @see https://github.com/google/cel-go/blob/master/ext/strings.go
 */
import { RE2JS } from 're2js';

/** A compiled pattern: where its first match at or after a position is. */
export interface Pattern {
  /** Whether the pattern matches somewhere in `s` (CEL `matches` is a search, not a full match). */
  test(s: string): boolean;
  /**
   * The first match starting at or after UTF-16 index `from` of `s`, as UTF-16 indices and its
   * text; undefined when there is none.
   */
  exec(s: string, from: number): { start: number; end: number; text: string } | undefined;
}

/** Thrown for a pattern RE2 does not accept; its message is RE2's, as Go words it (`error parsing regexp: ...`). */
export class InvalidPatternError extends Error {
  override readonly name = 'InvalidPatternError';
}

/** Escapes that mean the same in RE2 and in a JavaScript RegExp with the `u` flag, outside a class. */
const sharedEscapes = new Set([...'dDwWbBtnrfv', ...'\\^$.|?*+()[]{}/']);
/** The same inside a character class (`\b` is a backspace there in JavaScript, refused by RE2). */
const sharedClassEscapes = new Set([...'dDwWtnrfv', ...'\\^$.|?*+()[]{}/-']);

/**
 * The JavaScript source (for a `u`-flag RegExp) that matches exactly what RE2 pattern `p` matches,
 * or undefined when `p` uses anything whose meaning differs (or might) between the two: re2js then
 * evaluates it.
 */
export function portableSource(p: string): string | undefined {
  let out = '';
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    const code = c.charCodeAt(0);
    if (code < 0x20 || code > 0x7e) return undefined;
    if (c === '\\') {
      const e = p[i + 1];
      i++;
      if (e === undefined) return undefined;
      if (!inClass && (e === 's' || e === 'S')) {
        out += e === 's' ? '[\\t\\n\\f\\r ]' : '[^\\t\\n\\f\\r ]';
        continue;
      }
      if (!(inClass ? sharedClassEscapes : sharedEscapes).has(e)) return undefined;
      out += `\\${e}`;
      continue;
    }
    if (inClass) {
      if (c === '[') return undefined; // `[:alpha:]`, or a literal `[` RE2 takes differently in places
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (p[i + 1] === '^') out += p[++i];
      if (p[i + 1] === ']') return undefined; // `[]a]`: a literal `]` in RE2, an empty class in JavaScript
      continue;
    }
    if (c === '(' && p[i + 1] === '?' && p[i + 2] !== ':') return undefined; // flags, named groups, lookaround
    if (c === '{') {
      // RE2 takes `{` that starts no valid repeat as a literal, and refuses counts above 1,000.
      const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
      if (!m || Number(m[1]) > 1000 || (m[3] !== undefined && m[3] !== '' && Number(m[3]) > 1000)) return undefined;
    }
    out += c === '.' ? '[^\\n]' : c;
  }
  return inClass ? undefined : out;
}

/** A pattern run as a JavaScript RegExp (see {@link portableSource}). */
class NativePattern implements Pattern {
  readonly #test: RegExp;
  readonly #scan: RegExp;
  constructor(source: string) {
    this.#test = new RegExp(source, 'u');
    this.#scan = new RegExp(source, 'gu');
  }
  test(s: string): boolean {
    return this.#test.test(s);
  }
  exec(s: string, from: number): { start: number; end: number; text: string } | undefined {
    this.#scan.lastIndex = from;
    const m = this.#scan.exec(s);
    return m ? { start: m.index, end: m.index + m[0].length, text: m[0] } : undefined;
  }
}

/** A pattern run on re2js. */
class RE2Pattern implements Pattern {
  readonly #re: RE2JS;
  constructor(pattern: string) {
    this.#re = RE2JS.compile(pattern);
  }
  test(s: string): boolean {
    return this.#re.test(s);
  }
  exec(s: string, from: number): { start: number; end: number; text: string } | undefined {
    const m = this.#re.matcher(s);
    if (!m.find(from)) return undefined;
    return { start: m.start(), end: m.end(), text: m.group() ?? '' };
  }
}

const cache = new Map<string, Pattern>();

/**
 * The compiled RE2 pattern `pattern` (cached by text).
 * @throws InvalidPatternError when RE2 refuses it (as Go's `regexp.Compile` would, with Go's message)
 */
export function compileRE2(pattern: string): Pattern {
  let re = cache.get(pattern);
  if (re) return re;
  const source = portableSource(pattern);
  try {
    re = source === undefined ? new RE2Pattern(pattern) : new NativePattern(source);
  } catch {
    // JavaScript refused the portable spelling (e.g. `\-` outside a class): RE2 decides.
    try {
      re = new RE2Pattern(pattern);
    } catch (e) {
      throw new InvalidPatternError(e instanceof Error ? e.message : String(e));
    }
  }
  if (cache.size >= 1000) cache.clear();
  cache.set(pattern, re);
  return re;
}

/**
 * Up to `limit` successive non-overlapping matches of `re` in `s` (all when `limit` < 0), as Go's
 * `Regexp.FindAllString`: an empty match right after the previous match is skipped.
 * @see https://pkg.go.dev/regexp#Regexp.FindAllString
 */
export function findAll(re: Pattern, s: string, limit: number): string[] {
  const out: string[] = [];
  let prevEnd = -1;
  for (let pos = 0; (limit < 0 || out.length < limit) && pos <= s.length; ) {
    const m = re.exec(s, pos);
    if (!m) break;
    let accept = true;
    if (m.end === pos) {
      // An empty match: not right after the previous one; move on by one code point.
      if (m.start === prevEnd) accept = false;
      const cp = s.codePointAt(pos);
      pos += cp !== undefined && cp > 0xffff ? 2 : 1;
    } else pos = m.end;
    prevEnd = m.end;
    if (accept) out.push(m.text);
  }
  return out;
}
