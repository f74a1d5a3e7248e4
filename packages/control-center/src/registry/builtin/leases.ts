/**
 * coordination.k8s.io/v1 Lease: syncer heartbeats and scheduler leader election.
 * @see https://kubernetes.io/docs/concepts/architecture/leases/
 */
import { age, ageColumn, baseStrategy, column, nameColumn } from '../generic-strategy.js';
import type { ResourceInfo } from '../types.js';
import * as field from '../../apierrors/field.js';

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
    validate: (obj) => {
      const spec = (obj.spec ?? {}) as { leaseDurationSeconds?: unknown };
      if (spec.leaseDurationSeconds !== undefined && (typeof spec.leaseDurationSeconds !== 'number' || spec.leaseDurationSeconds <= 0)) {
        return [field.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0')];
      }
      return [];
    },
    tableColumns: () => [nameColumn, column('Holder', 'string', 'The holder of the lease'), ageColumn],
    tableCells: (obj, now) => [
      obj.metadata.name,
      (obj.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? '',
      age(obj.metadata.creationTimestamp, now),
    ],
    bumpsGeneration: () => false,
  }),
};
