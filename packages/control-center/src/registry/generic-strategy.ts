/**
 * Defaults shared by every strategy, and small helpers for Table cells.
 * A resource overrides only what differs (see builtin/*.ts and custom-resources.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import { deepCopyJSON, type KubeObject } from '@hcc/crds';
import type { ColumnDefinition, Strategy } from './types.js';
import { humanDuration } from '../pipeline/jsonpath.js';

/** The Name column every Table starts with (metav1 `name` format). */
export const nameColumn: ColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace. More info: http://kubernetes.io/docs/user-guide/identifiers#names',
  priority: 0,
};

/** The Age column (`creationTimestamp` rendered as a human duration). */
export const ageColumn: ColumnDefinition = {
  name: 'Age',
  type: 'string',
  format: '',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
};

/** Builds a column definition. */
export const column = (name: string, type = 'string', description = '', priority = 0, format = ''): ColumnDefinition => ({
  name,
  type,
  format,
  description,
  priority,
});

/** Renders an RFC 3339 timestamp as an age relative to now (`5m`, `3h12m`, `<unknown>` when absent). */
export function age(timestamp: string | undefined, now: Date): string {
  if (!timestamp) return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now.getTime() - t);
}

/** Everything but metadata and status: what generation tracks. */
export function specPart(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/** A strategy with Kubernetes' defaults: no status subresource, generation bumps on any non-metadata change. */
export function baseStrategy(overrides: Partial<Strategy> = {}): Strategy {
  return {
    prepareForCreate: () => {},
    validate: () => [],
    prepareForUpdate: () => {},
    validateUpdate: () => [],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    selectableFields: () => ({}),
    tableColumns: () => [nameColumn, ageColumn],
    tableCells: (obj, now) => [obj.metadata.name, age(obj.metadata.creationTimestamp, now)],
    bumpsGeneration: (obj, old) => !isDeepStrictEqual(specPart(obj), specPart(old)),
    ...overrides,
  };
}

/**
 * Status-subresource behaviour shared by CRDs and built-ins that have one: the main resource
 * keeps the old status; the status subresource keeps everything but the new status.
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/master/pkg/registry/customresource/status_strategy.go
 */
export const statusSubresource: Pick<Strategy, 'prepareForStatusUpdate'> & {
  keepStatusOnCreate: (obj: KubeObject) => void;
  keepOldStatus: (obj: KubeObject, old: KubeObject) => void;
} = {
  keepStatusOnCreate: (obj) => {
    delete obj.status;
  },
  keepOldStatus: (obj, old) => {
    if (old.status === undefined) delete obj.status;
    else obj.status = old.status;
  },
  prepareForStatusUpdate: (obj, old) => {
    const { status: _oldStatus, ...rest } = old;
    const out = deepCopyJSON(rest) as KubeObject;
    out.metadata.resourceVersion = obj.metadata.resourceVersion;
    if (obj.status !== undefined) out.status = obj.status;
    return out;
  },
};
