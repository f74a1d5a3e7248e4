/**
 * Addresses of the resources hcc components read and write (group, version, lowercase plural,
 * scope), usable as `@hcc/client` ResourceRefs.
 */
import { ControlCenterGroup, ControlCenterVersion, HyperShiftGroup, HyperShiftVersion } from './names.js';

/** group/version/resource/scope of one resource. */
export interface ResourceAddress {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
}

/** HyperShift HostedClusters (namespaced). */
export const HostedClusterResource: ResourceAddress = { group: HyperShiftGroup, version: HyperShiftVersion, resource: 'hostedclusters', namespaced: true };
/** HyperShift NodePools (namespaced). */
export const NodePoolResource: ResourceAddress = { group: HyperShiftGroup, version: HyperShiftVersion, resource: 'nodepools', namespaced: true };
/** hcc's ManagementClusters (cluster-scoped). */
export const ManagementClusterResource: ResourceAddress = { group: ControlCenterGroup, version: ControlCenterVersion, resource: 'managementclusters', namespaced: false };
/** core/v1 Namespaces (cluster-scoped). */
export const NamespaceResource: ResourceAddress = { group: '', version: 'v1', resource: 'namespaces', namespaced: false };
/** core/v1 Secrets (namespaced). */
export const SecretResource: ResourceAddress = { group: '', version: 'v1', resource: 'secrets', namespaced: true };
/** core/v1 ConfigMaps (namespaced). */
export const ConfigMapResource: ResourceAddress = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
/** core/v1 Events (namespaced). */
export const EventResource: ResourceAddress = { group: '', version: 'v1', resource: 'events', namespaced: true };
/** coordination.k8s.io/v1 Leases (namespaced). */
export const LeaseResource: ResourceAddress = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true };
/** apiextensions.k8s.io/v1 CustomResourceDefinitions (cluster-scoped). */
export const CRDResource: ResourceAddress = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false };
