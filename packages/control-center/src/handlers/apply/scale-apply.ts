/**
 * Server-side apply to the scale subresource (`PATCH .../scale` with `application/apply-patch+yaml`,
 * an autoscaling/v1 Scale), as kube-apiserver's ScaleHandler does it: the parent's managedFields
 * entries that own the replicas field become Scale entries owning `.spec.replicas`; the apply runs
 * on that Scale (a conflict with another owner of a changed value is a 409 unless `force`); and
 * the outcome is written back to the parent: the applier's entry (`operation: Apply`,
 * `subresource: scale`, the parent's apiVersion) owns the replicas path, and an owner forced off
 * loses it (its entry goes when nothing else is left in it).
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/scalehandler.go
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
 */
import type { KubeObject } from '@hcc/crds';
import type { ResourceInfo } from '../../registry/types.js';
import { fromScale, getPath, keys } from '../scale.js';
import { conflictError, type Conflict } from './apply.js';
import { fieldPE, PathSet, type Path } from './fieldpath.js';
import { decodeManagedFields, encodeManagedFields, managerIdentity, type Managed } from './managed-fields.js';

/** `.spec.replicas` of a Scale, the path its managedFields entries (and conflicts) name. */
const replicasPathInScale: Path = [fieldPE('spec'), fieldPE('replicas')];

/** What {@link applyScale} needs. */
export interface ScaleApplyRequest {
  info: ResourceInfo;
  /** The stored parent object. */
  live: KubeObject;
  /** The decoded apply configuration (its type checked by the caller: autoscaling/v1 Scale). */
  config: Record<string, unknown>;
  /** The `fieldManager` parameter. */
  manager: string;
  force: boolean;
  /** The parent's apiVersion (group/version served), recorded on the applier's entry. */
  apiVersion: string;
  /** RFC 3339 time stamped on the applier's entry when replicas change. */
  now: string;
}

/**
 * Applies a Scale to its parent.
 * @returns the parent to store: replicas as applied (or unchanged when the configuration leaves
 *   them out, the applier then owning nothing), managedFields as described above; the Scale's
 *   resourceVersion, when set, is the write's precondition
 * @throws StatusError 400/422 for a body that is no valid Scale (see fromScale), 409 for
 *   conflicts without `force`, 500 for stored managedFields that do not decode
 */
export function applyScale(r: ScaleApplyRequest): KubeObject {
  const sc = r.info.subresources.scale!;
  const replicasPath: Path = keys(sc.specReplicasPath).map(fieldPE);
  const spec = r.config.spec as { replicas?: unknown } | undefined;
  const applied = spec !== null && typeof spec === 'object' && spec.replicas !== undefined && spec.replicas !== null;
  // fromScale checks the body and the value; without replicas the live value is kept.
  const current = Number(getPath(r.live, sc.specReplicasPath) ?? 0);
  const out = fromScale(r.info, r.live, { ...r.config, spec: { replicas: applied ? spec!.replicas : current } });
  const managed: Managed = decodeManagedFields(r.live.metadata.managedFields);
  const id = managerIdentity(r.manager, 'Apply', r.apiVersion, 'scale');
  const previous = managed.get(id);
  const managers: Managed = new Map(managed);
  if (!applied) {
    managers.delete(id);
  } else {
    const changed = getPath(out, sc.specReplicasPath) !== current;
    const owned = PathSet.of(replicasPath);
    if (changed) {
      const conflicts: Conflict[] = [];
      for (const [mid, m] of managers) {
        if (mid !== id && m.set.has(replicasPath)) conflicts.push({ manager: { ...m, apiVersion: 'autoscaling/v1' }, path: replicasPathInScale });
      }
      if (conflicts.length && !r.force) throw conflictError(conflicts);
      for (const [mid, m] of managers) {
        if (mid === id || !m.set.has(replicasPath)) continue;
        const rest = m.set.difference(owned);
        if (rest.isEmpty()) managers.delete(mid);
        else managers.set(mid, { ...m, set: rest });
      }
    }
    const time = changed ? r.now : previous?.time;
    managers.set(id, { manager: r.manager, operation: 'Apply', apiVersion: r.apiVersion, subresource: 'scale', set: owned, ...(time ? { time } : {}) });
  }
  const entries = encodeManagedFields(managers);
  if (entries === undefined) delete out.metadata.managedFields;
  else out.metadata.managedFields = entries as KubeObject['metadata']['managedFields'];
  return out;
}
