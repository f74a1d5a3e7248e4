/**
 * Content negotiation for responses: JSON objects, `meta.k8s.io` Tables (what `kubectl get`
 * asks for), PartialObjectMetadata, and aggregated discovery documents.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables
 */
import * as apierrors from '../apierrors/status.js';

/** One media range of an Accept header with its parameters. */
export interface MediaRange {
  type: string;
  /** The range's parameters, without `q`. */
  params: Record<string, string>;
  /** Its quality, `q` (1 when not given; a `q` that is no number is 0, as Go's ParseFloat error leaves it). */
  q: number;
}

/**
 * Parses an Accept header into media ranges in the order kube-apiserver tries them: as
 * goautoneg.ParseAccept sorts them, by quality (highest first), then a specific type before a
 * `*` one (`application/yaml` before `application/*` before `*` `/*`), else as written. A range
 * without a `/` other than `*` is dropped, as there.
 * @see https://github.com/munnerz/goautoneg/blob/master/autoneg.go
 */
export function parseAccept(accept: string | undefined): MediaRange[] {
  if (!accept) return [{ type: '*/*', params: {}, q: 1 }];
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [type = '', ...ps] = part.split(';').map((x) => x.trim());
    const t = type.toLowerCase();
    const slash = t.split('/');
    if (!(slash.length === 2 || t === '*')) continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of ps) {
      const i = p.indexOf('=');
      if (i <= 0) continue;
      const key = p.slice(0, i).trim();
      const value = p.slice(i + 1).trim().replace(/^"|"$/g, '');
      if (key === 'q') {
        const n = Number(value);
        q = value !== '' && Number.isFinite(n) ? n : 0;
      } else params[key] = value;
    }
    ranges.push({ type: t === '*' ? '*/*' : t, params, q });
  }
  // Go's sort.Sort of so few ranges is an insertion sort: the same order, kept for equal ones.
  const before = (a: MediaRange, b: MediaRange): boolean => {
    if (a.q > b.q) return true;
    const [at = '', asub = ''] = a.type.split('/');
    const [bt = '', bsub = ''] = b.type.split('/');
    if (at !== '*' && bt === '*') return true;
    return asub !== '*' && bsub === '*';
  };
  for (let i = 1; i < ranges.length; i++) {
    for (let j = i; j > 0 && before(ranges[j]!, ranges[j - 1]!); j--) [ranges[j - 1], ranges[j]] = [ranges[j]!, ranges[j - 1]!];
  }
  return ranges;
}

/** How a resource response is rendered. */
export type ResponseShape =
  | { kind: 'object' }
  | { kind: 'table'; version: 'v1' | 'v1beta1' }
  | { kind: 'metadata'; version: 'v1' | 'v1beta1'; /** `as=PartialObjectMetadataList` (else `as=PartialObjectMetadata`) */ list: boolean };

const jsonTypes = new Set(['application/json', 'application/*', '*/*', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/vnd.kubernetes.protobuf;stream=watch', 'application/json;stream=watch']);

/**
 * The response a resource request's Accept header picks: the first range hcc can serve, with
 * whether an object response is YAML; undefined when no range can be served. The one place the
 * ranges are judged, for {@link negotiateResource} and {@link wantsYAML}.
 */
function pickResponse(accept: string | undefined, stream = false): { shape: ResponseShape; yaml: boolean } | undefined {
  for (const r of parseAccept(accept)) {
    // YAML has no stream framing: kube-apiserver's watch negotiation skips it.
    if (stream && r.type === 'application/yaml') continue;
    if (r.params.as === 'Table' && r.params.g === 'meta.k8s.io' && (r.params.v === 'v1' || r.params.v === 'v1beta1')) {
      if (r.type === 'application/json' || r.type === '*/*') return { shape: { kind: 'table', version: r.params.v }, yaml: false };
      continue;
    }
    if ((r.params.as === 'PartialObjectMetadata' || r.params.as === 'PartialObjectMetadataList') && r.params.g === 'meta.k8s.io') {
      if (r.type === 'application/json' && (r.params.v === 'v1' || r.params.v === 'v1beta1')) {
        return { shape: { kind: 'metadata', version: r.params.v, list: r.params.as === 'PartialObjectMetadataList' }, yaml: false };
      }
      continue;
    }
    if (r.params.as) continue;
    if (r.type === 'application/vnd.kubernetes.protobuf') continue;
    if (jsonTypes.has(r.type)) return { shape: { kind: 'object' }, yaml: r.type === 'application/yaml' };
  }
  return undefined;
}

/**
 * Whether a resource response (an object or a list, not a Table, metadata or a watch) is wanted
 * as YAML: the first range of the Accept header hcc can serve is `application/yaml`, as
 * kube-apiserver's serializer negotiation picks (`kubectl get --raw` with that Accept, curl).
 */
export function wantsYAML(accept: string | undefined): boolean {
  return pickResponse(accept)?.yaml ?? false;
}

/**
 * Whether an error `Status` is answered as YAML: the first range (in {@link parseAccept}'s order)
 * that a Status can take is `application/yaml`. A Status is never a Table or metadata, so ranges
 * asking for one (`as=...`) are passed over, as kube-apiserver's ErrorNegotiated negotiates with
 * DefaultEndpointRestrictions; protobuf, which hcc does not write, too.
 */
export function wantsYAMLStatus(accept: string | undefined): boolean {
  for (const r of parseAccept(accept)) {
    if (r.params.as) continue;
    if (r.type === 'application/yaml') return true;
    if (r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*') return false;
  }
  return false;
}

/**
 * Picks the response shape for a resource request from its Accept header: the first range hcc
 * can serve wins. Protobuf ranges are answered with JSON only when JSON is also acceptable.
 * @throws StatusError 406 NotAcceptable when nothing acceptable can be produced
 */
export function negotiateResource(accept: string | undefined): ResponseShape {
  const picked = pickResponse(accept);
  if (picked) return picked.shape;
  throw notAcceptable('application/json, application/yaml');
}

/**
 * {@link negotiateResource} for a watch: its events are a stream, which YAML cannot frame, so an
 * `application/yaml` range is passed over (`Accept: application/yaml` alone is 406), as
 * kube-apiserver's NegotiateOutputMediaTypeStream takes only serializers with a stream form.
 * @throws StatusError 406 NotAcceptable when nothing acceptable can be produced
 */
export function negotiateWatch(accept: string | undefined): ResponseShape {
  const picked = pickResponse(accept, true);
  if (picked) return picked.shape;
  throw notAcceptable('application/json, application/json;stream=watch');
}

const notAcceptable = (types: string): apierrors.StatusError =>
  new apierrors.StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `only the following media types are accepted: ${types}`, reason: 'NotAcceptable', code: 406 });

/**
 * Checks that a metadata-only Accept asks for the form the endpoint answers with, as
 * kube-apiserver's transformResponseObject does: `as=PartialObjectMetadata` for one object,
 * `as=PartialObjectMetadataList` for a list (a watch's events are objects and take either).
 * @param list - whether the endpoint answers with a list
 * @throws StatusError 406 NotAcceptable on a mismatch
 */
export function checkMetadataShape(shape: ResponseShape, list: boolean): void {
  if (shape.kind !== 'metadata' || shape.list === list) return;
  const message = list
    ? 'you requested PartialObjectMetadata, but the requested object is a list'
    : 'you requested PartialObjectMetadataList, but the requested object is not a list';
  throw new apierrors.StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'NotAcceptable', code: 406 });
}

/** The spellings of true that Go's strconv.ParseBool accepts (kube-apiserver parses `pretty` with it). */
const goTrue = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * Whether a JSON response is indented, as kube-apiserver's isPrettyPrint decides: by the first
 * `pretty` query value when it is not empty (true as Go's strconv.ParseBool reads it: `1`, `t`,
 * `true`, ...; anything else, `pretty=0` or `pretty=yes`, is false), else by a User-Agent of a
 * human's tool (starting with `curl`, `Wget` or `Mozilla/5.0`). Watch events are never indented.
 * @param pretty - the request's `pretty` query value(s), as the query parser gives them
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go
 */
export function isPrettyPrint(pretty: unknown, userAgent: string | undefined): boolean {
  const first = Array.isArray(pretty) ? pretty[0] : pretty;
  if (typeof first === 'string' && first !== '') return goTrue.has(first);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}
