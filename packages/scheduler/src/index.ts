export { runScheduler, type SchedulerOptions, type RunningScheduler } from './scheduler.js';
export { createSchedulerMetrics, type SchedulerMetrics } from './metrics.js';
export { runProfile, unschedulableMessage } from './framework/runtime.js';
export type { ClusterInfo, FilterPlugin, ScorePlugin, Profile, Status } from './framework/types.js';
export { defaultProfile } from './plugins/registry.js';
