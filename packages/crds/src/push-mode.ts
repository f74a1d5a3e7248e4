import { SystemNamespace } from './names.js';
import type { ManagementCluster } from './types.js';

/**
 * Where a Push-mode ManagementCluster's kubeconfig lives: the Secret `spec.kubeconfigSecretRef`
 * names in the control center (namespace `hcc-system` and key `kubeconfig` unless given), or
 * undefined when it names none (no ref, or a name that is not a non-empty string).
 */
export function kubeconfigRef(mc: ManagementCluster | undefined): { namespace: string; name: string; key: string } | undefined {
  const ref = mc?.spec?.kubeconfigSecretRef;
  if (!ref || typeof ref.name !== 'string' || ref.name === '') return undefined;
  return {
    namespace: typeof ref.namespace === 'string' && ref.namespace ? ref.namespace : SystemNamespace,
    name: ref.name,
    key: typeof ref.key === 'string' && ref.key ? ref.key : 'kubeconfig',
  };
}
