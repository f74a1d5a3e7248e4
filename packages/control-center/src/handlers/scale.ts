/**
 * The scale subresource of custom resources (`/scale`, autoscaling/v1 Scale), as CRDs declare it
 * with `specReplicasPath`, `statusReplicasPath` and `labelSelectorPath`. `kubectl scale nodepool`
 * and autoscalers use it. Writes go to the main resource under its resourceVersion.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#scale-subresource
 */
import { deepCopyJSON, type KubeObject } from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';
import * as field from '../apierrors/field.js';
import type { ResourceInfo, StrategyContext } from '../registry/types.js';
import { reportUnknownFields } from '../registry/schema/index.js';
import { decodeError } from '../registry/builtin/decode.js';
import type { JSONSchemaProps } from '../registry/schema/types.js';
import { age, ageColumn, column, nameColumn } from '../registry/generic-strategy.js';
import { rowObject, type IncludeObject } from '../pipeline/table.js';
import type { ResponseShape } from '../pipeline/negotiate.js';

/** Splits a simple JSON path such as `.spec.replicas` into keys. */
export function keys(p: string): string[] {
  return p.replace(/^\./, '').split('.').filter(Boolean);
}

/** The value at a simple JSON path such as `.spec.replicas` (see {@link keys}), or undefined. */
export function getPath(obj: unknown, p: string): unknown {
  let cur: unknown = obj;
  for (const k of keys(p)) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, p: string, value: unknown): void {
  const ks = keys(p);
  let cur = obj;
  for (const k of ks.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[ks[ks.length - 1]!] = value;
}

/** The Scale view of an object. */
export function toScale(info: ResourceInfo, obj: KubeObject): KubeObject {
  const sc = info.subresources.scale!;
  const m = obj.metadata;
  const status: Record<string, unknown> = { replicas: Number(getPath(obj, sc.statusReplicasPath) ?? 0) };
  if (sc.labelSelectorPath) {
    const sel = getPath(obj, sc.labelSelectorPath);
    if (typeof sel === 'string') status.selector = sel;
  }
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: Number(getPath(obj, sc.specReplicasPath) ?? 0) },
    status,
  };
}

/**
 * A Scale as a `meta.k8s.io` Table (`kubectl get nodepool NAME --subresource=scale`): the columns
 * apiextensions-apiserver gives a custom resource's scale subresource, NAME, DESIRED
 * (`spec.replicas`), AVAILABLE (`status.replicas`) and AGE.
 * @see https://github.com/kubernetes/kubernetes/pull/103516 (kubectl get --subresource)
 */
export function scaleTable(scale: KubeObject, opts: { version: string; include: IncludeObject; now: Date }): Record<string, unknown> {
  const spec = scale.spec as { replicas?: number };
  const status = scale.status as { replicas?: number };
  const row: Record<string, unknown> = { cells: [scale.metadata.name, spec.replicas ?? 0, status.replicas ?? 0, age(scale.metadata.creationTimestamp, opts.now)] };
  const object = rowObject(scale, opts.include, opts.version);
  if (object !== undefined) row.object = object;
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${opts.version}`,
    metadata: { resourceVersion: scale.metadata.resourceVersion },
    columnDefinitions: [
      nameColumn,
      column('Desired', 'integer', 'desired is the requested number of replicas (spec.replicas of the Scale)'),
      column('Available', 'integer', 'available is the actual number of replicas (status.replicas of the Scale)'),
      ageColumn,
    ],
    rows: [row],
  };
}

/** A Scale in the shape the request's Accept header picked: the Scale, a Table or its metadata. */
export function renderScale(scale: KubeObject, shape: ResponseShape, include: IncludeObject, now: Date): unknown {
  if (shape.kind === 'table') return scaleTable(scale, { version: shape.version, include, now });
  if (shape.kind === 'metadata') return rowObject(scale, 'Metadata', shape.version);
  return scale;
}

/** The fields of autoscaling/v1 Scale outside metadata: the top level's, spec's and status's. */
const scaleFields: Record<string, readonly string[]> = { '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'], spec: ['replicas'], status: ['replicas', 'selector'] };

/**
 * Reports the fields of a Scale body (a PUT, an apply configuration, or what a patch made of the
 * Scale view) that autoscaling/v1 Scale does not have, as kube-apiserver's decoder does per
 * `fieldValidation`: under `Strict` a 400 `strict decoding error: unknown field "spec.foo"`, under
 * `Warn` a warning each. (Metadata is the parent's, checked when it is written.)
 * @throws StatusError 400 under Strict
 */
export function reportScaleUnknownFields(scale: unknown, ctx: StrategyContext): void {
  if (typeof scale !== 'object' || scale === null || Array.isArray(scale)) return;
  const unknown: string[] = [];
  for (const [at, allowed] of Object.entries(scaleFields)) {
    const o = at === '' ? scale : (scale as Record<string, unknown>)[at];
    if (typeof o !== 'object' || o === null || Array.isArray(o)) continue;
    for (const k of Object.keys(o)) if (!allowed.includes(k)) unknown.push(at ? `${at}.${k}` : k);
  }
  reportUnknownFields(unknown.sort(), 'Scale', 'v1', ctx);
}

/** autoscaling/v1 ScaleSpec.replicas: an int32. */
const replicasSchema: JSONSchemaProps = { type: 'integer', format: 'int32' };

/**
 * Checks a Scale body (a PUT, or what a patch made of the Scale view) as kube-apiserver decodes
 * it into autoscaling/v1 Scale: its kind and apiVersion, when set, must be those; its name and
 * namespace, when set, the ones on the URL; `spec.replicas` must fit an int32.
 * @throws StatusError 400 BadRequest otherwise
 */
function checkScaleBody(scale: unknown, name: string, namespace: string | undefined): asserts scale is KubeObject {
  if (typeof scale !== 'object' || scale === null || Array.isArray(scale)) throw apierrors.badRequest('the body of the request must be a Scale object');
  const s = scale as { kind?: unknown; apiVersion?: unknown; metadata?: { name?: unknown; namespace?: unknown }; spec?: { replicas?: unknown } };
  if (s.kind !== undefined && s.kind !== 'Scale') throw apierrors.badRequest(`the kind in the data (${String(s.kind)}) does not match the expected kind (Scale)`);
  if (s.apiVersion !== undefined && s.apiVersion !== 'autoscaling/v1') {
    throw apierrors.badRequest(`the API version in the data (${String(s.apiVersion)}) does not match the expected API version (autoscaling/v1)`);
  }
  const bodyName = s.metadata?.name;
  if (bodyName !== undefined && bodyName !== '' && bodyName !== name) throw apierrors.badRequest(`the name of the object (${String(bodyName)}) does not match the name on the URL (${name})`);
  const bodyNamespace = s.metadata?.namespace;
  if (bodyNamespace !== undefined && bodyNamespace !== '' && bodyNamespace !== namespace) {
    throw apierrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const err = decodeError(s.spec?.replicas, replicasSchema, 'ScaleSpec.spec.replicas');
  if (err) throw apierrors.cannotBeHandled('Scale', 'v1', err.message);
}

/**
 * Applies a desired Scale to the object: sets `specReplicasPath`; the Scale's resourceVersion,
 * when set, becomes the update's precondition.
 * @throws StatusError 400 for a body that is no Scale of this object (see checkScaleBody), 422
 *   when replicas is missing or negative
 */
export function fromScale(info: ResourceInfo, obj: KubeObject, scale: unknown): KubeObject {
  checkScaleBody(scale, obj.metadata.name ?? '', obj.metadata.namespace);
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw apierrors.invalid({ group: 'autoscaling', kind: 'Scale' }, obj.metadata.name ?? '', [field.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  const out = deepCopyJSON(obj);
  setPath(out as Record<string, unknown>, info.subresources.scale!.specReplicasPath, replicas);
  out.metadata.resourceVersion = scale.metadata?.resourceVersion || obj.metadata.resourceVersion;
  return out;
}
