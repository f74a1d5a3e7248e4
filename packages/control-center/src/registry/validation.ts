/**
 * Validation of ObjectMeta and of common value syntaxes, after
 * k8s.io/apimachinery/pkg/api/validation/objectmeta.go and pkg/util/validation/validation.go.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '@hcc/crds';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '@hcc/client';
import * as field from '../apierrors/field.js';

const configKeyRe = /^[-._a-zA-Z0-9]+$/;

/** Label value: a string that passes validation.IsValidLabelValue (see @hcc/client). */
function labelValueErrors(v: unknown): string[] {
  return typeof v === 'string' ? isValidLabelValue(v) : ['must be a string'];
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
  // apimachinery ValidateObjectMeta: generateName is checked as a name prefix (a trailing "-"
  // allowed), before the name generated from it.
  if (typeof m.generateName === 'string' && m.generateName && nameRule !== 'path-segment') {
    const prefix = m.generateName.endsWith('-') ? `${m.generateName.slice(0, -1)}a` : m.generateName;
    const check = nameRule === 'label' ? isDNS1123Label : isDNS1123Subdomain;
    for (const e of check(prefix)) errs.push(field.invalid('metadata.generateName', m.generateName, e));
  }
  const name = m.name;
  if (!name) {
    if (!m.generateName) errs.push(field.required('metadata.name', 'name or generateName is required'));
  } else if (typeof name !== 'string') {
    errs.push(field.typeInvalid('metadata.name', name, 'must be a string'));
  } else if (nameRule === 'label') {
    // validation.IsDNS1123Label: the length and the pattern are two errors.
    for (const e of isDNS1123Label(name)) errs.push(field.invalid('metadata.name', name, e));
  } else if (nameRule === 'subdomain') {
    for (const e of isDNS1123Subdomain(name)) errs.push(field.invalid('metadata.name', name, e));
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
        for (const e of isQualifiedName(k)) errs.push(field.invalid('metadata.labels', k, e));
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
        for (const e of isQualifiedName(k.toLowerCase())) errs.push(field.invalid('metadata.annotations', k, e));
        if (typeof v !== 'string') errs.push(field.typeInvalid(`metadata.annotations`, v, 'must be a string'));
        size += Buffer.byteLength(k) + Buffer.byteLength(String(v)); // bytes of UTF-8, as Go's len()
      }
      if (size > TotalAnnotationSizeLimitBytes) errs.push(field.tooLong('metadata.annotations', '', TotalAnnotationSizeLimitBytes));
    }
  }
  if (m.finalizers !== undefined) {
    if (!Array.isArray(m.finalizers)) errs.push(field.typeInvalid('metadata.finalizers', m.finalizers, 'must be a list of strings'));
    else {
      m.finalizers.forEach((f, i) => {
        if (typeof f !== 'string') errs.push(field.typeInvalid(`metadata.finalizers[${i}]`, f, 'must be a string'));
        else for (const e of isQualifiedName(f)) errs.push(field.invalid(`metadata.finalizers[${i}]`, f, e));
      });
      // apimachinery ValidateFinalizers: the garbage collector cannot both orphan and delete dependents.
      if (m.finalizers.includes('orphan') && m.finalizers.includes('foregroundDeletion')) {
        errs.push(field.invalid('metadata.finalizers', m.finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
      }
    }
  }
  if (m.ownerReferences !== undefined) for (const e of validateOwnerReferences(m.ownerReferences)) errs.push(e);
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
