/**
 * HyperShift's finalizer (`hypershift.openshift.io/finalizer`) on HostedClusters and NodePools:
 * the operator adds it to live objects, and removes it once their teardown is done.
 */
import { FinalizerHyperShift, type KubeObject } from '@hcc/crds';
import type { Step } from './step.js';

/** True when the object carries HyperShift's finalizer. */
export const hasHyperShiftFinalizer = (obj: KubeObject): boolean => (obj.metadata.finalizers ?? []).includes(FinalizerHyperShift);

/** Drops HyperShift's finalizer from the object's metadata (in place); other finalizers stay. */
export function removeHyperShiftFinalizer(obj: KubeObject): void {
  obj.metadata.finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== FinalizerHyperShift);
}

/**
 * A step adding HyperShift's finalizer to a live object with `update`, then stopping (the write
 * comes back as an informer event). Objects being deleted or already carrying it pass.
 * @param name - step name, for logs
 */
export function addFinalizerStep<T extends KubeObject>(name: string, update: (obj: T) => Promise<void>): Step<T> {
  return {
    name,
    async run(obj) {
      if (obj.metadata.deletionTimestamp || hasHyperShiftFinalizer(obj)) return 'continue';
      obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), FinalizerHyperShift];
      await update(obj);
      return 'stop';
    },
  };
}
