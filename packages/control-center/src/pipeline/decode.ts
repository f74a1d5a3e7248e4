/**
 * Request body decoding by Content-Type: JSON, YAML, Kubernetes protobuf, and the patch types
 * (`json-patch+json`, `merge-patch+json`, `strategic-merge-patch+json`, `apply-patch+yaml`).
 * Fastify hands every body over as a Buffer (one catch-all parser with the body limit), so
 * decoding errors become Kubernetes Status errors here, not framework errors.
 */
import YAML from 'yaml';
import * as apierrors from '../apierrors/status.js';
import { decodeProtobuf } from './protobuf.js';

/** Largest request body accepted, in bytes (kube-apiserver's default is 3 MiB). */
export const MaxRequestBodyBytes = 3 * 1024 * 1024;

/** The patch types Kubernetes defines. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const patchTypes: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Returns the patch type of a PATCH request, or throws 415. */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const t = patchTypes[mediaType(contentType)];
  // kube-apiserver's order for built-in kinds (custom resources leave strategic merge out).
  if (!t) throw apierrors.unsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);
  return t;
}

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw apierrors.badRequest(`error decoding request body: ${(e as Error).message}`);
  }
}

function parseYAML(text: string): unknown {
  const docs = YAML.parseAllDocuments(text, { uniqueKeys: false });
  const real = docs.filter((d) => d.contents !== null);
  if (real.length !== 1) throw apierrors.badRequest(`expected exactly one YAML document in the request body, got ${real.length}`);
  const d = real[0]!;
  if (d.errors.length) throw apierrors.badRequest(`error decoding YAML: ${d.errors[0]!.message}`);
  return d.toJS();
}

/**
 * Decodes a create/update body.
 * @throws StatusError 400 on malformed bodies, 415 on unknown content types
 */
export function decodeObjectBody(contentType: string | undefined, body: Buffer | undefined): unknown {
  if (!body || body.length === 0) throw apierrors.badRequest('the request body is empty');
  const mt = mediaType(contentType);
  if (mt === 'application/json' || mt === '') return parseJSON(body.toString('utf8'));
  if (mt === 'application/yaml' || mt === 'application/x-yaml' || mt === 'text/yaml') return parseYAML(body.toString('utf8'));
  if (mt === 'application/vnd.kubernetes.protobuf') return decodeProtobuf(body);
  throw apierrors.unsupportedMediaType();
}

/** Decodes a patch body: JSON for json/merge/strategic, YAML or JSON for apply. */
export function decodePatchBody(type: PatchType, body: Buffer | undefined): unknown {
  if (!body || body.length === 0) throw apierrors.badRequest('the request body is empty');
  const text = body.toString('utf8');
  return type === 'apply' ? parseYAML(text) : parseJSON(text);
}
