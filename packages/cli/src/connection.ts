/**
 * How a command connects to a cluster: a kubeconfig file when given, else the pod's
 * service-account (in-cluster) credentials.
 */
import { inClusterConnection, loadKubeconfig, type ClusterConnection } from '@hcc/client';

/**
 * @param kubeconfig - path of a kubeconfig, or undefined for in-cluster credentials
 * @param what - the cluster, for errors (`control center`, `management cluster`)
 * @param flag - the flag that names this kubeconfig, when it is not `--kubeconfig` of the control
 *   center: a missing file is then reported as that cluster's, naming the flag
 * @throws Error naming both ways when neither works, or the kubeconfig's problem
 */
export function connectionFor(kubeconfig: string | undefined, what: string, flag?: string): ClusterConnection {
  if (kubeconfig) {
    try {
      return loadKubeconfig(kubeconfig);
    } catch (e) {
      const missing = ((e as Error).cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
      if (flag && missing) throw new Error(`the ${what}'s kubeconfig ${kubeconfig} (${flag}) does not exist`, { cause: e });
      throw e;
    }
  }
  try {
    return inClusterConnection();
  } catch (e) {
    throw new Error(`no kubeconfig for the ${what} and not running in a pod (${(e as Error).message}); pass ${flag ?? '--kubeconfig'}`);
  }
}
