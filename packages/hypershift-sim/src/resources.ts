/**
 * The resource types the sim reads and writes, as `ResourceRef`s for `@hcc/client`.
 */
import type { ResourceRef } from '@hcc/client';
import { HyperShiftGroup, HyperShiftVersion, Resources } from '@hcc/crds';

/** HyperShift HostedClusters (namespaced). */
export const hostedClustersRef: ResourceRef = {
  group: HyperShiftGroup,
  version: HyperShiftVersion,
  resource: Resources.hostedClusters,
  namespaced: true,
};

/** HyperShift NodePools (namespaced). */
export const nodePoolsRef: ResourceRef = {
  group: HyperShiftGroup,
  version: HyperShiftVersion,
  resource: Resources.nodePools,
  namespaced: true,
};

/** core/v1 Namespaces (cluster-scoped). */
export const namespacesRef: ResourceRef = { group: '', version: 'v1', resource: 'namespaces', namespaced: false };
/** core/v1 Secrets (namespaced). */
export const secretsRef: ResourceRef = { group: '', version: 'v1', resource: 'secrets', namespaced: true };
/** core/v1 ConfigMaps (namespaced). */
export const configMapsRef: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
