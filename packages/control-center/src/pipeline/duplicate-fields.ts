/**
 * Duplicate fields in a request body, which kube-apiserver's strict decoders report under
 * `fieldValidation=Strict` (400) and `Warn` (a warning each), as they report unknown fields:
 * - JSON (sigs.k8s.io/json): `duplicate field "spec.foo"`, the path with list indexes
 *   (`spec.list[1].name`);
 * - YAML (sigs.k8s.io/yaml): `yaml: unmarshal errors:\n  line 5: key "foo" already set in map`.
 * JavaScript's decoders keep the last value silently, so the raw text is read again here; only
 * when the client did not ask for `Ignore`.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
 */
import { isMap, isNode, isScalar, isSeq, type Document, type Node } from 'yaml';

/** A key's raw text (between its quotes) as a string: escapes decoded only when it has any. */
const keyText = (s: string, from: number, to: number): string => {
  const raw = s.slice(from, to);
  return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
};

/** One open object or array while scanning. */
interface Frame {
  array: boolean;
  /** Objects: the keys seen so far (a Set: an object may have 100,000 keys). */
  keys: Set<string>;
  /** Objects: the key being read (its value follows); arrays: the element index. */
  key: string;
  index: number;
}

const pathOf = (stack: readonly Frame[], key: string): string => {
  let p = '';
  for (const f of stack) {
    if (f.array) p += `[${f.index}]`;
    else if (f !== stack[stack.length - 1]) p += p ? `.${f.key}` : f.key;
  }
  return p ? `${p}.${key}` : key;
};

/** The index of the quote closing the string opened at `open`: the next `"` not escaped by an odd run of backslashes. */
function closingQuote(s: string, open: number): number {
  let j = open;
  for (;;) {
    j = s.indexOf('"', j + 1);
    let b = j - 1;
    while (s.charCodeAt(b) === 0x5c) b--;
    if ((j - 1 - b) % 2 === 0) return j;
  }
}

/**
 * How many object keys a JSON text that `JSON.parse` accepted has: strings followed by `:`.
 * Compared with the keys of the parsed value, it tells cheaply whether any were duplicates
 * (JavaScript keeps one of each). Jumps from string to string with `indexOf`.
 */
export function countJSONKeys(s: string): number {
  let n = 0;
  for (let i = s.indexOf('"'); i !== -1; ) {
    let k = closingQuote(s, i) + 1;
    let c = s.charCodeAt(k);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++k);
    if (c === 0x3a /* : */) n++;
    i = s.indexOf('"', k);
  }
  return n;
}

/**
 * The paths of duplicate object keys in a JSON text that `JSON.parse` accepted, in document
 * order, each once per repetition: `metadata.name`, `spec.list[1].name`.
 * Linear in the text; strings are skipped with `indexOf`.
 */
export function duplicateJSONFields(s: string): string[] {
  const out: string[] = [];
  const stack: Frame[] = [];
  // Frames are reused by depth: a body allocates one per nesting level, not one per object.
  const pool: Frame[] = [];
  const open = (array: boolean): void => {
    let f = pool[stack.length];
    if (!f) pool.push((f = { array, keys: new Set(), key: '', index: 0 }));
    f.array = array;
    f.keys.clear();
    f.key = '';
    f.index = 0;
    stack.push(f);
  };
  let expectKey = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const j = closingQuote(s, i);
      if (expectKey) {
        const top = stack[stack.length - 1]!;
        const key = keyText(s, i + 1, j);
        if (top.keys.has(key)) out.push(pathOf(stack, key));
        else top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = j;
    } else if (c === 0x7b /* { */) {
      open(false);
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      open(true);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.array) top.index++;
      else expectKey = true;
    }
  }
  return out;
}

/**
 * The duplicate mapping keys of a parsed YAML document (the `yaml` library keeps the last), as
 * go-yaml reports them: one `yaml: unmarshal errors:` message listing `line N: key "k" already
 * set in map` for each repetition, or [] when there is none.
 */
export function duplicateYAMLKeys(doc: Document, text: string): string[] {
  const lines: string[] = [];
  // Offsets of the line starts, found once (only when there is a duplicate): a body may repeat
  // 100,000 keys, and each line number is then a binary search, not a rescan of the text.
  let starts: number[] | undefined;
  const lineOf = (offset: number): number => {
    if (!starts) {
      starts = [0];
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const walk = (node: unknown): void => {
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const k = isScalar(pair.key) ? pair.key.value : pair.key;
        // `<<` is YAML 1.1's merge key (go-yaml merges it; so does the parser here), never a field.
        if (isScalar(pair.key) && k !== '<<' && seen.has(k)) {
          // go-yaml reports the line of the value (setMapIndex), which for a block value is the next one.
          const at = (isNode(pair.value) ? pair.value.range?.[0] : undefined) ?? pair.key.range?.[0] ?? 0;
          lines.push(`line ${lineOf(at)}: key ${JSON.stringify(String(k))} already set in map`);
        }
        seen.add(k);
        walk(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item);
    }
  };
  walk(doc.contents as Node | null);
  return lines.length ? [`yaml: unmarshal errors:\n  ${lines.join('\n  ')}`] : [];
}
