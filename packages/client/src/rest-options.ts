/**
 * Option shapes of `RestClient` calls, named after the Kubernetes query parameters and
 * `DeleteOptions` fields they become.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/
 */
import type { Logger } from 'pino';

/** Options of a `RestClient`. */
export interface RestClientOptions {
  /** Deadline of one request (not a watch), in milliseconds. Default 30 000. */
  timeoutMs?: number;
  /** Sent as `User-Agent`. Default `hcc-client`. */
  userAgent?: string;
  /** Most concurrent connections for ordinary requests (watches have their own pool). Default 64. */
  maxSockets?: number;
  /** Receives one debug line per failed request. */
  logger?: Logger;
}

/** Query options of a list. @see https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions */
export interface ListOptions {
  /** Namespace to list in; omit for all namespaces (or a cluster-scoped resource). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size (list chunking). */
  limit?: number;
  /** `metadata.continue` of the previous page. */
  continue?: string;
  /** `''` (default): most recent, consistent read; `'0'`: any cached version; else exact or newer. */
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
}

/** Query options of a watch. */
export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this version; `''`/omitted starts with synthetic ADDED events for all objects. */
  resourceVersion?: string;
  /** Ask for BOOKMARK events carrying only a newer `metadata.resourceVersion`. */
  allowWatchBookmarks?: boolean;
  /** The server ends the stream after this many seconds (the client gives up 30 s later). */
  timeoutSeconds?: number;
  /** Streaming list: initial ADDED events, then a BOOKMARK annotated `k8s.io/initial-events-end`. Sets `resourceVersionMatch=NotOlderThan`. */
  sendInitialEvents?: boolean;
  /** Called once when the server accepted the watch (a 2xx answer's headers arrived), before any event. */
  onOpen?: () => void;
}

/**
 * How the server treats fields the kind's schema does not know (`fieldValidation`): `Ignore`
 * drops them silently, `Warn` drops them and says so in `Warning` headers, `Strict` refuses the
 * write. @see https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
 */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** Options every write takes. */
export interface WriteOptions {
  fieldManager?: string;
  /** Validate and admit without persisting (`dryRun=All`). */
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  /**
   * Called once per warning the server sent with a successful answer (each `Warning: 299 - "..."`
   * header's text), before the call resolves, as client-go's per-request WarningHandler.
   * @see https://kubernetes.io/blog/2020/09/03/warnings/
   */
  onWarning?: (text: string) => void;
}

/** Options of a create or an update. */
export type CreateOptions = WriteOptions;

/** Options of a patch. `fieldManager` is required by the server for `apply`. */
export interface PatchOptions extends WriteOptions {
  /** e.g. `status`. */
  subresource?: string;
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

/** Options of a delete (sent as a `DeleteOptions` body). */
export interface DeleteOptions {
  /** Delete only if the object still has this uid / resourceVersion (409 otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

/** Patch flavours; each maps to a content type in `patchContentType`. */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** The request content type of each patch flavour. */
export const patchContentType: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  // JSON is YAML, so the body stays JSON.
  apply: 'application/apply-patch+yaml',
};
