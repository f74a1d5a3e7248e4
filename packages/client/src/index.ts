/**
 * @hcc/client: the small client-go of hcc. A REST client for the Kubernetes JSON API, informers
 * with listers and indexes, a keyed rate-limited work queue with a worker loop, Lease-based
 * leader election, and kubeconfig loading. Used by the scheduler, the syncer and the
 * hypershift-sim.
 */
export * from './labels.js';
export * from './tolerations.js';
export * from './types.js';
export * from './clock.js';
export * from './api-errors.js';
export * from './go-yaml.js';
export * from './kubeconfig.js';
export * from './rest.js';
export * from './backoff.js';
export * from './store.js';
export * from './informer.js';
export * from './own-writes.js';
export * from './workqueue.js';
export * from './leader-election.js';
export * from './event-recorder.js';
export * from './ops-server.js';
export * from './fs.js';
