/**
 * core/v1 Namespace: cluster-scoped; `status.phase` Active|Terminating; `spec.finalizers`
 * holds `kubernetes` until the namespace controller has emptied it.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/namespace/strategy.go
 */
import type { KubeObject } from '@hcc/crds';
import { age, ageColumn, baseStrategy, column, nameColumn, statusSubresource } from '../generic-strategy.js';
import type { ResourceInfo } from '../types.js';
import * as field from '../../apierrors/field.js';
import { isDNS1123Label } from '../validation.js';

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
    validate: (obj) => {
      const errs: field.FieldError[] = [];
      const name = obj.metadata.name ?? '';
      if (!isDNS1123Label(name)) {
        errs.push(field.invalid('metadata.name', name, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
      }
      return errs;
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
