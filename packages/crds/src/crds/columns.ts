/**
 * The `kubectl get` column hcc adds to HyperShift's own printer columns: where the control center
 * placed the object.
 */
import { LabelManagementCluster } from '../names.js';
import type { CustomResourceColumnDefinition, CustomResourceDefinition } from './crd-types.js';

/** Escapes the dots of a label key for a JSONPath member name (`a.b/c` -> `a\.b/c`). */
export const jsonPathLabelKey = (key: string): string => key.replaceAll('.', '\\.');

/** `Management Cluster`: the value of the {@link LabelManagementCluster} placement label. */
export const managementClusterColumn: CustomResourceColumnDefinition = {
  name: 'Management Cluster',
  type: 'string',
  jsonPath: `.metadata.labels.${jsonPathLabelKey(LabelManagementCluster)}`,
  description: 'ManagementCluster the control center placed this object on',
};

/**
 * `crd` as a management cluster holds it, as HyperShift's own CRDs are: without the columns that
 * show control center state ({@link managementClusterColumn}: a copy there carries no placement
 * label, so the column would be empty on every row) and without the control center's `all`
 * category (HyperShift's CRDs have none, so `kubectl delete all --all -n NS` in a management
 * cluster never deletes HostedClusters or NodePools there). A new object; `crd` is left as it is.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go (kubebuilder:resource markers)
 */
export function asManagementClustersHoldIt(crd: CustomResourceDefinition): CustomResourceDefinition {
  const copy = structuredClone(crd) as CustomResourceDefinition;
  for (const v of copy.spec.versions) {
    if (v.additionalPrinterColumns) v.additionalPrinterColumns = v.additionalPrinterColumns.filter((c) => c.jsonPath !== managementClusterColumn.jsonPath);
  }
  delete copy.spec.names.categories;
  return copy;
}
