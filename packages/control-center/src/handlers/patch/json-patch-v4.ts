/**
 * The leniencies of evanphx/json-patch v4, which kube-apiserver applies JSON patches with
 * (`gopkg.in/evanphx/json-patch.v4` in handlers/patch.go), over strict RFC 6902 (fast-json-patch):
 * clients and scripts written against a real cluster rely on them.
 * - `replace` of a key an object does not have sets it (v4's object `get` never fails).
 * - `test` of a key an object does not have passes when the value tested is `null`.
 * - `copy` from a key an object does not have writes `null`.
 * - An array index is what Go's `strconv.Atoi` reads (`+1`, `01`, `-0`), and may be negative
 *   (`SupportNegativeIndices`, on by default), anywhere in a pointer: `-1` is the last element;
 *   where a value is added (`add`, and the destination of `copy` and `move`), `-1` appends.
 * - `move` removes first, then adds: its destination is read in the document without the value.
 * Everything else (a missing parent, a key `remove` or `move` cannot find, an index out of range)
 * fails as in RFC 6902.
 * @see https://github.com/evanphx/json-patch/blob/v4.12.0/patch.go
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/patch.go
 */
import fjp from 'fast-json-patch';

/** A JSON pointer's reference tokens (RFC 6901), or undefined for one that does not start with `/`. */
function tokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const escapeToken = (t: string): string => t.replace(/~/g, '~0').replace(/\//g, '~1');
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What Go's strconv.Atoi reads as an integer (an optional sign, then digits). */
const atoi = /^[+-]?[0-9]+$/;

/**
 * `pointer` with every array index in it written as the plain index v4 reads it to be: Atoi's
 * spellings, and negative indices counted from the end (for the last token of an added value,
 * from one past it). A token v4 would refuse is left as it is, for fast-json-patch to refuse too.
 * Also whether the pointer's parent exists and is an object lacking its last key.
 */
function resolve(doc: unknown, pointer: string, adding: boolean): { pointer: string; missingKey: boolean } {
  const ts = tokens(pointer);
  if (!ts || ts.length === 0) return { pointer, missingKey: false };
  let node: unknown = doc;
  const out: string[] = [];
  for (let i = 0; i < ts.length; i++) {
    let t = ts[i]!;
    const last = i === ts.length - 1;
    if (Array.isArray(node) && atoi.test(t)) {
      let idx = Number(t);
      if (idx < 0) idx += node.length + (last && adding ? 1 : 0);
      if (idx >= 0 && Number.isSafeInteger(idx)) t = String(idx);
    }
    out.push(t);
    if (last) {
      const missingKey = isPlainObject(node) && !Object.hasOwn(node, t);
      return { pointer: out.map((x) => `/${escapeToken(x)}`).join(''), missingKey };
    }
    node = node !== null && typeof node === 'object' && Object.hasOwn(node, t) ? (node as Record<string, unknown>)[t] : undefined;
    if (node === null || typeof node !== 'object') {
      // No container below here: the rest as given (the operation fails on it as v4's does).
      return { pointer: [...out, ...ts.slice(i + 1)].map((x) => `/${escapeToken(x)}`).join(''), missingKey: false };
    }
  }
  return { pointer, missingKey: false };
}

/**
 * One operation other than `move` as evanphx/json-patch v4 would apply it to `doc`, in RFC 6902
 * terms: the operation itself or a rewritten one, or none when it changes nothing and succeeds
 * (a `test` of a missing key against `null`). Operations that are no objects are returned as they
 * are, for fast-json-patch to refuse.
 */
function asV4Operation(doc: unknown, op: fjp.Operation): fjp.Operation | undefined {
  if (!isPlainObject(op) || typeof op.path !== 'string') return op;
  const adding = op.op === 'add' || op.op === 'copy';
  const { pointer: path, missingKey } = resolve(doc, op.path, adding);
  const from = 'from' in op && typeof op.from === 'string' ? resolve(doc, op.from, false) : undefined;
  switch (op.op) {
    case 'replace':
      return missingKey ? { ...op, op: 'add', path } : { ...op, path };
    case 'test':
      return missingKey && 'value' in op && op.value === null ? undefined : { ...op, path };
    case 'copy':
      if (from?.missingKey) return { op: 'add', path, value: null };
      return { ...op, path, ...(from ? { from: from.pointer } : {}) } as fjp.Operation;
    default:
      return { ...op, path };
  }
}

/**
 * Applies one operation to `doc` (mutated where it can be) as v4 would, through `apply` (one RFC
 * 6902 operation at a time: fast-json-patch, with the caller's limits). A `move` is its `remove`
 * then its `add`, the destination resolved once the value is gone, as v4's move does.
 * @returns the patched document
 * @throws what `apply` throws for an operation that does not apply
 */
export function applyV4Operation(doc: unknown, op: fjp.Operation, apply: (doc: unknown, op: fjp.Operation) => unknown): unknown {
  if (isPlainObject(op) && op.op === 'move' && typeof op.path === 'string' && typeof op.from === 'string') {
    // v4's move: take the value, remove it (a missing key fails here), then add it where the
    // destination points in the document without it.
    const from = resolve(doc, op.from, false).pointer;
    const value: unknown = from === '' ? doc : fjp.getValueByPointer(doc, from);
    const without = apply(doc, { op: 'remove', path: from });
    return apply(without, { op: 'add', path: resolve(without, op.path, true).pointer, value });
  }
  const v4 = asV4Operation(doc, op);
  return v4 === undefined ? doc : apply(doc, v4);
}
