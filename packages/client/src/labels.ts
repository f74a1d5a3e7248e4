/**
 * Label selectors and field selectors, parsed and matched exactly as k8s.io/apimachinery does, so
 * the control center's `?labelSelector=` / `?fieldSelector=`, the scheduler's
 * `controlcenter.hcc.dev/management-cluster-selector` annotation and the syncer's watches agree with
 * kube-apiserver and kubectl on every input, including the error text.
 *
 * Contract: pure functions, no I/O. A parsed {@link Selector} is immutable. Requirements are sorted
 * by key (stable) and set values are deduplicated and sorted, as upstream does, so `toString()` is
 * canonical (`a in (x,y),b!=c`).
 *
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/labels/selector.go
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/fields/selector.go
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector)
 */

/** selection.Operator values, spelled as upstream (`gt`/`lt` for `>`/`<`). */
export type Operator = '!' | '=' | '==' | 'in' | '!=' | 'notin' | 'exists' | 'gt' | 'lt';

/** One `key op values` term of a label selector. `values` is empty for `exists` and `!`. */
export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values: readonly string[];
}

/** A parsed label selector: the AND of its requirements. */
export interface Selector {
  /** Sorted by key; empty for Everything and Nothing. */
  readonly requirements: readonly Requirement[];
  /** True when the selector does not restrict anything (labels.Everything()); false for Nothing. */
  readonly empty: boolean;
  /** True for labels.Nothing() (a null metav1.LabelSelector): matches no object at all. */
  readonly matchesNothing: boolean;
  /** True when every requirement holds for the labels (undefined labels = no labels). */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The canonical string form (`Requirement.String()` joined by `,`); `''` for Everything and Nothing. */
  toString(): string;
  /** The single value the selector requires for `key` (`=`, `==`, or `in` with one value), if any. */
  requiresExactMatch(key: string): string | undefined;
}

/** A syntax or validation error in a label selector; `message` is worded like apimachinery's. */
export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }
}

// ---------------------------------------------------------------------------------------------
// validation (k8s.io/apimachinery/pkg/util/validation/validation.go)

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');
const maxLenError = (n: number): string => `must be no more than ${n} characters`;
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/**
 * validation.IsDNS1123Label (namespace names, ManagementCluster names, control-plane namespaces):
 * error strings, empty when valid; the length (at most 63 characters) and the pattern are two errors.
 */
export function isDNS1123Label(value: string): string[] {
  return labelErrors(value, dns1123LabelRe, regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
}

/** A DNS label's errors: over 63 characters, and not matching `re` (`patternError`). */
function labelErrors(value: string, re: RegExp, patternError: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!re.test(value)) errs.push(patternError);
  return errs;
}

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);
const dns1035LabelErrMsg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/**
 * validation.IsDNS1035Label (a CRD version's name, a Service's name): error strings, empty when
 * valid; the length (at most 63 characters) and the pattern are two errors.
 */
export function isDNS1035Label(value: string): string[] {
  return labelErrors(value, dns1035LabelRe, regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
}

/** validation.IsDNS1123Subdomain: error strings, empty when valid. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** validation.IsQualifiedName (label keys): error strings, empty when valid. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** validation.IsValidLabelValue: error strings, empty when valid. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

// field.Error rendering, enough for the messages selectors produce (field.Invalid / NotSupported).
const fieldInvalid = (path: string, value: unknown, detail: string): string =>
  `${path}: Invalid value: ${typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value ?? null)}: ${detail}`;

/** utilerrors.NewAggregate(...).Error(): one message as is, several deduplicated inside `[...]`. */
function aggregate(msgs: string[]): string {
  const seen = [...new Set(msgs)];
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}

const validOperators: Operator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!'];
const int64Re = /^[+-]?\d+$/;
const isInt64 = (s: string): boolean => {
  if (!int64Re.test(s)) return false;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
};

/**
 * labels.NewRequirement: validates and builds one requirement.
 * @param path - field path prefix for error messages (`''` renders as `<nil>` for keys, as upstream)
 * @throws SelectorParseError with the aggregated field errors
 */
export function newRequirement(key: string, operator: Operator, values: readonly string[] | undefined, path = ''): Requirement {
  const errs: string[] = [];
  const child = (c: string): string => (path ? `${path}.${c}` : c);
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(fieldInvalid(child('key'), key, keyErrs.join('; ')));
  const vals = values ?? [];
  const shown = values && values.length ? values : null; // a nil Go slice marshals as null
  const valuePath = child('values');
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0) errs.push(fieldInvalid(valuePath, shown, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) errs.push(fieldInvalid(valuePath, shown, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) errs.push(fieldInvalid(valuePath, shown, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) errs.push(fieldInvalid(valuePath, shown, "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (!isInt64(v)) errs.push(fieldInvalid(`${valuePath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push(
        `${child('operator')}: Unsupported value: ${JSON.stringify(operator)}: supported values: ${validOperators.map((o) => JSON.stringify(o)).join(', ')}`,
      );
  }
  vals.forEach((v, i) => {
    const e = isValidLabelValue(v);
    if (e.length) errs.push(fieldInvalid(`${valuePath}[${i}][${key}]`, v, e.join('; ')));
  });
  if (errs.length) throw new SelectorParseError(aggregate(errs));
  return Object.freeze({ key, operator, values: Object.freeze([...vals]) });
}

const has = (labels: Readonly<Record<string, string>>, key: string): boolean => Object.prototype.hasOwnProperty.call(labels, key);

/** Requirement.Matches. */
export function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const ls = labels ?? {};
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has(ls, r.key) && r.values.includes(ls[r.key]!);
    case 'notin':
    case '!=':
      return !has(ls, r.key) || !r.values.includes(ls[r.key]!);
    case 'exists':
      return has(ls, r.key);
    case '!':
      return !has(ls, r.key);
    case 'gt':
    case 'lt': {
      if (!has(ls, r.key) || r.values.length !== 1) return false;
      const lv = ls[r.key]!;
      const rv = r.values[0]!;
      if (!isInt64(lv) || !isInt64(rv)) return false;
      return r.operator === 'gt' ? BigInt(lv) > BigInt(rv) : BigInt(lv) < BigInt(rv);
    }
    default:
      return false;
  }
}

const goSorted = (vs: readonly string[]): string[] => [...vs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** Requirement.String(): `!k`, `k`, `k=v`, `k in (a,b)`, `k>5`. */
export function requirementToString(r: Requirement): string {
  let s = r.operator === '!' ? `!${r.key}` : r.key;
  switch (r.operator) {
    case 'exists':
    case '!':
      return s;
    case 'in':
      s += ' in (';
      break;
    case 'notin':
      s += ' notin (';
      break;
    case 'gt':
      s += '>';
      break;
    case 'lt':
      s += '<';
      break;
    default:
      s += r.operator;
  }
  s += r.values.length === 1 ? r.values[0] : goSorted(r.values).join(',');
  if (r.operator === 'in' || r.operator === 'notin') s += ')';
  return s;
}

function makeSelector(reqs: Requirement[], nothing = false): Selector {
  // sort.Sort(ByKey) — stable here; upstream's insertion sort is stable for the sizes seen in practice.
  const sorted = Object.freeze([...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
  return Object.freeze({
    requirements: sorted,
    empty: !nothing && sorted.length === 0,
    matchesNothing: nothing,
    matches: (labels: Readonly<Record<string, string>> | undefined) => !nothing && sorted.every((r) => requirementMatches(r, labels)),
    toString: () => sorted.map(requirementToString).join(','),
    requiresExactMatch: (key: string) => {
      const r = sorted.find((x) => x.key === key);
      if (!r) return undefined;
      if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
      return undefined;
    },
  });
}

/** labels.Everything(): matches all objects. */
export const everything = (): Selector => makeSelector([]);
/** labels.Nothing(): matches no object (what a null metav1.LabelSelector means). */
export const nothing = (): Selector => makeSelector([], true);

/** labels.SelectorFromSet: `k=v` for every entry, no validation. An empty set selects everything. */
export function selectorFromSet(set: Readonly<Record<string, string>> | undefined): Selector {
  return makeSelector(Object.entries(set ?? {}).map(([key, v]) => Object.freeze({ key, operator: '=' as const, values: Object.freeze([v]) })));
}

/** Renders a selector as its canonical string (what `labels.Selector.String()` returns). */
export const selectorToString = (s: Selector): string => s.toString();

// ---------------------------------------------------------------------------------------------
// lexer and parser (labels/selector.go Lexer, Parser)

enum Tok {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const string2token: Record<string, Tok> = {
  ')': Tok.ClosedPar,
  ',': Tok.Comma,
  '!': Tok.DoesNotExist,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.GreaterThan,
  in: Tok.In,
  '<': Tok.LessThan,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};
const tokenOf = (s: string): Tok | undefined => (Object.prototype.hasOwnProperty.call(string2token, s) ? string2token[s] : undefined);
const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecialSymbol = (c: string): boolean => '=!(),><'.includes(c) && c.length === 1;

interface Item {
  tok: Tok;
  lit: string;
}

function lex(s: string): Item[] {
  let pos = 0;
  const read = (): string => (pos < s.length ? s[pos++]! : '');
  const items: Item[] = [];
  for (;;) {
    let ch = read();
    while (ch !== '' && isWhitespace(ch)) ch = read();
    if (ch === '') {
      items.push({ tok: Tok.EndOfString, lit: '' });
      return items;
    }
    pos--;
    if (isSpecialSymbol(ch)) {
      let buffer = '';
      let last: Item | undefined;
      for (;;) {
        const c = read();
        if (c === '') break;
        if (isSpecialSymbol(c)) {
          buffer += c;
          const t = tokenOf(buffer);
          if (t !== undefined) last = { tok: t, lit: buffer };
          else if (last) {
            pos--;
            break;
          }
        } else {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buffer}'` });
    } else {
      let buffer = '';
      for (;;) {
        const c = read();
        if (c === '') break;
        if (isSpecialSymbol(c) || isWhitespace(c)) {
          pos--;
          break;
        }
        buffer += c;
      }
      const t = tokenOf(buffer);
      items.push({ tok: t ?? Tok.Identifier, lit: buffer });
    }
  }
}

const binaryOperators = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  private static inValues(tok: Tok, values: boolean): Tok {
    return values && (tok === Tok.In || tok === Tok.NotIn) ? Tok.Identifier : tok;
  }
  lookahead(values: boolean): Item {
    const it = this.items[this.position]!;
    return { tok: Parser.inValues(it.tok, values), lit: it.lit };
  }
  consume(values: boolean): Item {
    const it = this.items[this.position++]!;
    return { tok: Parser.inValues(it.tok, values), lit: it.lit };
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      switch (tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          let r: Requirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            throw new SelectorParseError(`unable to parse requirement: ${(e as Error).message}`);
          }
          reqs.push(r);
          const t = this.consume(true);
          if (t.tok === Tok.EndOfString) return reqs;
          if (t.tok === Tok.Comma) {
            const t2 = this.lookahead(true);
            if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) {
              throw new SelectorParseError(`found '${t2.lit}', expected: identifier after ','`);
            }
            break;
          }
          throw new SelectorParseError(`found '${t.lit}', expected: ',' or 'end of string'`);
        }
        case Tok.EndOfString:
          return reqs;
        default:
          throw new SelectorParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): Requirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, goSorted([...values]));
  }

  private parseKeyAndInferOperator(): { key: string; operator: Operator | '' } {
    let operator: Operator | '' = '';
    let { tok, lit } = this.consume(true);
    if (tok === Tok.DoesNotExist) {
      operator = '!';
      ({ tok, lit } = this.consume(true));
    }
    if (tok !== Tok.Identifier) throw new Error(`found '${lit}', expected: identifier`);
    const errs = isQualifiedName(lit);
    if (errs.length) throw new Error(fieldInvalid('<nil>', lit, errs.join('; ')));
    const t = this.lookahead(true).tok;
    if ((t === Tok.EndOfString || t === Tok.Comma) && operator !== '!') operator = 'exists';
    return { key: lit, operator };
  }

  private parseOperator(): Operator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case Tok.In:
        return 'in';
      case Tok.Equals:
        return '=';
      case Tok.DoubleEquals:
        return '==';
      case Tok.GreaterThan:
        return 'gt';
      case Tok.LessThan:
        return 'lt';
      case Tok.NotIn:
        return 'notin';
      case Tok.NotEquals:
        return '!=';
      default:
        throw new Error(`found '${lit}', expected: ${binaryOperators.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== Tok.OpenPar) throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    switch (tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        const s = this.parseIdentifiersList();
        if (this.consume(true).tok !== Tok.ClosedPar) throw new Error(`found '${lit}', expected: ')'`);
        return s;
      }
      case Tok.ClosedPar:
        this.consume(true);
        return new Set(['']);
      default:
        throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === Tok.Identifier) {
        s.add(lit);
        const t2 = this.lookahead(true);
        if (t2.tok === Tok.Comma) continue;
        if (t2.tok === Tok.ClosedPar) return s;
        throw new Error(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (tok === Tok.Comma) {
        if (s.size === 0) s.add('');
        const t2 = this.lookahead(true).tok;
        if (t2 === Tok.ClosedPar) {
          s.add('');
          return s;
        }
        if (t2 === Tok.Comma) {
          this.consume(true);
          s.add('');
        }
      } else {
        throw new Error(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const t = this.lookahead(true).tok;
    if (t === Tok.EndOfString || t === Tok.Comma) return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

/**
 * labels.Parse: parses a label selector string.
 *
 * Grammar: `<requirement> ("," <requirement>)*` with requirement `[!] KEY [ ("in"|"notin") "(" VALUES ")" |
 * ("="|"=="|"!="|">"|"<") VALUE ]`. `''` selects everything.
 * @example parseSelector('controlcenter.hcc.dev/management-cluster in (mgmt-1,mgmt-2),!cordoned')
 * @throws SelectorParseError e.g. `unable to parse requirement: values[0][app]: Invalid value: "a@b": a valid label must be ...`
 *   or `found ',', expected: !, identifier, or 'end of string'`
 */
export function parseSelector(s: string): Selector {
  return makeSelector(new Parser(lex(s)).parse());
}

// ---------------------------------------------------------------------------------------------
// metav1.LabelSelector

/** metav1.LabelSelectorRequirement. */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | string;
  values?: string[];
}

/** metav1.LabelSelector as JSON. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/**
 * metav1.LabelSelectorAsSelector: `null`/`undefined` selects nothing, `{}` selects everything.
 * @throws SelectorParseError for invalid keys/values/operators, e.g. `"Foo" is not a valid label selector operator`
 */
export function selectorFromLabelSelector(ls: LabelSelector | null | undefined): Selector {
  if (ls === null || ls === undefined) return nothing();
  const labels = ls.matchLabels ?? {};
  const exprs = ls.matchExpressions ?? [];
  if (Object.keys(labels).length + exprs.length === 0) return everything();
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(labels)) reqs.push(newRequirement(k, '=', [v]));
  for (const e of exprs) {
    const op = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as Record<string, Operator>)[e.operator];
    if (!op) throw new SelectorParseError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    reqs.push(newRequirement(e.key, op, e.values ?? []));
  }
  return makeSelector(reqs);
}

// ---------------------------------------------------------------------------------------------
// field selectors (fields/selector.go)

/** One term of a field selector. `==` and `=` mean the same. */
export interface FieldRequirement {
  readonly field: string;
  readonly op: '=' | '==' | '!=';
  readonly value: string;
}

/** A syntax error in a field selector; `message` is worded like apimachinery's. */
export class FieldSelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldSelectorParseError';
  }
}

/** Splits on unescaped commas, keeping escapes (fields.splitTerms). */
function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

const termOperators = ['!=', '==', '='] as const;

/** fields.splitTerm: the first recognised operator splits; no escaping on the left-hand side. */
function splitTerm(term: string): { lhs: string; op: FieldRequirement['op']; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
  }
  return undefined;
}

/**
 * fields.UnescapeValue: `\\`, `\,` and `\=` are the only escapes; bare `,` and `=` are errors.
 * @throws FieldSelectorParseError `invalid field selector: invalid escape sequence: \x` or
 *   `invalid field selector: unescaped character in value: 61` (upstream prints the rune number)
 */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else throw new FieldSelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw new FieldSelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new FieldSelectorParseError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** fields.EscapeValue: the inverse of {@link unescapeFieldValue}. */
export const escapeFieldValue = (s: string): string => s.replace(/[\\,=]/g, (c) => `\\${c}`);

/**
 * fields.ParseSelector: `field=value`, `field==value`, `field!=value`, comma-separated, values escaped
 * with `\,` `\=` `\\`. Terms are returned sorted by their text, empty terms are skipped; `''` means
 * no requirement. Whitespace is not trimmed (as upstream).
 * @throws FieldSelectorParseError e.g. `invalid selector: 'status.phase'; can't understand 'status.phase'`
 */
export function parseFieldSelector(s: string): FieldRequirement[] {
  const parts = splitTerms(s).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new FieldSelectorParseError(`invalid selector: '${s}'; can't understand '${part}'`);
    out.push(Object.freeze({ field: t.lhs, op: t.op, value: unescapeFieldValue(t.rhs) }));
  }
  return out;
}

/**
 * Whether an object's fields satisfy every requirement. A field `getField` does not know reads as
 * `''` (fields.Set.Get), so `spec.nodeName=` matches objects without it.
 * @param getField - field label (`metadata.name`) to value, or undefined when absent
 */
export function matchesFields(reqs: readonly FieldRequirement[], getField: (path: string) => string | undefined): boolean {
  return reqs.every((r) => {
    const v = getField(r.field) ?? '';
    return r.op === '!=' ? v !== r.value : v === r.value;
  });
}

/** The canonical string of field requirements (`a=b,c!=d`, values escaped; `==` renders as `=`). */
export const fieldSelectorToString = (reqs: readonly FieldRequirement[]): string =>
  reqs.map((r) => `${r.field}${r.op === '!=' ? '!=' : '='}${escapeFieldValue(r.value)}`).join(',');
