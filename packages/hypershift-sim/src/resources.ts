/**
 * The resource types the sim reads and writes, as `ResourceRef`s for `@hcc/client`.
 */
import type { ResourceRef } from '@hcc/client';
import { HyperShiftGroup, HyperShiftVersion, Resources } from '@hcc/crds';

export const hostedClustersRef: ResourceRef = {
  group: HyperShiftGroup,
  version: HyperShiftVersion,
  resource: Resources.hostedClusters,
  namespaced: true,
};

export const nodePoolsRef: ResourceRef = {
  group: HyperShiftGroup,
  version: HyperShiftVersion,
  resource: Resources.nodePools,
  namespaced: true,
};

export const namespacesRef: ResourceRef = { group: '', version: 'v1', resource: 'namespaces', namespaced: false };
export const secretsRef: ResourceRef = { group: '', version: 'v1', resource: 'secrets', namespaced: true };
export const configMapsRef: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
