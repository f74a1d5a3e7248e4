/**
 * The Kubernetes JSONPath dialect (k8s.io/client-go/util/jsonpath), used for CRD
 * `additionalPrinterColumns`, `selectableFields` and `kubectl -o jsonpath`, plus the Table cell
 * formatting kube-apiserver applies to CRD printer columns.
 *
 * Accepted: templates (`{.metadata.name}`, `name={.metadata.name}{"\n"}`, `{range .items[*]}...{end}`)
 * and bare paths (`.status.conditions[?(@.type=="Available")].status`, `metadata.name`), which are
 * wrapped like kubectl's RelaxedJSONPathExpression. Syntax: `.field` (escape dots: `a\.b`), `['key']`,
 * `[n]`, `[-1]`, `[*]`, `[start:end:step]`, `[0,2]`, `..` recursive descent, `*`, filters
 * `[?(@.a=="x")]` with `==` `!=` `<` `>` `<=` `>=` (strings, integers, floats, booleans) and
 * existence `[?(@.a)]`, literals `"text"`, `'text'`, numbers, `true`/`false`.
 *
 * Behaviour copied from upstream, including its corners: a missing key yields no result (with
 * allowMissingKeys, the default, as in CRD columns and kubectl); out-of-range indices, filters on
 * non-lists and comparisons of mismatched kinds (`incompatible types for comparison`) are errors;
 * map members are visited in insertion order (upstream: Go map order).
 * @see https://github.com/kubernetes/client-go/blob/master/util/jsonpath/parser.go
 * @see https://github.com/kubernetes/client-go/blob/master/util/jsonpath/jsonpath.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/registry/customresource/tableconvertor/tableconvertor.go
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/util/duration/duration.go
 */

import { goFloat } from '../go-float.js';

/** A syntax or evaluation error, worded like client-go's (`unclosed action`, `array index out of bounds: index 3, length 2`). */
export class JSONPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JSONPathError';
  }
}

interface ListNode {
  t: 'list';
  nodes: Node[];
}
interface Param {
  known: boolean;
  value: number;
  derived: boolean;
}
type Node =
  | ListNode
  | { t: 'text'; text: string }
  | { t: 'field'; name: string }
  | { t: 'array'; params: [Param, Param, Param] }
  | { t: 'filter'; left: ListNode; right: ListNode; op: string }
  | { t: 'int'; value: number }
  | { t: 'float'; value: number }
  | { t: 'bool'; value: boolean }
  | { t: 'wildcard' }
  | { t: 'recursive' }
  | { t: 'union'; nodes: ListNode[] }
  | { t: 'identifier'; name: string };

/** A float literal of the expression (Go float64), kept apart from integral JSON numbers for comparisons. */
class GoFloat {
  constructor(readonly value: number) {}
}

const EOF = '';
const list = (): ListNode => ({ t: 'list', nodes: [] });
const isDigit = (r: string): boolean => /^\p{Nd}$/u.test(r);
const isAlphaNumeric = (r: string): boolean => r === '_' || /^[\p{L}\p{Nd}]$/u.test(r);
const isTerminator = (r: string): boolean => r === EOF || ' \t\r\n.,[]$@{}'.includes(r);

/** `%#U` of a rune: `U+0021 '!'`. */
const goRune = (r: string): string => `U+${r.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${r}'`;

/** strconv.Unquote extended to single quotes. */
function unquoteExtend(s: string): string {
  const q = s[0];
  if (s.length < 2 || (q !== '"' && q !== "'") || s[s.length - 1] !== q) throw new Error('invalid syntax');
  const body = s.slice(1, -1);
  if (!body.includes('\\') && !body.includes(q)) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === q) throw new Error('invalid syntax');
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };
    if (e !== undefined && simple[e] !== undefined) {
      if ((e === "'" || e === '"') && e !== q) throw new Error('invalid syntax');
      out += simple[e];
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw new Error('invalid syntax');
      out += String.fromCodePoint(parseInt(hex, 16));
      i += n;
    } else if (e !== undefined && /[0-7]/.test(e)) {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct)) throw new Error('invalid syntax');
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
    } else {
      throw new Error('invalid syntax');
    }
  }
  return out;
}

/** Port of client-go's jsonpath Parser (a hand-written lexer/parser over the template text). */
class Parser {
  root: ListNode = list();
  private input = '';
  private pos = 0;
  private start = 0;
  private width = 0;

  parse(text: string): ListNode {
    this.input = text;
    this.root = list();
    this.pos = 0;
    this.start = 0;
    this.parseText(this.root);
    return this.root;
  }

  private consumeText(): string {
    const v = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return v;
  }
  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const r = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.width = r.length;
    this.pos += this.width;
    return r;
  }
  private peek(): string {
    const r = this.next();
    this.backup();
    return r;
  }
  private backup(): void {
    this.pos -= this.width;
  }

  private parseText(cur: ListNode): void {
    for (;;) {
      if (this.input.startsWith('{', this.pos)) {
        if (this.pos > this.start) cur.nodes.push({ t: 'text', text: this.consumeText() });
        this.parseLeftDelim(cur);
        return;
      }
      if (this.next() === EOF) break;
    }
    if (this.pos > this.start) cur.nodes.push({ t: 'text', text: this.consumeText() });
  }

  private parseLeftDelim(cur: ListNode): void {
    this.pos += 1;
    this.consumeText();
    const node = list();
    cur.nodes.push(node);
    this.parseInsideAction(node);
  }

  private parseInsideAction(cur: ListNode): void {
    for (;;) {
      if (this.input.startsWith('}', this.pos)) return this.parseRightDelim();
      if (this.input.startsWith('[?(', this.pos)) return this.parseFilter(cur);
      if (this.input.startsWith('..', this.pos)) return this.parseRecursive(cur);
      const r = this.next();
      if (r === EOF || r === '\r' || r === '\n') throw new JSONPathError('unclosed action');
      if (r === ' ' || r === '@' || r === '$') {
        this.consumeText();
        continue;
      }
      if (r === '[') return this.parseArray(cur);
      if (r === '"' || r === "'") return this.parseQuote(cur, r);
      if (r === '.') return this.parseField(cur);
      if (r === '+' || r === '-' || isDigit(r)) {
        this.backup();
        return this.parseNumber(cur);
      }
      if (isAlphaNumeric(r)) {
        this.backup();
        return this.parseIdentifier(cur);
      }
      throw new JSONPathError(`unrecognized character in action: ${goRune(r)}`);
    }
  }

  private parseRightDelim(): void {
    this.pos += 1;
    this.consumeText();
    this.parseText(this.root);
  }

  private parseIdentifier(cur: ListNode): void {
    for (;;) {
      if (isTerminator(this.next())) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (value === 'true' || value === 'false') cur.nodes.push({ t: 'bool', value: value === 'true' });
    else cur.nodes.push({ t: 'identifier', name: value });
    this.parseInsideAction(cur);
  }

  private parseRecursive(cur: ListNode): void {
    if (cur.nodes[cur.nodes.length - 1]?.t === 'recursive') throw new JSONPathError('invalid multiple recursive descent');
    this.pos += 2;
    this.consumeText();
    cur.nodes.push({ t: 'recursive' });
    if (isAlphaNumeric(this.peek())) return this.parseField(cur);
    this.parseInsideAction(cur);
  }

  private parseNumber(cur: ListNode): void {
    const r = this.peek();
    if (r === '+' || r === '-') this.next();
    for (;;) {
      const c = this.next();
      if (c !== '.' && !isDigit(c)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (/^[+-]?[0-9]+$/.test(value) && Number.isSafeInteger(Number(value))) cur.nodes.push({ t: 'int', value: Number(value) });
    else if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(value)) cur.nodes.push({ t: 'float', value: Number(value) });
    else throw new JSONPathError(`cannot parse number ${value}`);
    this.parseInsideAction(cur);
  }

  private parseArray(cur: ListNode): void {
    for (;;) {
      const c = this.next();
      if (c === EOF || c === '\n') throw new JSONPathError('unterminated array');
      if (c === ']') break;
    }
    let text = this.consumeText().slice(1, -1);
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      cur.nodes.push({ t: 'union', nodes: parts.map((s) => parseAction(`[${s.replace(/^ +| +$/g, '')}]`)) });
      return this.parseInsideAction(cur);
    }
    const dict = /^'([^']*)'$/.exec(text);
    if (dict) {
      cur.nodes.push(...parseAction(`.${dict[1]}`).nodes);
      return this.parseInsideAction(cur);
    }
    const m = /^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$/.exec(text);
    if (!m) throw new JSONPathError(`invalid array index ${text}`);
    const params: [Param, Param, Param] = [
      { known: false, value: 0, derived: false },
      { known: false, value: 0, derived: false },
      { known: false, value: 0, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let v = m[i + 1] ?? '';
      if (v !== '') {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === '') {
          params[i]!.known = false;
        } else {
          if (!/^[+-]?[0-9]+$/.test(v)) throw new JSONPathError(`array index ${v} is not a number`);
          params[i] = { known: true, value: Number(v), derived: false };
        }
      } else if (i === 1) {
        params[1] = { known: true, value: params[0]!.value + 1, derived: true };
      }
    }
    cur.nodes.push({ t: 'array', params });
    this.parseInsideAction(cur);
  }

  private parseFilter(cur: ListNode): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathError('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && r === pair) end = true;
      } else if (r === ')' && begin === end) {
        break;
      }
    }
    if (this.next() !== ']') throw new JSONPathError('unclosed array expect ]');
    const text = this.consumeText().slice(0, -2);
    const m = /^([^!<>=]+)([!<>=]+)(.+?)$/.exec(text);
    if (!m) cur.nodes.push({ t: 'filter', left: parseAction(text), right: list(), op: 'exists' });
    else cur.nodes.push({ t: 'filter', left: parseAction(m[1]!), right: parseAction(m[3]!), op: m[2]! });
    this.parseInsideAction(cur);
  }

  private parseQuote(cur: ListNode, end: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathError('unterminated quoted string');
      if (r === end && this.input[this.pos - 2] !== '\\') break;
    }
    const value = this.consumeText();
    let s: string;
    try {
      s = unquoteExtend(value);
    } catch (e) {
      throw new JSONPathError(`unquote string ${value} error ${(e as Error).message}`);
    }
    cur.nodes.push({ t: 'text', text: s });
    this.parseInsideAction(cur);
  }

  private parseField(cur: ListNode): void {
    this.consumeText();
    while (this.advance()) {
      /* scan to the next unescaped terminator */
    }
    const value = this.consumeText();
    cur.nodes.push(value === '*' ? { t: 'wildcard' } : { t: 'field', name: value.replaceAll('\\', '') });
    this.parseInsideAction(cur);
  }

  private advance(): boolean {
    const r = this.next();
    if (r === '\\') this.next();
    else if (isTerminator(r)) {
      this.backup();
      return false;
    }
    return true;
  }
}

/** parseAction: parses `{text}` and returns its single action list. */
function parseAction(text: string): ListNode {
  const root = new Parser().parse(`{${text}}`);
  return root.nodes[0] as ListNode;
}

// ---------------------------------------------------------------------------------------------
// evaluation

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoFloat);
const unwrap = (v: unknown): unknown => (v instanceof GoFloat ? v.value : v);

/** Go's reflect type name of a decoded JSON value, for error messages. */
function goType(v: unknown): string {
  if (v instanceof GoFloat) return 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (isMap(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return '<nil>';
}

/** fmt.Fprint of a decoded JSON scalar (`<nil>` for null). Integral numbers print as int64. */
function goPrint(v: unknown): string {
  if (v instanceof GoFloat) return goFloat(v.value);
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return Number.isInteger(v) ? (Number.isSafeInteger(v) ? String(v) : BigInt(v).toString()) : goFloat(v);
  if (isMap(v) || Array.isArray(v)) return goFmt(v);
  return String(v);
}

function goFmt(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goFmt).join(' ')}]`;
  if (isMap(v)) {
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goFmt(v[k])}`)
      .join(' ')}]`;
  }
  return goPrint(v);
}

/** Go's encoding/json.Marshal: sorted keys, `<`, `>`, `&`, U+2028/2029 escaped. */
export function goJSON(v: unknown): string {
  const esc = (s: string) =>
    JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (v instanceof GoFloat) return JSON.stringify(v.value);
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`;
  if (isMap(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${esc(k)}:${goJSON(v[k])}`)
      .join(',')}}`;
  }
  if (typeof v === 'string') return esc(v);
  return JSON.stringify(v ?? null);
}

/** The children of a value for `*` and `..`: map values, list items, or a string's bytes (as upstream). */
function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isMap(v)) return Object.values(v);
  if (typeof v === 'string') return [...Buffer.from(v, 'utf8')];
  return [];
}

type BasicKind = 'bool' | 'int' | 'float' | 'string';
function basicKind(v: unknown): BasicKind {
  if (v instanceof GoFloat) return 'float';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'int' : 'float';
  }
  throw new JSONPathError('invalid type for comparison');
}

/** text/template's eq/lt (client-go's fork): kinds must match; only ints, floats and strings order. */
function tmplEqual(a: unknown, b: unknown): boolean {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka !== kb) throw new JSONPathError('incompatible types for comparison');
  return unwrap(a) === unwrap(b);
}
function tmplLess(a: unknown, b: unknown): boolean {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka !== kb) throw new JSONPathError('incompatible types for comparison');
  if (ka === 'bool') throw new JSONPathError('invalid type for comparison');
  if (ka === 'string') return Buffer.compare(Buffer.from(a as string), Buffer.from(b as string)) < 0;
  return (unwrap(a) as number) < (unwrap(b) as number);
}

class Evaluator {
  constructor(private readonly allowMissingKeys: boolean) {}

  walk(input: unknown[], node: Node): unknown[] {
    switch (node.t) {
      case 'list':
        return node.nodes.reduce((cur, n) => this.walk(cur, n), input);
      case 'text':
        return [node.text];
      case 'field':
        return this.field(input, node.name);
      case 'array':
        return this.array(input, node.params);
      case 'filter':
        return this.filter(input, node);
      case 'int':
        return input.map(() => node.value);
      case 'float':
        return input.map(() => new GoFloat(node.value));
      case 'bool':
        return input.map(() => node.value);
      case 'wildcard':
        return input.filter((v) => v !== null && v !== undefined).flatMap(children);
      case 'recursive':
        return this.recursive(input);
      case 'union':
        return node.nodes.flatMap((n) => this.walk(input, n));
      case 'identifier':
        if (node.name === 'range') return input;
        if (node.name === 'end') throw new JSONPathError('not in range, nothing to end');
        throw new JSONPathError(`unrecognized identifier ${node.name}`);
    }
  }

  private field(input: unknown[], name: string): unknown[] {
    if (input.length === 0) return [];
    const out: unknown[] = [];
    for (const v of input) if (isMap(v) && Object.prototype.hasOwnProperty.call(v, name)) out.push(v[name]);
    if (out.length === 0 && !this.allowMissingKeys) throw new JSONPathError(`${name} is not found`);
    return out;
  }

  private array(input: unknown[], nodeParams: [Param, Param, Param]): unknown[] {
    const out: unknown[] = [];
    for (const v of input) {
      if (v === null || v === undefined) continue;
      if (!Array.isArray(v)) throw new JSONPathError(`${goType(v)} is not array or slice`);
      const [p0, p1, p2] = nodeParams.map((p) => ({ ...p }));
      const len = v.length;
      if (!p0!.known) p0!.value = 0;
      if (p0!.value < 0) p0!.value += len;
      if (!p1!.known) p1!.value = len;
      if (p1!.value < 0 || (p1!.value === 0 && p1!.derived)) p1!.value += len;
      if (p1!.value === p0!.value) return out;
      if (p0!.value >= len || p0!.value < 0) throw new JSONPathError(`array index out of bounds: index ${p0!.value}, length ${len}`);
      if (p1!.value > len || p1!.value < 0) throw new JSONPathError(`array index out of bounds: index ${p1!.value - 1}, length ${len}`);
      if (p0!.value > p1!.value) throw new JSONPathError(`starting index ${p0!.value} is greater than ending index ${p1!.value}`);
      let step = 1;
      if (p2!.known) {
        if (p2!.value <= 0) throw new JSONPathError('step must be > 0');
        step = p2!.value;
      }
      const slice = v.slice(p0!.value, p1!.value);
      for (let i = 0; i < slice.length; i += step) out.push(slice[i]);
    }
    return out;
  }

  private recursive(input: unknown[]): unknown[] {
    const out: unknown[] = [];
    for (const v of input) {
      if (v === null || v === undefined) continue;
      const kids = children(v);
      if (kids.length) out.push(v, ...this.recursive(kids));
    }
    return out;
  }

  private filter(input: unknown[], node: { left: ListNode; right: ListNode; op: string }): unknown[] {
    const out: unknown[] = [];
    for (const v of input) {
      if (!Array.isArray(v)) throw new JSONPathError(`${goFmt(v)} is not array or slice and cannot be filtered`);
      for (const item of v) {
        let lefts: unknown[];
        try {
          lefts = this.walk([item], node.left);
        } catch (e) {
          if (node.op === 'exists') continue;
          throw e;
        }
        if (node.op === 'exists') {
          if (lefts.length) out.push(item);
          continue;
        }
        if (lefts.length === 0) continue;
        if (lefts.length > 1) throw new JSONPathError('can only compare one element at a time');
        const rights = this.walk([item], node.right);
        if (rights.length === 0) continue;
        if (rights.length > 1) throw new JSONPathError('can only compare one element at a time');
        const [l, r] = [lefts[0], rights[0]];
        let pass: boolean;
        switch (node.op) {
          case '<':
            pass = tmplLess(l, r);
            break;
          case '>':
            pass = !(tmplLess(l, r) || tmplEqual(l, r));
            break;
          case '==':
            pass = tmplEqual(l, r);
            break;
          case '!=':
            pass = !tmplEqual(l, r);
            break;
          case '<=':
            pass = tmplLess(l, r) || tmplEqual(l, r);
            break;
          case '>=':
            pass = !tmplLess(l, r);
            break;
          default:
            throw new JSONPathError(`unrecognized filter operator ${node.op}`);
        }
        if (pass) out.push(item);
      }
    }
    return out;
  }

  /** FindResults: one result list per top-level node; `{range}`...`{end}` blocks repeat for each result. */
  findResults(nodes: Node[], data: unknown): unknown[][] {
    const full: unknown[][] = [];
    const head = (n: Node | undefined) => (n?.t === 'list' && n.nodes[0]?.t === 'identifier' ? n.nodes[0].name : undefined);
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      if (head(node) === 'range') {
        const results = this.walk([data], node);
        let depth = 0;
        let j = i + 1;
        for (; j < nodes.length; j++) {
          const h = head(nodes[j]);
          if (h === 'range') depth++;
          else if (h === 'end') {
            if (depth === 0) break;
            depth--;
          }
        }
        const body = nodes.slice(i + 1, j);
        for (const r of results) full.push(...this.findResults(body, r));
        i = j;
        continue;
      }
      full.push(this.walk([data], node));
    }
    return full;
  }
}

/** A compiled JSONPath expression. */
export interface CompiledJSONPath {
  /** The expression as given. */
  readonly source: string;
  /**
   * Every result, flattened; `[]` when nothing matches or evaluation fails (as printer columns
   * treat errors). JSON nulls appear as `null`.
   */
  evaluate(obj: unknown): unknown[];
  /** client-go FindResults: one list per top-level node (ranges expanded). @throws JSONPathError */
  findResults(obj: unknown): unknown[][];
  /** The text `kubectl -o jsonpath` prints (objects and lists as JSON, items separated by a space). @throws JSONPathError */
  print(obj: unknown): string;
}

/** kubectl's RelaxedJSONPathExpression for bare paths: `metadata.name` → `{.metadata.name}`. */
function templateOf(expr: string): string {
  if (expr.includes('{')) return expr;
  if (expr === '') return expr;
  return /^[.$@[]/.test(expr) ? `{${expr}}` : `{.${expr}}`;
}

/**
 * Compiles a JSONPath template or bare path.
 * @param opts.allowMissingKeys - missing keys yield no result instead of an error (default true, like CRD columns and kubectl)
 * @throws JSONPathError on syntax errors, e.g. `unclosed action`, `invalid array index x`
 */
export function compileJSONPath(expr: string, opts: { allowMissingKeys?: boolean } = {}): CompiledJSONPath {
  const root = new Parser().parse(templateOf(expr));
  const ev = new Evaluator(opts.allowMissingKeys ?? true);
  const findResults = (obj: unknown): unknown[][] => ev.findResults(root.nodes, obj).map((r) => r.map(unwrap));
  return Object.freeze({
    source: expr,
    findResults,
    evaluate: (obj: unknown) => {
      try {
        return findResults(obj).flat();
      } catch (e) {
        if (e instanceof JSONPathError) return [];
        throw e;
      }
    },
    print: (obj: unknown) =>
      ev
        .findResults(root.nodes, obj)
        .map((results) => results.map((r) => (isMap(r) || Array.isArray(r) ? goJSON(r) : goPrint(r))).join(' '))
        .join(''),
  });
}

// ---------------------------------------------------------------------------------------------
// Table cells of CRD printer columns

/**
 * duration.HumanDuration: `45s`, `5m12s` (under 10 minutes), `47m`, `3h12m` (under 8 hours),
 * `20h`, `2d3h` (under 8 days), `45d`, `2y30d` (under 8 years), `9y`; `0s` for up to 2 s in the
 * future (clock skew), `<invalid>` beyond.
 * @param ms - elapsed time in milliseconds (now - then)
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** Go time.Parse(time.RFC3339, s) → epoch ms, or undefined when it does not parse. */
export function parseRFC3339(s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  const days = [31, y! % 4 === 0 && (y! % 100 !== 0 || y! % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > days[mo! - 1]! || h! > 23 || mi! > 59 || sec! > 59) return undefined;
  let offsetMin = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const frac = m[7] ? Math.trunc(Number(`0${m[7]}`) * 1000) : 0;
  const t = new Date(0);
  t.setUTCFullYear(y!, mo! - 1, d!);
  t.setUTCHours(h!, mi!, sec!, frac);
  return t.getTime() - offsetMin * 60_000;
}

/** The column types a CRD printer column may declare. */
export type PrinterColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

/**
 * One Table cell of a CRD printer column, as kube-apiserver's tableconvertor renders it: only the
 * first result counts; no result is `null`.
 * - `string`: the value as `kubectl -o jsonpath` prints it (objects/lists as JSON, null as `<no value>`);
 * - `integer`: a number truncated to an integer; `number`: the number; `boolean`: the boolean
 *   (other JSON types give `null`);
 * - `date`: an RFC 3339 string rendered as an age relative to `now` (`5m`, `3h12m`, `2d`); `''` → `<unknown>`,
 *   unparsable → `<invalid>`.
 * @param values - the results of {@link CompiledJSONPath.evaluate}
 */
export function printerColumnCell(values: readonly unknown[], type: PrinterColumnType | string, now: Date): string | number | boolean | null {
  if (values.length === 0) return null;
  const v = unwrap(values[0]);
  if (type === 'string') {
    if (v === null || v === undefined) return '<no value>';
    return isMap(v) || Array.isArray(v) ? goJSON(v) : goPrint(v);
  }
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date': {
      if (typeof v !== 'string') return null;
      if (v === '' || v === 'null') return '<unknown>';
      const t = parseRFC3339(v);
      return t === undefined ? '<invalid>' : humanDuration(now.getTime() - t);
    }
    default:
      return null;
  }
}
