/**
 * The scheduling framework's types, after kube-scheduler's framework (pkg/scheduler/framework):
 * filter plugins say whether a HostedCluster may go to a ManagementCluster, score plugins rank
 * the ones that may. Plugins are pure: data in, Status or number out; no client, no clock, no
 * randomness (the runtime owns those).
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/scheduling-framework/
 */
import type { HostedCluster, ManagementCluster } from '@hcc/crds';

/** What the scheduler knows of one ManagementCluster at the start of a cycle. */
export interface ClusterInfo {
  name: string;
  cluster: ManagementCluster;
  /** Most HostedClusters it may hold (spec.capacity; Infinity when unset). */
  capacity: number;
  /** HostedClusters bound to it in the control center, including reservations not yet seen (a count). */
  placed: number;
  /** Free slots: what the cluster reports, less placements it has not counted yet, never above capacity - placed. */
  freeSlots: number;
  /** Whether its syncer's heartbeat is fresh and it reports Ready. */
  ready: boolean;
  /** Why it is not ready (for messages), '' when ready. */
  notReadyReason: string;
}

/** Result of a filter. */
export type Code = 'Success' | 'Unschedulable' | 'Error';

export interface Status {
  code: Code;
  /** Short reasons, shown in the `0/N management clusters are available: ...` message. */
  reasons: string[];
}

export const Status = {
  success: (): Status => ({ code: 'Success', reasons: [] }),
  unschedulable: (...reasons: string[]): Status => ({ code: 'Unschedulable', reasons }),
  error: (reason: string): Status => ({ code: 'Error', reasons: [reason] }),
};

/** A filter plugin: may the HostedCluster go to the cluster? */
export interface FilterPlugin {
  name: string;
  filter(hc: HostedCluster, cluster: ClusterInfo): Status;
}

/** A score plugin: how good is the cluster for the HostedCluster, in [0, 100] after normalisation. */
export interface ScorePlugin {
  name: string;
  /** Raw score; the runtime normalises raw scores to [0, 100] across feasible clusters unless `normalized` is true. */
  score(hc: HostedCluster, cluster: ClusterInfo): number;
  /** True when `score` already returns [0, 100]. */
  normalized?: boolean;
}

/** A configured profile: which plugins run, with which score weights. */
export interface Profile {
  filters: FilterPlugin[];
  scores: { plugin: ScorePlugin; weight: number }[];
}

/** The outcome of one scheduling attempt. */
export type ScheduleResult =
  | { feasible: true; cluster: string; scores: Record<string, number>; evaluated: number }
  | { feasible: false; message: string; evaluated: number; reasons: Record<string, number> };
