/**
 * Decodes Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`) for the
 * built-in kinds newer kubectl sends that way (`kubectl create namespace`, `kubectl create
 * secret generic`, `kubectl auth can-i`, ... since 1.32): the 4-byte magic `k8s\0`, a `runtime.Unknown` envelope,
 * then the typed message. Only the kinds hcc serves natively are known.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#protobuf-encoding
 * @see https://github.com/kubernetes/api/blob/master/core/v1/generated.proto
 */
import protobuf from 'protobufjs';
import { microTimeFields } from '../registry/builtin/decode.js';
import { setOwn } from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';

const proto = `
syntax = "proto2";
package k8s;
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message OwnerReference { optional string kind = 1; optional string name = 3; optional string uid = 4; optional string apiVersion = 5; optional bool controller = 6; optional bool blockOwnerDeletion = 7; }
message ObjectMeta {
  optional string name = 1; optional string generateName = 2; optional string namespace = 3; optional string selfLink = 4;
  optional string uid = 5; optional string resourceVersion = 6; optional int64 generation = 7;
  optional Time creationTimestamp = 8; optional Time deletionTimestamp = 9; optional int64 deletionGracePeriodSeconds = 10;
  map<string, string> labels = 11; map<string, string> annotations = 12; repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14;
}
message NamespaceSpec { repeated string finalizers = 1; }
message NamespaceStatus { optional string phase = 1; }
message Namespace { optional ObjectMeta metadata = 1; optional NamespaceSpec spec = 2; optional NamespaceStatus status = 3; }
message Secret { optional ObjectMeta metadata = 1; map<string, bytes> data = 2; optional string type = 3; map<string, string> stringData = 4; optional bool immutable = 5; }
message ConfigMap { optional ObjectMeta metadata = 1; map<string, string> data = 2; map<string, bytes> binaryData = 3; optional bool immutable = 4; }
message ObjectReference { optional string kind = 1; optional string namespace = 2; optional string name = 3; optional string uid = 4; optional string apiVersion = 5; optional string resourceVersion = 6; optional string fieldPath = 7; }
message EventSource { optional string component = 1; optional string host = 2; }
message Event { optional ObjectMeta metadata = 1; optional ObjectReference involvedObject = 2; optional string reason = 3; optional string message = 4; optional EventSource source = 5; optional Time firstTimestamp = 6; optional Time lastTimestamp = 7; optional int32 count = 8; optional string type = 9; }
message MicroTime { optional int64 seconds = 1; optional int32 nanos = 2; }
message LeaseSpec { optional string holderIdentity = 1; optional int32 leaseDurationSeconds = 2; optional MicroTime acquireTime = 3; optional MicroTime renewTime = 4; optional int32 leaseTransitions = 5; }
message Lease { optional ObjectMeta metadata = 1; optional LeaseSpec spec = 2; }
message ResourceAttributes { optional string namespace = 1; optional string verb = 2; optional string group = 3; optional string version = 4; optional string resource = 5; optional string subresource = 6; optional string name = 7; }
message NonResourceAttributes { optional string path = 1; optional string verb = 2; }
message SelfSubjectAccessReviewSpec { optional ResourceAttributes resourceAttributes = 1; optional NonResourceAttributes nonResourceAttributes = 2; }
message SelfSubjectAccessReview { optional ObjectMeta metadata = 1; optional SelfSubjectAccessReviewSpec spec = 2; }
message SelfSubjectReview { optional ObjectMeta metadata = 1; }
message SelfSubjectRulesReviewSpec { optional string namespace = 1; }
message SelfSubjectRulesReview { optional ObjectMeta metadata = 1; optional SelfSubjectRulesReviewSpec spec = 2; }
`;

const kindNames: Record<string, string> = {
  'v1/Namespace': 'k8s.Namespace',
  'v1/Secret': 'k8s.Secret',
  'v1/ConfigMap': 'k8s.ConfigMap',
  'v1/Event': 'k8s.Event',
  'coordination.k8s.io/v1/Lease': 'k8s.Lease',
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'k8s.SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'k8s.SelfSubjectRulesReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'k8s.SelfSubjectReview',
};
const typesOf = (r: protobuf.Root) => Object.fromEntries(Object.entries(kindNames).map(([k, t]) => [k, r.lookupType(t)])) as Record<string, protobuf.Type>;

/** For encoding (tests imitating kubectl): maps as maps. */
const root = protobuf.parse(proto, { keepCase: true }).root;
const Unknown = root.lookupType('k8s.Unknown');
const kinds = typesOf(root);

/**
 * For decoding: every map field read as the repeated key/value entries it is on the wire, so that
 * keys such as `__proto__` or `constructor` stay keys (protobufjs fills maps by plain assignment).
 */
const entriesProto = `${proto.replace(/map<string, (string|bytes)> (\w+) = (\d+);/g, (_m, v: string, name: string, n: string) => `repeated ${v === 'bytes' ? 'BytesEntry' : 'StringEntry'} ${name} = ${n};`)}
message StringEntry { optional string key = 1; optional string value = 2; }
message BytesEntry { optional string key = 1; optional bytes value = 2; }
`;
const decodeKinds = typesOf(protobuf.parse(entriesProto, { keepCase: true }).root);
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Map-typed fields: decoded as entries (decodeKinds), turned into objects by mapOf. */
const mapFields = new Set(['labels', 'annotations', 'data', 'stringData', 'binaryData']);

/** One decoded map entry (StringEntry or BytesEntry); an empty value is absent on the wire. */
interface MapEntry {
  key?: string;
  value?: string | Uint8Array;
}

/** Map entries as a JSON object: every key its own property (also `__proto__`); bytes as base64; the last duplicate wins. */
function mapOf(entries: MapEntry[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries) {
    const v = e.value instanceof Uint8Array ? Buffer.from(e.value).toString('base64') : (e.value ?? '');
    setOwn(out, e.key ?? '', v);
  }
  return out;
}

/** The field names of the built-ins' metav1.MicroTime fields (the others named `*Time`/`*Timestamp` are metav1.Time). */
const microTimeKeys: ReadonlySet<string> = new Set([...microTimeFields].map((f) => f.slice(f.lastIndexOf('.') + 1)));

/** Converts decoded protobuf values to the JSON shapes the API uses (times, bytes, int64). */
function toJSONShape(value: unknown, key = ''): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map((v) => toJSONShape(v));
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (/Timestamp$|Time$/.test(key)) {
      // An empty Time message is Go's zero time: null in JSON (left out here).
      if (!('seconds' in o)) return undefined;
      const seconds = new Date(Number(o.seconds) * 1000).toISOString().slice(0, 19);
      // MicroTime (Lease, Event) keeps microseconds, as RFC3339Micro; Time whole seconds.
      if (!microTimeKeys.has(key)) return `${seconds}Z`;
      return `${seconds}.${String(Math.floor(Number(o.nanos ?? 0) / 1000)).padStart(6, '0')}Z`;
    }
    if (typeof (o as { toNumber?: unknown }).toNumber === 'function') return (o as unknown as { toNumber(): number }).toNumber();
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) {
      if (mapFields.has(k)) {
        // Empty values inside a map are kept; an empty map is omitted.
        const m = mapOf(v as MapEntry[]);
        if (Object.keys(m).length) out[k] = m;
        continue;
      }
      const j = toJSONShape(v, k);
      if (j === undefined) continue;
      if (Array.isArray(j) && j.length === 0) continue;
      // Go's protobuf marshalling writes empty strings and zeros; the JSON form omits them.
      if (j === '' || j === 0 || j === false) continue;
      out[k] = j;
    }
    return out;
  }
  if (typeof value === 'bigint') return Number(value);
  return value;
}

/**
 * Decodes a protobuf request body into a JSON object.
 * @throws StatusError 415 for kinds hcc cannot decode from protobuf, 400 for malformed bodies
 */
export function decodeProtobuf(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw apierrors.badRequest('protobuf body does not start with the Kubernetes magic number');
  let env: Record<string, unknown>;
  try {
    env = Unknown.toObject(Unknown.decode(body.subarray(4)), { defaults: false, bytes: Buffer }) as Record<string, unknown>;
  } catch (e) {
    throw apierrors.badRequest(`unable to decode protobuf envelope: ${(e as Error).message}`);
  }
  const tm = (env.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const type = decodeKinds[`${tm.apiVersion}/${tm.kind}`];
  // Only built-in kinds have protobuf; custom resources take JSON and YAML, as in kube-apiserver.
  if (!type) throw apierrors.unsupportedMediaType(['application/json', 'application/yaml']);
  let msg: Record<string, unknown>;
  try {
    msg = type.toObject(type.decode(env.raw as Uint8Array), { defaults: false, longs: Number, bytes: Buffer, objects: false }) as Record<string, unknown>;
  } catch (e) {
    throw apierrors.badRequest(`unable to decode ${tm.kind}: ${(e as Error).message}`);
  }
  return { apiVersion: tm.apiVersion, kind: tm.kind, ...(toJSONShape(msg) as Record<string, unknown>) };
}

/** Encodes an object as a protobuf body (used by tests to imitate kubectl). */
export function encodeProtobuf(apiVersion: string, kind: string, obj: Record<string, unknown>): Buffer {
  const type = kinds[`${apiVersion}/${kind}`];
  if (!type) throw new Error(`no protobuf type for ${apiVersion}/${kind}`);
  const raw = type.encode(type.fromObject(obj)).finish();
  const env = Unknown.encode(Unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })).finish();
  return Buffer.concat([MAGIC, Buffer.from(env)]);
}
