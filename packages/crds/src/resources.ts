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

export const HostedClusterResource: ResourceAddress = { group: HyperShiftGroup, version: HyperShiftVersion, resource: 'hostedclusters', namespaced: true };
export const NodePoolResource: ResourceAddress = { group: HyperShiftGroup, version: HyperShiftVersion, resource: 'nodepools', namespaced: true };
export const ManagementClusterResource: ResourceAddress = { group: ControlCenterGroup, version: ControlCenterVersion, resource: 'managementclusters', namespaced: false };
export const NamespaceResource: ResourceAddress = { group: '', version: 'v1', resource: 'namespaces', namespaced: false };
export const SecretResource: ResourceAddress = { group: '', version: 'v1', resource: 'secrets', namespaced: true };
export const ConfigMapResource: ResourceAddress = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
export const EventResource: ResourceAddress = { group: '', version: 'v1', resource: 'events', namespaced: true };
export const LeaseResource: ResourceAddress = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true };
export const CRDResource: ResourceAddress = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', namespaced: false };
