/**
 * Errors the client throws. A non-2xx answer from the API server becomes an `ApiError` carrying
 * the server's `Status` body; anything below HTTP (refused connection, TLS failure, reset socket,
 * timeout, undecodable body) becomes a `RequestError` whose `cause` is the underlying error.
 * The `is*` predicates follow k8s.io/apimachinery/pkg/api/errors: they look at `reason` first and
 * fall back to the HTTP code when the server sent no reason.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/api/errors/errors.go
 */
import type { KubeStatus, StatusDetails } from './types.js';

/** Reason used when the server sent no Status, after apimachinery's NewGenericServerResponse. */
const reasonForCode: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/**
 * A non-2xx response (or a watch `ERROR` event). `code` is the HTTP status code, `reason` the
 * Status reason (`NotFound`, `Conflict`, `Expired`, ...), `status` the full Status body. When the
 * body was not a Status, one is synthesized from the code and the body text.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status code (`Status.code`, or the response code when the body had none). */
  readonly code: number;
  /** `Status.reason`; derived from the code when the server sent none. */
  readonly reason: string;
  /** `Status.details` (name, group, kind, causes), when present. */
  readonly details: StatusDetails | undefined;
  /** The Status body as received (or synthesized). */
  readonly status: KubeStatus;

  /**
   * @param httpCode - the response's HTTP status code
   * @param body - the parsed response body (a Status), or its text when it was not JSON
   * @param context - `METHOD path`, prefixed to the message when the body has no message
   */
  constructor(httpCode: number, body: unknown, context = '') {
    const status: KubeStatus =
      body && typeof body === 'object' && (body as KubeStatus).kind === 'Status'
        ? (body as KubeStatus)
        : {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            code: httpCode,
            reason: reasonForCode[httpCode] ?? '',
            message: typeof body === 'string' && body.trim() ? body.trim() : `the server responded with HTTP ${httpCode}`,
          };
    const code = status.code || httpCode;
    super(status.message || `${context} failed with HTTP ${code}`.trim());
    this.code = code;
    this.reason = status.reason || reasonForCode[code] || '';
    this.details = status.details;
    this.status = status;
  }
}

/**
 * A failure below HTTP: connection refused or reset, TLS error, request timeout, or a body that
 * could not be decoded. `cause` holds the underlying error.
 */
export class RequestError extends Error {
  override readonly name = 'RequestError';
  /** @param message - `METHOD url: what happened` */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A configuration an operator gave that cannot work: a kubeconfig that does not parse or lacks
 * what a client needs, or one that points at the wrong server. Its message says what and where;
 * like {@link ApiError} and {@link RequestError} it is logged without a stack (where in hcc it was
 * found says nothing about the file).
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function hasReason(err: unknown, reason: string, code: number): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.reason === reason) return true;
  return (err.status.reason === undefined || err.status.reason === '') && err.code === code;
}

/** True for 404 / reason `NotFound` (the object, or the resource type, does not exist). */
export const isNotFound = (err: unknown): boolean => hasReason(err, 'NotFound', 404);

/** True for 403 / reason `Forbidden` (the caller may not do this; for a namespace being deleted see {@link isNamespaceTerminating}). */
export const isForbidden = (err: unknown): boolean => hasReason(err, 'Forbidden', 403);

/** True for 409 / reason `Conflict`: a stale `resourceVersion` or a failed precondition. */
export const isConflict = (err: unknown): boolean => hasReason(err, 'Conflict', 409);

/** True for 409 / reason `AlreadyExists` (create of a name that is taken). */
export const isAlreadyExists = (err: unknown): boolean =>
  err instanceof ApiError && err.reason === 'AlreadyExists';

/**
 * True for the 403 of a create in a namespace being deleted (kube-apiserver's NamespaceLifecycle
 * admission: cause `NamespaceTerminating`, `unable to create new content in namespace X because it
 * is being terminated`): nothing should be created there again, and retrying cannot succeed.
 */
export const isNamespaceTerminating = (err: unknown): boolean =>
  err instanceof ApiError && err.code === 403 && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');

/**
 * True for 410: reason `Gone` or `Expired`. Both mean the requested resourceVersion (or list
 * continue token) is older than the server keeps; the caller must relist.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#410-gone-responses
 */
export const isGone = (err: unknown): boolean =>
  err instanceof ApiError && (err.reason === 'Gone' || err.reason === 'Expired' || err.code === 410);

/**
 * True for a 504 `Timeout` whose cause is `ResourceVersionTooLarge`: the server has not reached
 * the resourceVersion asked for (it was given out before the server's storage went back, e.g. an
 * etcd restored from a snapshot). A watch from it would miss what happens meanwhile: relist, as
 * client-go's reflector does (`IsTooLargeResourceVersion`).
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/api/errors/errors.go (IsTooLargeResourceVersionError)
 */
export const isTooLargeResourceVersion = (err: unknown): boolean =>
  err instanceof ApiError && err.code === 504 && (err.details?.causes ?? []).some((c) => c.reason === 'ResourceVersionTooLarge');

/** True for 422 / reason `Invalid` (validation failed; `details.causes` names the fields). */
export const isInvalid = (err: unknown): boolean => hasReason(err, 'Invalid', 422);

/**
 * An error as one line for a readiness check or an Event: an {@link ApiError} as `<HTTP code>
 * <message>` (`401 Unauthorized`: a Status message alone often does not say the code), a
 * {@link RequestError} or any other Error as its message, anything else as a string.
 */
export function problemText(err: unknown): string {
  if (err instanceof ApiError) return err.message.startsWith(String(err.code)) ? err.message : `${err.code} ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
