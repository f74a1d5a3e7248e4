/**
 * The whole `status` of a HostedCluster, computed from the object and a few observed facts, the
 * way HyperShift's hostedcluster controller fills it in (conditions worded as upstream's, version
 * history from {@link computeVersionStatus}, Secret refs, endpoints). Pure: no I/O, time comes in
 * as `nowMs`; every condition carries `observedGeneration = metadata.generation`, and a
 * condition's `lastTransitionTime` changes only when its status flips.
 *
 * Timeline of a valid cluster: Available=False (WaitingForAvailable) and Progressing=True until the
 * first rollout completes `availableDelayMs` after it started; then Available=True (AsExpected,
 * "The hosted control plane is available") and Progressing=False. An upgrade adds a Partial
 * history entry and Progressing=True while Available stays True.
 *
 * A missing pull secret reads as upstream reports it: ValidReleaseImage=False (SecretNotFound),
 * ReconciliationSucceeded=False (ReconciliationError, the lookup error), Progressing=False
 * (Blocked); the cluster does not become Available until the Secret exists.
 *
 * Any other missing referenced Secret or ConfigMap (`facts.missingReference`: SSH key, etcd
 * encryption key, trust bundle, platform credentials, ...) fails the reconcile as upstream's
 * hostedcluster_controller.go does at its first failed lookup: ReconciliationSucceeded=False
 * (ReconciliationError, the lookup error) unless the pull secret's error wins, and the running
 * rollout does not complete. So a new cluster stays Available=False until the object exists, and
 * then comes up `availableDelayMs` later (as after a late pull secret); an Available cluster stays
 * Available (its control plane keeps running) and only reports the error.
 */
import type { Condition, HostedCluster } from '@hcc/crds';
import { findCondition, setConditions, type ConditionInput } from '../../conditions.js';
import { HostedClusterConditions as C, Messages, Reasons, customKubeconfigSecretName, kubeadminPasswordSecretName, kubeconfigSecretName } from '../../names.js';
import { payloadArchFromImage, validateReleaseVersion, versionFromImage } from '../../release.js';
import { formatTime, startTime } from '../../time.js';
import type { ClusterVersionStatus, HostedClusterStatus } from '../../types.js';
import { baseDomainOf, hasExplicitOAuth, kubeAPIServerDNSNameOf } from './hostedcluster-reconcile-cli-secrets.js';
import { computeVersionStatus, hasCompletedRollout } from './hostedcluster-version.js';
import { pauseEndsInMs, reconciliationActiveCondition, reconciliationPaused } from '../../paused.js';

/** What the status step observed besides the HostedCluster itself. */
export interface HostedClusterFacts {
  /** The `spec.pullSecret` Secret: there with `.dockerconfigjson`, missing, or without that key. */
  pullSecret: 'found' | 'missing' | 'invalid';
  /** The control-plane namespace exists and is not terminating. */
  controlPlaneNamespace: boolean;
  kubeconfigSecret: boolean;
  kubeadminPasswordSecret: boolean;
  /** The `<name>-custom-admin-kubeconfig` Secret exists (observed only while `spec.kubeAPIServerDNSName` is set). */
  customKubeconfigSecret?: boolean;
  /**
   * The lookup error of the first referenced Secret or ConfigMap other than the pull secret that
   * does not exist (see `missingReferenceError` in hostedcluster-reconcile-status.ts), e.g.
   * `failed to get SSH key secret my-key: secrets "my-key" not found`; absent when all exist.
   */
  missingReference?: string;
}

/** Input of {@link computeHostedClusterStatus}. */
export interface StatusInput {
  hc: HostedCluster;
  facts: HostedClusterFacts;
  nowMs: number;
  availableDelayMs: number;
  supportedVersions: readonly string[];
}

/** The computed status, and how long until the running rollout may finish (if one waits). */
export interface StatusOutput {
  status: HostedClusterStatus;
  requeueAfterMs?: number;
}

/** Why the release cannot be rolled out (ValidReleaseImage=False), or undefined when it can. */
interface ReleaseProblem {
  reason: string;
  message: string;
  /** The reconcile error upstream returns for it (ReconciliationSucceeded=False), if any. */
  reconcileError?: string;
}

function releaseProblem(hc: HostedCluster, facts: HostedClusterFacts, current: ClusterVersionStatus | undefined, supportedVersions: readonly string[]): ReleaseProblem | undefined {
  const pullSecretName = hc.spec.pullSecret?.name ?? '';
  if (facts.pullSecret === 'missing') {
    const message = `failed to get pull secret: secrets "${pullSecretName}" not found`;
    return { reason: Reasons.SecretNotFound, message, reconcileError: `failed to lookup release image: ${message}` };
  }
  if (facts.pullSecret === 'invalid') {
    const message = 'expected .dockerconfigjson key in pull secret';
    return { reason: Reasons.InvalidImage, message, reconcileError: `failed to lookup release image: ${message}` };
  }
  const image = hc.spec.release?.image ?? '';
  const desired = current?.desired;
  const currentVersion = desired && desired.image !== image ? (desired.version ?? versionFromImage(desired.image)) : undefined;
  const message = validateReleaseVersion(versionFromImage(image), currentVersion, supportedVersions, hc.spec.platform?.type ?? '');
  return message ? { reason: Reasons.InvalidImage, message } : undefined;
}

/** Conditions HyperShift bubbles up from the HostedControlPlane: unknown without one, waiting, then fine. */
function controlPlaneConditions(gen: number, namespaceExists: boolean, available: boolean): ConditionInput[] {
  const unknown = (type: string): ConditionInput => ({
    type,
    status: 'Unknown',
    reason: Reasons.StatusUnknown,
    message: Messages.ControlPlaneNotFound,
    observedGeneration: gen,
  });
  if (!namespaceExists) {
    return [
      unknown(C.EtcdAvailable),
      unknown(C.KubeAPIServerAvailable),
      unknown(C.InfrastructureReady),
      { type: C.IgnitionEndpointAvailable, status: 'False', reason: Reasons.NotFound, message: 'Ignition server deployment not found', observedGeneration: gen },
    ];
  }
  if (!available) {
    return [
      { type: C.EtcdAvailable, status: 'False', reason: Reasons.EtcdWaitingForQuorum, message: 'Waiting for etcd to reach quorum', observedGeneration: gen },
      { type: C.KubeAPIServerAvailable, status: 'False', reason: Reasons.WaitingForAvailable, message: 'Waiting for Kube APIServer deployment to become available', observedGeneration: gen },
      { type: C.InfrastructureReady, status: 'False', reason: Reasons.WaitingOnInfrastructureReady, message: 'Waiting on infrastructure', observedGeneration: gen },
      { type: C.IgnitionEndpointAvailable, status: 'False', reason: Reasons.WaitingForAvailable, message: 'Ignition server deployment is not yet available', observedGeneration: gen },
    ];
  }
  return [
    { type: C.EtcdAvailable, status: 'True', reason: Reasons.EtcdQuorumAvailable, message: '', observedGeneration: gen },
    { type: C.KubeAPIServerAvailable, status: 'True', reason: Reasons.AsExpected, message: 'Kube APIServer deployment is available', observedGeneration: gen },
    { type: C.InfrastructureReady, status: 'True', reason: Reasons.AsExpected, message: Messages.AllIsWell, observedGeneration: gen },
    { type: C.IgnitionEndpointAvailable, status: 'True', reason: Reasons.AsExpected, message: 'Ignition server deployment is available', observedGeneration: gen },
  ];
}

/** Progressing, from the conditions set so far and the newest rollout (upstream's isProgressing). */
function progressingCondition(gen: number, conditions: readonly Condition[], version: ClusterVersionStatus | undefined): ConditionInput {
  const gates = [C.SupportedHostedCluster, C.ValidConfiguration, C.ValidReleaseImage, C.ReconciliationActive];
  const blockedBy = gates.find((t) => findCondition(conditions, t)?.status === 'False');
  if (blockedBy) {
    return { type: C.Progressing, status: 'False', reason: Reasons.Blocked, message: `${blockedBy} condition is false`, observedGeneration: gen };
  }
  const head = version?.history[0];
  if (head && head.state === 'Partial' && head.completionTime === null) {
    return {
      type: C.Progressing,
      status: 'True',
      reason: Reasons.Progressing,
      message: `HostedCluster is deploying, upgrading, or reconfiguring: rolling out version ${head.version}`,
      observedGeneration: gen,
    };
  }
  return { type: C.Progressing, status: 'False', reason: Reasons.AsExpected, message: Messages.AtExpectedVersion, observedGeneration: gen };
}

/**
 * Computes a HostedCluster's whole `status` (see the file comment for the timeline and the rules).
 * @param input - the object (its current status is the starting point, not mutated), observed facts, time and settings
 * @returns the new status, and `requeueAfterMs` while a rollout waits for its timer or a pause for its end
 * @see https://github.com/openshift/hypershift/blob/main/hypershift-operator/controllers/hostedcluster/hostedcluster_controller.go
 */
export function computeHostedClusterStatus(input: StatusInput): StatusOutput {
  const { hc, facts } = input;
  const gen = hc.metadata.generation ?? 1;
  const now = formatTime(input.nowMs);
  const old = (hc.status ?? {}) as HostedClusterStatus;
  const name = hc.metadata.name!;
  const namespace = hc.metadata.namespace!;

  // Validation first: its outcome gates the rollout.
  const problem = releaseProblem(hc, facts, old.version, input.supportedVersions);
  // A paused HostedCluster reports that it is paused and changes nothing else it reconciles: no
  // rollout starts or finishes (hostedcluster_controller.go returns right after the status).
  const pausedUntil = (hc.spec as { pausedUntil?: unknown }).pausedUntil;
  const pause = reconciliationPaused(pausedUntil, input.nowMs);
  let conditions = setConditions(
    old.conditions,
    [
      { type: C.ValidConfiguration, status: 'True', reason: Reasons.AsExpected, message: Messages.ValidConfiguration, observedGeneration: gen },
      { type: C.SupportedHostedCluster, status: 'True', reason: Reasons.AsExpected, message: Messages.SupportedHostedCluster, observedGeneration: gen },
      problem
        ? { type: C.ValidReleaseImage, status: 'False', reason: problem.reason, message: problem.message, observedGeneration: gen }
        : { type: C.ValidReleaseImage, status: 'True', reason: Reasons.AsExpected, message: Messages.ValidReleaseImage, observedGeneration: gen },
      reconciliationActiveCondition(pausedUntil, pause, gen),
    ],
    now,
  );
  const validRelease = findCondition(conditions, C.ValidReleaseImage)!;
  // The pull secret's error is met first upstream (release lookup), then any other failed lookup.
  const reconcileError = problem?.reconcileError ?? facts.missingReference;
  // While a lookup fails the control plane is not (re)deployed: the rollout waits, and its clock
  // starts again once the reconcile succeeds (ReconciliationSucceeded turns True now, or did then).
  const reconcileSucceeded = findCondition(old.conditions, C.ReconciliationSucceeded);
  const reconciledSinceMs = startTime(reconcileSucceeded?.status === 'True' ? reconcileSucceeded.lastTransitionTime : now);

  // No release at all (a HostedCluster sent without a spec): no version to report, none to start.
  const noRelease = !hc.spec.release?.image && !old.version?.history?.length;
  const { version, requeueAfterMs } = pause.paused
    ? { version: old.version, requeueAfterMs: pauseEndsInMs(pause, input.nowMs) }
    : noRelease
      ? { version: old.version, requeueAfterMs: undefined }
      : computeVersionStatus({
        releaseImage: hc.spec.release?.image ?? '',
        generation: gen,
        current: old.version,
        nowMs: input.nowMs,
        availableDelayMs: input.availableDelayMs,
        releaseValid: !problem,
        controlPlaneReady: facts.controlPlaneNamespace && facts.kubeconfigSecret && !reconcileError,
        gateMs: problem ? undefined : Math.max(startTime(validRelease.lastTransitionTime) ?? 0, reconciledSinceMs ?? 0),
      });

  const controlPlaneAvailable = facts.controlPlaneNamespace && hasCompletedRollout(version);
  const available = controlPlaneAvailable && facts.kubeconfigSecret;
  conditions = setConditions(
    conditions,
    [
      available
        ? { type: C.Available, status: 'True', reason: Reasons.AsExpected, message: Messages.Available, observedGeneration: gen }
        : { type: C.Available, status: 'False', reason: Reasons.WaitingForAvailable, message: Messages.WaitingForAvailable, observedGeneration: gen },
      progressingCondition(gen, conditions, version),
      facts.controlPlaneNamespace
        ? { type: C.Degraded, status: 'False', reason: Reasons.AsExpected, message: Messages.NotDegraded, observedGeneration: gen }
        : { type: C.Degraded, status: 'Unknown', reason: Reasons.StatusUnknown, message: Messages.ControlPlaneNotFound, observedGeneration: gen },
      ...controlPlaneConditions(gen, facts.controlPlaneNamespace, controlPlaneAvailable),
      reconcileError
        ? { type: C.ReconciliationSucceeded, status: 'False', reason: Reasons.ReconciliationError, message: reconcileError, observedGeneration: gen }
        : { type: C.ReconciliationSucceeded, status: 'True', reason: Reasons.ReconciliationSucceeded, message: Messages.ReconciliationSucceeded, observedGeneration: gen },
    ],
    now,
  );

  const status: HostedClusterStatus = { ...old, conditions, version };
  // Upstream sets the refs once the Secrets exist and never clears them (kubeadminPassword aside).
  if (facts.kubeconfigSecret) status.kubeconfig = { name: kubeconfigSecretName(name) };
  if (hasExplicitOAuth(hc)) delete status.kubeadminPassword;
  else if (facts.kubeadminPasswordSecret) status.kubeadminPassword = { name: kubeadminPasswordSecretName(name) };
  // status.customKubeconfig follows spec.kubeAPIServerDNSName (HyperShift clears it with the field).
  if (kubeAPIServerDNSNameOf(hc) && facts.customKubeconfigSecret) status.customKubeconfig = { name: customKubeconfigSecretName(name) };
  else if (!kubeAPIServerDNSNameOf(hc)) delete status.customKubeconfig;
  const baseDomain = baseDomainOf(hc);
  if (facts.controlPlaneNamespace) {
    status.controlPlaneEndpoint = { host: `api.${name}.${baseDomain}`, port: 6443 };
    status.oauthCallbackURLTemplate = `https://oauth-${namespace}-${name}.apps.${baseDomain}:443/oauth2callback/[identity-provider-name]`;
  }
  if (controlPlaneAvailable) status.ignitionEndpoint = `ignition-server-${namespace}-${name}.apps.${baseDomain}`;
  status.payloadArch = payloadArchFromImage(hc.spec.release?.image);
  return requeueAfterMs === undefined ? { status } : { status, requeueAfterMs };
}
