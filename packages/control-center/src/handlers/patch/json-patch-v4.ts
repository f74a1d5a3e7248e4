/**
 * The leniencies of evanphx/json-patch v4, which kube-apiserver applies JSON patches with
 * (`gopkg.in/evanphx/json-patch.v4` in handlers/patch.go), over strict RFC 6902 (fast-json-patch):
 * clients and scripts written against a real cluster rely on them.
 * - `replace` of a key an object does not have sets it (v4's object `get` never fails).
 * - `test` of a key an object does not have passes when the value tested is `null`.
 * - `copy` from a key an object does not have writes `null`.
 * - Array indices may be negative (`SupportNegativeIndices`, on by default): `-1` is the last
 *   element for `remove`, `replace`, `test` and as a `from`; for `add`, `-1` appends.
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

/**
 * The container a pointer's last token is looked up in, and that token; undefined when the
 * pointer is malformed, names the root, or its parent does not exist.
 */
function parentOf(doc: unknown, pointer: string): { parent: unknown; key: string; parentPointer: string } | undefined {
  const ts = tokens(pointer);
  if (!ts || ts.length === 0) return undefined;
  const parentPointer = ts.slice(0, -1).map((t) => `/${escapeToken(t)}`).join('');
  let parent: unknown;
  try {
    parent = parentPointer === '' ? doc : fjp.getValueByPointer(doc, parentPointer);
  } catch {
    return undefined;
  }
  return parent !== null && typeof parent === 'object' ? { parent, key: ts[ts.length - 1]!, parentPointer } : undefined;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * `pointer` with a negative index into an array turned into the index it stands for (`add`
 * counts from one past the end); unchanged otherwise (a negative index out of range then fails).
 */
function withIndex(doc: unknown, pointer: string, forAdd: boolean): string {
  const p = parentOf(doc, pointer);
  if (!p || !Array.isArray(p.parent) || !/^-[1-9][0-9]*$/.test(p.key)) return pointer;
  const size = p.parent.length + (forAdd ? 1 : 0);
  const idx = Number(p.key) + size;
  return idx < 0 ? pointer : `${p.parentPointer}/${idx}`;
}

/**
 * One operation as evanphx/json-patch v4 would apply it to `doc`, in RFC 6902 terms: the
 * operation itself, a rewritten one, or undefined when it changes nothing and succeeds (a `test`
 * of a missing key against `null`). Operations that are no objects are returned as they are, for
 * fast-json-patch to refuse.
 */
export function asV4Operation(doc: unknown, op: fjp.Operation): fjp.Operation | undefined {
  if (!isPlainObject(op) || typeof op.path !== 'string') return op;
  const path = withIndex(doc, op.path, op.op === 'add');
  const from = 'from' in op && typeof op.from === 'string' ? withIndex(doc, op.from, false) : undefined;
  const missingKey = (pointer: string) => {
    const p = parentOf(doc, pointer);
    return p !== undefined && isPlainObject(p.parent) && !Object.hasOwn(p.parent, p.key);
  };
  switch (op.op) {
    case 'replace':
      return missingKey(path) ? { ...op, op: 'add', path } : { ...op, path };
    case 'test':
      return missingKey(path) && 'value' in op && op.value === null ? undefined : { ...op, path };
    case 'copy':
      if (from !== undefined && missingKey(from)) return { op: 'add', path, value: null };
      return { ...op, path, ...(from !== undefined ? { from } : {}) } as fjp.Operation;
    case 'move':
      return { ...op, path, ...(from !== undefined ? { from } : {}) } as fjp.Operation;
    default:
      return { ...op, path };
  }
}
