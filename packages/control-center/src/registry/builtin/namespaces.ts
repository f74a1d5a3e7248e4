/**
 * core/v1 Namespace: cluster-scoped; `status.phase` Active|Terminating; `spec.finalizers`
 * holds `kubernetes` until the namespace controller has emptied it.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/namespace/strategy.go
 */
import type { KubeObject } from '@hcc/crds';
import { age, ageColumn, baseStrategy, column, nameColumn, statusSubresource } from '../generic-strategy.js';
import type { ResourceInfo } from '../types.js';

/** The finalizer the namespace controller removes once a Namespace is empty. */
export const FinalizerKubernetes = 'kubernetes';

export const namespaces: ResourceInfo = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  singular: 'namespace',
  shortNames: ['ns'],
  categories: [],
  namespaced: false,
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: { status: true },
  storageVersion: 'v1',
  custom: false,
  strategy: baseStrategy({
    prepareForCreate: (obj: KubeObject) => {
      const spec = (obj.spec ?? {}) as { finalizers?: string[] };
      obj.spec = { ...spec, finalizers: [FinalizerKubernetes] };
      obj.status = { phase: 'Active' };
      obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name! };
    },
    prepareForUpdate: (obj, old) => {
      // spec.finalizers only change through /finalize; status only through /status.
      obj.spec = old.spec;
      statusSubresource.keepOldStatus(obj, old);
      obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': old.metadata.name! };
    },
    prepareForStatusUpdate: statusSubresource.prepareForStatusUpdate,
    selectableFields: (obj) => ({ 'status.phase': String((obj.status as { phase?: string } | undefined)?.phase ?? '') }),
    tableColumns: () => [nameColumn, column('Status', 'string', 'The status of the namespace'), ageColumn],
    tableCells: (obj, now) => [obj.metadata.name, (obj.status as { phase?: string } | undefined)?.phase ?? '', age(obj.metadata.creationTimestamp, now)],
    bumpsGeneration: () => false,
  }),
};
