/**
 * The scheduling framework's types, after kube-scheduler's framework (pkg/scheduler/framework).
 * Every plugin implements one interface, {@link Plugin}: a name plus any of the extension points
 * - filter: may the HostedCluster go to this ManagementCluster? (a {@link Status})
 * - preScore / score / normalizeScore: how good is each feasible cluster, in [0, 100];
 * - bind: make the placement durable (the only extension point that talks to the API).
 * Filter and score plugins are pure: data in, Status or number out; no client, no clock, no
 * randomness (the runtime and the cache own those, so tests can fix them).
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/scheduling-framework/
 */
import type { HostedCluster, ManagementCluster } from '@hcc/crds';

/** Highest score a cluster can get from one score plugin (kube-scheduler's MaxNodeScore). */
export const MaxScore = 100;

/** What the scheduler knows of one ManagementCluster at the start of a cycle (read-only). */
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
  /** Control-plane namespace names (`<namespace>-<name>`) of the HostedClusters placed here → how many. */
  controlPlaneNamespaces: ReadonlyMap<string, number>;
  /** Namespaces of the HostedClusters placed here → how many (tenants, for spreading). */
  namespaces: ReadonlyMap<string, number>;
}

/** Result code of a filter. */
export type Code = 'Success' | 'Unschedulable' | 'Error';

/** What a filter says about one cluster. */
export interface Status {
  code: Code;
  /** Short reasons, shown in the `0/N management clusters are available: ...` message. */
  reasons: string[];
}

/** The one Success status: filters run clusters × plugins times per cycle, so success allocates nothing. Frozen. */
const success: Status = Object.freeze({ code: 'Success', reasons: Object.freeze([]) as unknown as string[] });

/** Constructors of {@link Status}. `success()` returns a shared frozen value: never change a Status. */
export const Status = {
  success: (): Status => success,
  unschedulable: (...reasons: string[]): Status => ({ code: 'Unschedulable', reasons }),
  error: (reason: string): Status => ({ code: 'Error', reasons: [reason] }),
};

/** A filter plugin: may the HostedCluster go to the cluster? */
export interface FilterPlugin {
  name: string;
  filter(hc: HostedCluster, cluster: ClusterInfo): Status;
}

/**
 * A score plugin: how good is the cluster for the HostedCluster. `score` returns a raw number;
 * `normalizeScore` (kube-scheduler's NormalizeScore extension) maps the raw scores of all feasible
 * clusters to [0, {@link MaxScore}]. Without it, `score` must already return [0, MaxScore].
 */
export interface ScorePlugin {
  name: string;
  /**
   * Computes state shared by every `score` call of one cycle (kube-scheduler's PreScore).
   * @param feasible - the clusters that passed every filter
   * @param all - every cluster in the snapshot
   */
  preScore?(hc: HostedCluster, feasible: readonly ClusterInfo[], all: readonly ClusterInfo[]): unknown;
  /** Raw score of one feasible cluster; `state` is what `preScore` returned (undefined without it). */
  score(hc: HostedCluster, cluster: ClusterInfo, state: unknown): number;
  /** Maps raw scores (one per feasible cluster, same order) to [0, MaxScore]. */
  normalizeScore?(scores: readonly number[]): number[];
}

/** What a bind plugin may do: the one API call the framework hands out. */
export interface BindHandle {
  /**
   * Merge-patches a HostedCluster's metadata with a resourceVersion precondition (so a stale view
   * fails with 409 Conflict instead of binding twice) and returns the updated object.
   * @throws ApiError (409 Conflict, 404 NotFound, ...) or RequestError
   */
  patchMetadata(hc: HostedCluster, metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }): Promise<HostedCluster>;
  /**
   * Binds through the control center's binding subresource: the placement label and the
   * `Scheduled` condition in one write, guarded by the HostedCluster's resourceVersion. The
   * answer is a `Status`, as pods/binding's: the bound object arrives on the informer.
   * @throws ApiError (409 Conflict, 404 NotFound, 422 when admission refuses) or RequestError
   */
  bind(hc: HostedCluster, cluster: string): Promise<void>;
}

/**
 * A bind plugin: makes the decision durable. Runs after the slot was assumed; a throw forgets it.
 * What it resolves to is not used: the informer's update of the HostedCluster brings the result,
 * and the scheduler then writes the `Scheduled` condition if the binder did not.
 */
export interface BindPlugin {
  name: string;
  bind(hc: HostedCluster, cluster: string, handle: BindHandle): Promise<unknown>;
}

/** The one plugin interface: a name plus any extension points (like kube-scheduler's plugins). */
export type Plugin = { name: string } & Partial<Omit<FilterPlugin, 'name'>> & Partial<Omit<ScorePlugin, 'name'>> & Partial<Omit<BindPlugin, 'name'>>;

/** Whether a plugin has a filter extension point. */
export const isFilterPlugin = (p: Plugin): p is FilterPlugin => typeof p.filter === 'function';
/** Whether a plugin has a score extension point. */
export const isScorePlugin = (p: Plugin): p is ScorePlugin => typeof p.score === 'function';
/** Whether a plugin has a bind extension point. */
export const isBindPlugin = (p: Plugin): p is BindPlugin => typeof p.bind === 'function';

/** A configured profile: which filters run (in order), which scores with which weights, which binder. */
export interface Profile {
  name: string;
  filters: FilterPlugin[];
  scores: { plugin: ScorePlugin; weight: number }[];
  bind: BindPlugin;
}

/** The outcome of one scheduling attempt. */
export type ScheduleResult =
  | {
      feasible: true;
      cluster: string;
      /** Weighted total per feasible cluster (computed when first read). */
      scores: Record<string, number>;
      /** Clusters considered (a count). */
      evaluated: number;
    }
  | {
      feasible: false;
      /** `0/N management clusters are available: ...` */
      message: string;
      evaluated: number;
      /** Reason → number of clusters it ruled out. */
      reasons: Record<string, number>;
      /** Filter plugin name → number of clusters it ruled out. */
      rejectedBy: Record<string, number>;
    };
