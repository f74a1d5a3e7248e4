/**
 * @hcc/hypershift-sim: a stand-in for the HyperShift operator's observable behaviour on one
 * management cluster (see sim.ts). `startHyperShiftSim` runs it; the step factories and the pure
 * status functions are exported for tests and for other packages' fakes.
 */
export { startHyperShiftSim, type HyperShiftSim, type HyperShiftSimOptions, type SimStats, type SimQueueStats } from './sim.js';
export * from './names.js';
export * from './types.js';
export { hostedClustersRef, nodePoolsRef, namespacesRef, secretsRef, configMapsRef } from './resources.js';
export { findCondition, isConditionTrue, setCondition, setConditions, removeCondition, type ConditionInput } from './conditions.js';
export { versionFromImage, payloadArchFromImage, parseVersion, validateReleaseVersion } from './release.js';
export { runSteps, requeueAfter, type Step, type StepResult, type StepsOutcome } from './step.js';
export { ensureSupportedVersions, supportedVersionsConfigMap, SimServerVersion } from './supported-versions.js';

export { hostedClusterSteps, reconcileHostedCluster, type HostedClusterDeps } from './controllers/hostedcluster/hostedcluster-reconcile.js';
export { deleteHostedCluster } from './controllers/hostedcluster/hostedcluster-reconcile-delete.js';
export { ensureFinalizer as ensureHostedClusterFinalizer } from './controllers/hostedcluster/hostedcluster-reconcile-finalizer.js';
export { defaultClusterIDs, newInfraID } from './controllers/hostedcluster/hostedcluster-reconcile-default-ids.js';
export { updateStatus as updateHostedClusterStatus, observeFacts, missingReferenceError } from './controllers/hostedcluster/hostedcluster-reconcile-status.js';
export { blockOnInvalidSpec } from './controllers/hostedcluster/hostedcluster-reconcile-block.js';
export { ensureControlPlaneNamespace, controlPlaneNamespace } from './controllers/hostedcluster/hostedcluster-reconcile-control-plane-namespace.js';
export { ensureCLISecrets, adminKubeconfig, apiServerURL } from './controllers/hostedcluster/hostedcluster-reconcile-cli-secrets.js';
export { computeHostedClusterStatus, type HostedClusterFacts } from './controllers/hostedcluster/hostedcluster-status.js';
export { computeVersionStatus } from './controllers/hostedcluster/hostedcluster-version.js';
export { HostedClusterController } from './controllers/hostedcluster/hostedcluster-controller.js';

export { nodePoolSteps, reconcileNodePool, type NodePoolDeps } from './controllers/nodepool/nodepool-reconcile.js';
export { deleteNodePool } from './controllers/nodepool/nodepool-reconcile-delete.js';
export { requireHostedCluster } from './controllers/nodepool/nodepool-reconcile-hosted-cluster.js';
export { ensureFinalizer as ensureNodePoolFinalizer } from './controllers/nodepool/nodepool-reconcile-finalizer.js';
export { ensureOwnerReference } from './controllers/nodepool/nodepool-reconcile-owner-reference.js';
export { updateStatus as updateNodePoolStatus } from './controllers/nodepool/nodepool-reconcile-status.js';
export { computeNodePoolStatus, wantedReplicas } from './controllers/nodepool/nodepool-status.js';
export { NodePoolController } from './controllers/nodepool/nodepool-controller.js';
