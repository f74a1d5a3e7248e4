/**
 * Step: compute the NodePool's status from it, its HostedCluster and the ConfigMaps its
 * `spec.config` and `spec.tuningConfig` name ({@link computeNodePoolStatus}) and write it through
 * the status subresource when it changed; when a config rollout completed, first record it in the
 * current-config annotation (a metadata write, then stop: the next pass writes the status). Asks
 * to be requeued while a change of replicas, version or config waits for its timer; never sleeps.
 */
import type { NodePool } from '@hcc/crds';
import { semanticEqual } from '../../equality.js';
import { requeueAfter, type Step } from '../../step.js';
import type { NodePoolDeps } from './nodepool-reconcile.js';
import { computeNodePoolStatus, nodePoolConfigHash } from './nodepool-status.js';
import { AnnotationNodePoolCurrentConfig } from '../../names.js';
import { configMapNames } from './nodepool-indexes.js';

/**
 * Names of the ConfigMaps a list of references (`spec.config`, `spec.tuningConfig`) names that the
 * cache does not hold, in list order, each once; empty names are skipped.
 */
export function missingConfigMaps(refs: unknown, namespace: string, getConfigMap: NodePoolDeps['getConfigMap']): string[] {
  return configMapNames(refs).filter((n) => !getConfigMap(namespace, n));
}

/**
 * The step above. Stops when the HostedCluster is gone; otherwise stops after a write and continues when the status is
 * unchanged, with a requeue (milliseconds) while a change waits. Throws what the update calls throw.
 */
export function updateStatus(deps: Pick<NodePoolDeps, 'clock' | 'availableDelayMs' | 'getHostedCluster' | 'getConfigMap' | 'updateNodePool' | 'updateNodePoolStatus'>): Step<NodePool> {
  return {
    name: 'updateStatus',
    async run(np) {
      const namespace = np.metadata.namespace!;
      const hc = deps.getHostedCluster(namespace, np.spec.clusterName);
      if (!hc) return 'stop';
      const configNames = configMapNames(np.spec.config);
      const configMaps = configNames.map((n) => deps.getConfigMap(namespace, n));
      const { status, requeueAfterMs, currentConfig } = computeNodePoolStatus({
        np,
        hc,
        nowMs: deps.clock.now(),
        availableDelayMs: deps.availableDelayMs,
        missingConfig: configNames.filter((_, i) => !configMaps[i]),
        missingTuningConfig: missingConfigMaps(np.spec.tuningConfig, namespace, deps.getConfigMap),
        configHash: nodePoolConfigHash(
          configMaps.map((cm) => cm?.data as Record<string, string> | undefined),
          hc.spec.pullSecret?.name ?? '',
        ),
      });
      if (currentConfig !== undefined) {
        np.metadata.annotations = { ...np.metadata.annotations, [AnnotationNodePoolCurrentConfig]: currentConfig };
        await deps.updateNodePool(np);
        return 'stop';
      }
      const changed = !semanticEqual(np.status ?? {}, status);
      if (changed) {
        np.status = status;
        await deps.updateNodePoolStatus(np);
      }
      const then = changed ? 'stop' : 'continue';
      return requeueAfterMs === undefined ? then : requeueAfter(requeueAfterMs, then);
    },
  };
}
