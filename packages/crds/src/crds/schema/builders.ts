/**
 * Small constructors for structural schema nodes, so the HyperShift schemas read like the Go types
 * they mirror. Every builder returns a fresh object; callers may spread extra keywords over it.
 */
import type { JSONSchemaProps, ValidationRule } from '../crd-types.js';

type Extra = Omit<JSONSchemaProps, 'type' | 'properties' | 'items'>;

/** A string node. */
export const str = (extra: Extra = {}): JSONSchemaProps => ({ type: 'string', ...extra });

/** A string node restricted to `values`. */
export const enumOf = (values: readonly string[], extra: Extra = {}): JSONSchemaProps => ({
  type: 'string',
  enum: [...values],
  ...extra,
});

/** An int32 node. */
export const int32 = (extra: Extra = {}): JSONSchemaProps => ({ type: 'integer', format: 'int32', ...extra });

/** An int64 node. */
export const int64 = (extra: Extra = {}): JSONSchemaProps => ({ type: 'integer', format: 'int64', ...extra });

/** A boolean node. */
export const bool = (extra: Extra = {}): JSONSchemaProps => ({ type: 'boolean', ...extra });

/** An object node with declared `properties` (unknown fields are not allowed beneath it). */
export const obj = (properties: Record<string, JSONSchemaProps>, extra: Extra = {}): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...extra,
});

/** An array node. */
export const arr = (items: JSONSchemaProps, extra: Extra = {}): JSONSchemaProps => ({ type: 'array', items, ...extra });

/** A `map[string]string` node. */
export const stringMap = (extra: Extra = {}): JSONSchemaProps => ({
  type: 'object',
  additionalProperties: { type: 'string' },
  ...extra,
});

/**
 * An object whose content is kept as sent (`x-kubernetes-preserve-unknown-fields`). Used for deep
 * sub-blocks this package deliberately does not model; the real operator validates them downstream.
 */
export const opaque = (description?: string, extra: Extra = {}): JSONSchemaProps => ({
  type: 'object',
  ...(description ? { description } : {}),
  'x-kubernetes-preserve-unknown-fields': true,
  ...extra,
});

/**
 * An int-or-string node (resource.Quantity, intstr.IntOrString), encoded the way controller-gen does:
 * `anyOf: [integer, string]` plus `x-kubernetes-int-or-string`.
 */
export const intOrString = (extra: Extra = {}): JSONSchemaProps => ({
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
  ...extra,
});

/** Kubernetes resource.Quantity (`8Gi`, `500m`, 2). */
export const quantity = (extra: Extra = {}): JSONSchemaProps =>
  intOrString({
    pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
    ...extra,
  });

/** A CEL rule with its message, exactly as upstream words it. */
export const cel = (rule: string, message: string): ValidationRule => ({ rule, message });

/** The `self == oldSelf` transition rule upstream puts on immutable fields. */
export const immutable = (message: string): ValidationRule => cel('self == oldSelf', message);

/**
 * corev1.LocalObjectReference: `{name}` in the object's own namespace. `name` defaults to "" (upstream
 * keeps empty names legal for backwards compatibility), and the map is atomic.
 */
export const localObjectReference = (description?: string, extra: Extra = {}): JSONSchemaProps => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties: { name: { type: 'string', default: '' } },
  'x-kubernetes-map-type': 'atomic',
  ...extra,
});

/**
 * configv1.SecretNameReference / ConfigMapNameReference: `{name}` with `name` required (may be "").
 * In a HostedCluster these name objects in the HostedCluster's namespace.
 */
export const nameReference = (description?: string): JSONSchemaProps => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties: { name: { type: 'string' } },
  required: ['name'],
});

/** metav1.Duration as JSON: a Go duration string such as `30s` or `1h5m`. */
export const duration = (extra: Extra = {}): JSONSchemaProps => ({ type: 'string', ...extra });
