/**
 * HTTP-level create, update, patch and delete: query parameters and bodies in, `{ code, body }`
 * out. The semantics live in object-ops.ts.
 */
import { decodeBuiltin } from '../registry/builtin/decode.js';
import { isJSONObject, rfc3339, type KubeObject } from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';
import * as field from '../apierrors/field.js';
import { apiVersionOf, checkTypeMeta, createObject, deleteObject, updateObject } from './object-ops.js';
import type { RequestScope } from './scope.js';
import { storageKey, strictErrorsOf, type ResourceInfo } from '../registry/types.js';
import { decodeObjectBody, decodePatchBody, patchTypeOf } from '../pipeline/decode.js';
import { queryBool } from '../pipeline/request-info.js';
import { parseInt64Query } from '../pipeline/list-options.js';
import { applyPatch } from './patch/apply-patch.js';
import { goFmt } from './patch/strategic-merge.js';
import { applyConfiguration, checkApplyObjectType } from './apply/apply.js';
import { applyScale } from './apply/scale-apply.js';
import { prune } from '../registry/schema/prune.js';
import { reportUnknownFields } from '../registry/schema/index.js';
import type { JSONSchemaProps } from '../registry/schema/types.js';
import { managerOrUserAgent, validateFieldManager } from './apply/field-manager.js';
import { fromScale, reportScaleUnknownFields, toScale } from './scale.js';

/** The result of a write: HTTP status code and body. */
export interface WriteResult {
  code: number;
  body: unknown;
}

/** The options kind a write's query parameters decode into, named in their `422`s (`meta.k8s.io`). */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

const optionsKinds: Readonly<Record<string, OptionsKind>> = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions', delete: 'DeleteOptions', deletecollection: 'DeleteOptions' };

/** The options kind of a request verb (`create` → `CreateOptions`), or undefined for reads. */
export const optionsKindOf = (verb: string): OptionsKind | undefined => optionsKinds[verb];

/**
 * Parses `dryRun` (`All` is the only value Kubernetes defines), from the query and, for a DELETE,
 * from its DeleteOptions body.
 * @throws StatusError 422 `<kind>.meta.k8s.io "" is invalid: dryRun: Unsupported value`, as
 *   kube-apiserver's ValidateCreateOptions/ValidateDeleteOptions/... answer
 */
export function isDryRun(query: Record<string, unknown>, optionsKind: OptionsKind, bodyDryRun?: unknown): boolean {
  const v = query.dryRun;
  const vals = [...(v === undefined || v === '' ? [] : Array.isArray(v) ? v : [v]), ...(Array.isArray(bodyDryRun) ? bodyDryRun : [])];
  const bad = vals.filter((x) => x !== 'All').map((x) => field.notSupported('dryRun', x, ['All']));
  if (bad.length) throw apierrors.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', bad);
  return vals.length > 0;
}

/** The request's User-Agent, when the server put it on the scope (`userAgent`). */
const userAgentOf = (scope: RequestScope): string => scope.userAgent ?? '';

/** One query parameter as a string ('' when absent). */
const param = (query: Record<string, unknown>, name: string): string => {
  const v = query[name];
  return v === undefined ? '' : String(Array.isArray(v) ? v[0] : v);
};

/**
 * The `fieldManager` parameter, validated (at most 128 printable characters).
 * @throws StatusError 422 naming `fieldManager`, for kind CreateOptions/UpdateOptions/PatchOptions
 */
function fieldManagerParam(query: Record<string, unknown>, optionsKind: string): string {
  const fm = param(query, 'fieldManager');
  const errs = validateFieldManager(fm);
  if (errs.length) throw apierrors.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
  return fm;
}

/**
 * A `*bool` query parameter (`force`, `orphanDependents`) as apimachinery decodes one: undefined
 * when absent; `0` or `false` in any case is false; anything else, the empty string included, is true.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/runtime/conversion.go (Convert_Slice_string_To_Pointer_bool)
 */
function boolParam(query: Record<string, unknown>, name: string): boolean | undefined {
  return query[name] === undefined ? undefined : queryBool(query[name]);
}

/**
 * Duplicate keys of an apply configuration, as kube-apiserver's applyPatcher reports them
 * (yaml.UnmarshalStrict of the patch): `Strict` → 400 `error strict decoding YAML: error
 * converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map`; `Warn`
 * → one warning per line (`line 7: key "a" already set in map`).
 * @param found - the YAML decoder's messages (`yaml: unmarshal errors:\n  line ...`)
 * @throws StatusError 400 under Strict
 */
function reportApplyDuplicates(found: readonly string[], ctx: RequestScope['ctx']): void {
  if (ctx.fieldValidation === 'Strict') throw apierrors.badRequest(`error strict decoding YAML: error converting YAML to JSON: ${found.join('\n')}`);
  for (const msg of found) for (const l of msg.split('\n').slice(1)) ctx.warnings.push(l.trim());
}

function checkSubresource(scope: RequestScope): '' | 'status' | 'scale' | 'finalize' {
  const sub = scope.ri.subresource;
  if (sub === '') return '';
  if (sub === 'status' && scope.info.subresources.status) return 'status';
  if (sub === 'scale' && scope.info.subresources.scale) return 'scale';
  if (sub === 'finalize' && scope.info.subresources.finalize) return 'finalize';
  // A subresource the kind does not serve is not there at all, as for a GET (kube-apiserver's 404
  // "the server could not find the requested resource"), rather than an object that was not found.
  throw apierrors.noResource();
}

/** POST a new object. */
export async function handleCreate(scope: RequestScope, contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): Promise<WriteResult> {
  if (scope.ri.name) {
    // A subresource the kind does not serve has no route at all (404, as for GET and PUT); an
    // object or a subresource it serves takes no POST (405). A Namespace too: POST
    // /api/v1/namespaces/NAME has no route in kube-apiserver, and here it would have created a
    // Namespace authorized as a write *in* NAME (a RoleBinding there was enough).
    const sub = scope.ri.subresource ? checkSubresource(scope) : '';
    throw apierrors.methodNotAllowed('POST', { group: scope.info.group, resource: sub ? `${scope.info.resource}/${sub}` : scope.info.resource });
  }
  // A built-in namespaced kind takes no POST across namespaces (/api/v1/configmaps: kube-apiserver
  // registers only list and watch there), as no DELETE (handleDeleteCollection).
  if (scope.info.namespaced && !scope.ri.namespace && !scope.info.custom) throw apierrors.methodNotAllowed('POST', { group: scope.info.group, resource: scope.info.resource });
  const manager = managerOrUserAgent(fieldManagerParam(query, 'CreateOptions'), userAgentOf(scope));
  const obj = checkTypeMeta(requireKindOfCustomResource(decodeObjectBody(contentType, body, { protobuf: !scope.info.custom, strict: strictErrorsOf(scope.ctx) }), scope), scope.info);
  const created = await createObject(scope.store, scope.info, scope.ri.namespace, obj, scope.ctx, { dryRun: isDryRun(query, 'CreateOptions'), manager: { name: manager, operation: 'Update' } });
  return { code: 201, body: created };
}

/**
 * A custom resource's body must name its kind, as apiextensions-apiserver's unstructured decoder
 * requires (`Object 'Kind' is missing in '...'`); a built-in kind's takes it from the URL.
 * @throws StatusError 400 BadRequest for an object body of a custom resource without `kind`
 */
function requireKindOfCustomResource(body: unknown, scope: RequestScope): unknown {
  if (scope.info.custom && isJSONObject(body) && (body.kind === undefined || body.kind === null || body.kind === '')) {
    const text = JSON.stringify(body);
    throw apierrors.badRequest(`Object 'Kind' is missing in '${text.length > 1024 ? `${text.slice(0, 1024)}...` : text}'`);
  }
  return body;
}

/** PUT a whole object (main resource or status). */
export async function handleUpdate(scope: RequestScope, contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): Promise<WriteResult> {
  const subresource = checkSubresource(scope);
  const manager = managerOrUserAgent(fieldManagerParam(query, 'UpdateOptions'), userAgentOf(scope));
  if (subresource === 'scale') {
    const scale = decodeObjectBody(contentType, body) as KubeObject;
    reportScaleUnknownFields(scale, scope.ctx);
    const res = await updateObject(scope.store, scope.info, scope.ri.namespace, scope.ri.name, (cur) => {
      if (!cur) throw apierrors.notFound({ group: scope.info.group, resource: scope.info.resource }, scope.ri.name);
      return fromScale(scope.info, cur, scale);
    }, scope.ctx, { dryRun: isDryRun(query, 'UpdateOptions'), subresource: '', manager: { name: manager, operation: 'Update', subresource: 'scale' } });
    return { code: 200, body: toScale(scope.info, res.object) };
  }
  const obj = checkTypeMeta(requireKindOfCustomResource(decodeObjectBody(contentType, body, { protobuf: !scope.info.custom, strict: strictErrorsOf(scope.ctx) }), scope), scope.info);
  const res = await updateObject(scope.store, scope.info, scope.ri.namespace, scope.ri.name, () => obj, scope.ctx, {
    dryRun: isDryRun(query, 'UpdateOptions'),
    subresource,
    manager: { name: manager, operation: 'Update' },
    replaces: true,
    ...(scope.authorizeCreate && { authorizeCreate: scope.authorizeCreate }),
  });
  return { code: res.created ? 201 : 200, body: res.object };
}

/**
 * PATCH an object (main resource, status or scale) with any patch type. Server-side apply
 * (`apply-patch+yaml`) goes through handlers/apply (of a Scale: apply/scale-apply.ts).
 */
export async function handlePatch(scope: RequestScope, contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): Promise<WriteResult> {
  const subresource = checkSubresource(scope);
  // kube-apiserver serves /finalize for PUT only (FinalizeREST is an Updater, not a Patcher).
  if (subresource === 'finalize') throw apierrors.methodNotAllowed('PATCH', { group: scope.info.group, resource: `${scope.info.resource}/finalize` });
  const type = patchTypeOf(contentType, scope.info.custom);
  // An apply configuration's duplicate keys are reported in the apply patcher's own words.
  const applyDuplicates = type === 'apply' && scope.ctx.fieldValidation !== 'Ignore' ? [] : undefined;
  const patch = decodePatchBody(type, body, type === 'apply' ? applyDuplicates : strictErrorsOf(scope.ctx));
  if (applyDuplicates?.length) reportApplyDuplicates(applyDuplicates, scope.ctx);
  const fieldManager = fieldManagerParam(query, 'PatchOptions');
  const force = boolParam(query, 'force');
  if (type === 'apply' && !fieldManager) {
    throw apierrors.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [field.required('fieldManager', 'is required for apply patch')]);
  }
  if (type !== 'apply' && force !== undefined) {
    throw apierrors.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [field.forbidden('force', 'may not be specified for non-apply patch')]);
  }
  const dryRun = isDryRun(query, 'PatchOptions');
  // The object on the URL, updated by `fn` (each branch below says how).
  const update = (fn: Parameters<typeof updateObject>[4], opts: Parameters<typeof updateObject>[6]) => updateObject(scope.store, scope.info, scope.ri.namespace, scope.ri.name, fn, scope.ctx, opts);
  if (type === 'apply' && subresource === 'scale') {
    // As kube-apiserver's ScaleHandler: a real apply of the Scale (conflicts, Apply ownership).
    if (!isJSONObject(patch)) throw apierrors.badRequest('error decoding patch: the apply configuration must be an object');
    checkApplyObjectType(patch, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    reportScaleUnknownFields(patch, scope.ctx);
    const res = await update(
      (current) => {
        if (!current) throw apierrors.notFound({ group: scope.info.group, resource: scope.info.resource }, scope.ri.name);
        return applyScale({ info: scope.info, live: current, config: patch, manager: fieldManager, force: force ?? false, apiVersion: apiVersionOf(scope.info.group, scope.info.version), now: rfc3339(scope.ctx.now) });
      },
      { dryRun, subresource: '', manager: { name: fieldManager, operation: 'Apply', subresource: 'scale' } },
    );
    return { code: 200, body: toScale(scope.info, res.object) };
  }
  if (type === 'apply' && subresource !== 'scale') {
    // A built-in kind's apply configuration is decoded first, so a field the kind does not have
    // is reported (fieldValidation) and never owned in managedFields.
    if (isJSONObject(patch)) decodeBuiltin(patch as KubeObject, scope.info, scope.ctx, undefined, { keepNulls: true });
    // A custom resource's apply configuration loses the fields its schema does not declare first
    // (reported per fieldValidation, as the object's pruning would report them), so that its
    // managedFields never claim a field the object cannot have (kube-apiserver's typed patch
    // refuses such a configuration outright, `field not declared in schema`, as a 500 today:
    // kubernetes/kubernetes#139253).
    let config: unknown = patch;
    if (scope.info.custom && scope.info.schema && isJSONObject(patch)) {
      config = structuredClone(patch);
      const unknownFields = prune(config, scope.info.schema as JSONSchemaProps, true);
      reportUnknownFields(scope.ctx.fieldValidation === 'Ignore' ? [] : unknownFields, scope.info.kind, scope.info.version, scope.ctx);
    }
    const res = await update(
      (current) =>
        applyConfiguration({
          info: scope.info,
          live: current,
          config,
          namespace: scope.ri.namespace,
          name: scope.ri.name,
          manager: fieldManager,
          force: force ?? false,
          subresource,
          now: rfc3339(scope.ctx.now),
        }),
      { dryRun, subresource, allowCreate: subresource === '', ...(scope.authorizeCreate && { authorizeCreate: scope.authorizeCreate }), manager: { name: fieldManager, operation: 'Apply' } },
    );
    return { code: res.created ? 201 : 200, body: res.object };
  }
  // As apiextensions-apiserver's serveScale: a custom resource's /scale takes JSON, merge and
  // apply patches, not a strategic merge patch (its main resource and /status neither).
  if (subresource === 'scale' && type === 'strategic' && scope.info.custom) {
    throw apierrors.unsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  }
  const manager = { name: managerOrUserAgent(fieldManager, userAgentOf(scope)), operation: 'Update' as const };
  let patchedFrom: KubeObject | undefined;
  const res = await update(
    (current) => {
      if (!current) throw apierrors.notFound({ group: scope.info.group, resource: scope.info.resource }, scope.ri.name);
      patchedFrom = current;
      if (subresource === 'scale') {
        const scale = toScale(scope.info, current);
        const patchedScale = applyPatch(type === 'strategic' ? 'merge' : type, { ...scope.info, custom: false }, scale, patch);
        reportScaleUnknownFields(patchedScale, scope.ctx);
        return fromScale(scope.info, current, patchedScale);
      }
      // The patched object keeps the current resourceVersion unless the patch (of any type: a
      // JSON patch too) sets or removes it; updateObject then checks it as kube-apiserver's
      // GuaranteedUpdate does: another version is a 409 Conflict, none is an unconditional
      // update where the kind allows one.
      return applyPatch(type, scope.info, current, patch);
    },
    { dryRun, subresource: subresource === 'scale' ? '' : subresource, manager: subresource === 'scale' ? { ...manager, subresource: 'scale' } : manager },
  ).catch((err: unknown) => {
    // A patched object its kind cannot hold is the patch's fault: 422 on the field `patch`, as
    // kube-apiserver's patchers answer it (a PUT or POST of the same object is a 400).
    // A /scale patch's value is the patched Scale, as the patcher there decodes a Scale.
    if (!(err instanceof apierrors.UndecodableError) || !patchedFrom) throw err;
    if (type === 'strategic') throw apierrors.patchNotDecodable(goFmt(patch), err.detail);
    const patched =
      subresource === 'scale' ? applyPatch(type, { ...scope.info, custom: false }, toScale(scope.info, patchedFrom), patch) : applyPatch(type, scope.info, patchedFrom, patch);
    throw apierrors.patchNotDecodable(JSON.stringify(patched), err.detail);
  });
  if (subresource === 'scale') return { code: 200, body: toScale(scope.info, res.object) };
  return { code: res.created ? 201 : 200, body: res.object };
}

/** The metav1.DeleteOptions fields hcc reads. */
export interface DeleteOptionsBody {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  orphanDependents?: boolean;
  dryRun?: string[];
  gracePeriodSeconds?: number;
  /** KEP-3926: delete an object whose stored value cannot be read, skipping finalizers and preconditions. */
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

/** The JSON type of a value as Go's encoding/json names it in an UnmarshalTypeError. */
const goJSONType = (v: unknown): string =>
  Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? `number ${JSON.stringify(v)}` : typeof v;

/**
 * A DELETE's body checked as kube-apiserver decodes it into a DeleteOptions: a JSON object whose
 * kind (if any) is DeleteOptions, each known field of its Go type (null allowed), in Go's words.
 * A body that decodes wrong must never delete: before this, `"dryRun":"All"` (a string) deleted
 * for real.
 * @throws StatusError 400
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (DeleteOptions)
 */
function checkDeleteOptionsBody(decoded: unknown): DeleteOptionsBody {
  const typeError = (fieldName: string, v: unknown, goType: string) =>
    apierrors.badRequest(`json: cannot unmarshal ${goJSONType(v)} into Go struct field DeleteOptions.${fieldName} of type ${goType}`);
  if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded)) {
    throw apierrors.badRequest(`json: cannot unmarshal ${goJSONType(decoded)} into Go value of type v1.DeleteOptions`);
  }
  const o = decoded as Record<string, unknown>;
  if (o.kind !== undefined && o.kind !== '' && o.kind !== 'DeleteOptions') {
    throw apierrors.badRequest(`the body of a DELETE must be a DeleteOptions, got kind ${JSON.stringify(o.kind)}`);
  }
  const dryRun = o.dryRun;
  if (dryRun !== undefined && dryRun !== null) {
    if (!Array.isArray(dryRun)) throw typeError('dryRun', dryRun, '[]string');
    const bad = dryRun.find((x) => typeof x !== 'string');
    if (bad !== undefined) throw typeError('dryRun', bad, 'string');
  }
  const grace = o.gracePeriodSeconds;
  if (grace !== undefined && grace !== null && !(typeof grace === 'number' && Number.isSafeInteger(grace))) throw typeError('gracePeriodSeconds', grace, 'int64');
  const pre = o.preconditions;
  if (pre !== undefined && pre !== null) {
    if (typeof pre !== 'object' || Array.isArray(pre)) throw typeError('preconditions', pre, 'v1.Preconditions');
    for (const k of ['uid', 'resourceVersion'] as const) {
      const v = (pre as Record<string, unknown>)[k];
      if (v !== undefined && v !== null && typeof v !== 'string') throw apierrors.badRequest(`json: cannot unmarshal ${goJSONType(v)} into Go struct field Preconditions.preconditions.${k} of type string`);
    }
  }
  return o as DeleteOptionsBody;
}

/**
 * DeleteOptions of a DELETE: the body (a DeleteOptions object, as kubectl sends it) or else the
 * query parameters `propagationPolicy` and `orphanDependents`.
 * @throws StatusError 400 on a malformed body, a non-boolean orphanDependents in it, or a
 *   `gracePeriodSeconds` parameter that is no int64
 */
export function deleteOptionsOf(contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): DeleteOptionsBody {
  let opts: DeleteOptionsBody = {};
  if (body && body.length) opts = { ...checkDeleteOptionsBody(decodeObjectBody(contentType, body)) };
  if (opts.propagationPolicy === undefined && query.propagationPolicy !== undefined) opts.propagationPolicy = param(query, 'propagationPolicy');
  // hcc deletes at once whatever the grace period, but a value that is no int64 is refused as
  // kube-apiserver's parameter decoding refuses it.
  if (!(body && body.length)) {
    const grace = parseInt64Query('gracePeriodSeconds', query.gracePeriodSeconds);
    if (grace !== undefined) opts.gracePeriodSeconds = grace;
  }
  for (const k of ['orphanDependents', 'ignoreStoreReadErrorWithClusterBreakingPotential'] as const) {
    if (opts[k] === undefined) {
      const o = boolParam(query, k);
      if (o !== undefined) opts[k] = o;
    }
    if (opts[k] !== undefined && opts[k] !== null && typeof opts[k] !== 'boolean') throw apierrors.badRequest(`${k}: must be a boolean, got ${JSON.stringify(opts[k])}`);
  }
  if (opts.propagationPolicy !== undefined && typeof opts.propagationPolicy !== 'string') {
    throw apierrors.badRequest(`propagationPolicy: must be a string, got ${JSON.stringify(opts.propagationPolicy)}`);
  }
  return opts;
}

/** The verb a user needs besides `delete` to set `ignoreStoreReadErrorWithClusterBreakingPotential` (KEP-3926). */
export const UnsafeDeleteVerb = 'unsafe-delete-ignore-read-errors';

/**
 * The unsafe deletion of KEP-3926 (`ignoreStoreReadErrorWithClusterBreakingPotential: true`):
 * checked as kube-apiserver checks it (the option goes with no dryRun, propagationPolicy,
 * orphanDependents, preconditions or non-zero gracePeriodSeconds: 422; the user needs the
 * `unsafe-delete-ignore-read-errors` verb on the resource: 403), then, when the stored value
 * cannot be read, removed from storage without finalizers or admission.
 * @returns the answer when the value was corrupt and is gone; undefined when it can be read, so
 *   the normal deletion runs (the option only acts "in case the normal deletion flow fails with a
 *   corrupt object error")
 * @see https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/delete-options/
 */
async function unsafeDelete(scope: RequestScope, opts: DeleteOptionsBody, query: Record<string, unknown>): Promise<WriteResult | undefined> {
  const clash = (path: string, value: unknown) => field.invalid(path, value, 'can not be set together with "ignoreStoreReadErrorWithClusterBreakingPotential"');
  const queryDryRun = query.dryRun === undefined ? [] : ([] as unknown[]).concat(query.dryRun);
  const errs = [
    ...(opts.dryRun?.length || queryDryRun.length ? [clash('dryRun', [...(opts.dryRun ?? []), ...queryDryRun].join(','))] : []),
    ...(opts.propagationPolicy !== undefined ? [clash('propagationPolicy', opts.propagationPolicy)] : []),
    ...(opts.orphanDependents !== undefined && opts.orphanDependents !== null ? [clash('orphanDependents', opts.orphanDependents)] : []),
    ...(opts.gracePeriodSeconds !== undefined && opts.gracePeriodSeconds !== null && opts.gracePeriodSeconds !== 0
      ? [field.invalid('gracePeriodSeconds', opts.gracePeriodSeconds, 'can only be set to 0 when "ignoreStoreReadErrorWithClusterBreakingPotential" is set')]
      : []),
    ...(opts.preconditions ? [clash('preconditions', opts.preconditions)] : []),
  ];
  if (errs.length) throw apierrors.invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
  const denied = scope.authorizeVerb?.(UnsafeDeleteVerb);
  if (denied !== undefined) {
    throw apierrors.forbidden({ group: scope.info.group, resource: scope.info.resource }, scope.ri.name, `not permitted to do "${UnsafeDeleteVerb}"${denied ? `, reason: ${denied}` : ''}`);
  }
  const key = storageKey(scope.info, scope.ri.namespace, scope.ri.name);
  // Decided against storage, as kube-apiserver's: a corrupt value this server's copy has not
  // shown yet (its watch lags) is looked up first, or the delete would fail on it with the 500
  // the option exists to get past.
  if (!scope.store.corruptValue?.(key)) await scope.store.syncToLatest?.(key);
  if (!scope.store.corruptValue?.(key) || !(await scope.store.deleteCorrupt!(key))) return undefined;
  // The Success Status of kube's finalizeDelete, without a uid (the value could not be read).
  return { code: 200, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: scope.ri.name, ...(scope.info.group && { group: scope.info.group }), kind: scope.info.resource } } };
}

/** DELETE one object; DeleteOptions from the body or the query. */
export async function handleDelete(scope: RequestScope, contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): Promise<WriteResult> {
  if (scope.ri.subresource) {
    // kube-apiserver serves no DELETE of a subresource: 404 for one the kind does not serve, 405
    // for one it does. Never the object: authorized for the subresource only, a user allowed
    // `*/status` would otherwise delete whole objects.
    const sub = checkSubresource(scope);
    throw apierrors.methodNotAllowed('DELETE', { group: scope.info.group, resource: `${scope.info.resource}/${sub}` });
  }
  const opts = deleteOptionsOf(contentType, body, query);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
    const gone = await unsafeDelete(scope, opts, query);
    if (gone) return gone;
  }
  const dryRun = isDryRun(query, 'DeleteOptions', opts.dryRun);
  const res = await deleteObject(scope.store, scope.info, scope.ri.namespace, scope.ri.name, scope.ctx, {
    dryRun,
    preconditions: opts.preconditions,
    propagationPolicy: opts.propagationPolicy,
    orphanDependents: opts.orphanDependents,
  });
  // As kube-apiserver's handlers/delete.go: 200, or 202 when orphanDependents: false asked for
  // cascading deletion and the object is not gone yet. The body is the object while finalizers
  // hold it and for custom resources and namespaces (ReturnDeletedObject), else a Success Status.
  const code = !res.deleted && opts.orphanDependents === false ? 202 : 200;
  return { code, body: res.deleted && !returnsDeletedObject(scope.info) ? deletedStatus(scope.info, res.object) : res.object };
}

/** Whether a DELETE that removed the object answers with it (upstream's ReturnDeletedObject). */
const returnsDeletedObject = (info: ResourceInfo): boolean => info.custom || (info.group === '' && info.resource === 'namespaces');

/**
 * The `Status` kube-apiserver's finalizeDelete answers for a deleted object: `details.kind` is
 * the resource (plural), as upstream sets it.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go
 */
function deletedStatus(info: ResourceInfo, obj: KubeObject): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: obj.metadata.name, ...(info.group && { group: info.group }), kind: info.resource, uid: obj.metadata.uid },
  };
}
