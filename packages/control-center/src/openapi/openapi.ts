/**
 * OpenAPI documents built from the registry: `/openapi/v3` (a root listing one document per
 * group-version, each with paths and component schemas from CRD schemas) and `/openapi/v2`
 * (one Swagger 2.0 document). kubectl uses them to decide whether the server validates fields
 * itself (the `fieldValidation` parameter on PATCH operations), for `kubectl explain`, and for
 * client-side validation. Documents are rebuilt only when the registry changes.
 * @see https://kubernetes.io/docs/concepts/overview/kubernetes-api/#openapi-interface-definition
 */
import { createHash } from 'node:crypto';
import type { Registry } from '../registry/registry.js';
import type { ResourceInfo } from '../registry/types.js';
import { KubernetesVersion } from '../version.js';
import { encodeOpenAPIV2 } from './v2-protobuf.js';
import { builtinSchema, objectMetaSchema } from './builtin-schemas.js';
import { reviewKinds, reviewPath, type ReviewKind } from '../handlers/self-review.js';

/**
 * The definition name prefix of a group, as kube-apiserver names its schemas: the Go package of a
 * built-in kind (`io.k8s.api.core`, `io.k8s.api.coordination`; CustomResourceDefinition's own
 * package), else the group reversed, as for CRDs (`hypershift.openshift.io` → `io.openshift.hypershift`).
 */
function definitionPrefix(group: string): string {
  if (group === '') return 'io.k8s.api.core';
  if (group === 'apiextensions.k8s.io') return 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions';
  if (group.endsWith('.k8s.io')) return `io.k8s.api.${group.slice(0, -'.k8s.io'.length)}`;
  return group.split('.').reverse().join('.');
}

/** The component/definition name of a kind. */
export function definitionName(r: Pick<ResourceInfo, 'group' | 'version' | 'kind'>): string {
  return `${definitionPrefix(r.group)}.${r.version}.${r.kind}`;
}

const metaV1 = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const objectMetaName = `${metaV1}.ObjectMeta`;
const listMetaName = `${metaV1}.ListMeta`;
const statusName = `${metaV1}.Status`;
const deleteOptionsName = `${metaV1}.DeleteOptions`;

/**
 * meta/v1 ListMeta, Status and the Status's details, as k8s.io/apimachinery defines them
 * (descriptions shortened): what lists and a delete of a collection answer.
 */
const metaSchemas = (refPrefix: string): Record<string, Record<string, unknown>> => ({
  [listMetaName]: {
    description: 'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
    type: 'object',
    properties: {
      continue: { type: 'string', description: 'continue may be set if the user set a limit on the number of items returned.' },
      remainingItemCount: { type: 'integer', format: 'int64', description: 'The number of subsequent items in the list which are not included in this list response.' },
      resourceVersion: { type: 'string', description: "String that identifies the server's internal version of this object." },
      selfLink: { type: 'string', description: 'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.' },
    },
  },
  [`${metaV1}.StatusCause`]: {
    description: 'StatusCause provides more information about an api.Status failure.',
    type: 'object',
    properties: { field: { type: 'string' }, message: { type: 'string' }, reason: { type: 'string' } },
  },
  [`${metaV1}.StatusDetails`]: {
    description: 'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
    type: 'object',
    properties: {
      causes: { type: 'array', items: { $ref: `${refPrefix}${metaV1}.StatusCause` }, 'x-kubernetes-list-type': 'atomic' },
      group: { type: 'string' },
      kind: { type: 'string' },
      name: { type: 'string' },
      retryAfterSeconds: { type: 'integer', format: 'int32' },
      uid: { type: 'string' },
    },
  },
  [`${metaV1}.Preconditions`]: {
    description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
    type: 'object',
    properties: { resourceVersion: { type: 'string' }, uid: { type: 'string' } },
  },
  [deleteOptionsName]: {
    description: 'DeleteOptions may be provided when deleting an API object.',
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      dryRun: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic' },
      gracePeriodSeconds: { type: 'integer', format: 'int64' },
      ignoreStoreReadErrorWithClusterBreakingPotential: { type: 'boolean' },
      kind: { type: 'string' },
      orphanDependents: { type: 'boolean' },
      preconditions: { $ref: `${refPrefix}${metaV1}.Preconditions` },
      propagationPolicy: { type: 'string' },
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'DeleteOptions' }],
  },
  [statusName]: {
    description: 'Status is a return value for calls that do not return other objects.',
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      code: { type: 'integer', format: 'int32', description: 'Suggested HTTP return code for this status, 0 if not set.' },
      details: { $ref: `${refPrefix}${metaV1}.StatusDetails` },
      kind: { type: 'string' },
      message: { type: 'string', description: 'A human-readable description of the status of this operation.' },
      metadata: { $ref: `${refPrefix}${listMetaName}` },
      reason: { type: 'string', description: 'A machine-readable description of why this operation is in the "Failure" status.' },
      status: { type: 'string', description: 'Status of the operation. One of: "Success" or "Failure".' },
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Status' }],
  },
});

/** A kind's List (`HostedClusterList`: `items` of the kind, ListMeta), as kube-apiserver publishes one per kind. */
function listSchema(r: Pick<ResourceInfo, 'group' | 'version' | 'kind' | 'listKind'>, refPrefix: string): Record<string, unknown> {
  return {
    description: `${r.listKind} is a list of ${r.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      items: { type: 'array', items: { $ref: `${refPrefix}${definitionName(r)}` }, description: `List of ${r.kind.toLowerCase()}s.` },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: { $ref: `${refPrefix}${listMetaName}`, description: "Standard list metadata." },
    },
    'x-kubernetes-group-version-kind': [{ group: r.group, version: r.version, kind: r.listKind }],
  };
}
/** The kind's schema with apiVersion/kind/metadata and the GVK extension. */
function kindSchema(r: Pick<ResourceInfo, 'group' | 'version' | 'kind' | 'schema'>, refPrefix: string): Record<string, unknown> {
  const base = (r.schema ? structuredClone(r.schema) : (builtinSchema(r.group, r.version, r.kind) ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true })) as Record<string, unknown>;
  const props = { ...((base.properties as Record<string, unknown>) ?? {}) };
  props.apiVersion = { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' };
  props.kind = { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' };
  props.metadata = { allOf: [{ $ref: `${refPrefix}${objectMetaName}` }], description: "Standard object's metadata." };
  return { ...base, type: 'object', properties: props, 'x-kubernetes-group-version-kind': [{ group: r.group, version: r.version, kind: r.kind }] };
}

/**
 * The kind's schema as kube-apiserver publishes CRD schemas in `/openapi/v2`: what Swagger 2.0
 * cannot say is dropped (`allOf`/`anyOf`/`oneOf`/`not`; `nullable` makes a field untyped and not
 * required), and objects that preserve unknown fields lose their `properties`/`items`, so kubectl's
 * client-side validation (which reads v2) accepts what the server accepts. `metadata` is a plain
 * `$ref`, the only form kubectl before 1.27 resolves.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/controller/openapi/v2/conversion.go
 */
function kindSchemaV2(r: Pick<ResourceInfo, 'group' | 'version' | 'kind' | 'schema'>): Record<string, unknown> {
  const s = toV2Schema(kindSchema(r, '#/definitions/'));
  const props = s.properties as Record<string, unknown> | undefined;
  if (props?.metadata) props.metadata = { $ref: `#/definitions/${objectMetaName}`, description: "Standard object's metadata." };
  return s;
}

/** ToStructuralOpenAPIV2 of apiextensions-apiserver, on a plain JSON schema (a copy is returned). */
export function toV2Schema(schema: Record<string, unknown>): Record<string, unknown> {
  const s: Record<string, unknown> = { ...schema };
  for (const k of ['allOf', 'anyOf', 'oneOf', 'not']) delete s[k];
  if (s.nullable === true) {
    delete s.type;
    delete s.items;
    delete s.properties;
  }
  delete s.nullable;
  if (s['x-kubernetes-preserve-unknown-fields'] === true) {
    delete s.items;
    delete s.properties;
  }
  const isSchema = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isSchema(s.items)) s.items = toV2Schema(s.items);
  else delete s.items;
  if (s.type === 'array' && s.items === undefined) delete s.type;
  if (isSchema(s.additionalProperties)) {
    if (s.additionalProperties.nullable === true) delete s.required;
    s.additionalProperties = toV2Schema(s.additionalProperties);
  }
  if (isSchema(s.properties)) {
    const props: Record<string, unknown> = {};
    const nullable = new Set<string>();
    for (const [name, p] of Object.entries(s.properties)) {
      if (!isSchema(p)) continue;
      if (p.nullable === true) nullable.add(name);
      props[name] = toV2Schema(p);
    }
    s.properties = props;
    if (Array.isArray(s.required) && nullable.size) s.required = s.required.filter((f) => !nullable.has(f as string));
  }
  return s;
}

const fieldValidationParam = {
  name: 'fieldValidation',
  in: 'query',
  description: 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict.',
  schema: { type: 'string', uniqueItems: true },
};
const dryRunParam = { name: 'dryRun', in: 'query', description: 'When present, indicates that modifications should not be persisted.', schema: { type: 'string', uniqueItems: true } };
const fieldManagerParam = { name: 'fieldManager', in: 'query', description: 'fieldManager is a name associated with the actor or entity that is making these changes.', schema: { type: 'string', uniqueItems: true } };
/** The query parameters of a create, replace or patch. */
const writeParams = [dryRunParam, fieldManagerParam, fieldValidationParam];

const pathParam = (name: string, description: string) => ({ name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } });
const queryParam = (name: string, type: 'string' | 'boolean' | 'integer', description: string) => ({ name, in: 'query', description, schema: { type, uniqueItems: true } });
const namespaceParam = pathParam('namespace', 'object name and auth scope, such as for teams and projects');
/** The query parameters of a list or watch, as kube-apiserver publishes them (descriptions shortened). */
const listParams = [
  queryParam('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
  queryParam('continue', 'string', 'The continue option should be set when retrieving more results from the server.'),
  queryParam('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  queryParam('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  queryParam('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
  queryParam('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  queryParam('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  queryParam('sendInitialEvents', 'boolean', '`sendInitialEvents=true` may be set together with `watch=true`; the watch stream then begins with synthetic events for the current state.'),
  queryParam('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  queryParam('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
];
/** The query parameters of a delete (the same options a DeleteOptions body carries). */
const deleteParams = [
  dryRunParam,
  queryParam('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted.'),
  queryParam('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy.'),
  queryParam('propagationPolicy', 'string', "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'."),
];
/** The definition name of autoscaling/v1 Scale, the body of a `/scale` subresource. */
const scaleName = 'io.k8s.api.autoscaling.v1.Scale';
/** autoscaling/v1 Scale, for the `/scale` subresources of custom resources that declare one. */
const scaleSchema = (refPrefix: string): Record<string, unknown> => ({
  description: 'Scale represents a scaling request for a resource.',
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { $ref: `${refPrefix}${objectMetaName}` },
    spec: { type: 'object', properties: { replicas: { type: 'integer', format: 'int32', description: 'replicas is the desired number of instances for the scaled object.' } } },
    status: {
      type: 'object',
      required: ['replicas'],
      properties: {
        replicas: { type: 'integer', format: 'int32', description: 'replicas is the actual number of observed instances of the scaled object.' },
        selector: { type: 'string', description: 'selector is the label query over pods that should match the replicas count.' },
      },
    },
  },
  'x-kubernetes-group-version-kind': [{ group: 'autoscaling', kind: 'Scale', version: 'v1' }],
});

/**
 * kube-apiserver's ToValidOperationID: letters, `_` and (not first) digits kept, anything else
 * dropped and the next letter capitalised (`cert-manager.io` → `CertManagerIo` when capitalised).
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/openapi/openapi.go
 */
function toValidOperationID(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  [...s].forEach((c, i) => {
    if (/\p{L}/u.test(c) || c === '_' || (i !== 0 && /\p{Nd}/u.test(c))) {
      out += capitalize ? c.toUpperCase() : c;
      capitalize = false;
    } else capitalize = true;
  });
  return out;
}

/**
 * A group's name in operation IDs, as kube-apiserver's OpenAPI builder writes it: `.k8s.io`
 * dropped, each dot-separated part capitalised (`rbac.authorization.k8s.io` → `RbacAuthorization`).
 */
const groupOperationName = (group: string): string => toValidOperationID(group.replace(/\.k8s\.io$/, ''), true);

/**
 * An operation ID as kube-apiserver's GetOperationIDAndTags makes it: the verb, the group (`Core`
 * for the core group; `.k8s.io` dropped) and version, then the rest (`Namespaced`, the kind, a
 * suffix): `listCoreV1NamespacedConfigMap`, `deleteHypershiftOpenshiftIoV1beta1CollectionNamespacedNodePool`.
 * Unique across groups, as Swagger 2.0 requires (two groups may serve one kind name).
 */
function operationID(verb: string, r: Pick<ResourceInfo, 'group' | 'version'>, rest: string): string {
  return `${verb}${groupOperationName(r.group || 'core')}${toValidOperationID(r.version, true)}${rest}`;
}

function basePath(r: ResourceInfo): string {
  return r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
}

/**
 * OpenAPI v3 paths of one resource, as kube-apiserver publishes them: the collection (list or
 * watch, create, delete collection), across namespaces for a namespaced kind (list or watch), the
 * item (read, replace, patch, delete), and the `status` and `scale` subresources it serves. Each
 * path item declares its path parameters (`namespace`, `name`). `ref` is the kind's schema
 * reference (`#/components/schemas/...` or, for the v2 conversion, `#/definitions/...`).
 */
function v3Paths(r: ResourceInfo, ref: string): Record<string, unknown> {
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  // A list answers the kind's List (`HostedClusterList`), a delete of a collection a Status.
  const listRef = ref.replace(/[^/.]*$/, r.listKind);
  const statusRef = ref.replace(/[^/]*$/, statusName);
  const ns = r.namespaced ? 'Namespaced' : '';
  const op = (verb: string, suffix = '') => operationID(verb, r, `${ns}${r.kind}${suffix}`);
  const deleteOptionsRef = ref.replace(/[^/]*$/, deleteOptionsName);
  const deletedRef = r.custom || (r.group === '' && r.resource === 'namespaces') ? ref : statusRef;
  const ext = (action: string) => ({ 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk });
  const json = (schemaRef: string) => ({ 'application/json': { schema: { $ref: schemaRef } } });
  const ok = (schemaRef: string) => ({ '200': { description: 'OK', content: json(schemaRef) } });
  const collection = r.namespaced ? `${basePath(r)}/namespaces/{namespace}/${r.resource}` : `${basePath(r)}/${r.resource}`;
  const item = `${collection}/{name}`;
  const patchBody = {
    content: {
      'application/json-patch+json': { schema: { type: 'object' } },
      'application/merge-patch+json': { schema: { type: 'object' } },
      'application/apply-patch+yaml': { schema: { type: 'object' } },
    },
    required: true,
  };
  const collectionParams = r.namespaced ? [namespaceParam] : [];
  // The path parameters of the item and its subresources, and the query parameters of a write.
  const itemParams = (what: string) => [pathParam('name', `name of the ${what}`), ...collectionParams];
  const listOp = (operationId: string) => ({ description: `list or watch objects of kind ${r.kind}`, operationId, parameters: listParams, responses: ok(listRef), ...ext('list') });
  const paths: Record<string, unknown> = {
    [collection]: {
      ...(collectionParams.length ? { parameters: collectionParams } : {}),
      get: listOp(op('list')),
      ...(r.verbs.includes('deletecollection') ? { delete: {
        description: `delete collection of ${r.kind}`,
        operationId: operationID('delete', r, `Collection${ns}${r.kind}`),
        parameters: [...deleteParams, ...listParams.filter((p) => !['allowWatchBookmarks', 'sendInitialEvents', 'watch'].includes(p.name))],
        requestBody: { content: json(deleteOptionsRef), required: false },
        responses: ok(statusRef),
        ...ext('deletecollection'),
      } } : {}),
      post: {
        description: `create a ${r.kind}`,
        operationId: op('create'),
        parameters: writeParams,
        requestBody: { content: json(ref), required: true },
        responses: { ...ok(ref), '201': { description: 'Created', content: json(ref) } },
        ...ext('post'),
      },
    },
    [item]: {
      parameters: itemParams(r.kind),
      get: { description: `read the specified ${r.kind}`, operationId: op('read'), responses: ok(ref), ...ext('get') },
      put: {
        description: `replace the specified ${r.kind}`,
        operationId: op('replace'),
        parameters: writeParams,
        requestBody: { content: json(ref), required: true },
        responses: ok(ref),
        ...ext('put'),
      },
      patch: {
        description: `partially update the specified ${r.kind}`,
        operationId: op('patch'),
        parameters: [...writeParams, { name: 'force', in: 'query', schema: { type: 'boolean', uniqueItems: true } }],
        requestBody: patchBody,
        responses: ok(ref),
        ...ext('patch'),
      },
      delete: {
        description: `delete a ${r.kind}`,
        operationId: op('delete'),
        parameters: deleteParams,
        requestBody: { content: json(deleteOptionsRef), required: false },
        // What hcc answers, as kube-apiserver: a Success Status once the object is gone, the object
        // while finalizers hold it; custom resources and namespaces answer the object (ReturnDeletedObject).
        responses: { ...ok(deletedRef), '202': { description: 'Accepted', content: json(deletedRef) } },
        ...ext('delete'),
      },
    },
  };
  if (r.namespaced) paths[`${basePath(r)}/${r.resource}`] = { get: listOp(operationID('list', r, `${r.kind}ForAllNamespaces`)) };
  if (r.subresources.status) {
    paths[`${item}/status`] = {
      parameters: itemParams(r.kind),
      get: { operationId: op('read', 'Status'), responses: ok(ref), ...ext('get') },
      put: { operationId: op('replace', 'Status'), parameters: writeParams, requestBody: { content: json(ref), required: true }, responses: ok(ref), ...ext('put') },
      patch: { operationId: op('patch', 'Status'), parameters: writeParams, requestBody: patchBody, responses: ok(ref), ...ext('patch') },
    };
  }
  if (r.subresources.scale) {
    const scaleRef = ref.replace(/[^/]*$/, scaleName);
    const gvk = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
    const sext = (action: string) => ({ 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk });
    paths[`${item}/scale`] = {
      parameters: itemParams('Scale'),
      get: { description: `read scale of the specified ${r.kind}`, operationId: op('read', 'Scale'), responses: ok(scaleRef), ...sext('get') },
      put: { description: `replace scale of the specified ${r.kind}`, operationId: op('replace', 'Scale'), parameters: writeParams, requestBody: { content: json(scaleRef), required: true }, responses: ok(scaleRef), ...sext('put') },
      patch: { description: `partially update scale of the specified ${r.kind}`, operationId: op('patch', 'Scale'), parameters: writeParams, requestBody: patchBody, responses: ok(scaleRef), ...sext('patch') },
    };
  }
  return paths;
}

/**
 * OpenAPI v3 paths of a review kind: a POST that answers the review (kube-apiserver publishes
 * only `create` for them).
 */
function reviewPaths(r: ReviewKind, ref: string): Record<string, unknown> {
  const json = { 'application/json': { schema: { $ref: ref } } };
  return {
    [reviewPath(r)]: {
      post: {
        description: `create a ${r.kind}`,
        operationId: operationID('create', r, r.kind),
        parameters: writeParams,
        requestBody: { content: json, required: true },
        responses: { '200': { description: 'OK', content: json }, '201': { description: 'Created', content: json } },
        'x-kubernetes-action': 'post',
        'x-kubernetes-group-version-kind': { group: r.group, version: r.version, kind: r.kind },
      },
    },
  };
}


const strs = { type: 'array', items: { type: 'string', default: '' } };
/** The schemas of the discovery documents and of `/version`, as k8s.io/apimachinery defines them. */
const discoverySchemas: Record<string, Record<string, unknown>> = {
  [`${metaV1}.ServerAddressByClientCIDR`]: {
    type: 'object',
    required: ['clientCIDR', 'serverAddress'],
    properties: { clientCIDR: { type: 'string', default: '' }, serverAddress: { type: 'string', default: '' } },
  },
  [`${metaV1}.GroupVersionForDiscovery`]: {
    type: 'object',
    required: ['groupVersion', 'version'],
    properties: { groupVersion: { type: 'string', default: '' }, version: { type: 'string', default: '' } },
  },
  [`${metaV1}.APIVersions`]: {
    type: 'object',
    required: ['versions', 'serverAddressByClientCIDRs'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      serverAddressByClientCIDRs: { type: 'array', items: { allOf: [{ $ref: `#/components/schemas/${metaV1}.ServerAddressByClientCIDR` }], default: {} } },
      versions: strs,
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'APIVersions' }],
  },
  [`${metaV1}.APIGroup`]: {
    type: 'object',
    required: ['name', 'versions'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      name: { type: 'string', default: '' },
      preferredVersion: { allOf: [{ $ref: `#/components/schemas/${metaV1}.GroupVersionForDiscovery` }], default: {} },
      serverAddressByClientCIDRs: { type: 'array', items: { allOf: [{ $ref: `#/components/schemas/${metaV1}.ServerAddressByClientCIDR` }], default: {} } },
      versions: { type: 'array', items: { allOf: [{ $ref: `#/components/schemas/${metaV1}.GroupVersionForDiscovery` }], default: {} } },
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'APIGroup' }],
  },
  [`${metaV1}.APIGroupList`]: {
    type: 'object',
    required: ['groups'],
    properties: {
      apiVersion: { type: 'string' },
      groups: { type: 'array', items: { allOf: [{ $ref: `#/components/schemas/${metaV1}.APIGroup` }], default: {} } },
      kind: { type: 'string' },
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'APIGroupList' }],
  },
  'io.k8s.apimachinery.pkg.version.Info': {
    type: 'object',
    required: ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'],
    properties: Object.fromEntries(['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'].map((k) => [k, { type: 'string', default: '' }])),
  },
};

/**
 * The document of one path that is no group version, as kube-apiserver's openapi/v3 serves one per
 * go-restful web service: `api`, `apis`, `apis/<group>` (built-in groups; a CRD's group discovery
 * is no web service) and `version`, each with its one GET and the schemas it refers to.
 */
function discoveryDoc(path: string, operationId: string, description: string, tag: string, schema: string): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  const add = (name: string) => {
    if (name in schemas) return;
    schemas[name] = discoverySchemas[name];
    for (const m of JSON.stringify(discoverySchemas[name]).matchAll(/#\/components\/schemas\/([\w.]+)/g)) add(m[1]!);
  };
  add(schema);
  const content = Object.fromEntries(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'].map((t) => [t, { schema: { $ref: `#/components/schemas/${schema}` } }]));
  const ok = tag === 'version' ? { 'application/json': content['application/json'] } : content;
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KubernetesVersion.gitVersion },
    paths: { [path]: { get: { tags: [tag], description, operationId, responses: { '200': { description: 'OK', content: ok } } } } },
    components: { schemas },
  };
}


/** Caches documents per registry generation. */
export class OpenAPIBuilder {
  private generation = -1;
  private v3Docs = new Map<string, { body: string; hash: string }>();
  private v2Doc = '';
  private v2Hash = '';
  private v2Proto: { body: Buffer; hash: string } | undefined;

  constructor(private readonly registry: Registry) {}

  private refresh(): void {
    if (this.generation === this.registry.generation) return;
    this.generation = this.registry.generation;
    this.v3Docs = new Map();
    const byGV = new Map<string, ResourceInfo[]>();
    for (const r of this.registry.all()) {
      const key = r.group ? `apis/${r.group}/${r.version}` : `api/${r.version}`;
      const list = byGV.get(key) ?? [];
      list.push(r);
      byGV.set(key, list);
    }
    const reviewsByGV = new Map<string, ReviewKind[]>();
    for (const r of reviewKinds) {
      const key = `apis/${r.group}/${r.version}`;
      reviewsByGV.set(key, [...(reviewsByGV.get(key) ?? []), r]);
      if (!byGV.has(key)) byGV.set(key, []);
    }
    const v2Definitions: Record<string, unknown> = { [objectMetaName]: objectMetaSchema, ...metaSchemas('#/definitions/') };
    const v2Paths: Record<string, unknown> = {};
    for (const [gv, resources] of byGV) {
      const schemas: Record<string, unknown> = { [objectMetaName]: objectMetaSchema, ...(resources.length ? metaSchemas('#/components/schemas/') : {}) };
      let paths: Record<string, unknown> = {};
      const kinds: (readonly [Pick<ResourceInfo, 'group' | 'version' | 'kind' | 'schema'>, (ref: string) => Record<string, unknown>])[] = [
        ...resources.map((r) => [r, (ref: string) => v3Paths(r, ref)] as const),
        ...(reviewsByGV.get(gv) ?? []).map((r) => [r, (ref: string) => reviewPaths(r, ref)] as const),
      ];
      if (resources.some((r) => r.subresources.scale)) {
        schemas[scaleName] = scaleSchema('#/components/schemas/');
        v2Definitions[scaleName] = scaleSchema('#/definitions/');
      }
      for (const r of resources) {
        const listName = definitionName({ ...r, kind: r.listKind });
        schemas[listName] = listSchema(r, '#/components/schemas/');
        v2Definitions[listName] = listSchema(r, '#/definitions/');
      }
      for (const [r, pathsOf] of kinds) {
        const name = definitionName(r);
        schemas[name] = kindSchema(r, '#/components/schemas/');
        paths = { ...paths, ...pathsOf(`#/components/schemas/${name}`) };
        v2Definitions[name] = kindSchemaV2(r);
        for (const [p, item] of Object.entries(pathsOf(`#/definitions/${name}`))) v2Paths[p] = toV2PathItem(item as Record<string, unknown>);
      }
      const doc = { openapi: '3.0.0', info: { title: 'Kubernetes', version: KubernetesVersion.gitVersion }, paths, components: { schemas } };
      const body = JSON.stringify(doc);
      this.v3Docs.set(gv, { body, hash: sha512Hex(body) });
    }
    // The paths of discovery and /version, listed beside the group versions as kube-apiserver lists them.
    const discovery: [string, Record<string, unknown>][] = [
      ['api', discoveryDoc('/api/', 'getCoreAPIVersions', 'get available API versions', 'core', `${metaV1}.APIVersions`)],
      ['apis', discoveryDoc('/apis/', 'getAPIVersions', 'get available API versions', 'apis', `${metaV1}.APIGroupList`)],
      ...[...new Set([...this.registry.all().filter((r) => r.group && !r.custom).map((r) => r.group), ...reviewKinds.map((r) => r.group)])].map(
        (g) => [`apis/${g}`, discoveryDoc(`/apis/${g}/`, `get${groupOperationName(g)}APIGroup`, 'get information of a group', g.replace(/\.k8s\.io$/, '').replace(/\./g, '_'), `${metaV1}.APIGroup`)] as [string, Record<string, unknown>],
      ),
      ['version', discoveryDoc('/version/', 'getCodeVersion', 'get the version information for this server', 'version', 'io.k8s.apimachinery.pkg.version.Info')],
    ];
    for (const [key, doc] of discovery) {
      const body = JSON.stringify(doc);
      this.v3Docs.set(key, { body, hash: sha512Hex(body) });
    }
    this.v2Doc = JSON.stringify({ swagger: '2.0', info: { title: 'Kubernetes', version: KubernetesVersion.gitVersion }, paths: v2Paths, definitions: v2Definitions });
    this.v2Hash = sha512Hex(this.v2Doc);
    this.v2Proto = undefined;
  }

  /**
   * `/openapi/v3`: the root listing, in key order as kube-openapi's handler3 writes it: every group
   * version, and `api`, `apis`, each built-in `apis/<group>` and `version`.
   */
  v3Root(): Record<string, unknown> {
    this.refresh();
    const paths: Record<string, unknown> = {};
    for (const gv of [...this.v3Docs.keys()].sort()) paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${this.v3Docs.get(gv)!.hash}` };
    return { paths };
  }

  /** `/openapi/v3/{api | api/v1 | apis | apis/g | apis/g/v | version}`: the serialised document, or undefined. */
  v3(gv: string): { body: string; hash: string } | undefined {
    this.refresh();
    return this.v3Docs.get(gv);
  }

  /** `/openapi/v2` as JSON, and its hash (the ETag kube-openapi serves it with: SHA-512, upper-case hex). */
  v2(): { body: string; hash: string } {
    this.refresh();
    return { body: this.v2Doc, hash: this.v2Hash };
  }

  /** `/openapi/v2` as a gnostic protobuf `Document` (encoded on first use after a change), and its hash. */
  v2Protobuf(): { body: Buffer; hash: string } {
    this.refresh();
    if (!this.v2Proto) {
      const body = encodeOpenAPIV2(JSON.parse(this.v2Doc) as Record<string, unknown>);
      this.v2Proto = { body, hash: sha512Hex(body) };
    }
    return this.v2Proto;
  }
}

/** SHA-512 of a document, upper-case hex: kube-openapi's ETag of a served spec. */
const sha512Hex = (body: string | Buffer): string => createHash('sha512').update(body).digest('hex').toUpperCase();

/** Converts a v3 path item to Swagger 2.0 shape (body parameters instead of requestBody). */
function toV2PathItem(item: Record<string, unknown>): Record<string, unknown> {
  type Param = { name: string; in: string; required?: boolean; schema?: { type?: string }; description?: string };
  const toV2Param = (p: Param) => ({ name: p.name, in: p.in, type: p.schema?.type ?? 'string', uniqueItems: true, ...(p.required ? { required: true } : {}), ...(p.description ? { description: p.description } : {}) });
  const out: Record<string, unknown> = {};
  for (const [method, op] of Object.entries(item)) {
    if (method === 'parameters') {
      out.parameters = (op as Param[]).map(toV2Param);
      continue;
    }
    const { requestBody, responses, parameters, ...rest } = op as { requestBody?: { content: Record<string, { schema: unknown }>; required?: boolean }; responses?: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>; parameters?: Param[] };
    const params: unknown[] = (parameters ?? []).map(toV2Param);
    if (requestBody) params.push({ name: 'body', in: 'body', ...(requestBody.required ? { required: true } : {}), schema: Object.values(requestBody.content)[0]!.schema });
    const resp: Record<string, unknown> = {};
    for (const [code, r] of Object.entries(responses ?? {})) resp[code] = { description: r.description, ...(r.content ? { schema: Object.values(r.content)[0]!.schema } : {}) };
    out[method] = { ...rest, parameters: params, responses: resp, consumes: requestBody ? Object.keys(requestBody.content) : undefined, produces: ['application/json'] };
  }
  return out;
}
