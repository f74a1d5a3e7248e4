/**
 * Parses a request URL into what the request is about, after k8s.io/apiserver's
 * RequestInfoFactory: `/api/v1/namespaces/{ns}/{resource}/{name}/{subresource}` and
 * `/apis/{group}/{version}/...`, the legacy `/watch/` prefix, and `?watch=true`.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/request/requestinfo.go
 */

/** The Kubernetes verb of a resource request. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** What a URL names. `isResourceRequest` false means a non-resource path such as `/version`. */
export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: Verb | string;
  /** 'api' for the core group, 'apis' otherwise. */
  apiPrefix?: 'api' | 'apis';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /**
   * The path segments after the prefix, for discovery requests (`/apis/{group}` has one); for a
   * resource request, those from the resource on (`{resource}[/{name}[/{subresource}]]`: more
   * than three name no route).
   */
  parts: string[];
  /**
   * The `labelSelector` of a list or watch, as an authorization attribute (kube's
   * AuthorizeWithSelectors, KEP-4601); set by authorizationAttributes, absent otherwise.
   */
  labelSelector?: string;
}

const namespaceSubresources = new Set(['status', 'finalize']);

/**
 * Resolves a request.
 * @param method - HTTP method (GET, POST, PUT, PATCH, DELETE)
 * @param url - the raw URL, possibly with a query string
 * @param query - parsed query parameters
 */
export function resolveRequestInfo(method: string, url: string, query: Record<string, unknown>): RequestInfo {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  // Decoded first, then split, as Go's net/http hands kube-apiserver's RequestInfoFactory the
  // decoded path: `secrets/ns%2Fname` is the name `ns` and the subresource `name`, never the
  // Secret ns/name reached through a cluster-scope URL. @throws URIError on a malformed escape
  let parts = decodeURIComponent(path).split('/').filter((p) => p !== '');
  if (parts.length === 0 || (parts[0] !== 'api' && parts[0] !== 'apis')) return info;
  info.apiPrefix = parts[0] as 'api' | 'apis';
  parts = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (parts.length < 2) {
      info.parts = parts;
      return info; // /apis or /apis/{group}: discovery
    }
    info.group = parts[0]!;
    parts = parts.slice(1);
  }
  if (parts.length < 1) {
    info.parts = parts;
    return info; // /api
  }
  info.version = parts[0]!;
  parts = parts.slice(1);
  if (parts.length === 0) {
    info.parts = [info.version];
    return info; // /api/v1 or /apis/{g}/{v}: discovery
  }
  info.isResourceRequest = true;
  let isWatchPrefix = false;
  if (parts[0] === 'watch') {
    isWatchPrefix = true;
    parts = parts.slice(1);
  }
  if (parts[0] === 'namespaces' && parts.length >= 3 && !namespaceSubresources.has(parts[2]!)) {
    // /namespaces/{ns}/{resource}[/{name}[/{subresource}]]
    info.namespace = parts[1]!;
    parts = parts.slice(2);
  }
  // {resource}[/{name}[/{subresource}]]; /namespaces/{ns}[/status|/finalize] is the Namespace itself.
  info.resource = parts[0] ?? '';
  info.name = parts[1] ?? '';
  info.subresource = parts[2] ?? '';
  info.parts = parts;

  const isWatchQuery = queryBool(query.watch);
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
      // As kube's RequestInfoFactory: `?watch` makes a watch of a collection only; a GET of a
      // named object ignores it (the legacy /watch/ prefix watches one object).
      info.verb = isWatchPrefix ? 'watch' : info.name ? 'get' : isWatchQuery ? 'watch' : 'list';
      break;
    case 'POST':
      info.verb = 'create';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = info.name ? 'delete' : 'deletecollection';
      break;
    default:
      info.verb = method.toLowerCase();
  }
  return info;
}

/**
 * A boolean query parameter as apimachinery decodes one (`watch`, `allowWatchBookmarks`,
 * `sendInitialEvents`): absent, `0` or `false` in any case is false; anything else, `True` and
 * the empty string included, is true. Python's client sends `watch=True`.
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/runtime/conversion.go (Convert_Slice_string_To_bool)
 */
export function queryBool(v: unknown): boolean {
  const first = Array.isArray(v) ? v[0] : v;
  if (first === undefined || first === null || first === false) return false;
  if (first === true) return true;
  const s = String(first);
  return !(s === '0' || s.toLowerCase() === 'false');
}
