/**
 * Every CRD hcc knows, as typed constants. The YAML under `packages/crds/manifests/` is generated from
 * these (`npm run manifests -w @hcc/crds`) and a unit test fails if the two drift.
 */
import type { CustomResourceDefinition } from './crd-types.js';
import { asManagementClustersHoldIt } from './columns.js';
import { hostedClusterCRD } from './hostedcluster.js';
import { managementClusterCRD } from './managementcluster.js';
import { nodePoolCRD } from './nodepool.js';

export type * from './crd-types.js';
export { hostedClusterCRD, managementClusterCRD, nodePoolCRD };

/** HyperShift's CRDs (HostedCluster, NodePool) as the control center serves them. */
export const hyperShiftCRDs: readonly CustomResourceDefinition[] = [hostedClusterCRD, nodePoolCRD];

/**
 * HyperShift's CRDs as embedded (and kind) management clusters install them: the same schemas,
 * without the control center's MANAGEMENT CLUSTER column (the copies there carry no placement label)
 * and `all` category (HyperShift's own CRDs have none).
 */
export const hyperShiftCRDsForManagementClusters: readonly CustomResourceDefinition[] = hyperShiftCRDs.map(asManagementClustersHoldIt);

/** hcc's own CRDs (ManagementCluster): served by the control center only. */
export const controlCenterCRDs: readonly CustomResourceDefinition[] = [managementClusterCRD];

/** Every CRD above, HyperShift's first. */
export const allCRDs: readonly CustomResourceDefinition[] = [...hyperShiftCRDs, ...controlCenterCRDs];

/**
 * The file name a CRD's manifest has under `packages/crds/manifests/`: `<metadata.name>.yaml`,
 * e.g. `hostedclusters.hypershift.openshift.io.yaml`.
 */
export const manifestFileName = (crd: CustomResourceDefinition): string => `${crd.metadata.name}.yaml`;

/** The directory under `packages/crds/manifests/` of {@link hyperShiftCRDsForManagementClusters}. */
export const managementClusterManifestsDir = 'management-cluster';
