/**
 * The `status` of a NodePool, computed from the NodePool and its HostedCluster, with the machines
 * imitated by a timer. Pure: no I/O, time comes in as `nowMs`; every condition carries
 * `observedGeneration = metadata.generation`, and `lastTransitionTime` changes only on a flip.
 *
 * - Until the HostedCluster is Available there is no ignition endpoint: IgnitionEndpointAvailable=
 *   False (IgnitionEndpointMissing), Ready=False, no replicas come up.
 * - Once it is, a difference between the wanted replicas (`spec.replicas`, or `autoScaling.min`)
 *   and `status.replicas` closes `availableDelayMs` after it was first seen (or after the
 *   HostedCluster became Available, if later); meanwhile Ready=False (WaitingForAvailableMachines
 *   when scaling up, ScalingDown when scaling down), then Ready=True.
 * - Likewise `status.version` follows `spec.release.image` after the delay, with
 *   UpdatingVersion=True meanwhile; and the machines' config follows the wanted one (`configHash`:
 *   the `spec.config` ConfigMaps and the pull secret's name, as upstream hashes them) after the
 *   delay, with UpdatingConfig=True (`Updating config in progress. Target config: <hash>`) while
 *   the annotation {@link AnnotationNodePoolCurrentConfig} differs — at creation too, as upstream's
 *   first rollout; the output's `currentConfig` is the annotation to write once it lands.
 * - SupportedVersionSkew says whether the NodePool's version is within the skew HyperShift
 *   supports with its HostedCluster's (only said: nothing waits on it, as upstream).
 * - ValidMachineConfig and ValidTuningConfig say whether the ConfigMaps `spec.config` and
 *   `spec.tuningConfig` name exist (False, ValidationFailed, `configmaps "NAME" not found`); while
 *   one is missing nothing moves, as while paused (below).
 * - While `spec.pausedUntil` pauses it (read as {@link reconciliationPaused}), ReconciliationActive=
 *   False (ReconciliationPaused) and nothing moves: replicas, version, Ready and UpdatingVersion
 *   stay as they were (HyperShift's nodepool controller pauses the MachineDeployment and returns
 *   before it reconciles machines); a change asked for meanwhile starts when the pause ends, and
 *   a pause until a time asks to be requeued then.
 * Condition names and wording follow HyperShift's nodepool controller and the CAPI
 * MachineDeployment conditions it bubbles up.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/nodepool_conditions.go
 */
import { createHash } from 'node:crypto';
import type { HostedCluster, NodePool } from '@hcc/crds';
import { findCondition, removeCondition, setConditions, type ConditionInput } from '../../conditions.js';
import { AnnotationNodePoolCurrentConfig, HostedClusterConditions, NodePoolConditions as C, Reasons } from '../../names.js';
import { parseVersion, versionFromImage, versionSkewProblem } from '../../release.js';
import { formatTime, remainingMs, startTime } from '../../time.js';
import { pauseEndsInMs, reconciliationActiveCondition, reconciliationPaused } from '../../paused.js';
import type { HostedClusterStatus, NodePoolStatus } from '../../types.js';

/** Input of {@link computeNodePoolStatus}. */
export interface NodePoolStatusInput {
  np: NodePool;
  hc: HostedCluster;
  nowMs: number;
  availableDelayMs: number;
  /** Names of the `spec.config` ConfigMaps that do not exist (in spec order; default none). */
  missingConfig?: readonly string[];
  /** Names of the `spec.tuningConfig` ConfigMaps that do not exist (in spec order; default none). */
  missingTuningConfig?: readonly string[];
  /**
   * Hash of the config the machines should run ({@link nodePoolConfigHash}); absent: config
   * rollouts are not tracked (UpdatingConfig stays False).
   */
  configHash?: string;
}

/**
 * The message of a failed lookup of ConfigMaps, as upstream's utilerrors.NewAggregate of the
 * client's NotFound errors words it: one error alone, several as `[a, b]`.
 */
export function missingConfigMapsMessage(names: readonly string[]): string {
  const errs = names.map((n) => `configmaps "${n}" not found`);
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}

/**
 * ValidMachineConfig or ValidTuningConfig: False (ValidationFailed, the lookup's error) while a
 * referenced ConfigMap is missing, else True (AsExpected), as HyperShift's nodepool controller
 * sets them when it builds the machine config and reads the tuning config.
 */
function validConfigCondition(type: string, missing: readonly string[] | undefined, gen: number): ConditionInput {
  return missing?.length
    ? { type, status: 'False', reason: Reasons.ValidationFailed, message: missingConfigMapsMessage(missing), observedGeneration: gen }
    : { type, status: 'True', reason: Reasons.AsExpected, message: '', observedGeneration: gen };
}

/**
 * SupportedVersionSkew, as HyperShift's nodepool controller sets it: the NodePool's version
 * (`targetVersion`, from `spec.release.image`) against its HostedCluster's (the newest `Completed`
 * entry of `status.version.history`, else its newest entry, else `status.version.desired.version`,
 * as upstream's `getHCPControlPlaneVersion`): True (AsExpected, `Release
 * image version is valid`), False (UnsupportedSkew, upstream's message: newer than the
 * HostedCluster, another major, or more than three minors older), Unknown (ValidationFailed)
 * while the HostedCluster reports no version. Upstream only reports it: the NodePool keeps
 * operating as usual.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/nodepool_conditions.go (NodePoolSupportedVersionSkewConditionType)
 */
function versionSkewCondition(targetVersion: string, hc: HostedCluster, gen: number): ConditionInput {
  const type = C.SupportedVersionSkew;
  const reported = (hc.status as HostedClusterStatus | undefined)?.version;
  const history = reported?.history ?? [];
  // The version it runs: the newest completed rollout (not an upgrade's target while it rolls).
  const hcVersionText = history.find((h) => h.state === 'Completed')?.version || history[0]?.version || reported?.desired?.version;
  const hcVersion = hcVersionText ? parseVersion(hcVersionText) : undefined;
  const npVersion = parseVersion(targetVersion);
  if (!hcVersion || !npVersion) {
    const message = hcVersionText ? `cannot parse the HostedCluster version ${JSON.stringify(hcVersionText)}` : 'the HostedCluster reports no version yet';
    return { type, status: 'Unknown', reason: Reasons.ValidationFailed, message, observedGeneration: gen };
  }
  const problem = versionSkewProblem(hcVersion, npVersion);
  return problem
    ? { type, status: 'False', reason: Reasons.UnsupportedSkew, message: problem, observedGeneration: gen }
    : { type, status: 'True', reason: Reasons.AsExpected, message: 'Release image version is valid', observedGeneration: gen };
}

/** The computed status, and how long until a pending change may land (if one waits). */
export interface NodePoolStatusOutput {
  status: NodePoolStatus;
  requeueAfterMs?: number;
  /** Set when a config rollout completed in this pass: the new value of {@link AnnotationNodePoolCurrentConfig}. */
  currentConfig?: string;
}

/**
 * The hash of a NodePool's wanted config: its `spec.config` ConfigMaps' data, in spec order, and
 * its HostedCluster's pull secret name, as HyperShift's nodepool controller hashes `config +
 * pullSecretName` (a change of either rolls the machines); 8 hex characters, as long as upstream's
 * HashSimple (the start of a SHA-256 here; only equality matters).
 * @param configMaps - the referenced ConfigMaps' `data` (undefined for one that is missing)
 * @see https://github.com/openshift/hypershift/blob/main/hypershift-operator/controllers/nodepool/nodepool_controller.go
 */
export function nodePoolConfigHash(configMaps: readonly (Record<string, string> | undefined)[], pullSecretName: string): string {
  return createHash('sha256').update(JSON.stringify([configMaps, pullSecretName])).digest('hex').slice(0, 8);
}

interface AutoScaling {
  min: number;
  max: number;
}

/**
 * Nodes the pool should have: `spec.replicas`, or `autoScaling.min` when autoscaling; never below
 * 0 (the schema, as upstream's `*int32`, takes a negative `replicas`, but no cluster runs fewer
 * than no nodes: a MachineDeployment's replicas are at least 0).
 */
export function wantedReplicas(np: NodePool): number {
  const auto = np.spec.autoScaling as AutoScaling | undefined;
  return Math.max(0, auto ? auto.min : (np.spec.replicas ?? 0));
}

const minAvailability = (want: number, have: number) => `Minimum availability requires ${want} replicas, current ${have} available`;

/**
 * The NodePool's status for one pass, by the rules above. Pure and total (never throws): returns the status, the
 * milliseconds until the earliest pending change (replicas, version, config) may land or a timed pause ends, and,
 * when a config rollout completed in this pass, the {@link AnnotationNodePoolCurrentConfig} value to write.
 */
export function computeNodePoolStatus(input: NodePoolStatusInput): NodePoolStatusOutput {
  const { np, hc, nowMs } = input;
  const gen = np.metadata.generation ?? 1;
  const now = formatTime(nowMs);
  const old = (np.status ?? {}) as NodePoolStatus;
  const image = np.spec.release?.image ?? '';
  const want = wantedReplicas(np);
  const have = old.replicas ?? 0;
  const targetVersion = versionFromImage(image);
  const auto = np.spec.autoScaling as AutoScaling | undefined;
  const autoRepair = Boolean((np.spec.management as { autoRepair?: boolean } | undefined)?.autoRepair);
  const pausedUntil = (np.spec as { pausedUntil?: unknown }).pausedUntil;
  const pause = reconciliationPaused(pausedUntil, nowMs);

  const base: ConditionInput[] = [
    auto
      ? { type: C.AutoscalingEnabled, status: 'True', reason: Reasons.AsExpected, message: `Maximum nodes: ${auto.max}, Minimum nodes: ${auto.min}`, observedGeneration: gen }
      : { type: C.AutoscalingEnabled, status: 'False', reason: Reasons.AsExpected, message: '', observedGeneration: gen },
    { type: C.UpdateManagementEnabled, status: 'True', reason: Reasons.AsExpected, message: '', observedGeneration: gen },
    { type: C.AutorepairEnabled, status: autoRepair ? 'True' : 'False', reason: Reasons.AsExpected, message: '', observedGeneration: gen },
    { type: C.ValidReleaseImage, status: 'True', reason: Reasons.AsExpected, message: `Using release image: ${image}`, observedGeneration: gen },
    reconciliationActiveCondition(pausedUntil, pause, gen),
    versionSkewCondition(targetVersion, hc, gen),
    validConfigCondition(C.ValidMachineConfig, input.missingConfig, gen),
    validConfigCondition(C.ValidTuningConfig, input.missingTuningConfig, gen),
  ];
  // Upstream returns from its reconcile when the config cannot be built: machines do not move.
  const configInvalid = Boolean(input.missingConfig?.length || input.missingTuningConfig?.length);

  const currentConfig = np.metadata.annotations?.[AnnotationNodePoolCurrentConfig];
  const configChanging = input.configHash !== undefined && currentConfig !== input.configHash;
  const updatingConfig = (on: boolean): ConditionInput =>
    on
      ? { type: C.UpdatingConfig, status: 'True', reason: Reasons.AsExpected, message: `Updating config in progress. Target config: ${input.configHash}`, observedGeneration: gen }
      : { type: C.UpdatingConfig, status: 'False', reason: Reasons.AsExpected, message: '', observedGeneration: gen };

  const hcAvailable = findCondition(hc.status?.conditions, HostedClusterConditions.Available);
  const updatingVersion = (on: boolean): ConditionInput =>
    on
      ? { type: C.UpdatingVersion, status: 'True', reason: Reasons.AsExpected, message: `Updating version in progress. Target version: ${targetVersion}`, observedGeneration: gen }
      : { type: C.UpdatingVersion, status: 'False', reason: Reasons.AsExpected, message: '', observedGeneration: gen };

  if (hcAvailable?.status !== 'True') {
    const conditions = setConditions(
      old.conditions,
      [
        ...base,
        updatingConfig(configChanging),
        updatingVersion(old.version !== targetVersion),
        { type: C.IgnitionEndpointAvailable, status: 'False', reason: Reasons.IgnitionEndpointMissing, message: 'Ignition endpoint not available, waiting', observedGeneration: gen },
        { type: C.Ready, status: 'False', reason: Reasons.WaitingForAvailableMachines, message: minAvailability(want, have), observedGeneration: gen },
      ],
      now,
    );
    return { status: { ...old, conditions, replicas: have } };
  }

  if (pause.paused || configInvalid) {
    // Nothing moves while paused or while the config is invalid: the machine-level conditions keep
    // what they said (a pool held before it ever reported gets the not-yet-ready pair, as if its
    // HostedCluster were waiting).
    const kept = [C.UpdatingVersion, C.Ready, C.UpdatingConfig].map((type) => findCondition(old.conditions, type));
    const conditions = setConditions(
      removeCondition(old.conditions, C.IgnitionEndpointAvailable),
      [
        ...base,
        kept[2] ?? updatingConfig(false),
        kept[0] ?? updatingVersion(old.version !== targetVersion),
        kept[1] ?? { type: C.Ready, status: 'False', reason: Reasons.WaitingForAvailableMachines, message: minAvailability(want, have), observedGeneration: gen },
      ],
      now,
    );
    const status: NodePoolStatus = { ...old, conditions, replicas: have };
    // A timed pause asks to be looked at again when it ends; a missing ConfigMap's creation
    // requeues the pool by itself (the controller's ConfigMap watch).
    const requeueAfterMs = pauseEndsInMs(pause, nowMs);
    return requeueAfterMs === undefined ? { status } : { status, requeueAfterMs };
  }

  const availableSinceMs = startTime(hcAvailable.lastTransitionTime) ?? nowMs;
  // A pending change started when its condition last flipped (or now, if this pass flips it).
  const startOf = (type: string, pendingStatus: 'True' | 'False') => {
    const c = findCondition(old.conditions, type);
    const since = c?.status === pendingStatus ? (startTime(c.lastTransitionTime) ?? nowMs) : nowMs;
    return Math.max(since, availableSinceMs);
  };
  let requeueAfterMs: number | undefined;
  const pending = (ms: number) => {
    requeueAfterMs = requeueAfterMs === undefined ? ms : Math.min(requeueAfterMs, ms);
  };

  // Whether a change whose condition reads `pendingStatus` meanwhile has waited out the delay;
  // if not, asks to be requeued when it will have.
  const landed = (type: string, pendingStatus: 'True' | 'False'): boolean => {
    const wait = remainingMs(nowMs, startOf(type, pendingStatus), input.availableDelayMs);
    if (wait > 0) pending(wait);
    return wait === 0;
  };

  let replicas = have;
  let ready: ConditionInput = { type: C.Ready, status: 'True', reason: Reasons.AsExpected, message: '', observedGeneration: gen };
  if (have !== want) {
    if (landed(C.Ready, 'False')) replicas = want;
    else {
      ready =
        want > have
          ? { type: C.Ready, status: 'False', reason: Reasons.WaitingForAvailableMachines, message: minAvailability(want, have), observedGeneration: gen }
          : { type: C.Ready, status: 'False', reason: Reasons.ScalingDown, message: `Scaling down from ${have} to ${want} replicas`, observedGeneration: gen };
    }
  }

  const versionUpdating = old.version !== targetVersion && !landed(C.UpdatingVersion, 'True');
  const version = versionUpdating ? old.version : targetVersion;
  // A config rollout: the machines are replaced (or updated in place) with the wanted config, then
  // the current-config annotation records it.
  const configUpdating = configChanging && !landed(C.UpdatingConfig, 'True');
  const rolledOut = configChanging && !configUpdating ? input.configHash : undefined;

  const conditions = setConditions(
    removeCondition(old.conditions, C.IgnitionEndpointAvailable),
    [...base, updatingConfig(configUpdating), updatingVersion(versionUpdating), ready],
    now,
  );
  const status: NodePoolStatus = { ...old, conditions, replicas };
  if (version !== undefined) status.version = version;
  const out: NodePoolStatusOutput = { status };
  if (requeueAfterMs !== undefined) out.requeueAfterMs = requeueAfterMs;
  if (rolledOut !== undefined) out.currentConfig = rolledOut;
  return out;
}
