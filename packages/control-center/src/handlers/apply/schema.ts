/**
 * The type of every field of an object as server-side apply sees it: maps (structs with named
 * fields, or free-form maps), lists (atomic, set, or map with keys) and scalars, after
 * structured-merge-diff's `schema` package.
 *
 * - Custom resources: built lazily from the CRD version's openAPIV3Schema, as kube-openapi's
 *   schemaconv does: `properties` are named fields, `additionalProperties` types the other keys,
 *   `x-kubernetes-preserve-unknown-fields` makes the other keys untyped, `x-kubernetes-map-type:
 *   atomic` makes a map atomic, `x-kubernetes-list-type` (`atomic` by default) with
 *   `x-kubernetes-list-map-keys` types lists. `metadata` is always ObjectMeta.
 * - Built-in kinds (Secret, ConfigMap, Namespace, Event, Lease, CustomResourceDefinition): small
 *   hand-written trees with their named fields; `metadata.finalizers` is a set, `ownerReferences` a
 *   map keyed by `uid`, every other list atomic.
 * - Untyped (no schema, preserve-unknown-fields): deduced from the value, as upstream's
 *   `__untyped_deduced_` type: objects are granular maps, arrays atomic lists.
 *
 * Lenient where upstream is strict: a key a struct does not declare is treated as untyped, and a
 * value whose shape contradicts its type is treated as an atomic leaf (schema validation reports it).
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/schema/elements.go
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/schemaconv/smd.go
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy
 */
import { isJSONObject, type KubeObject } from '@hcc/crds';
import type { JSONSchemaProps } from '../../registry/schema/types.js';
import type { ResourceInfo } from '../../registry/types.js';

/** The type of one field. */
export interface FieldType {
  /** `untyped` is resolved against each value (see {@link resolve}). */
  readonly kind: 'map' | 'list' | 'scalar' | 'untyped';
  /** Maps and lists: replaced as a whole (`x-kubernetes-map-type`/`list-type: atomic`). */
  readonly atomic: boolean;
  /** Maps: the type of a named (struct) field, undefined when `name` is not one. */
  field(name: string): FieldType | undefined;
  /** Maps: the type of keys that are not named fields; lists: the item type. */
  elem(): FieldType;
  /** Lists: `set` (items are scalars) or `map` (items are objects identified by `keys`); atomic otherwise. */
  readonly listType: 'atomic' | 'set' | 'map';
  /** Lists of type map: the key fields. */
  readonly keys: readonly string[];
  /** Lists of type map: the schema default of a key field, used when an item omits it. */
  keyDefault(key: string): unknown;
}

const noField = (): undefined => undefined;

/** A scalar (string, number, boolean, int-or-string, null). */
export const SCALAR: FieldType = { kind: 'scalar', atomic: true, field: noField, elem: () => UNTYPED, listType: 'atomic', keys: [], keyDefault: noField };
/** A type decided by each value. */
export const UNTYPED: FieldType = { kind: 'untyped', atomic: false, field: noField, elem: () => UNTYPED, listType: 'atomic', keys: [], keyDefault: noField };
/** What an untyped object is: a granular map of untyped values. */
export const DEDUCED_MAP: FieldType = { kind: 'map', atomic: false, field: noField, elem: () => UNTYPED, listType: 'atomic', keys: [], keyDefault: noField };
/** What an untyped array is: an atomic list. */
export const DEDUCED_LIST: FieldType = { kind: 'list', atomic: true, field: noField, elem: () => UNTYPED, listType: 'atomic', keys: [], keyDefault: noField };


/**
 * The concrete type to walk `v` with: untyped resolves by the value; a value whose shape
 * contradicts a map or list type is a leaf. `null` and absent values keep their declared type.
 */
export function resolve(t: FieldType, v: unknown): FieldType {
  if (t.kind === 'untyped') return isJSONObject(v) ? DEDUCED_MAP : Array.isArray(v) ? DEDUCED_LIST : SCALAR;
  if (v === null || v === undefined) return t;
  if (t.kind === 'map' && !isJSONObject(v)) return SCALAR;
  if (t.kind === 'list' && !Array.isArray(v)) return SCALAR;
  return t;
}

/** The type of a map key: its named field, else the element type. */
export function fieldTypeOf(t: FieldType, key: string): FieldType {
  return t.field(key) ?? t.elem();
}

/** A struct with named fields; other keys are untyped unless `elem` says otherwise. */
export function struct(fields: Record<string, FieldType>, opts: { elem?: FieldType; atomic?: boolean } = {}): FieldType {
  const map = new Map(Object.entries(fields));
  const elem = opts.elem ?? UNTYPED;
  return { kind: 'map', atomic: opts.atomic ?? false, field: (n) => map.get(n), elem: () => elem, listType: 'atomic', keys: [], keyDefault: noField };
}

/** A granular map of `elem` values. */
export const mapOf = (elem: FieldType): FieldType => ({ kind: 'map', atomic: false, field: noField, elem: () => elem, listType: 'atomic', keys: [], keyDefault: noField });

/** A list replaced as a whole. */
export const atomicList = (elem: FieldType): FieldType => ({ kind: 'list', atomic: true, field: noField, elem: () => elem, listType: 'atomic', keys: [], keyDefault: noField });

/** A set of scalars. */
export const setList = (elem: FieldType): FieldType => ({ kind: 'list', atomic: false, field: noField, elem: () => elem, listType: 'set', keys: [], keyDefault: noField });

/** A list of objects identified by `keys`. */
export const mapList = (keys: string[], elem: FieldType, defaults: Record<string, unknown> = {}): FieldType => ({
  kind: 'list',
  atomic: false,
  field: noField,
  elem: () => elem,
  listType: 'map',
  keys,
  keyDefault: (k) => defaults[k],
});

const S = SCALAR;
const ownerReference = struct({ apiVersion: S, kind: S, name: S, uid: S, controller: S, blockOwnerDeletion: S });

/** metav1.ObjectMeta. */
export const OBJECT_META: FieldType = struct({
  name: S,
  generateName: S,
  namespace: S,
  selfLink: S,
  uid: S,
  resourceVersion: S,
  generation: S,
  creationTimestamp: S,
  deletionTimestamp: S,
  deletionGracePeriodSeconds: S,
  labels: mapOf(S),
  annotations: mapOf(S),
  ownerReferences: mapList(['uid'], ownerReference),
  finalizers: setList(S),
  managedFields: atomicList(UNTYPED),
});

/** A top-level kind: apiVersion, kind, metadata, plus its own fields. */
const kindType = (fields: Record<string, FieldType>): FieldType => struct({ apiVersion: S, kind: S, metadata: OBJECT_META, ...fields });

const objectReference = struct({ kind: S, namespace: S, name: S, uid: S, apiVersion: S, resourceVersion: S, fieldPath: S });

/** Types of the built-in kinds, by `group/Kind`. */
const builtinTypes: Record<string, FieldType> = {
  '/Secret': kindType({ data: mapOf(S), stringData: mapOf(S), type: S, immutable: S }),
  '/ConfigMap': kindType({ data: mapOf(S), binaryData: mapOf(S), immutable: S }),
  '/Namespace': kindType({
    spec: struct({ finalizers: atomicList(S) }),
    status: struct({ phase: S, conditions: atomicList(UNTYPED) }),
  }),
  '/Event': kindType({
    involvedObject: objectReference,
    reason: S,
    message: S,
    source: struct({ component: S, host: S }),
    firstTimestamp: S,
    lastTimestamp: S,
    count: S,
    type: S,
    eventTime: S,
    series: struct({ count: S, lastObservedTime: S }),
    action: S,
    related: objectReference,
    reportingComponent: S,
    reportingInstance: S,
  }),
  'coordination.k8s.io/Lease': kindType({
    spec: struct({ holderIdentity: S, leaseDurationSeconds: S, acquireTime: S, renewTime: S, leaseTransitions: S, strategy: S, preferredHolder: S }),
  }),
  'apiextensions.k8s.io/CustomResourceDefinition': kindType({ spec: DEDUCED_MAP, status: DEDUCED_MAP }),
};

/** Kinds whose Go zero value carries a `spec` struct (present, empty) before anything is set. */
const zeroSpec = new Set(['/Namespace', 'coordination.k8s.io/Lease']);

const schemaTypes = new WeakMap<object, FieldType>();

/** The type of a CRD schema node (cached per node). */
export function fromSchema(s: JSONSchemaProps | boolean | undefined): FieldType {
  if (s === undefined || typeof s === 'boolean') return UNTYPED;
  let t = schemaTypes.get(s);
  if (!t) {
    t = buildFromSchema(s);
    schemaTypes.set(s, t);
  }
  return t;
}

function buildFromSchema(s: JSONSchemaProps): FieldType {
  const x = s as JSONSchemaProps & Record<string, unknown>;
  if (x['x-kubernetes-int-or-string']) return SCALAR;
  const type = s.type ?? (s.properties || s.additionalProperties ? 'object' : s.items ? 'array' : undefined);
  if (type === 'object') {
    const props = s.properties ?? {};
    const fieldCache = new Map<string, FieldType | undefined>();
    const preserve = x['x-kubernetes-preserve-unknown-fields'] === true;
    const ap = s.additionalProperties as JSONSchemaProps | boolean | undefined;
    let elem: FieldType | undefined;
    return {
      kind: 'map',
      atomic: x['x-kubernetes-map-type'] === 'atomic',
      field: (n) => {
        if (fieldCache.has(n)) return fieldCache.get(n);
        const p = Object.prototype.hasOwnProperty.call(props, n) ? fromSchema(props[n] as JSONSchemaProps) : undefined;
        fieldCache.set(n, p);
        return p;
      },
      elem: () => (elem ??= ap && typeof ap === 'object' && !preserve ? fromSchema(ap) : UNTYPED),
      listType: 'atomic',
      keys: [],
      keyDefault: noField,
    };
  }
  if (type === 'array') {
    const itemSchema = (Array.isArray(s.items) ? s.items[0] : s.items) as JSONSchemaProps | undefined;
    const listType = x['x-kubernetes-list-type'];
    let elem: FieldType | undefined;
    const elemOf = () => (elem ??= fromSchema(itemSchema));
    const keys = listType === 'map' ? ((x['x-kubernetes-list-map-keys'] as string[] | undefined) ?? []) : [];
    return {
      kind: 'list',
      atomic: listType !== 'set' && listType !== 'map',
      field: noField,
      elem: elemOf,
      listType: listType === 'set' ? 'set' : listType === 'map' ? 'map' : 'atomic',
      keys,
      keyDefault: (k) => (itemSchema?.properties?.[k] as JSONSchemaProps | undefined)?.default,
    };
  }
  if (type === undefined) return UNTYPED;
  return SCALAR;
}

/** A root type: the schema's, with apiVersion, kind and metadata as every kind has them. */
function withObjectMeta(root: FieldType): FieldType {
  return {
    ...root,
    kind: 'map',
    field: (n) => (n === 'metadata' ? OBJECT_META : n === 'apiVersion' || n === 'kind' ? S : root.kind === 'map' ? root.field(n) : undefined),
    elem: () => (root.kind === 'map' ? root.elem() : UNTYPED),
  };
}

const rootTypes = new WeakMap<object, FieldType>();
const genericRoot = kindType({});

/** The type of a whole object of the resource. */
export function typeOf(info: Pick<ResourceInfo, 'group' | 'kind' | 'schema' | 'custom'>): FieldType {
  if (info.custom || info.schema) {
    if (!info.schema) return genericRoot;
    let t = rootTypes.get(info.schema);
    if (!t) {
      t = withObjectMeta(fromSchema(info.schema as JSONSchemaProps));
      rootTypes.set(info.schema, t);
    }
    return t;
  }
  return builtinTypes[`${info.group}/${info.kind}`] ?? genericRoot;
}

/**
 * The object a create is compared against: the kind's zero value as kube-apiserver builds it
 * (`metadata` always there for built-ins, an empty `spec` for kinds whose spec is a struct,
 * nothing for custom resources), without apiVersion/kind (never tracked).
 */
export function zeroObject(info: Pick<ResourceInfo, 'group' | 'kind' | 'custom'>): KubeObject {
  if (info.custom) return {} as KubeObject;
  return (zeroSpec.has(`${info.group}/${info.kind}`) ? { metadata: {}, spec: {} } : { metadata: {} }) as KubeObject;
}
