/**
 * How a command connects to a cluster: a kubeconfig file when given, else the pod's
 * service-account (in-cluster) credentials.
 */
import { inClusterConnection, loadKubeconfig, type ClusterConnection } from '@hcc/client';

/**
 * @param kubeconfig - path of a kubeconfig, or undefined for in-cluster credentials
 * @throws Error naming both ways when neither works
 */
export function connectionFor(kubeconfig: string | undefined, what: string): ClusterConnection {
  if (kubeconfig) return loadKubeconfig(kubeconfig);
  try {
    return inClusterConnection();
  } catch (e) {
    throw new Error(`no kubeconfig for the ${what} and not running in a pod (${(e as Error).message}); pass a kubeconfig flag`);
  }
}
