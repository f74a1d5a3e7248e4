/**
 * core/v1 Namespace: cluster-scoped; `status.phase` Active|Terminating; `spec.finalizers`
 * holds `kubernetes` until the namespace controller has emptied it.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/namespace/strategy.go
 */
import type { KubeObject } from '@hcc/crds';
import { isQualifiedName } from '@hcc/client';
import * as field from '../../apierrors/field.js';
import { age, ageColumn, baseStrategy, column, nameColumn, statusSubresource } from '../generic-strategy.js';
import type { ResourceInfo } from '../types.js';

/** The finalizer the namespace controller removes once a Namespace is empty. */
export const FinalizerKubernetes = 'kubernetes';

/** Finalizer names that need no prefix (core helper.IsStandardFinalizerName). */
const standardFinalizers = new Set([FinalizerKubernetes, 'orphan', 'foregroundDeletion']);

/**
 * `spec.finalizers` of a Namespace: a list of finalizer names, each `kubernetes` or a qualified
 * name with a prefix (`example.com/cleanup`), as kube-apiserver's ValidateNamespaceFinalizeUpdate
 * checks them (`orphan` and `foregroundDeletion` count as standard there too).
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/validation.go (validateFinalizerName)
 */
function validateSpecFinalizers(finalizers: unknown): field.FieldError[] {
  if (!Array.isArray(finalizers)) return [field.typeInvalid('spec.finalizers', finalizers, 'must be a list of finalizer names')];
  const errs: field.FieldError[] = [];
  finalizers.forEach((f, i) => {
    const at = `spec.finalizers[${i}]`;
    if (typeof f !== 'string') {
      errs.push(field.typeInvalid(at, f, 'must be a string'));
      return;
    }
    errs.push(...isQualifiedName(f).map((msg) => field.invalid(at, f, msg)));
    if (!f.includes('/') && !standardFinalizers.has(f)) errs.push(field.invalid(at, f, 'name is neither a standard finalizer name nor is it fully qualified'));
  });
  return errs;
}

/**
 * A Namespace's `status.phase` after a status update: Active while it is not being deleted,
 * Terminating once it is, as ValidateNamespaceStatusUpdate requires; so a client cannot mark a
 * live namespace Terminating (which would refuse every create in it) or invent a phase.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/validation.go (ValidateNamespaceStatusUpdate)
 */
function validateStatusPhase(obj: KubeObject): field.FieldError[] {
  const phase = (obj.status as { phase?: unknown } | undefined)?.phase;
  if (!obj.metadata.deletionTimestamp) {
    return phase === 'Active' ? [] : [field.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  return phase === 'Terminating' ? [] : [field.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
}

/**
 * The registry entry of core/v1 Namespaces (rules above): cluster-scoped, with `status` and `finalize` subresources, no
 * deletecollection; a create gets {@link FinalizerKubernetes} in `spec.finalizers`, `status.phase: Active` and the
 * `kubernetes.io/metadata.name` label.
 */
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
  subresources: { status: true, finalize: true },
  storageVersion: 'v1',
  custom: false,
  strategy: baseStrategy({
    // The `kubernetes` finalizer list made here is the server's: `kubectl create ns` owns only the name label.
    systemFieldsOnCreate: (obj) => {
      const spec = obj.spec as { finalizers?: unknown } | undefined;
      if (!spec || typeof spec !== 'object') return [['spec']];
      return Array.isArray(spec.finalizers) ? [] : [['spec', 'finalizers']];
    },
    prepareForCreate: (obj: KubeObject) => {
      // Finalizers given at create stay (their owners remove them through /finalize); `kubernetes`
      // is always added (NamespaceStrategy.PrepareForCreate).
      const spec = (obj.spec ?? {}) as { finalizers?: unknown };
      const given = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
      obj.spec = { ...spec, finalizers: given.includes(FinalizerKubernetes) ? given : [...given, FinalizerKubernetes] };
      obj.status = { phase: 'Active' };
      obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name! };
    },
    prepareForUpdate: (obj, old) => {
      // spec.finalizers only change through /finalize; status only through /status.
      obj.spec = old.spec;
      statusSubresource.keepOldStatus(obj, old);
      obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': old.metadata.name! };
    },
    validate: (obj) => validateSpecFinalizers((obj.spec as { finalizers?: unknown }).finalizers),
    prepareForStatusUpdate: (obj, old, ctx) => {
      const out = statusSubresource.prepareForStatusUpdate!(obj, old, ctx);
      // An empty phase defaults to Active (SetDefaults_NamespaceStatus).
      const status = (out.status ?? {}) as { phase?: unknown };
      if (status.phase === undefined || status.phase === '') out.status = { ...status, phase: 'Active' };
      return out;
    },
    validateStatusUpdate: (obj) => validateStatusPhase(obj),
    prepareForFinalize: (obj, old) => {
      const { finalizers: _old, ...spec } = (old.spec ?? {}) as { finalizers?: unknown };
      const finalizers = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
      // An empty list is left out, as Go's omitempty serves it.
      const keep = Array.isArray(finalizers) && finalizers.length === 0 ? undefined : finalizers;
      return { ...old, metadata: { ...old.metadata, resourceVersion: obj.metadata.resourceVersion }, spec: keep === undefined ? spec : { ...spec, finalizers: keep } };
    },
    validateFinalize: (obj) => {
      const f = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
      return f === undefined ? [] : validateSpecFinalizers(f);
    },
    specFinalizers: (obj) => {
      const f = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
      return Array.isArray(f) ? (f as string[]) : [];
    },
    selectableFields: (obj) => ({ 'status.phase': String((obj.status as { phase?: string } | undefined)?.phase ?? '') }),
    tableColumns: () => [nameColumn, column('Status', 'string', 'The status of the namespace'), ageColumn],
    tableCells: (obj, now) => [obj.metadata.name, (obj.status as { phase?: string } | undefined)?.phase ?? '', age(obj.metadata.creationTimestamp, now)],
    bumpsGeneration: () => false,
  }),
};
