/**
 * coordination.k8s.io/v1 Lease: syncer heartbeats and scheduler leader election.
 * @see https://kubernetes.io/docs/concepts/architecture/leases/
 */
import { age, ageColumn, baseStrategy, column, nameColumn } from '../generic-strategy.js';
import type { ResourceInfo } from '../types.js';
import * as field from '../../apierrors/field.js';
import type { KubeObject } from '@hcc/crds';

/**
 * Upstream's ValidateLeaseSpec, on every create and update (ValidateLeaseUpdate): a
 * `leaseDurationSeconds` above 0 and a `leaseTransitions` of 0 or more, when set.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/coordination/validation/validation.go
 */
export function validateLeaseSpec(obj: KubeObject): field.FieldError[] {
  const spec = (obj.spec ?? {}) as { leaseDurationSeconds?: unknown; leaseTransitions?: unknown };
  const errs: field.FieldError[] = [];
  const d = spec.leaseDurationSeconds;
  if (d !== undefined && d !== null && (typeof d !== 'number' || d <= 0)) errs.push(field.invalid('spec.leaseDurationSeconds', d, 'must be greater than 0'));
  const t = spec.leaseTransitions;
  if (t !== undefined && t !== null && (typeof t !== 'number' || t < 0)) errs.push(field.invalid('spec.leaseTransitions', t, 'must be greater than or equal to 0'));
  return errs;
}

/**
 * The registry entry of coordination.k8s.io/v1 Leases: namespaced, no status subresource, {@link validateLeaseSpec} on
 * every write.
 */
export const leases: ResourceInfo = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  listKind: 'LeaseList',
  singular: 'lease',
  shortNames: [],
  categories: [],
  namespaced: true,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: { status: false },
  storageVersion: 'v1',
  custom: false,
  strategy: baseStrategy({
    allowCreateOnUpdate: true,
    validate: (obj) => validateLeaseSpec(obj),
    validateUpdate: (obj) => validateLeaseSpec(obj),
    tableColumns: () => [nameColumn, column('Holder', 'string', 'The holder of the lease'), ageColumn],
    tableCells: (obj, now) => [
      obj.metadata.name,
      (obj.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? '',
      age(obj.metadata.creationTimestamp, now),
    ],
    bumpsGeneration: () => false,
  }),
};
