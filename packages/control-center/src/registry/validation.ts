/**
 * Validation of ObjectMeta and of common value syntaxes, after
 * k8s.io/apimachinery/pkg/api/validation/objectmeta.go and pkg/util/validation/validation.go.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '@hcc/crds';
import * as field from '../apierrors/field.js';

const dns1123LabelRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123SubdomainRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const qualifiedNameRe = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const labelValueRe = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const configKeyRe = /^[-._a-zA-Z0-9]+$/;

/** RFC 1123 label: at most 63 characters, `[a-z0-9]([-a-z0-9]*[a-z0-9])?`. */
export const isDNS1123Label = (s: string): boolean => s.length <= 63 && dns1123LabelRe.test(s);
/** RFC 1123 subdomain: at most 253 characters, dot-separated labels. */
export const isDNS1123Subdomain = (s: string): boolean => s.length <= 253 && dns1123SubdomainRe.test(s);

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** Qualified name (label/annotation key): optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
export function qualifiedNameErrors(key: string): string[] {
  const parts = key.split('/');
  let name = key;
  const errs: string[] = [];
  if (parts.length === 2) {
    const [prefix, n] = parts as [string, string];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else if (!isDNS1123Subdomain(prefix)) errs.push(`prefix part ${subdomainMsg}`);
    name = n;
  } else if (parts.length > 2) {
    return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  else if (!qualifiedNameRe.test(name)) {
    errs.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  }
  return errs;
}

/** Label value: at most 63 characters, empty or alphanumeric at both ends. */
export function labelValueErrors(v: unknown): string[] {
  if (typeof v !== 'string') return ['must be a string'];
  if (v.length > 63) return ['must be no more than 63 characters'];
  if (!labelValueRe.test(v)) {
    return ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"];
  }
  return [];
}

const TotalAnnotationSizeLimitBytes = 256 * 1024;

/** How names of a resource are validated: DNS subdomain for most, DNS label for namespaces. */
export type NameRule = 'subdomain' | 'label' | 'path-segment';

/**
 * Validates ObjectMeta of a new or updated object.
 * @param namespaced - whether metadata.namespace must be set (and is checked against `namespace`)
 */
export function validateObjectMeta(obj: KubeObject, namespaced: boolean, nameRule: NameRule): field.FieldError[] {
  const errs: field.FieldError[] = [];
  const m = obj.metadata;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return [field.required('metadata')];
  const name = m.name;
  if (!name) {
    if (!m.generateName) errs.push(field.required('metadata.name', 'name or generateName is required'));
  } else if (typeof name !== 'string') {
    errs.push(field.typeInvalid('metadata.name', name, 'must be a string'));
  } else if (nameRule === 'label' && !isDNS1123Label(name)) {
    // validation.IsDNS1123Label: the length and the pattern are two errors.
    if (name.length > 63) errs.push(field.invalid('metadata.name', name, 'must be no more than 63 characters'));
    if (!dns1123LabelRe.test(name)) errs.push(field.invalid('metadata.name', name, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
  } else if (nameRule === 'subdomain' && !isDNS1123Subdomain(name)) {
    errs.push(field.invalid('metadata.name', name, subdomainMsg));
  } else if (nameRule === 'path-segment' && (name === '.' || name === '..' || /[/%]/.test(name))) {
    errs.push(field.invalid('metadata.name', name, 'may not contain "/" or "%" and may not be "." or ".."'));
  }
  if (namespaced && !m.namespace) errs.push(field.required('metadata.namespace'));
  if (!namespaced && m.namespace) errs.push(field.forbidden('metadata.namespace', 'not allowed on this type'));
  if (m.labels !== undefined) {
    if (typeof m.labels !== 'object' || m.labels === null || Array.isArray(m.labels)) {
      errs.push(field.typeInvalid('metadata.labels', m.labels, 'must be a map of string to string'));
    } else {
      for (const [k, v] of Object.entries(m.labels)) {
        for (const e of qualifiedNameErrors(k)) errs.push(field.invalid('metadata.labels', k, e));
        for (const e of labelValueErrors(v)) errs.push(field.invalid(`metadata.labels`, v, e));
      }
    }
  }
  if (m.annotations !== undefined) {
    if (typeof m.annotations !== 'object' || m.annotations === null || Array.isArray(m.annotations)) {
      errs.push(field.typeInvalid('metadata.annotations', m.annotations, 'must be a map of string to string'));
    } else {
      let size = 0;
      for (const [k, v] of Object.entries(m.annotations)) {
        for (const e of qualifiedNameErrors(k.toLowerCase())) errs.push(field.invalid('metadata.annotations', k, e));
        if (typeof v !== 'string') errs.push(field.typeInvalid(`metadata.annotations`, v, 'must be a string'));
        size += k.length + String(v).length;
      }
      if (size > TotalAnnotationSizeLimitBytes) errs.push(field.tooLong('metadata.annotations', '', TotalAnnotationSizeLimitBytes));
    }
  }
  if (m.finalizers !== undefined) {
    if (!Array.isArray(m.finalizers)) errs.push(field.typeInvalid('metadata.finalizers', m.finalizers, 'must be a list of strings'));
    else {
      m.finalizers.forEach((f, i) => {
        if (typeof f !== 'string') errs.push(field.typeInvalid(`metadata.finalizers[${i}]`, f, 'must be a string'));
        else for (const e of qualifiedNameErrors(f)) errs.push(field.invalid(`metadata.finalizers[${i}]`, f, e));
      });
      // apimachinery ValidateFinalizers: the garbage collector cannot both orphan and delete dependents.
      if (m.finalizers.includes('orphan') && m.finalizers.includes('foregroundDeletion')) {
        errs.push(field.invalid('metadata.finalizers', m.finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
      }
    }
  }
  if (m.ownerReferences !== undefined) errs.push(...validateOwnerReferences(m.ownerReferences));
  return errs;
}

/**
 * apimachinery ValidateOwnerReferences: every reference needs apiVersion (with a version), kind,
 * name and uid; core/v1 Events cannot own anything; at most one reference is the controller.
 * Errors name `metadata.ownerReferences.<field>` without an index, as upstream's do.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go
 */
export function validateOwnerReferences(refs: unknown): field.FieldError[] {
  const path = 'metadata.ownerReferences';
  if (!Array.isArray(refs)) return [field.typeInvalid(path, refs, 'must be a list of owner references')];
  const errs: field.FieldError[] = [];
  let firstController = '';
  for (const r of refs as unknown[]) {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) {
      errs.push(field.typeInvalid(path, r, 'must be an owner reference object'));
      continue;
    }
    const ref = r as { apiVersion?: unknown; kind?: unknown; name?: unknown; uid?: unknown; controller?: unknown };
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    const apiVersion = str(ref.apiVersion);
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    if (!version) errs.push(field.invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!str(ref.kind)) errs.push(field.invalid(`${path}.kind`, str(ref.kind), 'must not be empty'));
    if (!str(ref.name)) errs.push(field.invalid(`${path}.name`, str(ref.name), 'must not be empty'));
    if (!str(ref.uid)) errs.push(field.invalid(`${path}.uid`, str(ref.uid), 'must not be empty'));
    if (group === '' && version === 'v1' && ref.kind === 'Event') errs.push(field.invalid(path, r, '/v1, Kind=Event is disallowed from being an owner'));
    if (ref.controller === true) {
      const name = `${str(ref.kind)}/${str(ref.name)}`;
      if (firstController) {
        errs.push(field.invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${name}`));
      } else firstController = name;
    }
  }
  return errs;
}

/**
 * Drops owner references that repeat an earlier one exactly, as kube-apiserver does since 1.20
 * (dedupOwnerReferencesAndAddWarning), and says so in a warning naming the duplicated uids.
 * @returns the warning, or undefined when there was nothing to drop
 */
export function dedupOwnerReferences(obj: KubeObject): string | undefined {
  const refs = obj.metadata?.ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return undefined;
  const seen = new Set<string>();
  const dupUIDs = new Set<string>();
  const kept = refs.filter((r) => {
    const k = JSON.stringify(r);
    if (seen.has(k)) {
      dupUIDs.add(String((r as { uid?: unknown }).uid ?? ''));
      return false;
    }
    seen.add(k);
    return true;
  });
  if (!dupUIDs.size) return undefined;
  obj.metadata.ownerReferences = kept;
  return `metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${[...dupUIDs].join(', ')}`;
}

/** Keys of Secret/ConfigMap data: `[-._a-zA-Z0-9]+`, at most 253 characters. */
export function validateDataKeys(data: Record<string, unknown>, fieldName: string): field.FieldError[] {
  const errs: field.FieldError[] = [];
  for (const k of Object.keys(data)) {
    if (k.length > 253 || !configKeyRe.test(k) || k === '.' || k === '..') {
      errs.push(field.invalid(`${fieldName}[${k}]`, k, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
    }
  }
  return errs;
}

/** For objects with `immutable: true`: the listed fields may not change and immutable may not be unset. */
export function validateImmutable(obj: KubeObject, old: KubeObject, fields: string[]): field.FieldError[] {
  if (old.immutable !== true) return [];
  const errs: field.FieldError[] = [];
  if (obj.immutable !== true) errs.push(field.forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) {
    if (!isDeepStrictEqual(obj[f], old[f])) errs.push(field.forbidden(f, 'field is immutable when `immutable` is set'));
  }
  return errs;
}
