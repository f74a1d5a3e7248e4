/**
 * The write semantics of the Kubernetes API, independent of HTTP: create, update (main resource
 * and status), delete with finalizers and preconditions. Every check runs inside the store's
 * transaction function, before anything is written, so a rejected request writes nothing.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/registry/generic/registry/store.go
 * @see https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md
 */
import { decodeBuiltin } from '../registry/builtin/decode.js';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ControlCenterGroup, deepCopyJSON, isJSONObject, rfc3339, type KubeObject } from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';
import * as field from '../apierrors/field.js';
import type { Store, StoredObject } from '../storage/store.js';
import type { ResourceInfo, StrategyContext } from '../registry/types.js';
import { storageKey, storagePrefix } from '../registry/types.js';
import { dedupOwnerReferences, validateObjectMeta, type NameRule } from '../registry/validation.js';
import { namespaces } from '../registry/builtin/namespaces.js';
import { resetFieldsOf, trackUpdate } from './apply/managed-fields.js';
import { typeOf, zeroObject } from './apply/schema.js';
import { coerceToVersionSchema } from '../registry/schema/index.js';
import type { JSONSchemaProps } from '../registry/schema/types.js';

const groupResource = (info: ResourceInfo) => ({ group: info.group, resource: info.resource });
const groupKind = (info: ResourceInfo) => ({ group: info.group, kind: info.kind });

/** Characters generateName appends (no vowels, as apiserver's `utilrand.String`). */
const alphanums = 'bcdfghjklmnpqrstvwxz2456789';
/**
 * The longest generateName prefix kept: 63 (a DNS label) minus the 5 random characters.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/names/generate.go
 */
const MaxGeneratedNamePrefix = 58;
/**
 * How many names a create with `generateName` tries before it answers 409 AlreadyExists: 8 in
 * all, as kube-apiserver's registry Store.Create retries with RetryGenerateName (GA in 1.32).
 * @see https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/ (RetryGenerateName)
 */
export const MaxGenerateNameAttempts = 8;
function randomSuffix(n = 5): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphanums[Math.floor(Math.random() * alphanums.length)];
  return s;
}

/**
 * How names of a resource are checked: a DNS label for Namespaces (as upstream) and for
 * ManagementClusters (the name is the value of the placement label and part of the
 * `state.controlcenter.hcc.dev/<name>` label key, both at most 63 characters); a DNS subdomain
 * for everything else.
 */
function nameRuleOf(info: ResourceInfo): NameRule {
  return info.resource === 'namespaces' || (info.group === ControlCenterGroup && info.resource === 'managementclusters') ? 'label' : 'subdomain';
}

/** The apiVersion string of a resource version (`v1` for core). */
export const apiVersionOf = (group: string, version: string): string => (group ? `${group}/${version}` : version);

/**
 * A stored object as served in the requested version (the CRD conversion strategy `None`): the
 * object itself when it is stored in that version; otherwise a copy relabelled with the version's
 * apiVersion and kind and, for a custom resource, pruned to that version's schema
 * ({@link coerceToVersionSchema}: fields the version does not declare are not shown through it,
 * as kube-apiserver's converter prunes them; they stay stored and read through the version that
 * declares them). The result is shared with the store's object where unchanged: callers replace
 * what they change, never mutate it.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#specify-multiple-versions
 */
export function toVersion(obj: KubeObject, info: ResourceInfo): KubeObject {
  const apiVersion = apiVersionOf(info.group, info.version);
  if (obj.apiVersion === apiVersion && obj.kind === info.kind) return obj;
  if (!info.schema || obj.apiVersion === apiVersion) return { ...obj, apiVersion, kind: info.kind };
  const out = deepCopyJSON({ ...obj, apiVersion, kind: info.kind });
  coerceToVersionSchema(out as unknown as Record<string, unknown>, info.schema as JSONSchemaProps);
  return out;
}

/**
 * Checks a request body names the resource it is sent to and fills in apiVersion/kind when
 * absent. The body's apiVersion must be the endpoint's own group/version, as kube-apiserver's
 * create and update handlers require (`scope.AcceptsGroupVersion`): a body of another version,
 * served or not, is refused rather than stored as this version with its fields reinterpreted
 * (hcc converts between versions only by relabelling, so accepting one would lose data).
 * @throws StatusError 400 BadRequest: not an object; apiVersion or kind not a string; another
 *   kind; another group or version
 */
export function checkTypeMeta(obj: unknown, info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>): KubeObject {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw apierrors.badRequest(`the body of the request must be a ${info.kind} object`);
  }
  const o = obj as KubeObject;
  const want = apiVersionOf(info.group, info.version);
  for (const f of ['apiVersion', 'kind'] as const) {
    const v: unknown = o[f];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw apierrors.badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(v)} into Go struct field .${f} of type string`);
    }
  }
  if (o.kind && o.kind !== info.kind) {
    throw apierrors.badRequest(`the kind in the data (${String(o.kind)}) does not match the expected kind (${info.kind})`);
  }
  if (o.apiVersion && o.apiVersion !== want) {
    throw apierrors.badRequest(`the API version in the data (${String(o.apiVersion)}) does not match the expected API version (${want})`);
  }
  o.apiVersion = want;
  o.kind = info.kind;
  if (o.metadata === undefined || o.metadata === null) o.metadata = {};
  if (typeof o.metadata !== 'object' || Array.isArray(o.metadata)) {
    throw apierrors.cannotBeHandled(info.kind, info.version, 'metadata must be an object');
  }
  return o;
}

/** The JSON type of a decoded value as Go's encoding/json names it in UnmarshalTypeError ("number", "bool", "object", "array"). */
function jsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** Storage form: apiVersion of the storage version. */
function toStorage(obj: KubeObject, info: ResourceInfo): KubeObject {
  return { ...obj, apiVersion: apiVersionOf(info.group, info.storageVersion), kind: info.kind };
}

/** Server-managed metadata a client may not set on create. Generation is kept by custom resources and CRDs, as in Kubernetes. */
function resetServerMetadata(obj: KubeObject, now: Date, info: ResourceInfo): void {
  const m = obj.metadata;
  m.uid = randomUUID();
  m.creationTimestamp = rfc3339(now);
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete m.selfLink;
  if (info.custom || info.resource === 'customresourcedefinitions') m.generation = 1;
  else delete m.generation;
  if (m.managedFields === undefined) delete m.managedFields;
}

/** Namespaces that cannot be deleted (the NamespaceLifecycle admission plugin's immortal namespaces). */
const immortalNamespaces: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/**
 * What the store holds at `key`; when this server's copy has nothing there, after bringing the
 * copy of that key up to date (Store.syncToLatest with the key), so an object created through
 * another control center on the same etcd just before is found on one whose watch lags, as
 * kube-apiserver reads etcd when its cache lacks an object. Costs nothing when the copy has it.
 * @throws StatusError 503/504 from syncToLatest
 */
export async function getOrLookUp(store: Store, key: string): Promise<StoredObject | undefined> {
  const here = store.get(key);
  if (here) return here;
  await store.syncToLatest?.(key);
  return store.get(key);
}

/**
 * Before a create checks its namespace: a namespace this server's copy lacks is looked up
 * ({@link getOrLookUp}), as kube-apiserver's NamespaceLifecycle admission looks a namespace
 * missing from its informer up in storage.
 * @throws StatusError 503/504 from syncToLatest
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go
 */
async function lookUpMissingNamespace(store: Store, info: ResourceInfo, namespace: string): Promise<void> {
  if (info.namespaced) await getOrLookUp(store, storageKey(namespaces, '', namespace));
}

/** Ensures the namespace of a namespaced object exists and is not terminating. */
function checkNamespace(store: Store, info: ResourceInfo, namespace: string, name: string): void {
  if (!info.namespaced) return;
  const ns = store.get(storageKey(namespaces, '', namespace));
  if (!ns) throw apierrors.notFound({ group: '', resource: 'namespaces' }, namespace);
  if ((ns.object.status as { phase?: string } | undefined)?.phase === 'Terminating' || ns.object.metadata.deletionTimestamp) {
    const err = apierrors.forbidden(groupResource(info), name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    // The cause client-go callers test with HasStatusCause(err, NamespaceTerminatingCause), as
    // the NamespaceLifecycle admission plugin adds it.
    err.status.details = { ...err.status.details, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] };
    throw err;
  }
}

function throwIfInvalid(info: ResourceInfo, name: string, errs: field.FieldError[]): void {
  if (errs.length) throw apierrors.invalid(groupKind(info), name, errs);
}

/** Who makes a write, for `metadata.managedFields`. */
export interface FieldManagerRef {
  /** The manager: the `fieldManager` parameter, or a name derived from the User-Agent. */
  name: string;
  /**
   * `Update`: ownership follows from what the write changed (create, update, patch).
   * `Apply`: the update function already computed managedFields (server-side apply); they are kept.
   */
  operation: 'Update' | 'Apply';
  /** The subresource the entry records (`scale`); defaults to the write's subresource. */
  subresource?: string;
}

/** Options every write takes. */
export interface WriteOptions {
  dryRun: boolean;
  /** Records the write in managedFields; absent for the server's own writes (managedFields left as they are). */
  manager?: FieldManagerRef;
}

/**
 * A view of `obj` without the fields at `paths` (copies along each path; `obj` is not changed):
 * what a create's request carried, before `prepareForCreate` set them.
 */
function withoutPaths(obj: KubeObject, paths: string[][]): KubeObject {
  const cut = (o: Record<string, unknown>, path: string[]): Record<string, unknown> => {
    const [head, ...rest] = path;
    if (head === undefined || !Object.hasOwn(o, head)) return o;
    const out = { ...o };
    const sub = o[head];
    if (!rest.length) delete out[head];
    else if (isJSONObject(sub)) out[head] = cut(sub, rest);
    return out;
  };
  let view = obj as unknown as Record<string, unknown>;
  for (const p of paths) view = cut(view, p);
  return view as unknown as KubeObject;
}

/**
 * Sets `metadata.managedFields` of the object about to be stored, once the strategy prepared and
 * validated it: an Update takes ownership of what it changed (from `live`, or the kind's zero value
 * on create); an Apply keeps what the update function computed (`requested`).
 */
function recordManagedFields(info: ResourceInfo, live: KubeObject | undefined, obj: KubeObject, requested: unknown, manager: FieldManagerRef, subresource: string, now: Date): void {
  const entries =
    manager.operation === 'Apply'
      ? requested
      : trackUpdate({
          live,
          obj,
          requestManagedFields: requested,
          zero: zeroObject(info),
          manager: manager.name,
          apiVersion: apiVersionOf(info.group, info.version),
          subresource: manager.subresource ?? subresource,
          type: typeOf(info),
          reset: resetFieldsOf(info, subresource),
          now: rfc3339(now),
        });
  if (entries === undefined) delete obj.metadata.managedFields;
  else obj.metadata.managedFields = entries as KubeObject['metadata']['managedFields'];
}

/** ObjectMeta's maps and lists Go leaves out when empty (`json:",omitempty"`), of every kind, custom resources too (apiextensions-apiserver round-trips metadata through ObjectMeta). */
const omitEmptyMetadata = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;
/** Built-in kinds' top-level maps with `omitempty` (by `group/Kind`). */
const omitEmptyFields: Record<string, readonly string[]> = { '/ConfigMap': ['data', 'binaryData'], '/Secret': ['data', 'stringData'] };

/**
 * Removes, in place, the empty maps and lists the API never serves (Go's encoder omits them):
 * `labels: {}`, `finalizers: []`, a ConfigMap's `data: {}`. A merge patch `{"metadata":{"labels":{}}}`
 * of an object without labels is then no change (no new resourceVersion), and `kubectl diff` of an
 * exported object shows none, as against kube-apiserver.
 */
function omitEmpty(obj: KubeObject, info: ResourceInfo): void {
  const empty = (v: unknown) => (Array.isArray(v) ? v.length === 0 : v !== null && typeof v === 'object' && Object.keys(v).length === 0);
  const m = obj.metadata as unknown as Record<string, unknown> | undefined;
  if (m && typeof m === 'object') for (const f of omitEmptyMetadata) if (empty(m[f])) delete m[f];
  if (info.custom) return;
  const o = obj as unknown as Record<string, unknown>;
  for (const f of omitEmptyFields[`${info.group}/${info.kind}`] ?? []) if (empty(o[f])) delete o[f];
}

/** Drops exact duplicate owner references and warns, as kube-apiserver does (see dedupOwnerReferences). */
function warnOnDuplicateOwners(obj: KubeObject, ctx: StrategyContext): void {
  const w = dedupOwnerReferences(obj);
  if (w) ctx.warnings.push(w);
}

/**
 * Creates an object. `obj` is the decoded body (checkTypeMeta applied); it is mutated.
 * @returns the stored object (or, for dryRun, what would be stored)
 * @throws StatusError 400/403/404/409/422
 */
export async function createObject(store: Store, info: ResourceInfo, namespace: string, obj: KubeObject, ctx: StrategyContext, opts: WriteOptions): Promise<KubeObject> {
  decodeBuiltin(obj, info, ctx);
  const m = obj.metadata;
  if (info.namespaced) {
    if (m.namespace && m.namespace !== namespace) {
      throw apierrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    m.namespace = namespace;
  } else {
    // A cluster-scoped object's namespace is cleared, not refused (rest.BeforeCreate:
    // EnsureObjectNamespaceMatchesRequestNamespace), e.g. what kustomize's namespace: adds.
    delete m.namespace;
  }
  if (m.resourceVersion) throw apierrors.badRequest('resourceVersion should not be set on objects to be created');
  // names.SimpleNameGenerator: the prefix is cut to 58 characters so that prefix + 5 random ones fit 63.
  const generate = !m.name && m.generateName ? () => `${m.generateName!.slice(0, MaxGeneratedNamePrefix)}${randomSuffix()}` : undefined;
  if (generate) m.name = generate();
  // Before the object is validated, as kube-apiserver's NamespaceLifecycle admission runs first:
  // a create into a missing namespace is a 404 however wrong the object.
  if (info.namespaced) {
    await lookUpMissingNamespace(store, info, namespace);
    checkNamespace(store, info, namespace, m.name ?? '');
  }
  const requestedManagedFields = m.managedFields;
  resetServerMetadata(obj, ctx.now, info);
  const systemFields = info.strategy.systemFieldsOnCreate?.(obj);
  info.strategy.prepareForCreate(obj, ctx);
  omitEmpty(obj, info);
  warnOnDuplicateOwners(obj, ctx);
  const metaErrs = validateObjectMeta(obj, info.namespaced, nameRuleOf(info));
  const { schemaChecker } = ctx;
  const strategyErrs = info.strategy.validateAsync && schemaChecker ? await info.strategy.validateAsync(obj, { ...ctx, schemaChecker }) : info.strategy.validate(obj, ctx);
  throwIfInvalid(info, m.name ?? '', [...metaErrs, ...strategyErrs, ...(ctx.admit?.(info, obj, undefined) ?? [])]);
  addStrategyWarnings(info, ctx, obj);
  if (opts.manager) {
    // Ownership of what the request carried: the fields the strategy set are nobody's.
    const owned = systemFields?.length ? withoutPaths(obj, systemFields) : obj;
    recordManagedFields(info, undefined, owned, requestedManagedFields, opts.manager, '', ctx.now);
    // The view shares obj's metadata unless a path went through it.
    if (owned.metadata !== obj.metadata) {
      if (owned.metadata.managedFields) obj.metadata.managedFields = owned.metadata.managedFields;
      else delete obj.metadata.managedFields;
    }
  }
  // As kube-apiserver's registry Store.Create: the name of an object being deleted is still taken, and the message says why.
  const taken = (cur: KubeObject) => apierrors.alreadyExists(groupResource(info), m.name!, !!cur.metadata.deletionTimestamp);
  // A generated name that is taken is generated again (the same prefix and length, so what was
  // validated still holds), up to MaxGenerateNameAttempts names in all, then the 409 stands.
  for (let attempt = 1; ; attempt++) {
    const key = storageKey(info, namespace, m.name!);
    try {
      if (opts.dryRun) {
        const cur = store.get(key);
        if (cur) throw taken(cur.object);
        return obj;
      }
      const stored = await store.transact(
        key,
        (cur) => {
          if (cur) throw taken(cur);
          return { op: 'put', object: toStorage(obj, info) };
        },
        { writer: info },
      );
      return toVersion(stored!.object, info);
    } catch (e) {
      if (!generate || attempt >= MaxGenerateNameAttempts || !apierrors.isAlreadyExists(e)) throw e;
      m.name = generate();
    }
  }
}

/** What an update computes from the current object; thrown errors abort it. */
export type UpdateFn = (current: KubeObject | undefined) => KubeObject;

/** Options of updateObject. */
export interface UpdateOptions extends WriteOptions {
  /**
   * 'status' to update through the status subresource, '' for the main resource, 'binding' for a
   * binding (placement label and Scheduled condition in one write; the caller builds the whole
   * object from the current one, so no strategy carries fields over; `fn` gets a copy of only the
   * top level and metadata and must replace, not mutate, anything nested; the kind's validation
   * is skipped as for kube-apiserver's pods/binding, metadata rules and admission are not; nor is
   * the result decoded again: it is the stored object plus what the caller type-checked).
   */
  subresource: '' | 'status' | 'binding' | 'finalize';
  /** Allow creating the object when absent (PUT on Leases/Events, server-side apply). */
  allowCreate?: boolean;
  /**
   * Called in the transaction before an absent object is created (a PUT on a Lease or Event, a
   * server-side apply): throws when the user may not `create` it, as kube-apiserver's update and
   * patch handlers authorize a create-on-update (`withAuthorization(createAuthorizerAttributes)`),
   * so `update` alone never creates.
   */
  authorizeCreate?: () => void;
  /**
   * `fn` neither reads nor keeps the object it is given (a PUT body replaces it): it is called
   * without the current object, which then need not be copied for it.
   */
  replaces?: boolean;
}

/**
 * Updates an object: calls `fn` with the latest stored state, then applies the API's update
 * rules: resourceVersion precondition (409), immutable metadata, status/spec separation,
 * generation bump on spec change, finalizer rules, and deletion once the last finalizer is
 * removed from an object being deleted. A no-op update writes nothing.
 * @returns the object after the update, and whether it was created
 * @throws StatusError 404 when absent (and creation not allowed), 409, 422
 */
export async function updateObject(
  store: Store,
  info: ResourceInfo,
  namespace: string,
  name: string,
  fn: UpdateFn,
  ctx: StrategyContext,
  opts: UpdateOptions,
): Promise<{ object: KubeObject; created: boolean }> {
  const key = storageKey(info, namespace, name);
  // A create through an update (apply, PUT) checks its namespace as createObject does.
  if ((opts.allowCreate || info.strategy.allowCreateOnUpdate) && !store.get(key)) await lookUpMissingNamespace(store, info, namespace);
  let created = false;
  let deletedAt: number | undefined;
  let result: KubeObject | undefined;
  const stored = await store.transact(key, (curStored) => {
    const cur = curStored ? toVersion(curStored, info) : undefined;
    // A binding replaces the label map and status it changes and mutates nothing nested: a copy of
    // the top level and metadata is enough (the stored object stays untouched).
    let obj = fn(!cur || opts.replaces ? undefined : opts.subresource === 'binding' ? { ...cur, metadata: { ...cur.metadata } } : deepCopyJSON(cur));
    checkTypeMeta(obj, info);
    if (opts.subresource !== 'binding') decodeBuiltin(obj, info, ctx, cur);
    const m = obj.metadata;
    const requestedManagedFields = m.managedFields;
    // As kube-apiserver's checkName: a PUT body, or a patched object, without a name is refused
    // (a strategic patch with a top-level `$patch: replace` would otherwise wipe the object).
    if (m.name === undefined || m.name === '') throw apierrors.badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
    if (m.name !== name) throw apierrors.badRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
    if (info.namespaced) {
      if (m.namespace && m.namespace !== namespace) {
        throw apierrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      m.namespace = namespace;
    } else {
      delete m.namespace; // cleared, as on create (rest.BeforeUpdate)
    }
    if (!cur) {
      if (!opts.allowCreate && !info.strategy.allowCreateOnUpdate) throw apierrors.notFound(groupResource(info), name);
      if (opts.subresource) throw apierrors.notFound(groupResource(info), name);
      opts.authorizeCreate?.();
      delete m.resourceVersion;
      if (info.namespaced) checkNamespace(store, info, namespace, name);
      resetServerMetadata(obj, ctx.now, info);
      info.strategy.prepareForCreate(obj, ctx);
      omitEmpty(obj, info);
      warnOnDuplicateOwners(obj, ctx);
      throwIfInvalid(info, name, [...validateObjectMeta(obj, info.namespaced, nameRuleOf(info)), ...info.strategy.validate(obj, ctx), ...(ctx.admit?.(info, obj, undefined) ?? [])]);
      addStrategyWarnings(info, ctx, obj);
      if (opts.manager) recordManagedFields(info, undefined, obj, requestedManagedFields, opts.manager, opts.subresource, ctx.now);
      created = true;
      result = obj;
      return opts.dryRun ? { op: 'none' } : { op: 'put', object: toStorage(obj, info) };
    }
    // Preconditions.
    if (m.resourceVersion) {
      if (m.resourceVersion !== cur.metadata.resourceVersion) {
        throw apierrors.conflict(groupResource(info), name, apierrors.OptimisticLockErrorMsg);
      }
    } else if (!info.strategy.allowUnconditionalUpdate) {
      // Named by the resource, not the kind, as genericregistry.Store.Update builds this error
      // (`GroupKind{Group, Kind: qualifiedResource.Resource}`): `hostedclusters.hypershift.openshift.io "x" is invalid`.
      throw apierrors.invalid({ group: info.group, kind: info.resource }, name, [field.invalid('metadata.resourceVersion', 0n, 'must be specified for an update')]);
    }
    if (m.uid && m.uid !== cur.metadata.uid) {
      // A PUT body's uid is a precondition (409); a patch that changes it changes an immutable
      // field (422), as kube-apiserver's patcher sets no preconditions.
      if (!opts.replaces) throw apierrors.invalid(groupKind(info), name, [field.invalid('metadata.uid', m.uid, 'field is immutable')]);
      throw apierrors.conflict(groupResource(info), name, `Precondition failed: UID in precondition: ${m.uid}, UID in object meta: ${cur.metadata.uid}`);
    }
    // Immutable and server-managed metadata.
    m.uid = cur.metadata.uid;
    m.creationTimestamp = cur.metadata.creationTimestamp;
    // Never stored, as kube-apiserver clears it before every write (APIObjectVersioner.PrepareObjectForStorage):
    // a manifest exported from a cluster before 1.20 carries one.
    delete m.selfLink;
    if (cur.metadata.generation === undefined) delete m.generation;
    else m.generation = cur.metadata.generation;
    if (cur.metadata.deletionTimestamp) {
      m.deletionTimestamp = cur.metadata.deletionTimestamp;
      m.deletionGracePeriodSeconds = cur.metadata.deletionGracePeriodSeconds;
    } else {
      delete m.deletionTimestamp;
      delete m.deletionGracePeriodSeconds;
    }
    m.resourceVersion = cur.metadata.resourceVersion;
    if (opts.subresource === 'status') {
      if (!info.strategy.prepareForStatusUpdate) throw apierrors.notFound(groupResource(info), name);
      obj = info.strategy.prepareForStatusUpdate(obj, cur, ctx);
    } else if (opts.subresource === 'binding') {
      // built by handlers/binding.ts from the current object: nothing to carry over
    } else if (opts.subresource === 'finalize') {
      if (!info.strategy.prepareForFinalize) throw apierrors.notFound(groupResource(info), name);
      obj = info.strategy.prepareForFinalize(obj, cur);
    } else {
      info.strategy.prepareForUpdate(obj, cur, ctx, !!opts.replaces);
    }
    omitEmpty(obj, info);
    warnOnDuplicateOwners(obj, ctx);
    // A binding is the server's own change of a label and a condition: like kube-apiserver's
    // pods/binding (BindingREST, a storage GuaranteedUpdate), it skips the kind's validation;
    // metadata rules and admission (who may bind, to what) still apply.
    const strategyErrs =
      opts.subresource === 'binding'
        ? []
        : opts.subresource === 'finalize'
          ? (info.strategy.validateFinalize?.(obj) ?? [])
          : opts.subresource === 'status' && info.strategy.validateStatusUpdate
            ? info.strategy.validateStatusUpdate(obj, cur, ctx)
            : info.strategy.validateUpdate(obj, cur, ctx);
    const errs = [...validateObjectMeta(obj, info.namespaced, nameRuleOf(info)), ...strategyErrs, ...(ctx.admit?.(info, obj, cur) ?? [])];
    if (cur.metadata.deletionTimestamp) {
      const before = new Set(cur.metadata.finalizers ?? []);
      const added = (obj.metadata.finalizers ?? []).filter((f) => !before.has(f));
      if (added.length) errs.push(field.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`));
    }
    throwIfInvalid(info, name, errs);
    if (opts.subresource === '') addStrategyWarnings(info, ctx, obj, cur);
    // A status update keeps the old spec (prepareForStatusUpdate) and a binding changes only a
    // label and status: neither bumps the generation.
    if (opts.subresource === '' && cur.metadata.generation !== undefined && info.strategy.bumpsGeneration(obj, cur)) obj.metadata.generation = (cur.metadata.generation ?? 0) + 1;
    if (opts.manager && opts.subresource !== 'binding') recordManagedFields(info, cur, obj, requestedManagedFields, opts.manager, opts.subresource, ctx.now);
    // Removing the last finalizer of an object being deleted deletes it; a Namespace's spec
    // finalizers count too (ShouldDeleteNamespaceDuringUpdate): relabelling a Terminating
    // Namespace must not delete it before it is empty.
    if (cur.metadata.deletionTimestamp && !(obj.metadata.finalizers?.length) && !(info.strategy.specFinalizers?.(obj).length)) {
      result = obj;
      return opts.dryRun ? { op: 'none' } : { op: 'delete' };
    }
    if (isDeepStrictEqual(obj, cur)) {
      result = cur;
      return { op: 'none' };
    }
    result = obj;
    return opts.dryRun ? { op: 'none' } : { op: 'put', object: toStorage(obj, info) };
  }, { writer: info, onDeleted: (revision) => (deletedAt = revision) });
  if (stored && !opts.dryRun) return { object: toVersion(stored.object, info), created };
  return { object: atDeletion(result!, deletedAt), created };
}

/** Adds the kind's warnings about a valid create (or main-resource update from `old`) to the answer's. */
function addStrategyWarnings(info: ResourceInfo, ctx: StrategyContext, obj: KubeObject, old?: KubeObject): void {
  for (const w of info.strategy.warnings?.(obj, old) ?? []) ctx.warnings.push(w);
}

/**
 * The object a write that deleted it answers with: at the delete's revision (`deletedAt`), the
 * resourceVersion of its DELETED watch event, as kube-apiserver's etcd3 store decodes a deleted
 * object with the delete's revision; unchanged when nothing was deleted.
 */
function atDeletion(obj: KubeObject, deletedAt: number | undefined): KubeObject {
  return deletedAt === undefined ? obj : { ...obj, metadata: { ...obj.metadata, resourceVersion: String(deletedAt) } };
}

/** metav1.DeleteOptions fields hcc honours. */
export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** `Orphan`, `Background` (the default) or `Foreground`. */
  propagationPolicy?: string;
  /** The deprecated form of `propagationPolicy: Orphan` (true) or `Background` (false). */
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
}

/** The finalizer that makes the garbage collector orphan an object's dependents before it goes. */
export const FinalizerOrphanDependents = 'orphan';
/** The finalizer that makes the garbage collector delete an object's dependents before it goes. */
export const FinalizerDeleteDependents = 'foregroundDeletion';

/**
 * The finalizers a delete leaves on an object for the garbage collector, as kube-apiserver's
 * deletionFinalizersForGarbageCollection computes them: `orphan` for `propagationPolicy: Orphan`
 * (or `orphanDependents: true`), `foregroundDeletion` for `Foreground`, neither for `Background`;
 * without options, a GC finalizer the object already carries decides. Other finalizers are kept.
 * @returns whether the set changes, and the new list
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go
 * @see https://kubernetes.io/docs/concepts/architecture/garbage-collection/#cascading-deletion
 */
export function deletionFinalizers(current: readonly string[] | undefined, opts: Pick<DeleteOptions, 'propagationPolicy' | 'orphanDependents'>): { changed: boolean; finalizers: string[] } {
  const cur = current ?? [];
  let policy: 'Orphan' | 'Foreground' | 'Background';
  if (opts.orphanDependents !== undefined) policy = opts.orphanDependents ? 'Orphan' : 'Background';
  else if (opts.propagationPolicy === 'Orphan' || opts.propagationPolicy === 'Foreground' || opts.propagationPolicy === 'Background') policy = opts.propagationPolicy;
  else if (cur.includes(FinalizerOrphanDependents)) policy = 'Orphan';
  else if (cur.includes(FinalizerDeleteDependents)) policy = 'Foreground';
  else policy = 'Background';
  const finalizers = cur.filter((f) => f !== FinalizerOrphanDependents && f !== FinalizerDeleteDependents);
  if (policy === 'Orphan') finalizers.push(FinalizerOrphanDependents);
  if (policy === 'Foreground') finalizers.push(FinalizerDeleteDependents);
  const changed = finalizers.length !== new Set(cur).size || finalizers.some((f) => !cur.includes(f));
  return { changed, finalizers: changed ? finalizers : [...cur] };
}

/**
 * kube-apiserver's answer to deleting a Namespace whose deletion is already under way
 * (pkg/registry/core/namespace/storage/storage.go, REST.Delete), in a 409 Conflict.
 */
export const NamespaceTerminatingConflict = 'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.';

/**
 * Deletes an object. With finalizers it only sets `deletionTimestamp` (and bumps generation);
 * the object goes away when the last finalizer is removed. Namespaces always pass through
 * `Terminating` so their contents are deleted first. `propagationPolicy: Orphan` or `Foreground`
 * adds the garbage collector's `orphan` or `foregroundDeletion` finalizer (see
 * {@link deletionFinalizers}); a second delete of an object already being deleted may switch it.
 * @returns the object as it is after the call and whether it is gone already
 * @throws StatusError 404, 409 on failed preconditions
 */
export async function deleteObject(
  store: Store,
  info: ResourceInfo,
  namespace: string,
  name: string,
  ctx: StrategyContext,
  opts: DeleteOptions,
): Promise<{ object: KubeObject; deleted: boolean }> {
  const key = storageKey(info, namespace, name);
  let deleted = false;
  let deletedAt: number | undefined;
  let result: KubeObject | undefined;
  if (opts.propagationPolicy && !['Orphan', 'Background', 'Foreground'].includes(opts.propagationPolicy)) {
    throw apierrors.invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
      // ValidateDeleteOptions' list, "nil" (no policy) included.
      field.notSupported('propagationPolicy', opts.propagationPolicy, ['Foreground', 'Background', 'Orphan', 'nil']),
    ]);
  }
  if (opts.propagationPolicy && opts.orphanDependents !== undefined) {
    throw apierrors.invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
      field.invalid('propagationPolicy', opts.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'),
    ]);
  }
  if (info.group === '' && info.resource === namespaces.resource && (immortalNamespaces.has(name) || ctx.immortalNamespaces?.has(name))) {
    // NamespaceLifecycle admission: these are where the cluster's own objects live.
    throw apierrors.forbidden(groupResource(info), name, 'this namespace may not be deleted');
  }
  const stored = await store.transact(key, (curStored) => {
    if (!curStored) throw apierrors.notFound(groupResource(info), name);
    const cur = toVersion(curStored, info);
    // Validating admission sees deletes too (a syncer deletes only what is placed on its cluster).
    throwIfInvalid(info, name, ctx.admit?.(info, cur, cur, 'DELETE') ?? []);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== cur.metadata.uid) {
      throw apierrors.conflict(groupResource(info), name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${cur.metadata.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== cur.metadata.resourceVersion) {
      throw apierrors.conflict(
        groupResource(info),
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cur.metadata.resourceVersion}`,
      );
    }
    const isNamespace = info.resource === namespaces.resource && info.group === '';
    const nsFinalizers = isNamespace ? ((cur.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []) : [];
    // A Namespace already being emptied (namespace REST Delete): a second delete is a 409 until
    // its spec.finalizers are done, as `kubectl delete ns` twice shows.
    if (isNamespace && cur.metadata.deletionTimestamp && nsFinalizers.length > 0) {
      throw apierrors.conflict(groupResource(info), name, NamespaceTerminatingConflict);
    }
    // Namespaces delete their contents whatever the policy; everything else gets the GC's finalizers.
    let gc = isNamespace ? { changed: false, finalizers: cur.metadata.finalizers ?? [] } : deletionFinalizers(cur.metadata.finalizers, opts);
    if (info.strategy.finalizersOnDelete) {
      const kept = info.strategy.finalizersOnDelete(cur, gc.finalizers, store);
      if (kept.length !== gc.finalizers.length || kept.some((f, i) => f !== gc.finalizers[i])) gc = { changed: true, finalizers: kept };
    }
    if (gc.finalizers.length > 0 || nsFinalizers.length > 0) {
      if (cur.metadata.deletionTimestamp) {
        if (!gc.changed) {
          result = cur;
          return { op: 'none' };
        }
        const obj = deepCopyJSON(cur);
        obj.metadata.finalizers = gc.finalizers;
        result = obj;
        return opts.dryRun ? { op: 'none' } : { op: 'put', object: toStorage(obj, info) };
      }
      const obj = deepCopyJSON(cur);
      if (gc.changed) obj.metadata.finalizers = gc.finalizers;
      obj.metadata.deletionTimestamp = rfc3339(ctx.now);
      obj.metadata.deletionGracePeriodSeconds = 0;
      if (obj.metadata.generation) obj.metadata.generation += 1;
      if (isNamespace) obj.status = { ...(obj.status as object), phase: 'Terminating' };
      result = obj;
      return opts.dryRun ? { op: 'none' } : { op: 'put', object: toStorage(obj, info) };
    }
    deleted = true;
    result = cur;
    return opts.dryRun ? { op: 'none' } : { op: 'delete' };
  }, { writer: info, onDeleted: (revision) => (deletedAt = revision) });
  if (stored && !deleted && !opts.dryRun) return { object: toVersion(stored.object, info), deleted };
  return { object: atDeletion(result!, deletedAt), deleted };
}

/** Lists the stored objects of a resource in a namespace ('' for all). */
export function listStored(store: Store, info: ResourceInfo, namespace: string): { items: StoredObject[]; revision: number } {
  return store.list(info.namespaced && namespace ? storagePrefix(info, namespace) : storagePrefix(info));
}
