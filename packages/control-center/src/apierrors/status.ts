/**
 * Kubernetes `Status` errors, worded like k8s.io/apimachinery/pkg/api/errors so kubectl prints
 * familiar text. Every non-2xx response body of the control center is one of these.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/api/errors/errors.go
 */
import type { StatusDetails } from '@hcc/client';
import { type FieldError, fieldErrorBody, fieldErrorMessage } from './field.js';

/** metav1.StatusReason values hcc uses. */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'TooManyRequests'
  | '';

/** metav1.Status as JSON. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** An Error carrying a Status; the HTTP layer serialises `status` as the response body. */
export class StatusError extends Error {
  readonly status: Status;
  constructor(status: Status) {
    super(status.message);
    this.name = 'StatusError';
    this.status = status;
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): StatusReason {
    return this.status.reason;
  }
}

/** A group + resource, as in schema.GroupResource (`hostedclusters.hypershift.openshift.io`). */
export interface GroupResource {
  group: string;
  resource: string;
}

/** Renders a GroupResource as apimachinery does: `resource.group`, or `resource` for the core group. */
export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function make(code: number, reason: StatusReason, message: string, details?: Status['details']): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) {
    // StatusDetails' fields are omitempty upstream: the core group's "" (and an empty name) are left out.
    const d = { ...details };
    if (d.group === '') delete d.group;
    if (d.name === '') delete d.name;
    if (d.kind === '') delete d.kind;
    status.details = d;
  }
  return new StatusError(status);
}

/** 404 NotFound: `hostedclusters.hypershift.openshift.io "example" not found`. */
export const notFound = (gr: GroupResource, name: string): StatusError =>
  make(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, { name, group: gr.group, kind: gr.resource });

/** 409 AlreadyExists: `namespaces "clusters" already exists`; prefixed `object is being deleted: ` when the object holding the name is (registry Store.Create). */
export const alreadyExists = (gr: GroupResource, name: string, beingDeleted = false): StatusError =>
  make(409, 'AlreadyExists', `${beingDeleted ? 'object is being deleted: ' : ''}${groupResourceString(gr)} "${name}" already exists`, { name, group: gr.group, kind: gr.resource });

/**
 * 422 Invalid for a JSON patch that does not apply (a `test` that fails, a path that is not there,
 * an unknown `op`, a `copy` over the size limit), as kube-apiserver answers it: its jsonPatcher
 * returns NewGenericServerResponse(422, ...) without the library's error, so the message is only
 * `the server rejected our request due to an error in our request` and the details are empty.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
 */
export const jsonPatchNotApplied = (): StatusError => make(422, 'Invalid', 'the server rejected our request due to an error in our request', {});

/** 409 Conflict, as for a stale resourceVersion. */
export const conflict = (gr: GroupResource, name: string, detail: string): StatusError =>
  make(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${detail}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });

/** The Conflict detail apimachinery uses for a stale resourceVersion. */
export const OptimisticLockErrorMsg = 'the object has been modified; please apply your changes to the latest version and try again';

/** 422 Invalid with one cause per field error: `HostedCluster.hypershift.openshift.io "x" is invalid: [...]`. */
export function invalid(gk: { group: string; kind: string }, name: string, errors: FieldError[]): StatusError {
  const msgs = errors.map(fieldErrorMessage);
  const qualified = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  const list = msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
  return make(422, 'Invalid', `${qualified} "${name}" is invalid: ${list}`, {
    name,
    group: gk.group,
    kind: gk.kind,
    causes: errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
  });
}

/** 400 BadRequest with a free-form message. */
export const badRequest = (message: string): StatusError => make(400, 'BadRequest', message);

/**
 * The 400 kube-apiserver's decoder answers for a body its kind cannot hold:
 * `Secret in version "v1" cannot be handled as a Secret: <message>`.
 */
export const cannotBeHandled = (kind: string, version: string, message: string): UndecodableError =>
  new UndecodableError(badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${message}`).status, message);

/**
 * The 400 of a body its kind cannot hold ({@link cannotBeHandled}), keeping the decoder's own
 * words in `detail` (`json: cannot unmarshal number into Go struct field ConfigMap.data of type
 * map[string]string`, `strict decoding error: unknown field "spec.x"`), which a patch's answer
 * uses instead ({@link patchNotDecodable}).
 */
export class UndecodableError extends StatusError {
  constructor(
    status: Status,
    readonly detail: string,
  ) {
    super(status);
  }
}

/**
 * The 422 kube-apiserver's patchers answer when the patched object cannot be decoded (a value of
 * the wrong type, or unknown or duplicate fields under `fieldValidation=Strict`):
 * `NewInvalid(schema.GroupKind{}, "", field.Invalid("patch", value, err))`, worded
 * ` "" is invalid: patch: Invalid value: "<value>": <the decoder's error>`. kubectl edit reopens
 * the editor on it, as on any 422.
 * @param value - a JSON or merge patch: the patched object's JSON; a strategic merge patch: the
 *   patch as Go's `%+v` prints it
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (jsonPatcher.applyPatchToCurrentObject, applyPatchToObject)
 */
export const patchNotDecodable = (value: string, detail: string): StatusError =>
  invalid({ group: '', kind: '' }, '', [{ type: 'FieldValueInvalid', field: 'patch', badValue: value, detail }]);
/** 403 Forbidden, as the authorize stage returns it. */
export const forbidden = (gr: GroupResource, name: string, reason: string): StatusError =>
  make(403, 'Forbidden', `${groupResourceString(gr)}${name ? ` "${name}"` : ''} is forbidden: ${reason}`, { name, group: gr.group, kind: gr.resource });
/**
 * 403 for a non-resource path (discovery, OpenAPI), worded as kube-apiserver's forbiddenMessage:
 * `forbidden: User "system:anonymous" cannot get path "/apis"`.
 */
export const forbiddenPath = (reason: string): StatusError => make(403, 'Forbidden', `forbidden: ${reason}`, {});
/** 405 MethodNotAllowed. */
export const methodNotAllowed = (verb: string, gr: GroupResource): StatusError =>
  make(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${groupResourceString(gr)}"`);
/**
 * 405 for a method a served route does not take (e.g. GET of `hostedclusters/NAME/binding`, which
 * takes POST only), as kube-apiserver's go-restful container answers it (handleServiceError →
 * `NewGenericServerResponse(405, ...)`): `the server does not allow this method on the requested resource`.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/server/handler.go
 */
export const methodNotAllowedOnRoute = (): StatusError => make(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
/** 405 MethodNotAllowed for a non-resource path (discovery, OpenAPI), which answers GET only: `DELETE is not supported on "/apis/g/v"`. */
export const methodNotAllowedOnPath = (verb: string, path: string): StatusError => make(405, 'MethodNotAllowed', `${verb} is not supported on "${path}"`);
/**
 * 405 for a create of a custom resource whose CRD is being deleted, worded as
 * apiextensions-apiserver's customresource_handler.go words it.
 */
export const crdTerminating = (verb: string): StatusError => make(405, 'MethodNotAllowed', `${verb} not allowed while custom resource definition is terminating`);
/** 410 Expired: a watch or continue token older than the kept history. */
export const resourceExpired = (message: string): StatusError => make(410, 'Expired', message);
/** 410 Gone (kept for clients that check the legacy reason). */
export const gone = (message: string): StatusError => make(410, 'Gone', message);
/** 413 RequestEntityTooLarge. */
export const requestEntityTooLarge = (message: string): StatusError => make(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
/** Media types a create or update of a built-in kind accepts (custom resources: JSON and YAML only). */
export const objectMediaTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'] as const;
/**
 * 415 UnsupportedMediaType listing what the endpoint accepts, worded like apimachinery's
 * negotiation error (for a strategic merge patch of a custom resource: json-patch, merge-patch, apply-patch+yaml).
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/runtime/serializer/negotiation.go (errUnsupportedMediaType)
 */
export const unsupportedMediaType = (accepted: readonly string[] = objectMediaTypes): StatusError =>
  make(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
/** 404 for a URL that names no resource at all (`the server could not find the requested resource`). */
export const noResource = (): StatusError => make(404, 'NotFound', 'the server could not find the requested resource', {});
/** 500 InternalError; the cause goes to the log, not to the client. */
export const internalError = (message = 'an internal error occurred'): StatusError =>
  make(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
/**
 * 500 for an object whose stored value cannot be read (a value something else wrote under the
 * prefix that does not decode): kube-apiserver's `StorageError: corrupt object`, with how to
 * remove it (DeleteOptions `ignoreStoreReadErrorWithClusterBreakingPotential`, KEP-3926).
 * @param bad - the etcd key, the value's mod_revision and why it does not decode
 * @see https://github.com/kubernetes/enhancements/tree/master/keps/sig-api-machinery/3926-handling-undecryptable-resources
 */
export const corruptObject = (bad: { etcdKey: string; modRevision: number; error: string }): StatusError =>
  internalError(
    `StorageError: corrupt object, key: ${bad.etcdKey}, ResourceVersion: ${bad.modRevision}, AdditionalErrorMsg: ${bad.error} ` +
      '(the value there is not an object this server wrote; remove it with DELETE ?ignoreStoreReadErrorWithClusterBreakingPotential=true, which skips finalizers and preconditions)',
  );
/**
 * 429 TooManyRequests asking the client to retry after `retryAfterSeconds` (also the Retry-After
 * header the caller sets): what kube-apiserver answers new requests while it shuts down.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/server/filters/with_retry_after.go
 */
export const tooManyRequests = (message: string, retryAfterSeconds: number): StatusError => make(429, 'TooManyRequests', message, { retryAfterSeconds });
/** 503 ServiceUnavailable. */
export const serviceUnavailable = (message: string): StatusError => make(503, 'ServiceUnavailable', message);
/**
 * 504 Timeout for a read at a resourceVersion the store has not reached, as kube-apiserver's
 * storage.NewTooLargeResourceVersionError words it (client-go relists on the cause).
 */
export const tooLargeResourceVersion = (rv: number | string, current: number): StatusError =>
  make(504, 'Timeout', `Too large resource version: ${rv}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
/** 504 Timeout. */
export const timeout = (message: string): StatusError => make(504, 'Timeout', message);
/** 431 for a request line and headers over `maxBytes` (Status reason BadRequest: metav1 has none of its own). */
export const requestHeaderFieldsTooLarge = (maxBytes: number): StatusError =>
  make(431, 'BadRequest', `request header fields too large: the request line and headers exceed ${maxBytes} bytes`);
/** 408 for a client that did not send its request head in time. */
export const requestTimeout = (): StatusError => make(408, 'Timeout', 'the client did not send a complete request in time');

/** True when err is a StatusError with that HTTP code. */
export const isStatusCode = (err: unknown, code: number): boolean => err instanceof StatusError && err.code === code;
/** errors.IsNotFound: a StatusError with HTTP code 404. */
export const isNotFound = (err: unknown): boolean => isStatusCode(err, 404);
/** errors.IsConflict: a StatusError 409 with reason Conflict (not AlreadyExists, also a 409). */
export const isConflict = (err: unknown): boolean => err instanceof StatusError && err.code === 409 && err.reason === 'Conflict';
/** errors.IsAlreadyExists: a StatusError with reason AlreadyExists. */
export const isAlreadyExists = (err: unknown): boolean => err instanceof StatusError && err.reason === 'AlreadyExists';
