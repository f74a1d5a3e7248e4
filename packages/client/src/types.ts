/**
 * The few Kubernetes wire shapes the client needs. They are structural and loose on purpose:
 * any richer type (for example the ones in `@hcc/crds`) is assignable to them, and every field
 * the client does not read passes through untouched.
 */

/** The parts of metav1.ObjectMeta the client reads; everything else passes through. */
export interface ObjectMetaLike {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  [key: string]: unknown;
}

/** Any Kubernetes object as JSON (`apiVersion`, `kind`, `metadata`, and the rest untyped). */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMetaLike;
  [key: string]: unknown;
}

/**
 * A list response (`kind: FooList`). `metadata.resourceVersion` is the snapshot the list was
 * read at; `metadata.continue` is set when more pages follow (list chunking).
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks
 */
export interface KubeList<T = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** metav1.StatusDetails as JSON. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
  retryAfterSeconds?: number;
}

/**
 * metav1.Status as JSON: the body of every non-2xx response and of watch `ERROR` events.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/types.go (type Status)
 */
export interface KubeStatus {
  kind?: 'Status';
  apiVersion?: string;
  metadata?: Record<string, unknown>;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/**
 * Addresses one resource type. `group` is `''` for the core group (URLs under `/api/v1`),
 * otherwise URLs go under `/apis/{group}/{version}`. `resource` is the lowercase plural
 * (`hostedclusters`); `namespaced` says whether `/namespaces/{ns}/` belongs in the path.
 */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
}

/**
 * One watch event as the API server frames it (one JSON object per line). `BOOKMARK` objects
 * carry only `metadata.resourceVersion`; `ERROR` objects are a Status (410 `Expired` when the
 * requested resourceVersion was compacted).
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes
 */
export type WatchEvent<T = KubeObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T }
  | { type: 'ERROR'; object: KubeStatus };
