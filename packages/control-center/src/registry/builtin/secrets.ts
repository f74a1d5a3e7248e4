/**
 * core/v1 Secret: `data` holds base64 values; `stringData` is write-only and merged into `data`
 * on every write; `type` defaults to Opaque and cannot change; at most 1 MiB.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/secret/strategy.go
 */
import { setOwn, type KubeObject } from '@hcc/crds';
import { age, ageColumn, baseStrategy, column, nameColumn } from '../generic-strategy.js';
import type { ResourceInfo } from '../types.js';
import * as field from '../../apierrors/field.js';
import { validateDataKeys, validateImmutable } from '../validation.js';
import { canonicalBase64Values, isStdBase64 } from '../schema/formats.js';

const MaxSizeBytes = 1024 * 1024;

/**
 * Moves `stringData` into `data` (base64), as the API server does on every write, and serves
 * `data` values as kube-apiserver does after decoding them (canonicalBase64Values: without the
 * line breaks of wrapped base64, which kustomize's secretGenerator writes, and re-encoded).
 */
function foldStringData(obj: KubeObject): void {
  const sd = obj.stringData as Record<string, unknown> | undefined;
  canonicalBase64Values(obj.data);
  if (sd && typeof sd === 'object') {
    const data: Record<string, unknown> = { ...((obj.data ?? {}) as Record<string, string>) };
    for (const [k, v] of Object.entries(sd)) setOwn(data, k, Buffer.from(String(v)).toString('base64'));
    obj.data = data;
  }
  delete obj.stringData;
  if (!obj.type) obj.type = 'Opaque';
}

const requiredKeys: Record<string, string[]> = {
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
  'kubernetes.io/basic-auth': [],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
};

/** The keys of the two docker types, whose value must be a JSON object. */
const dockerKeys: Record<string, string> = { 'kubernetes.io/dockerconfigjson': '.dockerconfigjson', 'kubernetes.io/dockercfg': '.dockercfg' };

/**
 * Why a docker config value is not a JSON object, in the words of Go's json.Unmarshal into a
 * map (as upstream's ValidateSecret decodes it), never quoting the value; undefined when it is
 * one (or `null`, which Go decodes into a nil map).
 */
function notJSONObject(bytes: Buffer): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString('utf8'));
  } catch {
    return bytes.length === 0 ? 'unexpected end of JSON input' : 'the value is not valid JSON';
  }
  if (v === null || (typeof v === 'object' && !Array.isArray(v))) return undefined;
  const kind = Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

function validateSecret(obj: KubeObject): field.FieldError[] {
  const errs: field.FieldError[] = [];
  const data = (obj.data ?? {}) as Record<string, unknown>;
  if (typeof data !== 'object' || Array.isArray(data)) return [field.typeInvalid('data', data, 'must be an object')];
  for (const e of validateDataKeys(data, 'data')) errs.push(e);
  let size = 0;
  for (const [k, v] of Object.entries(data)) {
    if (typeof v !== 'string' || !isStdBase64(v)) {
      errs.push(field.invalid(`data[${k}]`, '<secret contents redacted>', 'must be a base64 encoded string'));
    } else size += Buffer.from(v, 'base64').length;
  }
  if (size > MaxSizeBytes) errs.push(field.tooLong('data', '', MaxSizeBytes));
  for (const k of requiredKeys[String(obj.type)] ?? []) {
    if (!Object.hasOwn(data, k)) errs.push(field.required(`data[${k}]`));
  }
  // As upstream's ValidateSecret (pkg/apis/core/validation): the docker types hold a JSON
  // object, basic-auth a username or a password, ssh-auth a non-empty key, and a
  // service-account-token names its ServiceAccount.
  const dockerKey = dockerKeys[String(obj.type)];
  const dockerValue = dockerKey ? data[dockerKey] : undefined;
  if (dockerKey && typeof dockerValue === 'string' && isStdBase64(dockerValue)) {
    const why = notJSONObject(Buffer.from(dockerValue, 'base64'));
    if (why) errs.push(field.invalid(`data[${dockerKey}]`, '<secret contents redacted>', why));
  }
  if (obj.type === 'kubernetes.io/basic-auth' && !Object.hasOwn(data, 'username') && !Object.hasOwn(data, 'password')) {
    errs.push(field.required('data[username]'), field.required('data[password]'));
  }
  if (obj.type === 'kubernetes.io/ssh-auth' && data['ssh-privatekey'] === '') errs.push(field.required('data[ssh-privatekey]'));
  if (obj.type === 'kubernetes.io/service-account-token' && !obj.metadata.annotations?.['kubernetes.io/service-account.name']) {
    errs.push(field.required('metadata.annotations[kubernetes.io/service-account.name]'));
  }
  return errs;
}

/**
 * The registry entry of core/v1 Secrets (rules above): namespaced, no status subresource; the strategy folds `stringData`
 * into `data` and validates per type, as upstream's ValidateSecret.
 */
export const secrets: ResourceInfo = {
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  listKind: 'SecretList',
  singular: 'secret',
  shortNames: [],
  categories: [],
  namespaced: true,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: { status: false },
  storageVersion: 'v1',
  custom: false,
  strategy: baseStrategy({
    prepareForCreate: foldStringData,
    validate: validateSecret,
    prepareForUpdate: foldStringData,
    // In ValidateSecretUpdate's order: the immutable type, `immutable: true`, then the new Secret's own rules.
    validateUpdate: (obj, old) => [
      ...((old.type ?? 'Opaque') !== obj.type ? [field.invalid('type', obj.type, 'field is immutable')] : []),
      ...validateImmutable(obj, old, ['data']),
      ...validateSecret(obj),
    ],
    selectableFields: (obj) => ({ type: String(obj.type ?? '') }),
    tableColumns: () => [nameColumn, column('Type', 'string', 'The type of the secret'), column('Data', 'string', 'The number of data entries'), ageColumn],
    tableCells: (obj, now) => [obj.metadata.name, obj.type, Object.keys((obj.data ?? {}) as object).length, age(obj.metadata.creationTimestamp, now)],
    bumpsGeneration: () => false,
  }),
};
