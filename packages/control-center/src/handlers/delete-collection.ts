/**
 * DELETE on a collection: deletes every object the label/field selectors match, each with the
 * single-object rules (finalizers and DeleteOptions' propagationPolicy honoured). Answers the list of what was deleted or marked.
 */
import type { KubeObject } from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';
import type { RequestScope } from './scope.js';
import { apiVersionOf, deleteObject, listStored } from './object-ops.js';
import { compileFilter } from './selectors.js';
import { firstQueryValue } from '../pipeline/list-options.js';
import { deleteOptionsOf, isDryRun, type WriteResult } from './write.js';

/**
 * Serves DELETE on a collection (rules above): 200 with a list (`listKind`) of the objects deleted or marked, at the
 * store's current revision. Throws StatusError 405 when the resource takes no deletecollection (or a built-in namespaced
 * one is asked across namespaces), 400 for bad selectors or DeleteOptions, and the first failure of a single delete
 * other than NotFound (the objects deleted before it stay deleted).
 */
export async function handleDeleteCollection(scope: RequestScope, contentType: string | undefined, body: Buffer | undefined, query: Record<string, unknown>): Promise<WriteResult> {
  const { info, ri, store } = scope;
  if (!info.verbs.includes('deletecollection')) throw apierrors.methodNotAllowed('DELETE', { group: info.group, resource: info.resource });
  // Built-in namespaced kinds take only list and watch across namespaces (kube-apiserver's
  // installer registers no DELETE on /api/v1/configmaps: 405); the CRD handler serves a
  // cluster-wide deletecollection of custom resources, so hcc does too.
  if (info.namespaced && !ri.namespace && !info.custom) throw apierrors.methodNotAllowed('DELETE', { group: info.group, resource: info.resource });
  const filter = compileFilter(info, query.labelSelector, query.fieldSelector);
  const opts = deleteOptionsOf(contentType, body, query);
  const dryRun = isDryRun(query, 'DeleteOptions', opts.dryRun);
  // Which objects: a list with the request's options, as kube-apiserver's DeleteCollection; without
  // resourceVersion the most recent (a consistent list), so an object created through another
  // control center on the same etcd just before is not missed by one whose watch lags.
  if (firstQueryValue(query.resourceVersion) === '') await store.syncToLatest?.();
  const { items } = listStored(store, info, ri.namespace);
  const out: KubeObject[] = [];
  for (const it of items) {
    if (!filter.matches(it.object)) continue;
    const o = it.object;
    try {
      const res = await deleteObject(store, info, o.metadata.namespace ?? '', o.metadata.name!, scope.ctx, { dryRun, propagationPolicy: opts.propagationPolicy, orphanDependents: opts.orphanDependents });
      out.push(res.object);
    } catch (e) {
      if (!apierrors.isNotFound(e)) throw e;
    }
  }
  return { code: 200, body: { kind: info.listKind, apiVersion: apiVersionOf(info.group, info.version), metadata: { resourceVersion: String(store.currentRevision()) }, items: out } };
}
