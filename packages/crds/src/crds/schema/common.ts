/**
 * Schema pieces shared by HostedCluster and NodePool: the release reference, Kubernetes core types
 * (Toleration, LabelSelector, Condition) and the status conditions HyperShift reports.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go
 */
import type { JSONSchemaProps } from '../crd-types.js';
import { arr, cel, enumOf, int64, obj, str, stringMap } from './builders.js';

/** hyperv1.Release: `{image}`, a release payload pull spec (1..253 characters, no white space). */
export const releaseSchema = (description: string): JSONSchemaProps =>
  obj(
    {
      image: str({
        description: 'image is the image pullspec of an OCP release payload image.',
        minLength: 1,
        maxLength: 253,
        'x-kubernetes-validations': [
          cel(
            "self.matches('^(\\\\w+\\\\S+)$')",
            'Image must start with a word character (letters, digits, or underscores) and contain no white spaces',
          ),
        ],
      }),
    },
    { description, required: ['image'] },
  );

/** corev1.Toleration. */
export const tolerationSchema: JSONSchemaProps = obj({
  effect: str({ description: 'NoSchedule, PreferNoSchedule or NoExecute; empty matches all effects.' }),
  key: str(),
  operator: str({ description: 'Exists or Equal (default).' }),
  tolerationSeconds: int64(),
  value: str(),
});

/** metav1.LabelSelector. */
export const labelSelectorSchema = (description?: string): JSONSchemaProps =>
  obj(
    {
      matchExpressions: arr(
        obj(
          {
            key: str(),
            operator: str(),
            values: arr(str(), { 'x-kubernetes-list-type': 'atomic' }),
          },
          { required: ['key', 'operator'] },
        ),
        { 'x-kubernetes-list-type': 'atomic' },
      ),
      matchLabels: stringMap(),
    },
    { ...(description ? { description } : {}), 'x-kubernetes-map-type': 'atomic' },
  );

/**
 * metav1.Condition as HyperShift reports it. Status is kept permissive (writers are the operator and
 * hcc's syncer), so only `type` and `status` are required here; upstream also requires
 * lastTransitionTime, reason and message.
 */
export const conditionSchema: JSONSchemaProps = obj(
  {
    type: str({ maxLength: 316 }),
    status: enumOf(['True', 'False', 'Unknown']),
    severity: str({ maxLength: 1024 }),
    lastTransitionTime: str({ format: 'date-time' }),
    reason: str({ maxLength: 1024 }),
    message: str({ maxLength: 32768 }),
    observedGeneration: int64({ minimum: 0 }),
  },
  { required: ['type', 'status'] },
);

/** `status.conditions`: a list keyed by `type`. */
export const conditionsSchema = (description: string): JSONSchemaProps =>
  arr(conditionSchema, {
    description,
    maxItems: 100,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
  });

/** A permissive status block: the listed fields are typed, anything else is preserved as written. */
export const permissiveStatus = (description: string, properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({
  type: 'object',
  description,
  properties,
  'x-kubernetes-preserve-unknown-fields': true,
});
