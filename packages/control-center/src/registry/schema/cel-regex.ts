/**
 * Regular expressions for CEL's `matches`, `find` and `findAll` and a schema's `pattern`, as
 * kube-apiserver evaluates them with Go's `regexp`: RE2 syntax and semantics over Unicode code
 * points, in time linear in the input. JavaScript's RegExp differs where a rule may notice: `\s`/`\S`
 * (RE2: ASCII `[\t\n\f\r ]`; JavaScript adds `\v`, U+00A0 and other Unicode spaces), `.` (RE2: any
 * code point but `\n`; JavaScript: one UTF-16 unit, and not `\r`, U+2028 or U+2029 either), POSIX
 * classes (`[[:alpha:]]`), Unicode classes (`\pL`), flags (`(?i)`), `\z`, `\Q...\E`, syntax RE2
 * refuses (backreferences, lookaround, nested repeats over 1,000), and above all its backtracking:
 * `^(a+)+$` against 30 characters takes V8 seconds (an API server frozen by one field value), and
 * even HyperShift's own release-image rule `^(\w+\S+)$` is quadratic there. So every pattern runs on
 * re2js, a port of RE2 (~1–2 µs per match of a short string; the HostedCluster check went from
 * ~27 to ~34 µs). Compiled patterns are cached by text (at most 1,000, then the cache starts over).
 * @see https://github.com/google/re2/wiki/Syntax
 * @see https://github.com/google/cel-go/blob/master/ext/strings.go
 */
import { RE2JS } from 're2js';

/** Thrown for a pattern RE2 does not accept; its message is RE2's, as Go words it (`error parsing regexp: ...`). */
export class InvalidPatternError extends Error {
  override readonly name = 'InvalidPatternError';
}

/** A compiled RE2 pattern (see {@link compileRE2}): whether and where it matches. */
export class Pattern {
  readonly #re: RE2JS;
  /** @throws what re2js throws for a pattern RE2 refuses */
  constructor(pattern: string) {
    this.#re = RE2JS.compile(pattern);
  }
  /** Whether the pattern matches somewhere in `s` (CEL `matches` is a search, not a full match). */
  test(s: string): boolean {
    return this.#re.test(s);
  }
  /**
   * The first match starting at or after UTF-16 index `from` of `s`, as UTF-16 indices and its
   * text; undefined when there is none.
   */
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
  try {
    re = new Pattern(pattern);
  } catch (e) {
    throw new InvalidPatternError(e instanceof Error ? e.message : String(e));
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
