export { runSyncer, SyncerVersion, type SyncerOptions, type RunningSyncer } from './syncer.js';
export { desiredDownstream, inSync } from './transform.js';
export { upstreamStatus, mapGeneration } from './controllers/upsync/upsync-status.js';
