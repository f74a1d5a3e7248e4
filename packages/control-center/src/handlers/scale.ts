/**
 * The scale subresource of custom resources (`/scale`, autoscaling/v1 Scale), as CRDs declare it
 * with `specReplicasPath`, `statusReplicasPath` and `labelSelectorPath`. `kubectl scale nodepool`
 * and autoscalers use it. Writes go to the main resource under its resourceVersion.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#scale-subresource
 */
import { deepCopyJSON, type KubeObject } from '@hcc/crds';
import * as apierrors from '../apierrors/status.js';
import * as field from '../apierrors/field.js';
import type { ResourceInfo } from '../registry/types.js';

/** Splits a simple JSON path such as `.spec.replicas` into keys. */
function keys(p: string): string[] {
  return p.replace(/^\./, '').split('.').filter(Boolean);
}

function getPath(obj: unknown, p: string): unknown {
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
 * Applies a desired Scale to the object: sets `specReplicasPath`; the Scale's resourceVersion,
 * when set, becomes the update's precondition.
 * @throws StatusError 422 when replicas is not a non-negative integer
 */
export function fromScale(info: ResourceInfo, obj: KubeObject, scale: KubeObject): KubeObject {
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw apierrors.invalid({ group: 'autoscaling', kind: 'Scale' }, obj.metadata.name ?? '', [field.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  const out = deepCopyJSON(obj);
  setPath(out as Record<string, unknown>, info.subresources.scale!.specReplicasPath, replicas);
  out.metadata.resourceVersion = scale.metadata?.resourceVersion || obj.metadata.resourceVersion;
  return out;
}
