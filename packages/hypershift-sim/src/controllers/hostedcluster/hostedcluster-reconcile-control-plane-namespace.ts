/**
 * Step: make sure the control-plane namespace `<namespace>-<name>` exists, labelled
 * `hypershift.openshift.io/hosted-control-plane: "true"` and annotated with the HostedCluster key
 * (`hypershift.openshift.io/cluster`), the way HyperShift marks the objects it makes for a cluster.
 * While a namespace of that name is still terminating (the cluster was deleted and created again),
 * waits: nothing can be created in it.
 */
import { keyOf, type KubeObject } from '@hcc/client';
import type { HostedCluster } from '@hcc/crds';
import { AnnotationHostedCluster, LabelHostedControlPlane, controlPlaneNamespaceName } from '../../names.js';
import { requeueAfter, type Step } from '../../step.js';
import type { HostedClusterDeps } from './hostedcluster-reconcile.js';
import { DeletionPollMs } from './hostedcluster-reconcile-delete.js';

/** The control-plane Namespace object for a HostedCluster. */
export function controlPlaneNamespace(hc: HostedCluster): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: controlPlaneNamespaceName(hc.metadata.namespace!, hc.metadata.name!),
      labels: { [LabelHostedControlPlane]: 'true' },
      annotations: { [AnnotationHostedCluster]: keyOf(hc) },
    },
  };
}

/**
 * The step above: creates {@link controlPlaneNamespace} when the cache has no namespace of that name (an existing one
 * is left as it is), then continues; while it is terminating, requeues after {@link DeletionPollMs} and stops.
 * Throws what `createNamespace` throws.
 */
export function ensureControlPlaneNamespace(deps: Pick<HostedClusterDeps, 'getNamespace' | 'createNamespace'>): Step<HostedCluster> {
  return {
    name: 'ensureControlPlaneNamespace',
    async run(hc) {
      const want = controlPlaneNamespace(hc);
      const existing = deps.getNamespace(want.metadata.name!);
      if (existing?.metadata.deletionTimestamp) return requeueAfter(DeletionPollMs);
      if (!existing) await deps.createNamespace(want);
      return 'continue';
    },
  };
}
