export { runSyncer, SyncerVersion, type SyncerOptions, type RunningSyncer } from './syncer.js';
export { desiredDownstream, downstreamPatch } from './transform.js';
export { upstreamStatus, mapGeneration } from './controllers/upsync/upsync-status.js';
export { runPushSyncers, type PushOptions } from './push/push-controller.js';
export { kubeconfigRef } from '@hcc/crds';
export { isNewer, pulledCRD, pullCRDsOnce, AnnotationPulledFrom } from './controllers/crd-puller/crd-puller.js';
export { TakeOverFromFlag } from './controllers/presence/take-over.js';
