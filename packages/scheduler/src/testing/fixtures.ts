/**
 * Builders of plain HostedCluster, ManagementCluster and ClusterInfo objects for the scheduler's
 * unit tests (plugins, runtime, cache). No server, no clock: times are relative to {@link fixedNow}.
 */
import type { HostedCluster, ManagementCluster } from '@hcc/crds';
import type { ClusterInfo } from '../framework/types.js';
import { clusterInfo } from '../cache/cluster-cache.js';

/** The fixed "now" of unit tests, in ms since the epoch. */
export const fixedNow = Date.parse('2026-11-30T00:00:00Z');

/** Shape of {@link hostedCluster}'s options. */
export interface HostedClusterFixture {
  name?: string;
  namespace?: string;
  platform?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  /** Release image, e.g. `quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64`. */
  image?: string;
}

/** A HostedCluster (default `clusters/x`, platform AWS). */
export const hostedCluster = (o: HostedClusterFixture = {}): HostedCluster => ({
  metadata: { name: o.name ?? 'x', namespace: o.namespace ?? 'clusters', annotations: o.annotations ?? {}, labels: o.labels ?? {}, resourceVersion: '1' },
  spec: { platform: { type: o.platform ?? 'AWS' }, ...(o.image ? { release: { image: o.image } } : {}) },
});

/** Shape of {@link managementCluster}'s options. */
export interface ManagementClusterFixture {
  capacity?: number;
  budget?: number;
  hosted?: number;
  ready?: boolean;
  cordon?: boolean;
  platforms?: string[];
  labels?: Record<string, string>;
  taints?: NonNullable<ManagementCluster['spec']['taints']>;
  supportedVersions?: string[];
  /** Age of the last heartbeat, in milliseconds (default 1000). */
  heartbeatAgeMs?: number;
}

/** A Ready ManagementCluster with a fresh heartbeat (capacity 10, budget = capacity − hosted). */
export const managementCluster = (name: string, o: ManagementClusterFixture = {}): ManagementCluster => ({
  metadata: { name, labels: o.labels },
  spec: { capacity: o.capacity ?? 10, unschedulable: o.cordon, platforms: o.platforms, taints: o.taints },
  status: {
    conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', reason: o.ready === false ? 'HeartbeatExpired' : 'SyncerHeartbeat' }],
    lastHeartbeatTime: new Date(fixedNow - (o.heartbeatAgeMs ?? 1000)).toISOString(),
    budget: o.budget ?? (o.capacity ?? 10) - (o.hosted ?? 0),
    hostedClusters: o.hosted ?? 0,
    supportedVersions: o.supportedVersions,
  },
});

/** Shape of {@link info}'s options. */
export interface ClusterInfoFixture extends ManagementClusterFixture {
  /** Bound + assumed HostedClusters (default: `hosted`). */
  placed?: number;
  /** Keys `namespace/name` of what is placed (fills the namespace maps). */
  placedKeys?: string[];
}

/** A ClusterInfo as the cache would snapshot it at {@link fixedNow} with a 40 s heartbeat grace. */
export function info(name: string, o: ClusterInfoFixture = {}): ClusterInfo {
  const controlPlaneNamespaces = new Map<string, number>();
  const namespaces = new Map<string, number>();
  for (const k of o.placedKeys ?? []) {
    const cp = k.replace('/', '-');
    const ns = k.slice(0, k.indexOf('/'));
    controlPlaneNamespaces.set(cp, (controlPlaneNamespaces.get(cp) ?? 0) + 1);
    namespaces.set(ns, (namespaces.get(ns) ?? 0) + 1);
  }
  const placed = o.placed ?? o.placedKeys?.length ?? o.hosted ?? 0;
  return clusterInfo(managementCluster(name, o), placed, fixedNow, 40_000, { controlPlaneNamespaces, namespaces });
}
