/**
 * The status shapes the sim writes, richer than `@hcc/crds`' loose types: HyperShift's
 * `ClusterVersionStatus` (configv1.UpdateHistory entries) and the HostedCluster and NodePool status
 * fields it fills in. Fields it does not know pass through (`[key: string]: unknown`).
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go
 */
import type { Condition } from '@hcc/crds';

/** configv1.UpdateHistory: one rollout; newest first in `history`. */
export interface UpdateHistory {
  /** `Partial` while rolling out (or when interrupted), `Completed` once done. */
  state: 'Partial' | 'Completed';
  /** RFC 3339. */
  startedTime: string;
  /** RFC 3339, `null` while the rollout runs. */
  completionTime: string | null;
  version: string;
  image: string;
  verified: boolean;
  [key: string]: unknown;
}

/** hyperv1.ClusterVersionStatus (`status.version`). */
export interface ClusterVersionStatus {
  desired: { image: string; version?: string; [key: string]: unknown };
  history: UpdateHistory[];
  observedGeneration: number;
  availableUpdates: null | unknown[];
  [key: string]: unknown;
}

/** hyperv1.HostedClusterStatus, the fields the sim writes. */
export interface HostedClusterStatus {
  conditions?: Condition[];
  version?: ClusterVersionStatus;
  kubeconfig?: { name: string };
  kubeadminPassword?: { name: string };
  customKubeconfig?: { name: string };
  controlPlaneEndpoint?: { host: string; port: number };
  ignitionEndpoint?: string;
  oauthCallbackURLTemplate?: string;
  payloadArch?: string;
  [key: string]: unknown;
}

/** hyperv1.NodePoolStatus, the fields the sim writes. */
export interface NodePoolStatus {
  conditions?: Condition[];
  replicas?: number;
  version?: string;
  [key: string]: unknown;
}
