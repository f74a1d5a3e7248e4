/**
 * Builds the control center's HTTP server. Reading this file top to bottom is reading the
 * request path: authenticate → resolve request info → authorize → decode → admit/validate (in
 * the resource strategy) → store → respond. Every failure leaves as a Kubernetes Status.
 */
import fastifyCompress from '@fastify/compress';
import type { IncomingMessage } from 'node:http';
import tls from 'node:tls';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { goYAMLOptions, healthAnswer, healthPath, type HealthCheck } from '@hcc/client';
import YAML from 'yaml';
import * as apierrors from './apierrors/status.js';
import * as field from './apierrors/field.js';
import type { Store } from './storage/store.js';
import { getOrLookUp } from './handlers/object-ops.js';
import type { Registry } from './registry/registry.js';
import { registerAuthentication, type AuthenticationOptions } from './pipeline/authenticate.js';
import { alwaysAllow, attributesOf, authorizationAttributes, authorize, type Authorizer } from './pipeline/authorize.js';
import { resolveRequestInfo, type RequestInfo } from './pipeline/request-info.js';
import { MaxRequestBodyBytes, nestsDeeperThan } from './pipeline/decode.js';
import { checkMetadataShape, isPrettyPrint, negotiateResource, wantsYAML, wantsYAMLStatus } from './pipeline/negotiate.js';
import {
  aggregatedDiscovery,
  apiGroupDoc,
  apiGroupList,
  listedPaths,
  apiResourceList,
  apiVersions,
  versionInfo,
  wantsAggregated,
} from './discovery/discovery.js';
import { OpenAPIBuilder } from './openapi/openapi.js';
import { OpenAPIV2ProtobufMediaType } from './openapi/v2-protobuf.js';
import type { RequestScope } from './handlers/scope.js';
import { getObject, listObjects, renderObject } from './handlers/read.js';
import { handleCreate, handleDelete, handlePatch, handleUpdate, optionsKindOf } from './handlers/write.js';
import { renderScale, toScale } from './handlers/scale.js';
import { parseIncludeObject } from './pipeline/table.js';
import { firstQueryValue } from './pipeline/list-options.js';
import { handleBinding, hasBinding } from './handlers/binding.js';
import { PlacementCounts } from './handlers/placement-capacity.js';
import { cachedJSON } from './storage/json-cache.js';
import { runAdmission, type ValidatingAdmission } from './pipeline/admit/admission.js';
import { placementAdmission } from './pipeline/admit/validating/placement.js';
import { placementAnnotationsAdmission } from './pipeline/admit/validating/placement-annotations.js';
import { managementClusterRestrictionAdmission } from './pipeline/admit/validating/management-cluster-restriction.js';
import { managementClusterSecretRefAdmission } from './pipeline/admit/validating/management-cluster-secret-ref.js';
import { managementClusterAuthorizer } from './pipeline/management-cluster-authorizer.js';
import { handleDeleteCollection } from './handlers/delete-collection.js';
import { warningsToSend } from './pipeline/warnings.js';
import { parseGoDuration } from './registry/schema/cel-values.js';
import { decodeReview, reviewKinds, reviewPath, selfSubjectAccessReview, selfSubjectReview, selfSubjectRulesReview } from './handlers/self-review.js';
import { defaultWatchOptions, serveWatch, activeWatches, type WatchOptions } from './handlers/watch.js';
import { fanoutGroupCount } from './handlers/watch-fanout.js';
import { createRequestRecorder, type ControlCenterMetrics, type RequestLabels } from './metrics.js';
import { storageKey, type FieldValidation, type ResourceInfo, type StrategyContext } from './registry/types.js';
import { crdNamesInUse } from './registry/builtin/customresourcedefinitions.js';
import type { KubeObject } from '@hcc/crds';
import type { SchemaChecker } from './registry/schema/validation-pool.js';
import { registerGracefulShutdown, ShutdownRetryAfterSeconds, type ShutdownOptions } from './graceful-shutdown.js';

/** What buildServer needs. */
export interface ServerDeps {
  /** How long a client may take to send a whole request, in milliseconds (default {@link RequestReceiveTimeoutMs}; tests shorten it). */
  requestTimeoutMs?: number;
  store: Store;
  registry: Registry;
  logger: Logger;
  metrics: ControlCenterMetrics;
  authentication: AuthenticationOptions;
  authorizer?: Authorizer;
  watch?: Partial<WatchOptions>;
  /** Returns true once the server is ready for traffic (store open, built-ins in place). */
  ready: () => boolean;
  /** Clock (tests inject one). */
  now?: () => Date;
  /** Validating admission plugins, run on every create and update (default: placement). */
  admission?: readonly ValidatingAdmission[];
  /** Serve HTTPS with this key and certificate (PEM); plain HTTP when absent. */
  https?: { key: string; cert: string };
  /** Where schema checks of new custom resources run (validation workers); absent: in-process. */
  schemaChecker?: SchemaChecker;
  /** Shutdown drain tunables (graceful-shutdown.ts). */
  shutdown?: ShutdownOptions;
  /** Namespaces that may not be deleted besides default, kube-system and kube-public (names). */
  immortalNamespaces?: readonly string[];
}

/** Objects nested deeper than this (levels) are answered as JSON text to `Accept: application/yaml`. */
const YAMLWriterMaxDepth = 100;

/**
 * A YAML reply (Accept: application/yaml): the JSON body as YAML with keys in the order the JSON
 * has them (kube-apiserver's sigs.k8s.io/yaml sorts them; both are the same document). Written as
 * YAML 1.1, as go-yaml writes it, so strings such as "yes", "on" or "0o17" are quoted and read
 * back as strings by kubectl, client-go and hcc itself (goYAMLOptions).
 */
function sendYAML(reply: FastifyReply, code: number, body: unknown): FastifyReply {
  const value: unknown = typeof body === 'string' ? JSON.parse(body) : body;
  return sendBody(reply.code(code).header('cache-control', 'no-cache, private'), 'application/yaml', toYAMLText(value));
}

/** A JSON value as the YAML text {@link sendYAML} writes. */
function toYAMLText(value: unknown): string {
  // The YAML writer recurses per level, several frames each (see MaxNestingDepth): an object
  // nested deeper than any real one (objects may nest to 500) is written as JSON text, which is a
  // YAML document too.
  return nestsDeeperThan(value, YAMLWriterMaxDepth) ? JSON.stringify(value) : YAML.stringify(value, { ...goYAMLOptions, lineWidth: 0 });
}

/** Whether an If-None-Match header (`*`, or a list of strong or weak tags) matches `etag` (quoted). */
function ifNoneMatch(header: string | undefined, etag: string): boolean {
  return header !== undefined && (header === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag));
}

/**
 * A JSON reply with Kubernetes headers, indented when the request asks for it (`?pretty=true`, or
 * curl's User-Agent: {@link isPrettyPrint}) or `indent` is set, as kube-apiserver's negotiated
 * writer picks its pretty serializer (json.MarshalIndent, two spaces).
 * @param indent - always indent (kube-apiserver's WriteRawJSON, which serves `/version`)
 */
function sendJSON(reply: FastifyReply, code: number, body: unknown, contentType = 'application/json', indent = false): FastifyReply {
  const req = reply.request;
  const pretty = indent || isPrettyPrint((req.query as Record<string, unknown> | undefined)?.pretty, req.headers['user-agent']);
  let text = typeof body === 'string' ? body : (body !== null && typeof body === 'object' && cachedJSON(body)) || JSON.stringify(body);
  if (pretty) text = JSON.stringify(typeof body === 'string' ? JSON.parse(body) : body, null, 2);
  return sendBody(reply.code(code).header('cache-control', 'no-cache, private'), contentType, text);
}

/**
 * An error answer: the Status as YAML when the request's Accept header picks `application/yaml`
 * (see {@link wantsYAMLStatus}), else as JSON (indented for curl or `?pretty`), as kube-apiserver's
 * responsewriters.ErrorNegotiated negotiates a Status like any object (its WriteObjectNegotiated;
 * an Accept nothing can serve gets JSON).
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/responsewriters/writers.go
 */
function sendStatus(reply: FastifyReply, code: number, status: unknown): FastifyReply {
  const { contentType, text } = statusBody(reply.request, status);
  return sendBody(reply.code(code).header('cache-control', 'no-cache, private'), contentType, text);
}

/**
 * The bytes and Content-Type of an error answer, for {@link sendStatus} and for one written on a
 * raw (hijacked) response, such as a watch refused before its stream starts.
 */
function statusBody(req: FastifyRequest, status: unknown): { contentType: string; text: string } {
  const accept = req.headers.accept;
  if (accept?.includes('yaml') && wantsYAMLStatus(accept)) return { contentType: 'application/yaml', text: toYAMLText(status) };
  const pretty = isPrettyPrint((req.query as Record<string, unknown> | undefined)?.pretty, req.headers['user-agent']);
  return { contentType: 'application/json', text: pretty ? JSON.stringify(status, null, 2) : JSON.stringify(status) };
}

/**
 * Sends a body with exactly the Content-Type given, as kube-apiserver writes it: the one place
 * every JSON, YAML and OpenAPI answer leaves. Text goes as its UTF-8 bytes, because fastify appends
 * `; charset=utf-8` to a JSON type sent with a string (and rewrites `application/json;g=...;v=...`
 * with quoted parameters), and because Node writes a Buffer's headers byte for byte (a warning's
 * UTF-8: see warningHeaderValue).
 */
function sendBody(reply: FastifyReply, contentType: string, body: string | Buffer): FastifyReply {
  return reply.header('content-type', contentType).send(typeof body === 'string' ? Buffer.from(body) : body);
}

/**
 * TLS cipher suites in the server's order of preference: AES-128-GCM first, as Go's crypto/tls
 * (kube-apiserver) prefers on CPUs with AES instructions, then Node's defaults. AES-128-GCM costs
 * ~20% less CPU per byte than AES-256-GCM, which Node would otherwise pick; watch fan-out encrypts
 * every event once per watcher. The bench's fastify baseline uses the same list.
 * @see https://go.dev/blog/tls-cipher-suites
 */
export const CipherPreference = ['TLS_AES_128_GCM_SHA256', ...tls.DEFAULT_CIPHERS.split(':').filter((c) => c !== 'TLS_AES_128_GCM_SHA256')].join(':');

/** How much of a too-large body is read and dropped before the 413 (bytes), and for how long (ms). */
const DiscardBodyBytes = 64 * 1024 * 1024;
const DiscardBodyMs = 10_000;

/**
 * Reads and drops what is left of a request body, so the client has finished sending when the
 * answer comes and the connection closes. Resolves at the body's end, after
 * {@link DiscardBodyBytes} or {@link DiscardBodyMs} (then the client may see the connection
 * reset), or when the connection closes; never rejects.
 */
function discardBody(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DiscardBodyBytes) done();
    };
    const timer = setTimeout(done, DiscardBodyMs);
    req.on('data', onData).once('end', done).once('close', done).once('error', done);
    req.resume();
  });
}

/**
 * The metric labels of a request: its verb, and the group, resource and subresource only when the
 * server serves them; a request for anything else (a 404 for a made-up path) is counted with the
 * three left empty, so clients cannot add series at will (kubernetes/kubernetes#76302, #141007).
 * @param ri the request's RequestInfo
 * @param info what the registry serves at ri's group/version/resource, if anything
 */
export function requestLabels(ri: RequestInfo, info: ResourceInfo | undefined): RequestLabels {
  const sub = ri.subresource;
  const served =
    !!info &&
    !(info.namespaced === false && ri.namespace) &&
    (!sub ||
      (sub === 'status' && info.subresources.status) ||
      (sub === 'scale' && !!info.subresources.scale) ||
      (sub === 'finalize' && !!info.subresources.finalize) ||
      (sub === 'binding' && hasBinding(info.group, info.resource)));
  return served ? { verb: ri.verb, group: info.group, resource: info.resource, subresource: sub } : { verb: ri.verb, group: '', resource: '', subresource: '' };
}

/**
 * The `fieldValidation` parameter of a create, update or patch (`Warn` when absent; ignored on
 * other verbs, whose options have no such field).
 * @throws StatusError 422 `<CreateOptions|UpdateOptions|PatchOptions>.meta.k8s.io "" is invalid:
 *   fieldValidation: Unsupported value`, as kube-apiserver's ValidateCreateOptions and friends
 */
function fieldValidationOf(query: Record<string, unknown>, verb: string): FieldValidation {
  const v = Array.isArray(query.fieldValidation) ? query.fieldValidation[0] : query.fieldValidation;
  const kind = optionsKindOf(verb);
  if (v === undefined || v === '' || !kind || kind === 'DeleteOptions') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw apierrors.invalid({ group: 'meta.k8s.io', kind }, '', [field.notSupported('fieldValidation', v, ['Ignore', 'Strict', 'Warn'])]);
}

/**
 * Smallest response gzipped for a client that sends `Accept-Encoding: gzip`, in bytes
 * (kube-apiserver's defaultGzipThresholdBytes).
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/writers.go
 */
export const GzipThresholdBytes = 128 * 1024;

/**
 * Largest request head (request line and headers) accepted, in bytes: Go's http.Server default
 * MaxHeaderBytes (1 MiB), which kube-apiserver keeps, so a long `labelSelector=x in (...)` URL or
 * a large header that works there works here (Node's own default is 16 KiB).
 */
export const MaxHeaderBytes = 1024 * 1024;

/** How long a client may take to send a whole request (head and body), in milliseconds: kube-apiserver's default `--request-timeout` (60 s). */
export const RequestReceiveTimeoutMs = 60_000;

/**
 * Answers a request the HTTP parser refused (a head over {@link MaxHeaderBytes}, a malformed
 * request, a client too slow to send its head) with a Kubernetes `Status` instead of fastify's own
 * JSON shape, then closes the connection (its stream position is unknown).
 */
function clientErrorHandler(err: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [apierrors.requestHeaderFieldsTooLarge(MaxHeaderBytes).status, 'Request Header Fields Too Large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [apierrors.requestTimeout().status, 'Request Timeout']
        : [apierrors.badRequest(`malformed HTTP request: ${err.message}`).status, 'Bad Request'];
  const body = JSON.stringify(status);
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status.code} ${text}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

/**
 * The compiler factory fastify gets instead of its Ajv and fast-json-stringify defaults: hcc's
 * routes declare no fastify schemas, so it is never called.
 * @throws Error when a route declares one after all (a programming error)
 */
function noRouteSchemas(): never {
  throw new Error('hcc routes declare no fastify JSON schemas; validation runs in the request pipeline');
}

/**
 * Sets the response's `Warning` headers, one per warning (`299 - "text"`, as kube-apiserver
 * sends them; reply.header with a single value would keep only the last one), deduplicated and
 * truncated as kube-apiserver's recorder does ({@link warningsToSend}).
 */
function setWarningHeaders(reply: FastifyReply, warnings: readonly string[]): void {
  if (!warnings.length) return;
  reply.header('warning', warningsToSend(warnings).map(warningHeaderValue));
}

/**
 * One `Warning` header value, `299 - "text"`, with the text's UTF-8 bytes as they go on the wire:
 * kube-apiserver (Go) writes header values as UTF-8 and client-go reads them so, while Node takes
 * a header string as Latin-1 and refuses a character above U+00FF (a warning naming an unknown
 * field `данные` was a 500 after the write was stored). Each UTF-8 byte becomes the Latin-1
 * character Node writes back as that byte (with a Buffer body, as {@link sendBody} sends every one:
 * Node writes the headers joined to a string body in that string's encoding, UTF-8, which would
 * encode those bytes twice).
 */
export function warningHeaderValue(text: string): string {
  return Buffer.from(`299 - ${JSON.stringify(text)}`, 'utf8').toString('latin1');
}

/** Builds the fastify instance (not listening yet). */
export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const { store, registry, metrics } = deps;
  const recordRequest = createRequestRecorder(metrics);
  const now = deps.now ?? (() => new Date());
  // A syncer identity reads only its own cluster's Secrets and ConfigMaps, whatever the policy.
  const authorizer = managementClusterAuthorizer(deps.authorizer ?? alwaysAllow, store);
  const watchOpts: WatchOptions = { ...defaultWatchOptions, ...deps.watch };
  const openapi = new OpenAPIBuilder(registry);
  const admission = deps.admission ?? [placementAdmission, placementAnnotationsAdmission, managementClusterRestrictionAdmission, managementClusterSecretRefAdmission];
  const immortalNamespaces: ReadonlySet<string> = new Set(deps.immortalNamespaces ?? []);
  const requestTimeout = deps.requestTimeoutMs ?? RequestReceiveTimeoutMs;
  // Node looks for timed-out requests this often (its default is 30 s). Node reads both at the
  // server's construction (setting them on the server afterwards, as fastify's own option does, is
  // not enough), so they go to createServer.
  const connectionsCheckingInterval = Math.min(30_000, Math.max(100, Math.floor(requestTimeout / 2)));
  const app = Fastify({
    ...(deps.https
      ? { https: { key: deps.https.key, cert: deps.https.cert, ciphers: CipherPreference, honorCipherOrder: true, maxHeaderSize: MaxHeaderBytes, connectionsCheckingInterval, requestTimeout } }
      : { http: { maxHeaderSize: MaxHeaderBytes, connectionsCheckingInterval, requestTimeout } }),
    clientErrorHandler,
    // A URL fastify cannot route (a malformed %-escape) is a 400 Status like every other error.
    frameworkErrors: (err, _req, reply) => sendStatus(reply, 400, apierrors.badRequest(err.message).status),
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: MaxRequestBodyBytes,
    // Graceful shutdown (graceful-shutdown.ts): requests in flight finish, new ones get a 429
    // Status, idle keep-alive connections close after the drain window.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    keepAliveTimeout: 120_000,
    // A request whose body stalls is answered 408 and closed after this long (Node checks every
    // 30 s), as kube-apiserver's 60 s request timeout ends it: before, a client that stopped
    // mid-body held its connection for as long as it liked. A watch is long-running only after
    // its request was received, so this never ends one.
    requestTimeout,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    // No route declares a fastify JSON schema (requests are validated against the API's own
    // schemas in the pipeline): fastify's default compilers (Ajv, fast-json-stringify, ~100 ms
    // to load) are never needed, so they are not loaded.
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
  }) as unknown as FastifyInstance;

  // Responses over 128 KiB are gzipped (level 1) for clients that accept it, as kube-apiserver's
  // APIResponseCompression does; kubectl and client-go ask for gzip, hcc's own clients do not.
  // Watches are streamed and never compressed (kube-apiserver's are not either). Request bodies
  // are taken as sent.
  // Loaded now (awaited), so its hooks reach every route declared below.
  await app.register(fastifyCompress, {
    globalCompression: true,
    globalDecompression: false,
    encodings: ['gzip'],
    threshold: GzipThresholdBytes,
    zlibOptions: { level: 1 },
    customTypes: () => true,
  });

  // What each ManagementCluster holds, for the binding subresource's capacity guard (placement-capacity.ts).
  const placements = new PlacementCounts(store);
  placements.start();
  app.addHook('onClose', async () => placements.stop());

  // Decode: every body arrives as a Buffer; handlers decode it by Content-Type (pipeline/decode.ts).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  // Shutdown: drain as kube-apiserver does (graceful-shutdown.ts). First hook, so a request
  // during shutdown is answered before authentication.
  const shutdown = registerGracefulShutdown(
    app,
    (reply) => sendStatus(reply, 429, apierrors.tooManyRequests('The apiserver is shutting down, please try again later.', ShutdownRetryAfterSeconds).status),
    deps.shutdown,
  );

  // The `timeout` parameter: hcc answers well within any timeout, but one that is no Go duration
  // is a 400, as kube-apiserver's WithRequestDeadline filter answers it (before authentication;
  // a watch, long-running, is not checked there).
  app.addHook('onRequest', async (req) => {
    const q = req.query as Record<string, unknown> | undefined;
    const raw = q?.timeout;
    const t = Array.isArray(raw) ? raw[0] : raw;
    if (typeof t !== 'string' || t === '' || parseGoDuration(t) !== undefined) return;
    // A watch as kube's RequestInfoFactory tells one (`watch=True` too; a named GET's `watch` is a get).
    if (resolveRequestInfo(req.method, req.url, q ?? {}).verb === 'watch') return;
    throw apierrors.badRequest(`invalid timeout specified in the request URL - time: invalid duration ${JSON.stringify(t)}`);
  });

  // Authenticate.
  registerAuthentication(app, deps.authentication, authorizer);

  // Respond: every error is a Status.
  app.setErrorHandler((err: unknown, req, reply) => {
    if (err instanceof apierrors.StatusError) {
      // As responsewriters.ErrorNegotiated: a Status asking for a retry delay also says so in Retry-After.
      const after = err.status.details?.retryAfterSeconds;
      if (after && after > 0) reply.header('retry-after', String(after));
      return sendStatus(reply, err.code, err.status);
    }
    const e = err as { statusCode?: number; code?: string; message?: string };
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // Read the rest of the body before answering: a client still sending when the connection
      // closes gets a broken pipe instead of the 413 (Go's net/http reads on for the same reason).
      return discardBody(req.raw).then(() => sendStatus(reply, 413, apierrors.requestEntityTooLarge(`limit is ${MaxRequestBodyBytes}`).status));
    }
    // A Content-Type the framework cannot even parse (`application/json, text/plain`): 415 with
    // the Status kube's negotiation answers, its code the HTTP code.
    if (e.statusCode === 415) return sendStatus(reply, 415, apierrors.unsupportedMediaType().status);
    if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
      const status = apierrors.badRequest(e.message ?? 'bad request').status;
      return sendStatus(reply, e.statusCode, { ...status, code: e.statusCode });
    }
    req.log.error({ err }, 'internal error');
    return sendStatus(reply, 500, apierrors.internalError(e.message).status);
  });
  // As kube-apiserver, which authorizes before it routes: a path nothing serves is a 404 only to
  // whom the policy allows that path, a 403 to anyone else.
  app.setNotFoundHandler(async (req, reply) => {
    authorizePath(req);
    return sendStatus(reply, 404, apierrors.noResource().status);
  });

  // Health, metrics, version.
  // As kube-apiserver: `ok`, ?verbose and ?exclude, one check at /readyz/<name> (healthAnswer).
  const health = async (req: FastifyRequest, reply: FastifyReply) => {
    const [path = '', query = ''] = req.url.split('?', 2);
    const h = healthPath(path);
    // `/readyz//` and the like name no check: not found, as kube-apiserver's mux answers.
    if (!h) return reply.code(404).type('text/plain; charset=utf-8').send('404 page not found\n');
    const checks: HealthCheck[] = [{ name: 'ping' }];
    // As kube-apiserver's `etcd` check (on /readyz and /healthz, not /livez: an etcd outage is no
    // reason to restart the server; a local store that failed exits the process itself).
    if (h.endpoint !== 'livez' && store.checkHealth) checks.push({ name: store.healthCheckName ?? 'etcd', failure: await store.checkHealth() });
    if (h.endpoint === 'readyz') checks.push({ name: 'serving', failure: deps.ready() ? '' : 'not ready' });
    const a = healthAnswer(h.endpoint, checks, query, h.only);
    return reply.code(a.code).type('text/plain; charset=utf-8').send(a.body);
  };
  // /metrics, discovery, OpenAPI and single health checks are non-resource paths: with a policy,
  // only what it allows (upstream's system:discovery role gives discovery and OpenAPI to
  // authenticated users, not to anonymous ones; system:monitoring `/readyz/*` and `/metrics`).
  // As kube-apiserver: the decoded path (what is served: `/%6Detrics` is /metrics) and the request's
  // own verb, lower-cased (`head` for HEAD).
  const authorizePath = (req: FastifyRequest) => {
    const raw = req.url.split('?')[0]!;
    let path = raw;
    try {
      path = decodeURIComponent(raw);
    } catch {
      // a malformed escape is refused by the router; authorized as sent meanwhile
    }
    authorize(authorizer, req.user, attributesOf({ isResourceRequest: false, verb: req.method.toLowerCase(), path }));
  };
  for (const endpoint of ['healthz', 'livez', 'readyz']) {
    app.get(`/${endpoint}`, health);
    app.get(`/${endpoint}/:check`, async (req, reply) => {
      authorizePath(req);
      return health(req, reply);
    });
  }
  app.get('/metrics', async (req, reply) => {
    // As kube-apiserver: an authenticated GET of the non-resource URL /metrics (RBAC:
    // nonResourceURLs ["/metrics"], e.g. upstream's system:monitoring; every user without a policy).
    authorizePath(req);
    metrics.watches.set(activeWatches);
    metrics.fanoutGroups.set(fanoutGroupCount(store));
    metrics.revision.set(store.currentRevision());
    metrics.corrupt.set(store.corruptCount?.() ?? 0);
    metrics.objects.reset();
    for (const r of registry.all()) {
      if (r.version !== r.storageVersion) continue;
      metrics.objects.set({ resource: r.group ? `${r.resource}.${r.group}` : r.resource }, store.count(`/${r.group || 'core'}/${r.resource}/`));
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  // The index: every path served, for whom the policy allows `/` (kube-apiserver's routes.Index;
  // upstream's system:discovery role does not list it: with a policy, grant nonResourceURLs ["/"]).
  const index = async (req: FastifyRequest, reply: FastifyReply) => {
    authorizePath(req);
    const checks = (endpoint: string) => ['ping', ...(endpoint !== 'livez' && store.checkHealth ? [store.healthCheckName ?? 'etcd'] : []), ...(endpoint === 'readyz' ? ['serving'] : [])];
    const health = ['healthz', 'livez', 'readyz'].flatMap((e) => [`/${e}`, ...checks(e).map((c) => `/${e}/${c}`)]);
    return sendJSON(reply, 200, { paths: listedPaths(registry, [...health, '/metrics', '/openapi/v2', '/openapi/v3', '/openapi/v3/', '/version']) }, 'application/json', true);
  };
  app.get('/', index);
  app.get('/index.html', index);
  // Indented whatever was asked, as kube-apiserver's WriteRawJSON writes it.
  app.get('/version', async (_req, reply) => sendJSON(reply, 200, versionInfo(), 'application/json', true));

  // OpenAPI.
  // Served with an ETag per form (JSON, protobuf), and 304 to an If-None-Match of it, as
  // kube-openapi's handler does; the answer varies by Accept.
  app.get('/openapi/v2', async (req, reply) => {
    authorizePath(req);
    const accept = req.headers.accept ?? '';
    // The gnostic protobuf form client-go asks for: kubectl before 1.27 reads `explain`,
    // client-side validation and dry-run support (`kubectl diff`) from it.
    const proto = accept.includes('protobuf') && !/application\/json/.test(accept);
    const doc = proto ? openapi.v2Protobuf() : openapi.v2();
    const etag = `"${doc.hash}"`;
    reply.header('etag', etag).header('vary', 'Accept');
    if (ifNoneMatch(req.headers['if-none-match'], etag)) return reply.code(304).send();
    return sendBody(reply, proto ? OpenAPIV2ProtobufMediaType : 'application/json', doc.body);
  });
  app.get('/openapi/v3', async (req, reply) => {
    authorizePath(req);
    return sendJSON(reply, 200, openapi.v3Root());
  });
  // As kube-openapi's handler3 serves a group version: a `?hash=` other than the current one is a
  // 301 to the current URL; with the current one the answer may be cached for good (immutable,
  // expires in a year, varies by Accept); an If-None-Match of the current ETag is a 304.
  app.get('/openapi/v3/*', async (req, reply) => {
    authorizePath(req);
    const gv = (req.params as { '*': string })['*'];
    const doc = openapi.v3(gv);
    if (!doc) return sendStatus(reply, 404, apierrors.noResource().status);
    const hash = firstQueryValue((req.query as Record<string, unknown>).hash);
    if (hash !== '' && hash !== doc.hash) return reply.redirect(`/openapi/v3/${gv}?hash=${doc.hash}`, 301);
    const etag = `"${doc.hash}"`;
    reply.header('etag', etag);
    if (hash !== '') {
      reply.header('vary', 'Accept').header('cache-control', 'public, immutable').header('expires', new Date(Date.now() + 365 * 86_400_000).toUTCString());
    }
    if (ifNoneMatch(req.headers['if-none-match'], etag)) return reply.code(304).send();
    return sendBody(reply, 'application/json', doc.body);
  });

  // Discovery.
  const serverAddress = () => `${app.server.address() && typeof app.server.address() === 'object' ? `127.0.0.1:${(app.server.address() as { port: number }).port}` : ''}`;
  const discovery = (req: FastifyRequest, reply: FastifyReply, core: boolean, legacy: () => unknown) => {
    authorizePath(req);
    const agg = wantsAggregated(req.headers.accept);
    if (agg) {
      return sendJSON(reply, 200, aggregatedDiscovery(registry, core, agg), `application/json;g=apidiscovery.k8s.io;v=${agg};as=APIGroupDiscoveryList`);
    }
    return sendJSON(reply, 200, legacy());
  };
  app.get('/api', async (req, reply) => discovery(req, reply, true, () => apiVersions(serverAddress())));
  app.get('/apis', async (req, reply) => discovery(req, reply, false, () => apiGroupList(registry)));
  // A write to either is a 405 naming the path, as to a group's or version's document below.
  for (const url of ['/api', '/apis']) {
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE'],
      url,
      handler: async (req) => {
        authorizePath(req);
        throw apierrors.methodNotAllowedOnPath(req.method, url);
      },
    });
  }

  // The reviews a user asks about themselves (kubectl auth can-i [--list] / whoami): answered, not
  // stored, so create is their only verb (405 for the others, as kube-apiserver); counted in the
  // request metrics like any served resource.
  const answers: Record<string, (review: KubeObject, user: FastifyRequest['user']) => unknown> = {
    SelfSubjectAccessReview: (review, user) => selfSubjectAccessReview(review, user, authorizer),
    SelfSubjectRulesReview: (review, user) => selfSubjectRulesReview(review, user, authorizer),
    SelfSubjectReview: (_review, user) => selfSubjectReview(user),
  };
  for (const r of reviewKinds) {
    app.route({
      method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: reviewPath(r),
      handler: async (req, reply) => {
        const started = process.hrtime.bigint();
        const query = (req.query ?? {}) as Record<string, unknown>;
        const ri = resolveRequestInfo(req.method, req.url, query);
        let code = 500;
        try {
          // As any resource request, authorized first: every authenticated user may create these
          // (system:basic-user), anonymous ones may not.
          authorize(authorizer, req.user, authorizationAttributes(ri, query));
          if (req.method !== 'POST') throw apierrors.methodNotAllowed(req.method, { group: ri.group, resource: ri.resource });
          const ctx: StrategyContext = { fieldValidation: fieldValidationOf(query, 'create'), warnings: [], now: now() };
          const review = decodeReview(r, req.headers['content-type'], req.body as Buffer | undefined, ctx);
          const answer = answers[r.kind]!(review, req.user);
          setWarningHeaders(reply, ctx.warnings);
          const out = sendJSON(reply, 201, answer);
          code = 201;
          return out;
        } catch (err) {
          if (err instanceof apierrors.StatusError) code = err.code;
          throw err;
        } finally {
          recordRequest({ verb: ri.verb, group: ri.group, resource: ri.resource, subresource: '' }, code, Number(process.hrtime.bigint() - started) / 1e9);
        }
      },
    });
  }

  // Resources (and per-group discovery under the same prefixes).
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    const ri = resolveRequestInfo(req.method, req.url, query);
    if (!ri.isResourceRequest) {
      authorizePath(req);
      if (req.method !== 'GET') throw apierrors.methodNotAllowedOnPath(req.method, req.url.split('?')[0]!);
      const doc =
        ri.apiPrefix === 'api'
          ? ri.parts.length === 1 ? apiResourceList(registry, '', ri.parts[0]!) : undefined
          : ri.parts.length === 1 && ri.group === '' ? apiGroupDoc(registry, ri.parts[0]!) : ri.group ? apiResourceList(registry, ri.group, ri.version) : undefined;
      if (!doc) throw apierrors.noResource();
      return sendJSON(reply, 200, doc);
    }
    return serveResource(req, reply, ri, query);
  };

  // What a CRD's NamesAccepted is decided against (the names the other CRDs of its group hold).
  const namesInUse = crdNamesInUse(store);

  const serveResource = async (req: FastifyRequest, reply: FastifyReply, ri: RequestInfo, query: Record<string, unknown>) => {
    const started = process.hrtime.bigint();
    const info = registry.lookup(ri.group, ri.version, ri.resource);
    let code = 500;
    try {
      authorize(authorizer, req.user, authorizationAttributes(ri, query));
      const authorizeCreate = () => authorize(authorizer, req.user, { ...ri, verb: 'create' });
      // A server-side apply that would create the object needs `create` too (handlers/patch.go);
      // checked again in the transaction (authorizeCreate below), which settles a race with a delete.
      // An object this server's copy lacks is looked for in storage first (Store.syncToLatest, as
      // kube-apiserver reads etcd): one created through another control center on the same etcd
      // is there, and an apply to it is no create.
      if (ri.verb === 'patch' && !ri.subresource && info && /^application\/apply-patch\+yaml\b/.test(req.headers['content-type'] ?? '')) {
        if (!(await getOrLookUp(store, storageKey(info, ri.namespace, ri.name)))) authorizeCreate();
      }
      if (!info) throw apierrors.noResource();
      if (info.namespaced === false && ri.namespace) throw apierrors.noResource();
      // Segments past a subresource (`.../NAME/status/x`) name no route in kube-apiserver; served,
      // they were the subresource.
      if (ri.parts.length > 3) throw apierrors.noResource();
      // Nor does a namespaced kind's object at a cluster-scope URL (`/api/v1/configmaps/NAME`,
      // whose watch streamed that name from every namespace).
      if (info.namespaced && !ri.namespace && ri.name) throw apierrors.noResource();
      // The binding subresource takes POST only, as pods/binding: any other method is a 405.
      if (ri.subresource === 'binding' && ri.name && hasBinding(info.group, info.resource) && ['get', 'update', 'patch', 'delete'].includes(ri.verb)) throw apierrors.methodNotAllowedOnRoute();
      const scope: RequestScope = {
        ri,
        info,
        store,
        registry,
        user: req.user.name,
        userAgent: req.headers['user-agent'] ?? '',
        authorizeCreate,
        placements,
        authorizeVerb: (verb) => {
          const d = authorizer(req.user, { ...authorizationAttributes(ri, query), verb });
          return d.allowed ? undefined : d.reason;
        },
        ctx: {
          fieldValidation: fieldValidationOf(query, ri.verb),
          warnings: [],
          now: now(),
          admit: (i, obj, old, op) =>
            runAdmission(admission, {
              info: i,
              operation: op ?? (old ? 'UPDATE' : 'CREATE'),
              obj,
              old,
              user: req.user,
              store,
              warn: (w) => scope.ctx.warnings.push(w),
              mayAccess: (verb, t) => authorizer(req.user, { ...ri, isResourceRequest: true, verb, group: t.group, version: 'v1', resource: t.resource, subresource: '', namespace: t.namespace, name: t.name, parts: [] }).allowed,
            }),
          userGroups: req.user.groups,
          crdNamesInUse: namesInUse,
          ...(deps.schemaChecker ? { schemaChecker: deps.schemaChecker } : {}),
          ...(immortalNamespaces.size ? { immortalNamespaces } : {}),
        },
      };
      // Every request to a deprecated CRD version is warned, as apiextensions-apiserver warns it.
      if (info.deprecationWarning) scope.ctx.warnings.push(info.deprecationWarning);
      const body = req.body as Buffer | undefined;
      const ct = req.headers['content-type'];
      let result: { code: number; body: unknown };
      switch (ri.verb) {
        case 'get': {
          const shape = negotiateResource(req.headers.accept);
          if (ri.subresource === 'scale' && info.subresources.scale) {
            const scale = toScale(info, await getObject(scope, query));
            checkMetadataShape(shape, false);
            result = { code: 200, body: renderScale(scale, shape, parseIncludeObject(query.includeObject), scope.ctx.now) };
            break;
          }
          if (ri.subresource && !(ri.subresource === 'status' && info.subresources.status)) throw apierrors.noResource();
          checkMetadataShape(shape, false);
          result = { code: 200, body: renderObject(scope, await getObject(scope, query), shape, query) };
          break;
        }
        case 'list': {
          const shape = negotiateResource(req.headers.accept);
          checkMetadataShape(shape, true);
          result = { code: 200, body: await listObjects(scope, shape, query) };
          break;
        }
        case 'watch': {
          // A watch of a subresource (`/watch/.../NAME/status`) has no route in kube-apiserver;
          // served, it would stream the whole object to a user authorized for the subresource only.
          if (ri.subresource) throw apierrors.noResource();
          // As kube-apiserver's ListResource: the Accept header is first negotiated as for a list
          // (so its errors can be written: `application/yaml` passes), the parameters checked,
          // then the stream's own negotiation (serveWatch; YAML has no watch framing: 406).
          negotiateResource(req.headers.accept);
          reply.hijack();
          code = 200;
          // Headers set now go out with the stream's own (its writeHead keeps them).
          if (scope.ctx.warnings.length) reply.raw.setHeader('warning', warningsToSend(scope.ctx.warnings).map(warningHeaderValue));
          let untrack: (() => void) | undefined;
          try {
            await serveWatch(scope, req.headers.accept, query, reply.raw, (end) => (untrack = shutdown.trackWatch(req.raw.socket, end)), watchOpts);
          } finally {
            untrack?.();
          }
          return;
        }
        case 'create':
          if (info.terminating && !ri.subresource) throw apierrors.crdTerminating('create');
          if (ri.subresource === 'binding' && hasBinding(info.group, info.resource)) result = await handleBinding(scope, ct, body, query);
          else result = await handleCreate(scope, ct, body, query);
          break;
        case 'update':
        case 'patch':
          // A collection takes no PUT or PATCH (kube-apiserver serves no such route: 405).
          if (!ri.name) throw apierrors.methodNotAllowed(req.method, { group: ri.group, resource: ri.resource });
          result = ri.verb === 'update' ? await handleUpdate(scope, ct, body, query) : await handlePatch(scope, ct, body, query);
          break;
        case 'delete':
          result = await handleDelete(scope, ct, body, query);
          break;
        case 'deletecollection':
          result = await handleDeleteCollection(scope, ct, body, query);
          break;
        default:
          throw apierrors.methodNotAllowed(req.method, { group: ri.group, resource: ri.resource });
      }
      code = result.code;
      setWarningHeaders(reply, scope.ctx.warnings);
      if (req.headers.accept?.includes('yaml') && wantsYAML(req.headers.accept)) return sendYAML(reply, result.code, result.body);
      return sendJSON(reply, result.code, result.body);
    } catch (err) {
      if (err instanceof apierrors.StatusError) code = err.code;
      // A deprecated version's warning goes with its errors too (kube-apiserver's warnings ride the request context).
      if (info?.deprecationWarning && ri.verb !== 'watch' && !reply.sent) setWarningHeaders(reply, [info.deprecationWarning]);
      if (ri.verb === 'watch' && err instanceof apierrors.StatusError && !reply.raw.headersSent) {
        // A watch refused before its stream started (bad options or selectors): the reply is
        // hijacked, so the Status is written on the raw response.
        const after = err.status.details?.retryAfterSeconds;
        const { contentType, text } = statusBody(req, err.status);
        reply.raw.writeHead(err.code, { 'content-type': contentType, 'cache-control': 'no-cache, private', ...(after ? { 'retry-after': String(after) } : {}) });
        reply.raw.end(text);
        return;
      }
      if (reply.sent || (reply.raw.headersSent && ri.verb === 'watch')) {
        if (!reply.raw.writableEnded) reply.raw.end();
        return;
      }
      throw err;
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      recordRequest(requestLabels(ri, info), code, ri.verb === 'watch' ? undefined : seconds);
      // Who did what, as kube-apiserver's `"HTTP" verb=... URI=... latency=... resp=...` line at -v=3: at debug.
      if (deps.logger.isLevelEnabled('debug')) {
        deps.logger.debug({ verb: ri.verb, uri: req.url, user: req.user?.name, userAgent: req.headers['user-agent'] ?? '', srcIP: req.ip, code, latencyMs: Math.round(seconds * 1e4) / 10 }, 'HTTP');
      }
    }
  };

  for (const prefix of ['/api/*', '/apis/*']) {
    app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], url: prefix, handler });
  }
  return app;
}
