/**
 * @hcc/scheduler: the cluster controller that places HostedClusters on ManagementClusters —
 * filter → score → assume → bind plugins configured by profiles, Scheduled conditions and Events,
 * placement propagation, cluster health, the scale-out signal, and leader election.
 */
export { DefaultPropagationWorkers, DefaultSchedulingWorkers, leaderElectionProblem, runScheduler, SchedulerLeaseName, type SchedulerOptions, type RunningScheduler } from './scheduler.js';
export { createSchedulerMetrics, type SchedulerMetrics } from './metrics.js';
export { runProfile, unschedulableMessage, defaultNormalizeScore } from './framework/runtime.js';
export { seededRandom } from './framework/random.js';
export type { BindHandle, BindPlugin, ClusterInfo, FilterPlugin, Plugin, Profile, ScorePlugin, Status } from './framework/types.js';
export { defaultProfile, registry, DefaultFilters, DefaultScores, RequiredFilters } from './plugins/registry.js';
export { PluginNames, type PluginName } from './plugins/names.js';
export { AnnotationTolerations } from './plugins/taint-toleration/taint-toleration.js';
export {
  AnnotationSchedulerProfile,
  defaultSchedulerConfig,
  formatSchedulerConfig,
  loadSchedulerConfig,
  parseSchedulerConfig,
  SchedulerConfigError,
  type SchedulerConfig,
  type ScaleOutSettings,
} from './config/config.js';
export type { ScaleOutRequest } from './scale-out/scale-out.js';
export { EventReasonFleetOutOfBudget } from './scale-out/scale-out-controller.js';
