/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) for the built-in kinds hcc serves,
 * a port of the apply half of k8s.io/apimachinery/pkg/util/strategicpatch (StrategicMergeMapPatch
 * with MergeParallelList and IgnoreUnmatchedNulls, as kube-apiserver calls it). This is what
 * `kubectl apply` (client-side), `kubectl patch` (default type) and `kubectl label/annotate` send.
 *
 * Semantics:
 * - maps merge key by key; `null` deletes a key; lists replace unless the field's patch strategy
 *   is `merge` (primitive lists: set union; lists of objects: merged by the merge key);
 * - directives: `$patch: replace` (use the patch map as is), `$patch: delete` (empty map; in a
 *   merge list, delete the element with that merge key), `$deleteFromPrimitiveList/<field>`,
 *   `$setElementOrder/<field>` (order of the merged list), `$retainKeys` (drop keys not listed);
 *   `$patch: merge` is rejected as upstream rejects it (`merging lists cannot yet be specified in
 *   the patch`, `unknown patch type: merge in map: ...`);
 * - the result is a new object: neither input is mutated.
 *
 * Errors are StatusErrors worded like apimachinery: 400 BadRequest for malformed directives
 * (`invalid patch format of setElementOrder list`, ...), 422 Invalid for `lists of lists are not
 * supported`. Upstream answers 500 for the remaining patch errors (missing merge key, type
 * mismatches); hcc answers 400, since they are the client's fault.
 *
 * PatchMeta stands in for the Go struct tags (`patchStrategy`, `patchMergeKey`); unknown fields are
 * treated leniently (maps merge, lists replace) where upstream would fail the lookup.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/util/strategicpatch/patch.go
 * @see https://github.com/kubernetes/community/blob/master/contributors/devel/sig-api-machinery/strategic-merge-patch.md
 */
import { StatusError, badRequest } from '../../apierrors/status.js';
import { deepCopyJSON, isJSONObject, setOwn } from '@hcc/crds';

/**
 * Patch metadata of one field, standing in for Go's `patchStrategy`/`patchMergeKey` struct tags.
 * For a list of objects, `fields` describes the elements' fields.
 */
export interface PatchMeta {
  /** `merge`, `replace`, `retainKeys` or `merge,retainKeys`; absent: maps merge, lists replace. */
  strategy?: string;
  /** The merge key of a `merge` list of objects (e.g. `uid`, `type`). */
  mergeKey?: string;
  /** Sub-fields (of an object, or of the elements of a list of objects). */
  fields?: Record<string, PatchMeta>;
}

type JSONMap = Record<string, unknown>;
type Kind = 'map' | 'slice' | 'string' | 'number' | 'boolean' | 'null';

const directiveMarker = '$patch';
const deleteDirective = 'delete';
const replaceDirective = 'replace';
const mergeDirective = 'merge';
const retainKeysStrategy = 'retainKeys';
const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListDirectivePrefix = '$deleteFromPrimitiveList';
const setElementOrderDirectivePrefix = '$setElementOrder';

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'slice';
  if (typeof v === 'object') return 'map';
  return typeof v as 'string' | 'number' | 'boolean';
}

/** Go's reflect type names, for error messages. */
function goType(v: unknown): string {
  switch (kindOf(v)) {
    case 'map':
      return 'map[string]interface {}';
    case 'slice':
      return '[]interface {}';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    default:
      return '<nil>';
  }
}

/** Go's `%v` (and `%+v`) of a decoded JSON value (`map[a:1 b:[x y]]`), for error messages. */
export function goFmt(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFmt).join(' ')}]`;
  if (isJSONObject(v)) {
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goFmt(v[k])}`)
      .join(' ')}]`;
  }
  return String(v);
}

// mergepatch errors (k8s.io/apimachinery/pkg/util/mergepatch/errors.go)
const errBadPatchFormatForPrimitiveList = (): StatusError => badRequest('invalid patch format of primitive list');
const errBadPatchFormatForRetainKeys = (): StatusError => badRequest('invalid patch format of retainKeys');
const errBadPatchFormatForSetElementOrderList = (): StatusError => badRequest('invalid patch format of setElementOrder list');
const errNoListOfLists = (): StatusError =>
  new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'lists of lists are not supported',
    reason: 'Invalid',
    code: 422,
  });
const errBadArgType = (expected: string, actual: unknown): StatusError => badRequest(`expected a ${expected}, but received a ${goType(actual)}`);
const errNoMergeKey = (m: unknown, k: string): StatusError => badRequest(`map: ${goFmt(m)} does not contain declared merge key: ${k}`);
const errBadPatchType = (t: unknown, m: unknown): StatusError => badRequest(`unknown patch type: ${goFmt(t)} in map: ${goFmt(m)}`);

/** The meta of a field; unknown fields get no strategy (maps merge, lists replace). */
const lookup = (meta: PatchMeta, key: string): PatchMeta => (meta.fields && hasOwn(meta.fields, key) ? meta.fields[key]! : {});

/** extractRetainKeysPatchStrategy: the strategy other than `retainKeys`. */
function patchStrategyOf(meta: PatchMeta): string {
  const strategies = meta.strategy ? meta.strategy.split(',') : [];
  switch (strategies.length) {
    case 0:
      return '';
    case 1:
      return strategies[0] === retainKeysStrategy ? '' : strategies[0]!;
    case 2:
      if (strategies[0] === retainKeysStrategy) return strategies[1]!;
      if (strategies[1] === retainKeysStrategy) return strategies[0]!;
  }
  throw badRequest(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

/** extractKey: `$setElementOrder/finalizers` → `finalizers`. */
function extractKey(s: string, prefix: string): string {
  const i = s.indexOf('/');
  if (i < 0 || s.slice(0, i) !== prefix) {
    if (prefix === deleteFromPrimitiveListDirectivePrefix) throw errBadPatchFormatForPrimitiveList();
    throw errBadPatchFormatForSetElementOrderList();
  }
  return s.slice(i + 1);
}

function handleDirectiveInMergeMap(directive: unknown, patch: JSONMap): JSONMap {
  if (directive === replaceDirective) {
    delete patch[directiveMarker];
    return patch;
  }
  if (directive === deleteDirective) return {};
  throw errBadPatchType(directive, patch);
}

/** Removes directives from a value taken as is; returns [value, keep]. */
function removeDirectives(obj: unknown): [unknown, boolean] {
  if (isJSONObject(obj)) {
    if (hasOwn(obj, directiveMarker)) return [null, false];
    for (const k of Object.keys(obj)) {
      const [v, keep] = removeDirectives(obj[k]);
      if (keep) setOwn(obj, k, v);
      else delete obj[k];
    }
    return [obj, true];
  }
  if (Array.isArray(obj)) {
    const res: unknown[] = [];
    for (const v of obj) {
      const [nv, keep] = removeDirectives(v);
      if (keep) res.push(nv);
    }
    return [res, true];
  }
  return [obj, true];
}

function discardNullValuesFromPatch(v: unknown): void {
  if (isJSONObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNullValuesFromPatch(v[k]);
    }
  } else if (Array.isArray(v)) {
    for (const x of v) discardNullValuesFromPatch(x);
  }
}

function applyRetainKeysDirective(original: JSONMap, patch: JSONMap): void {
  if (!hasOwn(patch, retainKeysDirective)) return;
  const list = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(list)) throw errBadPatchFormatForRetainKeys();
  const keep = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(deleteFromPrimitiveListDirectivePrefix) || k.startsWith(setElementOrderDirectivePrefix)) continue;
    if (!keep.has(k)) throw errBadPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** sliceElementType: the common element kind of the lists. */
function sliceElementType(...slices: unknown[][]): Kind {
  let prev: Kind | undefined;
  for (const s of slices) {
    for (const v of s) {
      const k = kindOf(v);
      if (prev === undefined) {
        prev = k;
        if (k === 'slice') throw errNoListOfLists();
      } else if (prev !== k) {
        throw badRequest(`list element types are not identical: ${goFmt(slices)}`);
      }
    }
  }
  if (prev === undefined) throw badRequest('no elements in any of the given slices');
  return prev;
}

function findMapInSlice(list: unknown[], key: string, value: unknown): { map: JSONMap; index: number } | undefined {
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    if (!isJSONObject(m)) throw badRequest(`value for key ${i} is not a map`);
    if (hasOwn(m, key) && m[key] === value) return { map: m, index: i };
  }
  return undefined;
}

function partitionPrimitivesByPresentInList(original: unknown[], partitionBy: unknown[]): [unknown[], unknown[]] {
  const inPatch = new Set(partitionBy);
  return [original.filter((v) => inPatch.has(v)), original.filter((v) => !inPatch.has(v))];
}

function partitionMapsByPresentInList(original: unknown[], partitionBy: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const patch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of original) {
    if (!isJSONObject(v)) throw errBadArgType('map[string]interface {}', v);
    if (!hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findMapInSlice(partitionBy, mergeKey, v[mergeKey]) ? patch : serverOnly).push(v);
  }
  return [patch, serverOnly];
}

/** index: position of an item (by merge key value for maps) in a list, or -1. */
function indexOf(list: unknown[], val: unknown, mergeKey: string, kind: Kind): number {
  const get = kind === 'map' ? (x: unknown) => (isJSONObject(x) ? x[mergeKey] : undefined) : (x: unknown) => x;
  const want = get(val);
  return list.findIndex((v) => get(v) === want);
}

/** Go's sort.SliceStable (insertion sort in blocks of 20, then SymMerge), so odd comparators order items as upstream does. */
function goSliceStable<T>(data: T[], less: (a: T, b: T) => boolean): void {
  const lessIdx = (i: number, j: number) => less(data[i]!, data[j]!);
  const swap = (i: number, j: number) => {
    const t = data[i]!;
    data[i] = data[j]!;
    data[j] = t;
  };
  const insertionSort = (a: number, b: number) => {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && lessIdx(j, j - 1); j--) swap(j, j - 1);
  };
  const swapRange = (a: number, b: number, n: number) => {
    for (let i = 0; i < n; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number) => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (lessIdx(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!lessIdx(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!lessIdx(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };
  const n = data.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
}

/** normalizeSliceOrder: sorts `toSort` by `order`; `$patch: delete` items go last. */
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: Kind): unknown[] {
  let items = [...toSort];
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    for (const list of [items, order]) {
      for (const item of list) {
        if (!isJSONObject(item)) throw errBadArgType('map[string]interface {}', item);
        if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      }
    }
    toDelete = items.filter((v) => (v as JSONMap)[directiveMarker] === deleteDirective);
    items = items.filter((v) => (v as JSONMap)[directiveMarker] !== deleteDirective);
  }
  goSliceStable(items, (x, y) => {
    const ii = indexOf(order, x, mergeKey, kind);
    if (ii >= 0) {
      const ij = indexOf(order, y, mergeKey, kind);
      if (ij >= 0) return ii < ij;
    }
    return true;
  });
  return [...items, ...toDelete];
}

/** mergeSortedSlice: interleaves server-only items into the patch items by their order in the live list. */
function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: Kind): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOf(serverOrder, left[i], mergeKey, kind);
      const ri = indexOf(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function normalizeElementOrder(patch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: Kind): unknown[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

/** deduplicateScalars, with upstream's in-place algorithm (it moves the last element into a duplicate's slot). */
function deduplicateScalars(input: unknown[]): unknown[] {
  const s = [...input];
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length];
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}

function mergeSliceWithSpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const withoutSpecial: unknown[] = [];
  let replace = false;
  let orig = original;
  for (const v of patch) {
    const m = v as JSONMap;
    if (!hasOwn(m, directiveMarker)) {
      withoutSpecial.push(v);
      continue;
    }
    const t = m[directiveMarker];
    if (t === deleteDirective) {
      if (!hasOwn(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      orig = orig.filter((o) => {
        if (!isJSONObject(o)) throw badRequest(`value for key ${orig.indexOf(o)} is not a map`);
        return !(hasOwn(o, mergeKey) && o[mergeKey] === m[mergeKey]);
      });
    } else if (t === replaceDirective) {
      replace = true;
    } else if (t === mergeDirective) {
      throw badRequest('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(t, m);
    }
  }
  return replace ? [withoutSpecial, []] : [orig, withoutSpecial];
}

function mergeSlice(original: unknown[], patch: unknown[], meta: PatchMeta, mergeKey: string, isDeleteList: boolean, name: string): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  let merged: unknown[];
  let orig = original;
  let p = patch;
  if (kind !== 'map') {
    if (isDeleteList) {
      const del = new Set(patch);
      return original.filter((v) => !del.has(v));
    }
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (!mergeKey) throw badRequest(`cannot merge lists without merge key for ${name}`);
    [orig, p] = mergeSliceWithSpecialElements(original, patch, mergeKey);
    merged = [...orig];
    for (const v of p) {
      const m = v as JSONMap;
      if (!hasOwn(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      const found = findMapInSlice(merged, mergeKey, m[mergeKey]);
      if (found) merged[found.index] = mergeMap(found.map, m, meta);
      else merged.push(v);
    }
  }
  const [patchItems, serverOnly] = mergeKey ? partitionMapsByPresentInList(merged, p, mergeKey) : partitionPrimitivesByPresentInList(merged, p);
  return normalizeElementOrder(patchItems, serverOnly, p, orig, mergeKey, kind);
}

function mergeSliceHandler(original: unknown, patch: unknown, meta: PatchMeta, strategy: string, isDeleteList: boolean, name: string): unknown[] {
  if (!Array.isArray(original)) throw errBadArgType('[]interface {}', original);
  if (!Array.isArray(patch)) throw errBadArgType('[]interface {}', patch);
  if (strategy === mergeDirective || isDeleteList) return mergeSlice(original, patch, meta, meta.mergeKey ?? '', isDeleteList, name);
  return patch;
}

function mergeMapHandler(original: unknown, patch: unknown, meta: PatchMeta, strategy: string): JSONMap {
  if (!isJSONObject(original)) throw errBadArgType('map[string]interface {}', original);
  if (!isJSONObject(patch)) throw errBadArgType('map[string]interface {}', patch);
  return strategy !== replaceDirective ? mergeMap(original, patch, meta) : patch;
}

/** mergePatchIntoOriginal: processes `$setElementOrder/<field>` together with `<field>`. */
function mergePatchIntoOriginal(original: JSONMap, patch: JSONMap, meta: PatchMeta): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderDirectivePrefix)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType('[]interface {}', order);
    const originalKey = extractKey(key, setElementOrderDirectivePrefix);
    const foundOriginal = hasOwn(original, originalKey);
    const foundPatch = hasOwn(patch, originalKey);
    const originalList = foundOriginal ? original[originalKey] : [];
    const patchList = foundPatch ? patch[originalKey] : [];
    if (!Array.isArray(originalList)) throw errBadArgType('[]interface {}', originalList);
    if (!Array.isArray(patchList)) throw errBadArgType('[]interface {}', patchList);
    const sub = lookup(meta, originalKey);
    const strategy = patchStrategyOf(sub);
    const mergeKey = sub.mergeKey ?? '';
    validatePatchWithSetOrderList(patchList, order, mergeKey);
    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchList)[0] as unknown[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList, patchList, sub, strategy, false, originalKey);
    else continue;
    const [patchItems, serverOnly] = mergeKey ? partitionMapsByPresentInList(merged, order, mergeKey) : partitionPrimitivesByPresentInList(merged, order);
    const kind = sliceElementType(originalList, patchList);
    original[originalKey] = normalizeElementOrder(patchItems, serverOnly, order, originalList, mergeKey, kind);
    delete patch[originalKey];
  }
}

/** validatePatchWithSetOrderList: the patch list must follow the `$setElementOrder` list's order. */
function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let nonDelete = patchList;
  if (mergeKey) {
    for (const v of patchList) if (!isJSONObject(v)) throw errBadArgType('map[string]interface {}', v);
    nonDelete = patchList.filter((v) => (v as JSONMap)[directiveMarker] !== deleteDirective);
  }
  const keyOf = (v: unknown): unknown => {
    if (!mergeKey) return v;
    if (!isJSONObject(v)) throw errBadArgType('map[string]interface {}', v);
    if (!hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    return v[mergeKey];
  };
  let pi = 0;
  let si = 0;
  while (pi < nonDelete.length && si < order.length) {
    const item = nonDelete[pi];
    if (isJSONObject(item) && hasOwn(item, directiveMarker)) {
      pi++;
      continue;
    }
    if (keyOf(item) === keyOf(order[si])) pi++;
    si++;
  }
  if (pi < nonDelete.length && si >= order.length) {
    throw badRequest(`the order in patch list:\n${goFmt(patchList)}\n doesn't match ${setElementOrderDirectivePrefix} list:\n${goFmt(order)}`);
  }
}

function mergeMap(originalIn: JSONMap | null, patch: JSONMap, meta: PatchMeta): JSONMap {
  if (hasOwn(patch, directiveMarker)) return handleDirectiveInMergeMap(patch[directiveMarker], patch);
  const original = originalIn ?? {};
  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, meta);
  for (const key of Object.keys(patch)) {
    const patchV = patch[key];
    let k = key;
    let isDeleteList = false;
    if (key.startsWith(deleteFromPrimitiveListDirectivePrefix)) {
      k = extractKey(key, deleteFromPrimitiveListDirectivePrefix);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[k];
      continue;
    }
    if (!hasOwn(original, k) || kindOf(original[k]) !== kindOf(patchV)) {
      if (!isDeleteList) {
        discardNullValuesFromPatch(patchV);
        const [v, keep] = removeDirectives(patchV);
        if (keep) setOwn(original, k, v);
        else delete original[k];
      }
      continue;
    }
    const sub = lookup(meta, k);
    const strategy = patchStrategyOf(sub);
    if (isJSONObject(original[k])) setOwn(original, k, mergeMapHandler(original[k], patchV, sub, strategy));
    else if (Array.isArray(original[k])) setOwn(original, k, mergeSliceHandler(original[k], patchV, sub, strategy, isDeleteList, k));
    else {
      const [v, keep] = removeDirectives(patchV);
      if (keep) setOwn(original, k, v);
      else delete original[k];
    }
  }
  return original;
}

/**
 * Applies a strategic merge patch to a built-in object.
 * @param original - the live object (JSON); not mutated
 * @param patch - the decoded patch body (a JSON object); not mutated
 * @param meta - patch strategies of the object's kind, from {@link patchMetaFor}
 * @returns the patched object, a fresh copy
 * @throws StatusError 400 (malformed patch or directive), 422 (lists of lists)
 */
export function strategicMergePatch(original: unknown, patch: unknown, meta: PatchMeta): Record<string, unknown> {
  if (!isJSONObject(patch)) throw badRequest('invalid JSON document');
  const o = isJSONObject(original) ? (deepCopyJSON(original) as JSONMap) : {};
  return mergeMap(o, deepCopyJSON(patch) as JSONMap, meta);
}

/** metav1.ObjectMeta tags: finalizers are a merge set, ownerReferences merge by uid, the rest replace/merge by shape. */
const objectMetaMeta: PatchMeta = {
  fields: {
    finalizers: { strategy: 'merge' },
    ownerReferences: { strategy: 'merge', mergeKey: 'uid' },
    managedFields: {},
  },
};

const withObjectMeta = (fields: Record<string, PatchMeta> = {}): PatchMeta => ({ fields: { metadata: objectMetaMeta, ...fields } });

/** Patch metadata per built-in kind (from the k8s.io/api struct tags). */
const byKind: Record<string, PatchMeta> = {
  // core/v1 NamespaceSpec.finalizers is atomic (no patchStrategy); NamespaceStatus.conditions merge by type.
  Namespace: withObjectMeta({
    spec: { fields: { finalizers: {} } },
    status: { fields: { conditions: { strategy: 'merge', mergeKey: 'type' } } },
  }),
  Secret: withObjectMeta(),
  ConfigMap: withObjectMeta(),
  // core/v1 Event has no list with a patch strategy: involvedObject, source, series, related are structs.
  Event: withObjectMeta({ involvedObject: {}, source: {}, series: {}, related: {} }),
  // coordination/v1 Lease: spec is a plain struct.
  Lease: withObjectMeta({ spec: {} }),
};

/**
 * The PatchMeta of a built-in kind (`Namespace`, `Secret`, `ConfigMap`, `Event`, `Lease`); any other
 * kind gets the ObjectMeta rules only (e.g. `CustomResourceDefinition`, whose types carry no patch tags).
 */
export function patchMetaFor(kind: string): PatchMeta {
  return hasOwn(byKind, kind) ? byKind[kind]! : withObjectMeta();
}
