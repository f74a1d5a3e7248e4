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
    errs.push(field.invalid('metadata.name', name, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
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
  return errs;
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
