/**
 * Step: make the HostedCluster an owner of the NodePool, as upstream's `EnsureOwnerRef` does
 * ("HostedCluster owns NodePools", so a cascading delete collects them): apiVersion, kind, name
 * and uid, no controller flag. An existing reference to the same owner name and kind is updated in
 * place (e.g. a stale uid); other owners stay. Writes metadata, then stops.
 * @see https://github.com/openshift/hypershift/blob/main/support/util/util.go (EnsureOwnerRef)
 */
import { HyperShiftAPIVersion, type NodePool, type OwnerReference } from '@hcc/crds';
import type { Step } from '../../step.js';
import type { NodePoolDeps } from './nodepool-reconcile.js';

/**
 * The step above: `'continue'` when the reference is already right, `'stop'` when the HostedCluster is gone or after the
 * write. Throws what `updateNodePool` throws.
 */
export function ensureOwnerReference(deps: Pick<NodePoolDeps, 'getHostedCluster' | 'updateNodePool'>): Step<NodePool> {
  return {
    name: 'ensureOwnerReference',
    async run(np) {
      const hc = deps.getHostedCluster(np.metadata.namespace!, np.spec.clusterName);
      if (!hc) return 'stop';
      const want: OwnerReference = { apiVersion: HyperShiftAPIVersion, kind: 'HostedCluster', name: hc.metadata.name!, uid: hc.metadata.uid! };
      const refs = [...(np.metadata.ownerReferences ?? [])];
      const i = refs.findIndex((r) => r.kind === want.kind && r.name === want.name && r.apiVersion.startsWith('hypershift.openshift.io/'));
      if (i >= 0 && refs[i]!.uid === want.uid && refs[i]!.apiVersion === want.apiVersion) return 'continue';
      if (i >= 0) refs[i] = { ...refs[i]!, ...want };
      else refs.push(want);
      np.metadata.ownerReferences = refs;
      await deps.updateNodePool(np);
      return 'stop';
    },
  };
}
