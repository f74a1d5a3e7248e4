/**
 * core/v1 ConfigMap: `data` (string values) and `binaryData` (base64), keys unique across both,
 * at most 1 MiB in all, optionally `immutable`.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/validation.go (ValidateConfigMap)
 */
import { age, ageColumn, baseStrategy, column, nameColumn } from '../generic-strategy.js';
import type { ResourceInfo } from '../types.js';
import * as field from '../../apierrors/field.js';
import { validateDataKeys, validateImmutable } from '../validation.js';
import { canonicalBase64Values, isStdBase64 } from '../schema/formats.js';

const MaxSizeBytes = 1024 * 1024;

/**
 * The registry entry of core/v1 ConfigMaps (rules above): namespaced, no status subresource; `data` and `binaryData`
 * cannot change once `immutable` is set.
 */
export const configmaps: ResourceInfo = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  singular: 'configmap',
  shortNames: ['cm'],
  categories: [],
  namespaced: true,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: { status: false },
  storageVersion: 'v1',
  custom: false,
  strategy: baseStrategy({
    // binaryData as kube-apiserver serves it back after decoding it (see canonicalBase64Values).
    prepareForCreate: (obj) => canonicalBase64Values(obj.binaryData),
    prepareForUpdate: (obj) => canonicalBase64Values(obj.binaryData),
    validate: (obj) => {
      const errs: field.FieldError[] = [];
      const data = (obj.data ?? {}) as Record<string, unknown>;
      const bin = (obj.binaryData ?? {}) as Record<string, unknown>;
      for (const e of [...validateDataKeys(data, 'data'), ...validateDataKeys(bin, 'binaryData')]) errs.push(e);
      let size = 0;
      for (const [k, v] of Object.entries(data)) {
        if (typeof v !== 'string') errs.push(field.typeInvalid(`data[${k}]`, v, 'must be a string'));
        else size += Buffer.byteLength(v);
        if (Object.hasOwn(bin, k)) errs.push(field.invalid(`data[${k}]`, k, 'duplicate of key present in binaryData'));
      }
      for (const [k, v] of Object.entries(bin)) {
        if (typeof v !== 'string' || !isStdBase64(v)) errs.push(field.invalid(`binaryData[${k}]`, '<binary>', 'must be base64 encoded'));
        else size += Buffer.from(v, 'base64').length;
      }
      if (size > MaxSizeBytes) errs.push(field.tooLong('', '<data>', MaxSizeBytes));
      return errs;
    },
    validateUpdate: (obj, old) => [...configmaps.strategy.validate(obj, undefined as never), ...validateImmutable(obj, old, ['data', 'binaryData'])],
    tableColumns: () => [nameColumn, column('Data', 'integer', 'Number of data entries'), ageColumn],
    tableCells: (obj, now) => [
      obj.metadata.name,
      Object.keys((obj.data ?? {}) as object).length + Object.keys((obj.binaryData ?? {}) as object).length,
      age(obj.metadata.creationTimestamp, now),
    ],
    bumpsGeneration: () => false,
  }),
};
