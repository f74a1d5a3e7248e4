/**
 * Applies a PATCH body of any Kubernetes patch type to the current object.
 * - `json` (RFC 6902) through fast-json-patch, with evanphx/json-patch v4's leniencies (json-patch-v4.ts);
 * - `merge` (RFC 7386);
 * - `strategic` for built-in kinds (custom resources answer 415, as kube-apiserver does);
 * - `apply` on the scale subresource only: the applied Scale merged over the current one. Server-side
 *   apply of objects (ownership, conflicts, removal) lives in handlers/apply/apply.ts.
 * @see https://kubernetes.io/docs/tasks/manage-kubernetes-objects/update-api-object-kubectl-patch/
 */
import fjp from 'fast-json-patch';
import { deepCopyJSON, isJSONObject, ownValue, setOwn, type KubeObject } from '@hcc/crds';
import * as apierrors from '../../apierrors/status.js';
import { checkNesting, type PatchType } from '../../pipeline/decode.js';
import type { ResourceInfo } from '../../registry/types.js';
import { jsonTypeOf } from '../../registry/builtin/decode.js';
import { applyV4Operation } from './json-patch-v4.js';
import { mergePatch } from './merge-patch.js';
import { patchMetaFor, strategicMergePatch } from './strategic-merge.js';


/**
 * The most operations a JSON patch may hold, as kube-apiserver's `maxJSONPatchOperations`; more is
 * 413 before anything is applied.
 * @see https://github.com/kubernetes/kubernetes/pull/74000
 */
export const MaxJSONPatchOperations = 10_000;

/**
 * How many bytes (as JSON) a JSON patch's `copy` operations may add together, as kube-apiserver's
 * `--json-patch-max-copy-bytes` default (3 MiB, its `AccumulatedCopySizeLimit`): without it ten
 * copies of a 3 MiB field make a 30 MiB object out of a tiny request.
 */
export const MaxJSONPatchCopyBytes = 3 * 1024 * 1024;

/**
 * Applies JSON patch operations one at a time to `doc` (mutated), counting what `copy` adds.
 * @throws Error (fast-json-patch's, or the copy limit's in evanphx/json-patch's words; the 422
 *   answered for either does not repeat it, as kube-apiserver's does not)
 */
function applyJSONPatchOps(doc: KubeObject, ops: fjp.Operation[]): KubeObject {
  let copied = 0;
  /** One RFC 6902 operation, the copy limit counted first. */
  const applyOne = (out: unknown, op: fjp.Operation): unknown => {
    if (op && op.op === 'copy' && typeof op.from === 'string') {
      let v: unknown;
      try {
        v = fjp.getValueByPointer(out, op.from);
      } catch {
        v = undefined; // fast-json-patch's own validation below names the bad path
      }
      if (v !== undefined) {
        copied += Buffer.byteLength(JSON.stringify(v) ?? '');
        if (copied > MaxJSONPatchCopyBytes) {
          throw new Error(`Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${MaxJSONPatchCopyBytes}`);
        }
      }
    }
    return fjp.applyPatch(out, [op], true, true).newDocument;
  };
  let out: unknown = doc;
  // Each as kube-apiserver's evanphx/json-patch v4 takes it (json-patch-v4.ts).
  for (const op of ops) out = applyV4Operation(out, op, applyOne);
  return out as KubeObject;
}

/** Apply to a Scale (no ownership): maps merge, everything else replaces, nothing is removed. */
function applyMerge(live: unknown, applied: unknown): unknown {
  if (!isJSONObject(applied) || !isJSONObject(live)) return deepCopyJSON(applied);
  const out: Record<string, unknown> = { ...live };
  for (const [k, v] of Object.entries(applied)) setOwn(out, k, v === null ? v : applyMerge(ownValue(live, k), v));
  return out;
}

/**
 * Returns the patched object (a new object; `current` is not mutated).
 * @throws StatusError 415 (strategic patch of a custom resource), 422 (patch cannot apply), 400 (malformed)
 */
export function applyPatch(type: PatchType, info: ResourceInfo, current: KubeObject, patch: unknown): KubeObject {
  switch (type) {
    case 'json': {
      if (!Array.isArray(patch)) throw apierrors.badRequest('json patch must be a list of operations');
      if (patch.length > MaxJSONPatchOperations) {
        throw apierrors.requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MaxJSONPatchOperations}, got ${patch.length}`);
      }
      try {
        const doc = deepCopyJSON(current);
        const out = applyJSONPatchOps(doc, patch as fjp.Operation[]);
        // copy/move/add can nest deeper than the body did (merge patches cannot: they follow the object).
        checkNesting(out);
        return out;
      } catch (e) {
        if (e instanceof apierrors.StatusError) throw e;
        // fast-json-patch's own refusal of a path through __proto__ or constructor/prototype (which
        // kube-apiserver has no need of) tells the caller to set a library flag it cannot set: say
        // what was refused instead.
        if (/banPrototypeModifications/.test((e as Error).message)) {
          throw new apierrors.StatusError({
            ...apierrors.jsonPatchNotApplied().status,
            message: 'the server rejected our request due to an error in our request: a JSON patch path may not pass through __proto__ or constructor/prototype',
          });
        }
        // Any other operation that does not apply: kube-apiserver's words, without the library's.
        throw apierrors.jsonPatchNotApplied();
      }
    }
    case 'merge':
      // A merge patch that is not an object, as evanphx/json-patch's MergePatch takes it in
      // kube-apiserver: a list replaces the whole document, which then cannot be decoded as the
      // object (422 on `patch`); null or a scalar is no patch at all (400 `Invalid JSON Patch`).
      if (Array.isArray(patch)) throw apierrors.patchNotDecodable(JSON.stringify(withoutNullFields(patch)), notAnObjectError('array'));
      if (!isJSONObject(patch)) throw apierrors.badRequest('Invalid JSON Patch');
      return mergePatch(current, patch) as KubeObject;
    case 'strategic':
      if (info.custom) {
        // As kube-apiserver: custom resources take no strategic merge patch.
        throw apierrors.unsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
      }
      // kube-apiserver decodes the patch into a map first: null is an empty patch, anything else
      // that is not an object is Go's decode error.
      if (patch === null) return deepCopyJSON(current);
      if (!isJSONObject(patch)) throw apierrors.badRequest(`json: cannot unmarshal ${jsonTypeOf(patch)} into Go value of type map[string]interface {}`);
      return strategicMergePatch(current, patch, patchMetaFor(info.kind)) as KubeObject;
    case 'apply':
      if (!isJSONObject(patch)) throw apierrors.badRequest('apply patch must be an object');
      return applyMerge(current, patch) as KubeObject;
  }
}

/**
 * Go's error when a patched document is not an object: kube-apiserver's decoder first reads its
 * apiVersion and kind (json.go, `couldn't get version/kind; json parse error: ...`).
 */
const notAnObjectError = (what: string): string =>
  `couldn't get version/kind; json parse error: json: cannot unmarshal ${what} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;

/** A list merge patch as MergePatch returns it (pruneAryNulls): null fields of the objects in it removed, at any depth; null items kept. */
function withoutNullFields(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNullFields);
  if (!isJSONObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) setOwn(out, k, withoutNullFields(x));
  return out;
}
