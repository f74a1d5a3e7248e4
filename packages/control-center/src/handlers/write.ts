/**
 * HTTP-level create, update, patch and delete: query parameters and bodies in, `{ code, body }`
 * out. The semantics live in object-ops.ts.
 */
import type { KubeObject } from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';
import { checkTypeMeta, createObject, deleteObject, updateObject } from './object-ops.js';
import type { RequestScope } from './scope.js';
import { decodeObjectBody, decodePatchBody, patchTypeOf } from '../pipeline/decode.js';
import { applyPatch } from './patch/apply-patch.js';
import { fromScale, toScale } from './scale.js';

/** The result of a write: HTTP status code and body. */
export interface WriteResult {
  code: number;
  body: unknown;
}

/** Parses `dryRun` (`All` is the only value Kubernetes defines). */
export function isDryRun(query: Record<string, unknown>): boolean {
  const v = query.dryRun;
  if (v === undefined || v === '') return false;
  const vals = Array.isArray(v) ? v : [v];
  for (const x of vals) if (x !== 'All') throw apierrors.badRequest(`dryRun: Unsupported value: "${String(x)}": supported values: "All"`);
  return true;
}

function checkSubresource(scope: RequestScope): '' | 'status' | 'scale' {
  const sub = scope.ri.subresource;
  if (sub === '') return '';
  if (sub === 'status' && scope.info.subresources.status) return 'status';
  if (sub === 'scale' && scope.info.subresources.scale) return 'scale';
  throw apierrors.notFound({ group: scope.info.group, resource: `${scope.info.resource}/${sub}` }, scope.ri.name);
}

/** POST a new object. */
export async function handleCreate(scope: RequestScope, contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): Promise<WriteResult> {
  if (scope.ri.name && scope.ri.resource !== 'namespaces') {
    throw apierrors.methodNotAllowed('POST', { group: scope.info.group, resource: scope.info.resource });
  }
  const obj = checkTypeMeta(decodeObjectBody(contentType, body), scope.info);
  const created = await createObject(scope.store, scope.info, scope.ri.namespace, obj, scope.ctx, { dryRun: isDryRun(query) });
  return { code: 201, body: created };
}

/** PUT a whole object (main resource or status). */
export async function handleUpdate(scope: RequestScope, contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): Promise<WriteResult> {
  const subresource = checkSubresource(scope);
  if (subresource === 'scale') {
    const scale = decodeObjectBody(contentType, body) as KubeObject;
    const res = await updateObject(scope.store, scope.info, scope.ri.namespace, scope.ri.name, (cur) => {
      if (!cur) throw apierrors.notFound({ group: scope.info.group, resource: scope.info.resource }, scope.ri.name);
      return fromScale(scope.info, cur, scale);
    }, scope.ctx, { dryRun: isDryRun(query), subresource: '' });
    return { code: 200, body: toScale(scope.info, res.object) };
  }
  const obj = checkTypeMeta(decodeObjectBody(contentType, body), scope.info);
  const res = await updateObject(scope.store, scope.info, scope.ri.namespace, scope.ri.name, () => obj, scope.ctx, {
    dryRun: isDryRun(query),
    subresource,
  });
  return { code: res.created ? 201 : 200, body: res.object };
}

/** PATCH an object (main resource or status) with any patch type. */
export async function handlePatch(scope: RequestScope, contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): Promise<WriteResult> {
  const subresource = checkSubresource(scope);
  const type = patchTypeOf(contentType);
  const patch = decodePatchBody(type, body);
  if (type === 'apply' && !query.fieldManager) {
    throw apierrors.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      { type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' },
    ]);
  }
  const res = await updateObject(
    scope.store,
    scope.info,
    scope.ri.namespace,
    scope.ri.name,
    (current) => {
      if (!current) {
        if (type !== 'apply') throw apierrors.notFound({ group: scope.info.group, resource: scope.info.resource }, scope.ri.name);
        const fresh = structuredClone(patch) as KubeObject;
        return checkTypeMeta(fresh, scope.info);
      }
      if (subresource === 'scale') {
        const scale = toScale(scope.info, current);
        const patchedScale = applyPatch(type === 'strategic' ? 'merge' : type, { ...scope.info, custom: false }, scale, patch);
        return fromScale(scope.info, current, { ...patchedScale, metadata: { ...patchedScale.metadata, resourceVersion: (patch as { metadata?: { resourceVersion?: string } })?.metadata?.resourceVersion ?? '' } });
      }
      const patched = applyPatch(type, scope.info, current, patch);
      // A patch that does not name a resourceVersion updates whatever is current.
      const patchRV = (patch as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
      if (typeof patched === 'object' && patched !== null && patched.metadata && !patchRV) patched.metadata.resourceVersion = current.metadata.resourceVersion;
      return patched;
    },
    scope.ctx,
    { dryRun: isDryRun(query), subresource: subresource === 'scale' ? '' : subresource, allowCreate: type === 'apply' && subresource === '' },
  );
  if (subresource === 'scale') return { code: 200, body: toScale(scope.info, res.object) };
  return { code: res.created ? 201 : 200, body: res.object };
}

/** DELETE one object; DeleteOptions from the body or the query. */
export async function handleDelete(scope: RequestScope, contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): Promise<WriteResult> {
  let opts: { preconditions?: { uid?: string; resourceVersion?: string }; propagationPolicy?: string; dryRun?: string[] } = {};
  if (body && body.length) {
    const decoded = decodeObjectBody(contentType, body);
    if (typeof decoded === 'object' && decoded !== null) opts = decoded as typeof opts;
  }
  const dryRun = isDryRun(query) || (Array.isArray(opts.dryRun) && opts.dryRun.includes('All'));
  const res = await deleteObject(scope.store, scope.info, scope.ri.namespace, scope.ri.name, scope.ctx, {
    dryRun,
    preconditions: opts.preconditions,
    propagationPolicy: opts.propagationPolicy ?? (query.propagationPolicy as string | undefined),
  });
  // kube-apiserver answers 200 with the object (202 would mean "accepted, not done"; kubectl treats both alike).
  return { code: 200, body: res.object };
}
