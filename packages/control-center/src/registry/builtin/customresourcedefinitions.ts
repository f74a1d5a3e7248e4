/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition. Creating one serves its resource at once:
 * the strategy sets `status.acceptedNames`, `storedVersions` and the `NamesAccepted` and
 * `Established` conditions synchronously (kube-apiserver does it in controllers, moments later).
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/
 */
import { celSyntaxError } from '../schema/cel-compile.js';
import { compileRE2 } from '../schema/cel-regex.js';
import { isJSONObject, setCondition, walkSchema, type Condition, type JSONSchemaProps, type KubeObject } from '@hcc/crds';
import { age, baseStrategy, column, nameColumn, statusSubresource } from '../generic-strategy.js';
import { storagePrefix, systemContext, type ResourceInfo, type StrategyContext } from '../types.js';
import type { Store } from '../../storage/store.js';
import * as field from '../../apierrors/field.js';
import { isDNS1035Label, isDNS1123Subdomain } from '@hcc/client';
import { compileJSONPath } from '../../pipeline/jsonpath.js';

/** Finalizer that holds a CRD until every custom resource of it is deleted. */
export const FinalizerCRDCleanup = 'customresourcecleanup.apiextensions.k8s.io';

/** The subset of a CRD's spec hcc reads. */
export interface CRDSpec {
  group: string;
  names: { plural: string; singular?: string; kind: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  scope: 'Namespaced' | 'Cluster';
  versions: CRDVersion[];
  conversion?: { strategy?: string };
  preserveUnknownFields?: boolean;
}

/** One entry of a CRD's `spec.versions` (CustomResourceDefinitionVersion), the fields hcc reads. */
export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: object; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string } };
  additionalPrinterColumns?: { name: string; type: string; format?: string; description?: string; priority?: number; jsonPath: string }[];
  selectableFields?: { jsonPath: string }[];
}

/** `""` when `value` has the JSON type `type` (`integer` a whole number; `null` only when nullable), else `: "<its type>"`. */
function typeMismatch(value: unknown, type: string, nullable: boolean): string {
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value === 'object' ? 'object' : typeof value;
  if (actual === type || (type === 'number' && actual === 'integer') || (actual === 'null' && nullable)) return '';
  return `: ${JSON.stringify(actual)}`;
}

/**
 * What of a schema (its structural part: properties, items, additionalProperties) cannot be
 * compiled or served, in one walk: a node that breaks the structural rules (no `type`,
 * `properties` beside `additionalProperties`), a map list without keys, a `default` of another
 * JSON type than its node's, `x-kubernetes-validations` rules and messageExpressions that are not CEL
 * at all (`compilation failed: ... Syntax error`), and `pattern`s RE2 does not accept (`must be a
 * valid regular expression, but isn't: ...`, Go's `regexp.Compile`). Upstream refuses such a CRD
 * rather than serve a rule it cannot run or fail every object.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/apis/apiextensions/validation/validation.go
 */
function compileErrors(schema: unknown, path: string): field.FieldError[] {
  if (!isJSONObject(schema)) return [];
  const errs: field.FieldError[] = [];
  walkSchema(schema as JSONSchemaProps, (node, steps) => {
    // `additionalProperties: true` (JSONSchemaPropsOrBool) is a boolean, not a schema node.
    if (!isJSONObject(node)) return;
    const n = node as JSONSchemaProps & Record<string, unknown>;
    const at = () => path + steps.map((st) => (st === '[]' ? '.items' : st === '{}' ? '.additionalProperties' : `.properties[${st}]`)).join('');
    const pattern: unknown = n.pattern;
    if (typeof pattern === 'string' && pattern !== '') {
      try {
        compileRE2(pattern);
      } catch (e) {
        errs.push(field.invalid(`${at()}.pattern`, pattern, `must be a valid regular expression, but isn't: ${(e as Error).message}`));
      }
    }
    // Value validations (anyOf, the one kind walkSchema descends into, and what is under it) carry
    // no types and no rules: the checks below that need either are for the structural part only.
    const inValueValidation = steps.some((st) => st.startsWith('anyOf['));
    // Structural (apiextensions' structural schema rules): a type on every node of the structural
    // part but int-or-string and preserve-unknown-fields ones, never properties beside additionalProperties.
    if (!inValueValidation && !n.type && !n['x-kubernetes-int-or-string'] && !n['x-kubernetes-preserve-unknown-fields'] && steps.length > 0) {
      const last = steps[steps.length - 1];
      errs.push(field.required(`${at()}.type`, last === '[]' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields'));
    }
    if (n.properties && n.additionalProperties !== undefined && (n.additionalProperties as unknown) !== false) {
      errs.push(field.forbidden(`${at()}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
    // A map list needs its keys (ValidateCustomResourceDefinitionOpenAPISchema).
    if (n['x-kubernetes-list-type'] === 'map' && !(Array.isArray(n['x-kubernetes-list-map-keys']) && n['x-kubernetes-list-map-keys'].length > 0)) {
      errs.push(field.required(`${at()}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    }
    // A default of another type than its field's would fail every object it is applied to.
    if ('default' in n && typeof n.type === 'string' && n.type) {
      const mismatch = typeMismatch(n.default, n.type, n.nullable === true);
      if (mismatch) errs.push(field.invalid(`${at()}.default`, n.default, `must be of type ${n.type}${mismatch}`));
    }
    const rules: unknown = n['x-kubernetes-validations'];
    // Rules live in the structural part only (not under anyOf), as upstream reads them.
    if (!Array.isArray(rules) || inValueValidation) return;
    rules.forEach((r, j) => {
      for (const key of ['rule', 'messageExpression'] as const) {
        const text = (r as Record<string, unknown> | null)?.[key];
        if (typeof text !== 'string' || (key === 'messageExpression' && text === '')) continue;
        const err = celSyntaxError(text);
        if (err) errs.push(field.invalid(`${at()}.x-kubernetes-validations[${j}].${key}`, text, `compilation failed: ${err}`));
      }
    });
  });
  return errs;
}

/** The annotation a CRD in a protected group must carry: a URL of its API review, or a reason starting with `unapproved`. */
export const AnnotationAPIApproved = 'api-approved.kubernetes.io';

/**
 * Whether a CRD group belongs to the Kubernetes community (`k8s.io`, `kubernetes.io` and their
 * subdomains; `x-k8s.io` is not one of them), so a CRD in it needs {@link AnnotationAPIApproved}.
 * @see https://github.com/kubernetes/enhancements/pull/1111 (KEP "k8s.io Group Protection")
 */
export function isProtectedCommunityGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

type ApprovalState = 'Missing' | 'Bypassed' | 'Approved' | 'Invalid';

/** Reads {@link AnnotationAPIApproved} as apiextensions-apiserver's `GetAPIApprovalState` does. */
function apiApprovalState(annotations: Record<string, string> | undefined): ApprovalState {
  const value = annotations?.[AnnotationAPIApproved] ?? '';
  if (value === '') return 'Missing';
  if (value.startsWith('unapproved')) return 'Bypassed';
  try {
    const u = new URL(value);
    if (u.host !== '' && u.protocol !== '') return 'Approved';
  } catch {
    // not a URL
  }
  return 'Invalid';
}

/**
 * A CRD in a protected group must say whether its API was reviewed (apiextensions-apiserver's
 * `validateAPIApproval`): a missing annotation is `Required`, one that is neither a URL nor
 * `unapproved...` is `Invalid`. An update that leaves the approval state as it was passes, so a
 * controller updating an old CRD's spec is not refused.
 * @see https://github.com/kubernetes/enhancements/blob/master/keps/sig-api-machinery/20190612-crd-group-protection.md
 */
function validateAPIApproval(obj: KubeObject, old?: KubeObject): field.FieldError[] {
  const group = (obj.spec as CRDSpec | undefined)?.group;
  if (typeof group !== 'string' || !isProtectedCommunityGroup(group)) return [];
  const state = apiApprovalState(obj.metadata.annotations);
  if (old && apiApprovalState(old.metadata.annotations) === state) return [];
  const path = `metadata.annotations[${AnnotationAPIApproved}]`;
  if (state === 'Missing') {
    return [field.required(path, `protected groups must have approval annotation "${AnnotationAPIApproved}", see https://github.com/kubernetes/enhancements/pull/1111`)];
  }
  if (state === 'Invalid') {
    return [field.invalid(path, obj.metadata.annotations?.[AnnotationAPIApproved], `protected groups must have approval annotation "${AnnotationAPIApproved}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`)];
  }
  return [];
}

/** The column types a printer column may declare (apiextensions' printerColumnDatatypes). */
const columnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
/** The formats a printer column may declare (customResourceColumnDefinitionFormats). */
const columnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/**
 * Errors of a JSONPath a CRD gives for a printer column or a selectable field: upstream's
 * validateSimpleJSONPath (starts with `.`), and one hcc's JSONPath cannot read is refused too
 * (kube-apiserver accepts it and fails every Table of the resource: `unrecognized column
 * definition`; hcc would fail to serve the CRD at all).
 */
function jsonPathErrors(path: string, value: unknown): field.FieldError[] {
  if (typeof value !== 'string' || value === '') return [field.required(path)];
  if (value[0] !== '.') return [field.invalid(path, value, 'must be a simple json path starting with .')];
  try {
    compileJSONPath(value);
  } catch (e) {
    return [field.invalid(path, value, `must be a valid JSONPath: ${(e as Error).message}`)];
  }
  return [];
}

/**
 * The schema a simple dot path (`.spec.color`) names through `properties` alone, or undefined: a
 * selectable field names a declared field, never one under `items` or `additionalProperties`
 * (which @hcc/crds' schemaAt, made for object paths, would follow).
 */
function declaredPropertyAt(schema: JSONSchemaProps | undefined, dotPath: string): JSONSchemaProps | undefined {
  let s = schema;
  for (const part of dotPath.slice(1).split('.')) {
    if (!s || !part) return undefined;
    s = s.properties?.[part];
  }
  return s;
}

/**
 * A version's printer columns and selectable fields, as apiextensions' validation checks them
 * (ValidateCustomResourceColumnDefinition, validateSelectableFields): names, types, formats and
 * paths; a selectable field must name a string, integer or boolean field of the schema, at most 8,
 * each once.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go
 */
function columnAndFieldErrors(v: CRDSpec['versions'][number], at: string): field.FieldError[] {
  const errs: field.FieldError[] = [];
  (v.additionalPrinterColumns ?? []).forEach((c, j) => {
    const p = `${at}.additionalPrinterColumns[${j}]`;
    if (!c || typeof c !== 'object') return void errs.push(field.required(p));
    if (!c.name) errs.push(field.required(`${p}.name`));
    if (!c.type) errs.push(field.required(`${p}.type`));
    else if (!columnTypes.includes(c.type)) errs.push(field.notSupported(`${p}.type`, c.type, columnTypes));
    if (c.format && !columnFormats.includes(c.format)) errs.push(field.notSupported(`${p}.format`, c.format, columnFormats));
    errs.push(...jsonPathErrors(`${p}.JSONPath`, c.jsonPath));
  });
  const fields = v.selectableFields ?? [];
  if (fields.length > 8) errs.push(field.tooMany(`${at}.selectableFields`, fields.length, 8));
  const seen = new Set<string>();
  fields.forEach((f, j) => {
    const p = `${at}.selectableFields[${j}].jsonPath`;
    const path = (f as { jsonPath?: unknown } | null)?.jsonPath;
    const bad = jsonPathErrors(p, path);
    if (bad.length) return void errs.push(...bad);
    const target = declaredPropertyAt(v.schema?.openAPIV3Schema as JSONSchemaProps | undefined, path as string);
    if (!target) errs.push(field.invalid(p, path, 'is an invalid path: does not refer to a valid field'));
    else if (target.type !== 'string' && target.type !== 'integer' && target.type !== 'boolean') {
      errs.push(field.invalid(p, path, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (seen.has(path as string)) errs.push(field.duplicate(p, path));
    seen.add(path as string);
  });
  return errs;
}

/**
 * apiextensions' validateCustomResourceConversion, with its field paths (those of the internal
 * type: `spec.conversion.webhookClientConfig`, `spec.conversion.conversionReviewVersions`): a
 * strategy is required and is None or Webhook; Webhook needs a client config with exactly one of
 * url or service and review versions (unique DNS-1035 labels, at least one of v1 and v1beta1);
 * None takes neither; a strategy other than None needs `preserveUnknownFields` off.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go
 */
function conversionErrors(spec: CRDSpec): field.FieldError[] {
  const conversion = spec.conversion as { strategy?: unknown; webhook?: unknown } | undefined | null;
  if (conversion === undefined || conversion === null || !isJSONObject(conversion)) return [];
  const errs: field.FieldError[] = [];
  const strategy = conversion.strategy;
  if (strategy !== 'None' && spec.preserveUnknownFields === true) errs.push(field.invalid('spec.conversion.strategy', strategy, 'must be None if spec.preserveUnknownFields is true'));
  if (strategy === undefined || strategy === null || strategy === '') errs.push(field.required('spec.conversion.strategy'));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(field.notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  const webhook = isJSONObject(conversion.webhook) ? (conversion.webhook as { clientConfig?: unknown; conversionReviewVersions?: unknown }) : undefined;
  const clientConfig = webhook?.clientConfig;
  const reviews = Array.isArray(webhook?.conversionReviewVersions) ? (webhook.conversionReviewVersions as unknown[]) : [];
  if (strategy === 'Webhook') {
    if (!isJSONObject(clientConfig)) errs.push(field.required('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook'));
    else {
      const cc = clientConfig as { url?: unknown; service?: unknown };
      if ((cc.url === undefined || cc.url === null) === (cc.service === undefined || cc.service === null)) errs.push(field.required('spec.conversion.webhookClientConfig', 'exactly one of url or service is required'));
    }
    if (reviews.length < 1) errs.push(field.required('spec.conversion.conversionReviewVersions'));
    else {
      const seen = new Set<unknown>();
      reviews.forEach((v, i) => {
        const p = `spec.conversion.conversionReviewVersions[${i}]`;
        if (seen.has(v)) {
          errs.push(field.invalid(p, v, 'duplicate version'));
          return;
        }
        seen.add(v);
        for (const e of isDNS1035Label(String(v))) errs.push(field.invalid(p, v, e));
      });
      if (!reviews.some((v) => v === 'v1' || v === 'v1beta1')) errs.push(field.invalid('spec.conversion.conversionReviewVersions', reviews, 'must include at least one of v1, v1beta1'));
    }
  } else {
    if (clientConfig !== undefined && clientConfig !== null) errs.push(field.forbidden('spec.conversion.webhookClientConfig', 'should not be set when strategy is not set to Webhook'));
    if (reviews.length > 0) errs.push(field.forbidden('spec.conversion.conversionReviewVersions', 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

function validateCRD(obj: KubeObject): field.FieldError[] {
  const errs: field.FieldError[] = [];
  const spec = obj.spec as CRDSpec | undefined;
  if (!spec || typeof spec !== 'object') return [field.required('spec')];
  if (!spec.group) errs.push(field.required('spec.group'));
  else if (isDNS1123Subdomain(spec.group).length > 0 || !spec.group.includes('.')) errs.push(field.invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  const names = spec.names;
  if (!names || typeof names !== 'object') errs.push(field.required('spec.names'));
  else {
    if (!names.plural) errs.push(field.required('spec.names.plural'));
    if (!names.kind) errs.push(field.required('spec.names.kind'));
    errs.push(...namesErrors(names, 'spec.names'));
    if (names.plural && spec.group && obj.metadata.name !== `${names.plural}.${spec.group}`) {
      errs.push(field.invalid('metadata.name', obj.metadata.name, "must be spec.names.plural+\".\"+spec.group"));
    }
  }
  errs.push(...conversionErrors(spec));
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') errs.push(field.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  if (!Array.isArray(spec.versions) || spec.versions.length === 0) errs.push(field.required('spec.versions', 'must have exactly one version marked as storage version'));
  else {
    const storage = spec.versions.filter((v) => v.storage);
    if (storage.length !== 1) errs.push(field.invalid('spec.versions', spec.versions.map((v) => v.name), 'must have exactly one version marked as storage version'));
    const versionNames = new Set<string>();
    spec.versions.forEach((v, i) => {
      if (!v.name) errs.push(field.required(`spec.versions[${i}].name`));
      else {
        const bad = isDNS1035Label(v.name);
        if (bad.length) errs.push(field.invalid(`spec.versions[${i}].name`, v.name, bad.join('; ')));
        if (versionNames.has(v.name)) errs.push(field.invalid('spec.versions', spec.versions.map((x) => x.name), 'must contain unique version names'));
        versionNames.add(v.name);
      }
      const schema = v.schema?.openAPIV3Schema;
      if (!schema) errs.push(field.required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
      else if (schema.type !== 'object') errs.push(field.invalid(`spec.versions[${i}].schema.openAPIV3Schema.type`, schema.type, 'must be object at the root'));
      if (schema) errs.push(...compileErrors(schema, `spec.versions[${i}].schema.openAPIV3Schema`));
      // metadata is the server's: a schema may only narrow name and generateName (as upstream).
      const meta = (schema as JSONSchemaProps | undefined)?.properties?.metadata as (JSONSchemaProps & Record<string, unknown>) | undefined;
      if (meta && (Object.keys(meta).some((k) => k !== 'type' && k !== 'properties') || Object.keys(meta.properties ?? {}).some((k) => k !== 'name' && k !== 'generateName'))) {
        errs.push(field.forbidden(`spec.versions[${i}].schema.openAPIV3Schema.properties[metadata]`, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
      }
      errs.push(...columnAndFieldErrors(v, `spec.versions[${i}]`));
    });
  }
  return errs;
}

/** A CRD's status object as stored (`{}` when absent or not an object). */
function crdStatus(crd: KubeObject): Record<string, unknown> {
  return isJSONObject(crd.status) ? (crd.status as Record<string, unknown>) : {};
}

/**
 * A stored CRD's status as hcc reads it, whatever was stored: conditions that are not objects,
 * names that are not strings and lists that are not lists are left out (a CRD written before hcc
 * decoded status writes may hold any JSON there: reading it must not stop the server).
 */
function crdStatusOf(crd: KubeObject): { conditions: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[]; acceptedNames: AcceptedNames; storedVersions: string[] } {
  const status = crdStatus(crd);
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter((c): c is { type: string; status: string } => isJSONObject(c) && typeof c.type === 'string' && typeof c.status === 'string');
  const a = isJSONObject(status.acceptedNames) ? (status.acceptedNames as Record<string, unknown>) : {};
  const acceptedNames: AcceptedNames = {};
  for (const k of ['plural', 'singular', 'kind', 'listKind'] as const) if (typeof a[k] === 'string' && a[k]) acceptedNames[k] = a[k];
  for (const k of ['shortNames', 'categories'] as const) if (Array.isArray(a[k])) acceptedNames[k] = (a[k] as unknown[]).filter((n): n is string => typeof n === 'string');
  const storedVersions = (Array.isArray(status.storedVersions) ? status.storedVersions : []).filter((v): v is string => typeof v === 'string');
  return { conditions, acceptedNames, storedVersions };
}

/**
 * apiextensions' ValidateCustomResourceDefinitionStoredVersions: a CRD keeps every version it ever
 * stored objects in (`status.storedVersions`) in `spec.versions` until a storage migration removes
 * it from the list, has at least one, and has its storage version among them.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go
 */
function storedVersionErrors(crd: KubeObject): field.FieldError[] {
  const stored = crdStatusOf(crd).storedVersions;
  const versions = Array.isArray((crd.spec as CRDSpec | undefined)?.versions) ? (crd.spec as CRDSpec).versions : [];
  if (stored.length === 0) return [field.invalid('status.storedVersions', stored, 'must have at least one stored version')];
  const errs: field.FieldError[] = [];
  const left = new Map(stored.map((v, i) => [v, i]));
  for (const v of versions) {
    if (v.storage && !left.has(v.name)) errs.push(field.invalid('status.storedVersions', stored, `must have the storage version ${v.name}`));
    left.delete(v.name);
  }
  for (const [v, i] of left) {
    errs.push(field.invalid(`status.storedVersions[${i}]`, v, `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`));
  }
  return errs;
}

/**
 * apiextensions' ValidateCustomResourceDefinitionNames, for `spec.names` and `status.acceptedNames`
 * (at `path`): each name a DNS-1035 label (kinds in any case), kind and list kind not the same.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go
 */
function namesErrors(names: unknown, path: string): field.FieldError[] {
  if (!isJSONObject(names)) return [];
  const n = names as Record<string, unknown>;
  const errs: field.FieldError[] = [];
  // Upstream checks plural, singular, kind and list kind only when set, every short name and category.
  const label = (v: unknown, p: string, kind = false, always = false) => {
    if (typeof v !== 'string' || (v === '' && !always)) return;
    const bad = isDNS1035Label(kind ? v.toLowerCase() : v);
    if (bad.length) errs.push(field.invalid(p, v, (kind ? 'may have mixed case, but should otherwise match: ' : '') + bad.join(',')));
  };
  label(n.plural, `${path}.plural`);
  label(n.singular, `${path}.singular`);
  label(n.kind, `${path}.kind`, true);
  label(n.listKind, `${path}.listKind`, true);
  if (Array.isArray(n.shortNames)) n.shortNames.forEach((v, i) => label(v, `${path}.shortNames[${i}]`, false, true));
  if (typeof n.kind === 'string' && n.kind !== '' && n.kind === n.listKind) errs.push(field.invalid(`${path}.listKind`, n.listKind, 'kind and listKind may not be the same'));
  if (Array.isArray(n.categories)) n.categories.forEach((v, i) => label(v, `${path}.categories[${i}]`, false, true));
  return errs;
}

/**
 * apiextensions/v1's defaults of a CRD spec (SetDefaults_CustomResourceDefinitionSpec), in place:
 * `names.singular` the kind in lower case, `names.listKind` the kind + `List`, and `conversion`
 * `{strategy: None}`, a conversion webhook service's `port` 443 — what `kubectl get crd -o yaml`
 * shows on any cluster. A spec without names
 * or kind is left as it is (validation reports it).
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/defaults.go
 */
export function defaultCRDSpec(spec: unknown): void {
  if (!isJSONObject(spec)) return;
  const names = (spec as { names?: unknown }).names;
  if (isJSONObject(names) && typeof names.kind === 'string' && names.kind) {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind) names.listKind = `${names.kind}List`;
  }
  const conversion = (spec as { conversion?: unknown }).conversion;
  if (conversion === undefined || conversion === null) (spec as { conversion?: unknown }).conversion = { strategy: 'None' };
  // SetDefaults_ServiceReference: a conversion webhook's service port is 443.
  const service = isJSONObject(conversion) && isJSONObject(conversion.webhook) && isJSONObject(conversion.webhook.clientConfig) ? conversion.webhook.clientConfig.service : undefined;
  if (isJSONObject(service) && (service.port === undefined || service.port === null)) service.port = 443;
}

/**
 * `spec` with every version the stored CRD `old` lists in `status.storedVersions` and `spec` lacks
 * put back from `old`'s spec, unserved and not the storage version: how hcc upgrades its own CRDs
 * at start (installCRD) when a release renames a version, since a spec without a version objects
 * may still be stored in is refused ({@link storedVersionErrors}). Returns `spec` itself when
 * nothing is missing.
 */
export function keepStoredVersions(spec: CRDSpec, old: KubeObject): CRDSpec {
  const have = new Set(spec.versions.map((v) => v.name));
  const oldVersions = Array.isArray((old.spec as CRDSpec | undefined)?.versions) ? (old.spec as CRDSpec).versions : [];
  const kept = crdStatusOf(old)
    .storedVersions.filter((name) => !have.has(name))
    .map((name) => oldVersions.find((v) => isJSONObject(v) && v.name === name))
    .filter((v): v is CRDVersion => v !== undefined)
    .map((v) => ({ ...v, served: false, storage: false }));
  return kept.length ? { ...spec, versions: [...spec.versions, ...kept] } : spec;
}

/** The names a CRD was accepted under (`status.acceptedNames`). */
interface AcceptedNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

/**
 * Which of a CRD's requested names it may have, as kube's NamingConditionController decides:
 * a name it already had, or one no other CRD of its group was accepted under. Returns the
 * accepted names and the NamesAccepted condition's status, reason and message (the last conflict
 * found, as upstream reports it).
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/controller/status/naming_controller.go
 */
export function acceptNames(
  requested: Required<Pick<AcceptedNames, 'plural' | 'singular' | 'kind' | 'listKind'>> & AcceptedNames,
  accepted: AcceptedNames,
  used: { resources: ReadonlySet<string>; kinds: ReadonlySet<string> },
): { names: AcceptedNames; status: 'True' | 'False'; reason: string; message: string } {
  const names: AcceptedNames = { ...accepted };
  let conflict: { reason: string; message: string } | undefined;
  const fresh = (want: string, had: string | undefined, inUse: ReadonlySet<string>): string | undefined => (want === had || !inUse.has(want) ? undefined : `${JSON.stringify(want)} is already in use`);
  const check = (key: 'plural' | 'singular' | 'kind' | 'listKind', inUse: ReadonlySet<string>, reason: string) => {
    const err = fresh(requested[key], accepted[key], inUse);
    if (err) conflict = { reason, message: err };
    else names[key] = requested[key];
  };
  check('plural', used.resources, 'PluralConflict');
  check('singular', used.resources, 'SingularConflict');
  const wantShort = requested.shortNames ?? [];
  const hadShort = new Set(accepted.shortNames ?? []);
  const shortErrs = wantShort.filter((n) => !hadShort.has(n)).map((n) => fresh(n, '', used.resources)).filter((e): e is string => !!e);
  if (shortErrs.length) conflict = { reason: 'ShortNamesConflict', message: shortErrs.length === 1 ? shortErrs[0]! : `[${shortErrs.join(', ')}]` };
  else if (wantShort.length) names.shortNames = wantShort;
  else delete names.shortNames;
  check('kind', used.kinds, 'KindConflict');
  check('listKind', used.kinds, 'ListKindConflict');
  if (requested.categories) names.categories = requested.categories;
  else delete names.categories;
  return conflict ? { names, status: 'False', ...conflict } : { names, status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
}

/**
 * The names the CRDs of a group were accepted under, read from `store` as kube's naming controller
 * reads its CRD informer: what a CRD's NamesAccepted is decided against ({@link StrategyContext.crdNamesInUse}).
 * @returns plural, singular and short names in `resources`, kinds and list kinds in `kinds`, of every CRD of `group` but `exceptCRD`
 */
export function crdNamesInUse(store: Pick<Store, 'list'>): NonNullable<StrategyContext['crdNamesInUse']> {
  return (group, exceptCRD) => {
    const resources = new Set<string>();
    const kinds = new Set<string>();
    for (const { object } of store.list(storagePrefix(customresourcedefinitions)).items) {
      if ((object.spec as CRDSpec | undefined)?.group !== group || object.metadata.name === exceptCRD) continue;
      const a = crdStatusOf(object).acceptedNames;
      for (const name of [a.plural, a.singular, ...(a.shortNames ?? [])]) if (name) resources.add(name);
      for (const name of [a.kind, a.listKind]) if (name) kinds.add(name);
    }
    return { resources, kinds };
  };
}

/**
 * Sets the names a CRD reports and their conditions (`status.acceptedNames`, NamesAccepted,
 * Established; other conditions kept, as apiextensions' SetCRDCondition). Names another CRD of its
 * group was accepted under are not accepted (`NamesAccepted=False`, e.g. `KindConflict`); a CRD
 * never Established then stays `Established=False` (`NotAccepted`) and is not served.
 */
function establish(obj: KubeObject, ctx: StrategyContext): void {
  const spec = obj.spec as CRDSpec;
  const status = crdStatusOf(obj);
  const n = spec.names;
  const requested = { plural: n.plural, singular: n.singular ?? n.kind.toLowerCase(), kind: n.kind, listKind: n.listKind ?? `${n.kind}List`, ...(n.shortNames ? { shortNames: n.shortNames } : {}), ...(n.categories ? { categories: n.categories } : {}) };
  const used = ctx.crdNamesInUse?.(spec.group, obj.metadata.name!) ?? { resources: new Set<string>(), kinds: new Set<string>() };
  const named = acceptNames(requested, status.acceptedNames, used);
  const wasEstablished = status.conditions.some((c) => c.type === 'Established' && c.status === 'True');
  const namesAccepted: Condition = { type: 'NamesAccepted', status: named.status, reason: named.reason, message: named.message };
  const established: Condition = wasEstablished || named.status === 'True'
    ? { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
    : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  obj.status = {
    ...crdStatus(obj),
    acceptedNames: named.names,
    // A transition's time is now; an unchanged status keeps its time (setCondition).
    conditions: [namesAccepted, established].reduce((list, c) => setCondition(list, c, ctx.now), status.conditions as Condition[]),
  };
}

/**
 * Adds a CRD's storage version (the first version marked `storage`) to `status.storedVersions`, as
 * apiextensions' strategy does on every create and update, before and whatever the validation
 * says, so an invalid update is refused for what is wrong with it and not also for a storage
 * version the status lacks. A spec whose versions are not a list of objects adds nothing.
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go
 */
function recordStorageVersion(obj: KubeObject): void {
  const versions = isJSONObject(obj.spec) && Array.isArray((obj.spec as { versions?: unknown }).versions) ? ((obj.spec as { versions: unknown[] }).versions) : [];
  const storage = versions.find((v): v is { name: string; storage: true } => isJSONObject(v) && v.storage === true && typeof v.name === 'string')?.name;
  const stored = new Set(crdStatusOf(obj).storedVersions);
  if (storage) stored.add(storage);
  obj.status = { ...crdStatus(obj), storedVersions: [...stored] };
}

/**
 * Whether the naming controller decides a stored CRD's names ({@link renameCRD}): it is not being
 * deleted, names a plural and a kind as strings (short names, if any, a list of strings) and has a
 * list of version objects; a CRD stored otherwise, before hcc checked, is left alone.
 */
export function hasNamesToDecide(crd: KubeObject): boolean {
  if (crd.metadata.deletionTimestamp) return false;
  const spec = isJSONObject(crd.spec) ? (crd.spec as { names?: unknown; versions?: unknown }) : undefined;
  const names = spec?.names;
  if (!isJSONObject(names) || typeof names.plural !== 'string' || typeof names.kind !== 'string') return false;
  if (names.shortNames !== undefined && !(Array.isArray(names.shortNames) && names.shortNames.every((n) => typeof n === 'string'))) return false;
  return !!spec && Array.isArray(spec.versions) && spec.versions.every((v) => isJSONObject(v));
}

/**
 * The status a stored CRD would now report, its names decided again against the names the other
 * CRDs of its group hold (`namesInUse`, {@link crdNamesInUse}): what kube's
 * NamingConditionController does for every CRD of a group when one of them changes or is deleted.
 * @param crd - the stored CRD (not changed)
 * @param now - the time a condition that changes status takes as its lastTransitionTime
 * @returns the new status object (equal to the old one when nothing would change)
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/controller/status/naming_controller.go
 */
export function renameCRD(crd: KubeObject, namesInUse: NonNullable<StrategyContext['crdNamesInUse']>, now: Date): KubeObject['status'] {
  // Names only: the stored versions are the CRD strategy's and the storage migration's (upstream's naming controller leaves them).
  const next: KubeObject = { ...crd, status: structuredClone(crd.status) };
  establish(next, { ...systemContext(now), crdNamesInUse: namesInUse });
  return next.status;
}

/**
 * The names a CRD's resource is served under: its kind, list kind, singular, short names and
 * categories from `status.acceptedNames` (a rename refused for a conflict, or waiting for names
 * another CRD gives up, leaves the names it had), or from `spec.names` for a CRD stored before hcc
 * recorded accepted names, as apiextensions-apiserver's discovery controller and custom resource
 * handler read `Status.AcceptedNames`; its plural always from the spec (the CRD's name, which
 * upstream routes requests by).
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_discovery_controller.go
 */
export function servedNames(crd: KubeObject): Required<Pick<AcceptedNames, 'plural' | 'singular' | 'kind' | 'listKind' | 'shortNames' | 'categories'>> {
  const spec = (crd.spec as CRDSpec).names;
  const a = crdStatusOf(crd).acceptedNames;
  const n = a.kind && a.plural ? a : spec;
  // The plural is the spec's (immutable, and the CRD's name): requests are routed by it, as upstream routes by CRD name.
  return { plural: spec.plural, kind: n.kind ?? spec.kind, singular: n.singular || n.kind!.toLowerCase(), listKind: n.listKind || `${n.kind}List`, shortNames: n.shortNames ?? [], categories: n.categories ?? [] };
}

/** Whether a CRD is served: its names accepted or it was Established (as the CR handler decides). */
export function isServedCRD(crd: KubeObject): boolean {
  // A CRD stored before hcc recorded conditions is served, as it was.
  if (!isJSONObject(crd.status) || !('conditions' in crd.status)) return true;
  return crdStatusOf(crd).conditions.some((c) => (c.type === 'NamesAccepted' || c.type === 'Established') && c.status === 'True');
}

/**
 * The registry entry of CustomResourceDefinitions (rules above): cluster-scoped, with a status subresource; a create
 * gets {@link FinalizerCRDCleanup}; `spec.group` and `spec.names.plural` are immutable, `spec.scope`
 * and `spec.names.kind` too once the CRD is Established.
 */
export const customresourcedefinitions: ResourceInfo = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  singular: 'customresourcedefinition',
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  namespaced: false,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: { status: true },
  storageVersion: 'v1',
  custom: false,
  strategy: baseStrategy({
    prepareForCreate: (obj, ctx) => {
      delete obj.status;
      defaultCRDSpec(obj.spec);
      obj.metadata.finalizers = [...new Set([...(obj.metadata.finalizers ?? []), FinalizerCRDCleanup])];
      recordStorageVersion(obj);
      if (validateCRD(obj).length === 0) establish(obj, ctx);
    },
    validate: (obj) => [...validateCRD(obj), ...validateAPIApproval(obj)],
    prepareForUpdate: (obj, old, ctx) => {
      statusSubresource.keepOldStatus(obj, old);
      defaultCRDSpec(obj.spec);
      recordStorageVersion(obj);
      if (validateCRD(obj).length === 0) establish(obj, ctx);
    },
    validateUpdate: (obj, old) => {
      const errs = [...validateCRD(obj), ...namesErrors(crdStatus(obj).acceptedNames, 'status.acceptedNames'), ...storedVersionErrors(obj), ...validateAPIApproval(obj, old)];
      const spec = obj.spec as CRDSpec | undefined;
      const oldSpec = old.spec as CRDSpec;
      if (spec && spec.group !== oldSpec.group) errs.push(field.invalid('spec.group', spec.group, 'field is immutable'));
      // The plural names the storage; the scope and the kind too once Established (upstream's requireImmutableNames).
      if (spec?.names && spec.names.plural !== oldSpec.names?.plural) errs.push(field.invalid('spec.names.plural', spec.names.plural, 'field is immutable'));
      const established = crdStatusOf(old).conditions.some((c) => c.type === 'Established' && c.status === 'True');
      if (established && spec && spec.scope !== oldSpec.scope) errs.push(field.invalid('spec.scope', spec.scope, 'field is immutable'));
      if (established && spec?.names && spec.names.kind !== oldSpec.names?.kind) errs.push(field.invalid('spec.names.kind', spec.names.kind, 'field is immutable'));
      return errs;
    },
    prepareForStatusUpdate: statusSubresource.prepareForStatusUpdate,
    // ValidateUpdateCustomResourceDefinitionStatus: the accepted names (a status the decoder took).
    validateStatusUpdate: (obj) => namesErrors(crdStatus(obj).acceptedNames, 'status.acceptedNames'),
    tableColumns: () => [nameColumn, column('Created At', 'date', 'The time the CRD was created')],
    tableCells: (obj) => [obj.metadata.name, obj.metadata.creationTimestamp ?? ''],
  }),
};

/** Age column helper kept for symmetry with other built-ins (CRDs show Created At instead). */
export const crdAge = age;
