/**
 * The `kubectl get` column hcc adds to HyperShift's own printer columns: where the control center
 * placed the object.
 */
import { LabelManagementCluster } from '../names.js';
import type { CustomResourceColumnDefinition } from './crd-types.js';

/** Escapes the dots of a label key for a JSONPath member name (`a.b/c` -> `a\.b/c`). */
export const jsonPathLabelKey = (key: string): string => key.replaceAll('.', '\\.');

/** `Management Cluster`: the value of the {@link LabelManagementCluster} placement label. */
export const managementClusterColumn: CustomResourceColumnDefinition = {
  name: 'Management Cluster',
  type: 'string',
  jsonPath: `.metadata.labels.${jsonPathLabelKey(LabelManagementCluster)}`,
  description: 'ManagementCluster the control center placed this object on',
};
