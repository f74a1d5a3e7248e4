/**
 * Request body decoding by Content-Type: JSON, YAML, Kubernetes protobuf, and the patch types
 * (`json-patch+json`, `merge-patch+json`, `strategic-merge-patch+json`, `apply-patch+yaml`).
 * Fastify hands every body over as a Buffer (one catch-all parser with the body limit), so
 * decoding errors become Kubernetes Status errors here, not framework errors.
 */
import YAML from 'yaml';
import { goYAMLOptions } from '@hcc/client';
import { isJSONObject } from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';
import { decodeProtobuf } from './protobuf.js';
import { jsonTypeOf } from '../registry/builtin/decode.js';
import { countJSONKeys, duplicateJSONFields, duplicateYAMLKeys } from './duplicate-fields.js';

/** Largest request body accepted, in bytes (kube-apiserver's default is 3 MiB). */
export const MaxRequestBodyBytes = 3 * 1024 * 1024;

/** The patch types Kubernetes defines. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const patchTypes: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  // Not `application/apply-patch+cbor`: kube-apiserver takes it only behind the alpha
  // CBORServingAndStorage feature gate, and answers 415 by default, as hcc does (no CBOR decoder).
};

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Returns the patch type of a PATCH request, or throws 415 naming the types the resource takes, in
 * kube-apiserver's order (custom resources take no strategic merge patch).
 * @param custom - the resource is a custom resource (served from a CRD)
 */
export function patchTypeOf(contentType: string | undefined, custom = false): PatchType {
  const t = patchTypes[mediaType(contentType)];
  if (!t) {
    const strategic = custom ? [] : ['application/strategic-merge-patch+json'];
    throw apierrors.unsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json', ...strategic, 'application/apply-patch+yaml']);
  }
  return t;
}

/**
 * The deepest nesting of objects and arrays a request body (JSON or YAML) or a JSON patch's result
 * may have. kube-apiserver's Go decoder stops at 10,000 levels; hcc's recursive handling
 * (defaulting, validation, managedFields, serialisation) needs its limit well below what a
 * JavaScript stack holds: near the end of the stack V8 may fail compiling a regular expression,
 * which kills the process instead of throwing. At 500 levels every write path (create, server-side
 * apply with a conflict forced, update, YAML answers) runs in half of Node's default stack
 * (measured with `node --stack-size=492`; 1,000 levels needed more than 60% of it), and no
 * Kubernetes object comes near 100.
 */
export const MaxNestingDepth = 500;

/** The 400 for a number out of a float64's range, or not a number (Infinity, NaN). */
const notAFloat64 = (): apierrors.StatusError => apierrors.badRequest('error decoding request body: a number in the body is out of the range of a 64-bit float');

/** The 400 for a body nested deeper than {@link MaxNestingDepth}. */
const nestedTooDeep = (): apierrors.StatusError => apierrors.badRequest(`error decoding request body: the object is nested more than ${MaxNestingDepth} levels deep`);

/**
 * Refuses a decoded value nested deeper than {@link MaxNestingDepth} (counting every object and
 * array, the top one included), or holding a number no float64 can hold (`1e400`, YAML's `.inf`:
 * JSON.parse makes it Infinity, which would be stored as null; Go's decoder refuses it). Iterative,
 * so it cannot overflow the stack itself.
 * @returns how many object keys the value has, nested ones included (a count)
 * @throws StatusError 400 BadRequest naming the limit
 */
export function checkNesting(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let keys = 0;
  const stack: [unknown, number][] = [[value, 1]];
  // `metadata.managedFields` mirror the object's fields a few levels deeper (entry, fieldsV1,
  // `f:` keys): an object the server took at the limit must be writable back as it was read.
  const metadata = Array.isArray(value) ? undefined : (value as { metadata?: unknown }).metadata;
  const managedFields = metadata !== null && typeof metadata === 'object' ? (metadata as { managedFields?: unknown }).managedFields : undefined;
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > MaxNestingDepth) throw nestedTooDeep();
    const children = Array.isArray(v) ? v : Object.values(v as object);
    if (children !== v) keys += children.length;
    for (const c of children) {
      if (c !== null && typeof c === 'object') stack.push([c, c === managedFields ? depth + 1 - ManagedFieldsExtraDepth : depth + 1]);
      else if (typeof c === 'number' && !Number.isFinite(c)) throw notAFloat64();
    }
  }
  return keys;
}

/** How much deeper than the object its `metadata.managedFields` may nest (levels): list, entry, fieldsV1, and a few to spare. */
const ManagedFieldsExtraDepth = 8;

/**
 * Whether a decoded value nests objects and arrays deeper than `limit` levels (the top one
 * counting as 1). Iterative, so it cannot overflow the stack itself.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > limit) return true;
    for (const c of Array.isArray(v) ? v : Object.values(v as object)) if (c !== null && typeof c === 'object') stack.push([c, depth + 1]);
  }
  return false;
}

/**
 * Where a decoder reports the strict-decoding errors of the body it read (duplicate fields), as
 * the text kube-apiserver puts after `strict decoding error: `; absent: not looked for
 * (`fieldValidation=Ignore`).
 */
export type StrictErrors = string[] | undefined;

function parseJSON(text: string, strict?: StrictErrors): unknown {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw apierrors.badRequest(`error decoding request body: ${(e as Error).message}`);
  }
  const keys = checkNesting(v);
  // The parsed value keeps one of each duplicate: only a body with more keys than it is scanned.
  if (strict && countJSONKeys(text) !== keys) for (const f of duplicateJSONFields(text)) strict.push(`duplicate field ${JSON.stringify(f)}`);
  return v;
}

/**
 * The deepest nesting a YAML body may have (counting every mapping and sequence): the same
 * {@link MaxNestingDepth}, but measured before the YAML library composes the document, which it
 * does recursively, several frames per level: so the depth is measured first, iteratively, on the
 * library's concrete syntax tree. A body that is JSON text (what kubectl sends, also as
 * `application/apply-patch+yaml`) is read as JSON.
 */
export const MaxYAMLNestingDepth = MaxNestingDepth;

/**
 * A YAML text's concrete syntax tree (the library's parser is iterative), read once: its depth is
 * checked on it ({@link yamlNestingDepth}) and the documents are composed from it.
 */
interface YAMLTokens {
  tokens: ReturnType<YAML.Parser['parse']> extends Iterable<infer T> ? T[] : never;
  lines: YAML.LineCounter;
}

/** Reads a YAML text into its tokens, counting lines (for error positions). */
function lexYAML(text: string): YAMLTokens {
  const lines = new YAML.LineCounter();
  return { tokens: Array.from(new YAML.Parser(lines.addNewLine).parse(text)), lines };
}

/**
 * The nesting depth of a YAML text's deepest document, from its concrete syntax tree; a flow pair
 * in a sequence (`[a: b]`) counts as the mapping it makes. Stops counting past `limit`.
 */
function yamlNestingDepth(lexed: YAMLTokens, limit = MaxYAMLNestingDepth): number {
  type Tok = { type?: string; value?: unknown; items?: { key?: unknown; sep?: unknown; value?: unknown }[]; start?: { source?: string } };
  let max = 0;
  for (const doc of lexed.tokens) {
    const stack: [unknown, number][] = [[doc, 0]];
    while (stack.length) {
      const [t, depth] = stack.pop()! as [Tok | null | undefined, number];
      if (!t || typeof t !== 'object') continue;
      if (t.type === 'document') {
        stack.push([t.value, depth]);
        continue;
      }
      if (t.type !== 'block-map' && t.type !== 'block-seq' && t.type !== 'flow-collection') continue;
      const d = depth + 1;
      if (d > max) max = d;
      if (max > limit) return max;
      const flowSeq = t.type === 'flow-collection' && t.start?.source === '[';
      for (const item of t.items ?? []) {
        const inner = flowSeq && (item.key !== undefined || item.sep !== undefined) ? d + 1 : d;
        if (inner > max) max = inner;
        stack.push([item.key, inner], [item.value, inner]);
      }
    }
  }
  return max;
}

function parseYAML(text: string, strict?: StrictErrors): unknown {
  // JSON text (kubectl's bodies, server-side apply's too) is read as JSON: the same value, no
  // recursion, up to the JSON nesting limit. Duplicate keys are named in YAML's words below.
  if (/^\s*[{[]/.test(text)) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      v = undefined; // YAML flow style that is not JSON (`{a: b}`): the YAML path below
    }
    if (v !== undefined) {
      const keys = checkNesting(v);
      if (!strict || countJSONKeys(text) === keys) return v;
    }
  }
  const lexed = lexYAML(text);
  if (yamlNestingDepth(lexed) > MaxYAMLNestingDepth) {
    throw apierrors.badRequest(`error decoding YAML: the document is nested more than ${MaxYAMLNestingDepth} levels deep`);
  }
  try {
    return parseYAMLDocument(text, lexed, strict);
  } catch (e) {
    // The YAML library recurses per level: a body nested beyond the stack is the nesting limit's case too.
    if (e instanceof RangeError) throw nestedTooDeep();
    throw e;
  }
}

/**
 * The most aliases (`*name`) a YAML body may use (a count). The YAML library finds an alias's
 * anchor by walking the document's anchors and aliases up to it, so a body of N aliases costs N²/2
 * steps to read: 10,000 took 1.2 s of the request thread, 1,000 take milliseconds (12,000 in a
 * 60 KB body had held it for 12 s before the expansion check below stopped resolving each alias
 * from scratch). No manifest comes near it: Helm and kustomize write none.
 */
export const MaxYAMLAliases = 1_000;

/**
 * What each alias of `doc` refers to: the last node anchored with its name before it in document
 * order, as the YAML library's Alias.resolve finds it, for all of them in one pass.
 * @throws StatusError 400 BadRequest for more than {@link MaxYAMLAliases} aliases
 */
function aliasTargets(doc: YAML.Document.Parsed): Map<unknown, unknown> {
  const anchored = new Map<string, unknown>();
  const targets = new Map<unknown, unknown>();
  YAML.visit(doc, {
    Node: (_key, node) => {
      if (YAML.isAlias(node)) {
        if (targets.size >= MaxYAMLAliases) throw apierrors.badRequest(`error decoding YAML: the document uses more than ${MaxYAMLAliases} aliases`);
        targets.set(node, anchored.get(node.source));
      } else if (node.anchor) anchored.set(node.anchor, node);
    },
  });
  return targets;
}

/** How many nodes a YAML body's aliases may add when expanded (a count). */
export const MaxAliasExpansionNodes = 1_000_000;

/**
 * Refuses a YAML document whose aliases would expand it by more than
 * {@link MaxAliasExpansionNodes} nodes, before anything is expanded: one large anchor used a few
 * dozen times stays under the YAML library's alias count, yet would hold the request thread for
 * seconds and take a gigabyte. Each node's expanded size is computed once (memoized), so the check
 * costs one pass over the document as written. An alias inside the node it names (a cycle) is
 * refused too: it has no JSON form.
 * @throws StatusError 400 BadRequest
 */
function checkAliasExpansion(doc: YAML.Document.Parsed): void {
  const targets = aliasTargets(doc);
  const sizes = new Map<unknown, number>();
  const inProgress = new Set<unknown>();
  const tooBig = () => apierrors.badRequest(`error decoding YAML: its aliases expand the document by more than ${MaxAliasExpansionNodes} nodes`);
  let written = 0;
  const size = (node: unknown, viaAlias: boolean): number => {
    if (YAML.isAlias(node)) {
      const target = targets.get(node);
      return target ? size(target, true) : 1;
    }
    if (!viaAlias) written++;
    const known = sizes.get(node);
    if (known !== undefined && viaAlias) return known;
    if (inProgress.has(node)) throw apierrors.badRequest('error decoding YAML: an alias refers to a node that contains it');
    inProgress.add(node);
    let n = 1;
    if (YAML.isMap(node) || YAML.isSeq(node)) {
      for (const item of node.items as unknown[]) {
        n += YAML.isPair(item) ? size(item.key, viaAlias) + size(item.value, viaAlias) : size(item, viaAlias);
        if (n - written > MaxAliasExpansionNodes) throw tooBig();
      }
    }
    inProgress.delete(node);
    sizes.set(node, n);
    return n;
  };
  if (size(doc.contents, false) - written > MaxAliasExpansionNodes) throw tooBig();
}

/** The YAML types a value has, as go-yaml names them (`!!int`, `!!str`, ...). */
function goYAMLShortTag(v: unknown): string {
  if (v === null) return '!!null';
  if (typeof v === 'boolean') return '!!bool';
  if (typeof v === 'number') return Number.isInteger(v) ? '!!int' : '!!float';
  return '!!str';
}

const explicitTypes: Record<string, (v: unknown) => boolean> = {
  'tag:yaml.org,2002:int': (v) => typeof v === 'number' && Number.isInteger(v),
  'tag:yaml.org,2002:float': (v) => typeof v === 'number',
  'tag:yaml.org,2002:bool': (v) => typeof v === 'boolean',
  'tag:yaml.org,2002:null': (v) => v === null,
};

/**
 * Scalars tagged `!!int`, `!!float`, `!!bool` or `!!null` as go-yaml v2 reads them: the text must
 * resolve to that type (`!!int abc` is `cannot decode !!str \`abc\` as a !!int`), except that
 * `!!float` takes an integer (`!!float 1` is 1). The YAML library leaves such a scalar a string.
 * @throws StatusError 400 BadRequest
 * @see https://github.com/go-yaml/yaml/blob/v2/resolve.go (resolve's deferred tag check)
 */
function checkExplicitTags(doc: YAML.Document.Parsed): void {
  YAML.visit(doc, {
    Scalar(_key, node) {
      const fits = node.tag ? explicitTypes[node.tag] : undefined;
      if (!fits || fits(node.value)) return;
      const source = String(node.source ?? node.value);
      const implicit: unknown = YAML.parse(source, goYAMLOptions);
      if (fits(implicit)) node.value = implicit;
      else throw apierrors.badRequest(`error decoding YAML: cannot decode ${goYAMLShortTag(implicit)} \`${source}\` as a !!${node.tag!.slice('tag:yaml.org,2002:'.length)}`);
    },
  });
}

function parseYAMLDocument(text: string, lexed: YAMLTokens, strict?: StrictErrors): unknown {
  // Composed from the tokens already read (what YAML.parseAllDocuments would do, less reading
  // it again), as go-yaml v2 reads YAML (goYAMLOptions).
  const docs = Array.from(new YAML.Composer(goYAMLOptions).compose(lexed.tokens));
  const real = docs.filter((d) => d.contents !== null);
  if (real.length !== 1) throw apierrors.badRequest(`expected exactly one YAML document in the request body, got ${real.length}`);
  const d = real[0]!;
  if (d.errors.length) {
    // The YAML library reports running out of stack on a deeply nested document as a parse error.
    if (d.errors.some((e) => /Maximum call stack/.test(e.message))) throw nestedTooDeep();
    const e = d.errors[0]!;
    const at = e.pos?.[0] !== undefined ? lexed.lines.linePos(e.pos[0]) : undefined;
    throw apierrors.badRequest(`error decoding YAML: ${e.message}${at ? ` at line ${at.line}, column ${at.col}` : ''}`);
  }
  checkAliasExpansion(d);
  checkExplicitTags(d);
  let v: unknown;
  try {
    v = d.toJS();
  } catch (e) {
    // The YAML library refuses to expand a document whose aliases would blow up ("billion
    // laughs"): a bad body (400), as go-yaml's "document contains excessive aliasing".
    if (e instanceof RangeError) throw e;
    throw apierrors.badRequest(`error decoding YAML: ${(e as Error).message}`);
  }
  checkNesting(v);
  if (strict) for (const e of duplicateYAMLKeys(d, text)) strict.push(e);
  return v;
}

/**
 * Decodes a create/update body.
 * @param opts.protobuf - whether the kind has a protobuf form (built-in kinds); custom resources
 *   have none, and a protobuf body is then 415 as apiextensions-apiserver answers it
 * @param opts.strict - when given, the duplicate fields of a JSON or YAML body are pushed onto it
 *   (see {@link StrictErrors}); a protobuf body has none
 * @throws StatusError 400 on malformed bodies, 415 on unknown content types
 */
export function decodeObjectBody(contentType: string | undefined, body: Buffer | undefined, opts: { protobuf?: boolean; strict?: StrictErrors } = {}): unknown {
  if (!body || body.length === 0) throw apierrors.badRequest('the request body is empty');
  const mt = mediaType(contentType);
  const protobuf = opts.protobuf ?? true;
  if (mt === 'application/json' || mt === '') return parseJSON(body.toString('utf8'), opts.strict);
  if (mt === 'application/yaml' || mt === 'application/x-yaml' || mt === 'text/yaml') return parseYAML(body.toString('utf8'), opts.strict);
  if (mt === 'application/vnd.kubernetes.protobuf' && protobuf) return decodeProtobuf(body);
  throw apierrors.unsupportedMediaType(protobuf ? apierrors.objectMediaTypes : jsonMediaTypes);
}

/** What a kind without a protobuf form (a custom resource) takes as a body. */
const jsonMediaTypes = ['application/json', 'application/yaml'] as const;

/**
 * Decodes a patch body: JSON for json/merge/strategic, YAML or JSON for apply.
 * @param strict - when given, the body's duplicate fields are pushed onto it (see {@link StrictErrors})
 */
export function decodePatchBody(type: PatchType, body: Buffer | undefined, strict?: StrictErrors): unknown {
  if (!body || body.length === 0) throw apierrors.badRequest('the request body is empty');
  const text = body.toString('utf8');
  if (type === 'apply') return parseYAML(text, strict);
  // kube-apiserver decodes merge, strategic and JSON patches strictly too (patch.go applyJSPatch:
  // kjson.UnmarshalStrict of the patch bytes), naming a JSON patch's as `json patch duplicate field ...`.
  if (type !== 'json') return parseJSON(text, strict);
  const found: string[] | undefined = strict ? [] : undefined;
  const v = checkJSONPatchOperations(parseJSON(text, found), found);
  if (strict && found) for (const e of found) strict.push(`json patch ${e}`);
  return v;
}

/** The fields of a JSON patch operation kube-apiserver's strict decoding knows (patch.go jsonPatchOp). */
const jsonPatchOpFields = new Set(['op', 'path', 'from', 'value']);

/**
 * Checks a decoded JSON patch body as kube-apiserver decodes it before applying anything
 * (patch.go applyJSPatch): under fieldValidation Strict or Warn (`strict` given) with
 * kjson.UnmarshalStrict into `[]jsonPatchOp{op, path, from string; value any}`, otherwise with
 * json-patch's DecodePatch into `[]Operation` (a map each). A body that is not a list, an element
 * that is not an object, or (strict) an `op`, `path` or `from` that is not a string is a 400 in Go's
 * words; an element's other fields are pushed onto `strict` as `unknown field "[i].name"`
 * (reported as the request's other strict-decoding errors are: a warning under Warn, refused under
 * Strict). `null` decodes to an empty patch, as in Go (kube-apiserver answers it 200, unchanged).
 * @returns the operations (`[]` for `null`)
 * @throws StatusError 400
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
 */
export function checkJSONPatchOperations(v: unknown, strict?: StrictErrors): unknown[] {
  const fail = (msg: string): never => {
    throw apierrors.badRequest(strict ? `error decoding patch: ${msg}` : msg);
  };
  if (v === null) return [];
  if (!Array.isArray(v)) return fail(`json: cannot unmarshal ${jsonTypeOf(v)} into Go value of type ${strict ? '[]handlers.jsonPatchOp' : 'jsonpatch.Patch'}`);
  v.forEach((op, i) => {
    if (op === null) return;
    if (!isJSONObject(op)) return fail(`json: cannot unmarshal ${jsonTypeOf(op)} into Go value of type ${strict ? 'handlers.jsonPatchOp' : 'jsonpatch.Operation'}`);
    if (!strict) return;
    for (const [k, val] of Object.entries(op)) {
      if (!jsonPatchOpFields.has(k)) strict.push(`unknown field ${JSON.stringify(`[${i}].${k}`)}`);
      else if (k !== 'value' && val !== null && typeof val !== 'string') fail(`json: cannot unmarshal ${jsonTypeOf(val)} into Go struct field jsonPatchOp.${k} of type string`);
    }
  });
  return v;
}
