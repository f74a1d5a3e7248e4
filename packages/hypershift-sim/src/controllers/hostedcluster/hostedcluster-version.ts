/**
 * `status.version` of a HostedCluster, after HyperShift's `computeClusterVersionStatus`, with the
 * hosted control plane's rollout imitated by a timer:
 * - no history yet: `desired` = spec release, one `Partial` entry started now;
 * - the newest entry is `Partial` and the control plane can run (release valid, namespace and
 *   kubeconfig there): it becomes `Completed` once `availableDelayMs` have passed since it started,
 *   or since the release became valid if that was later (`gateMs`);
 * - `spec.release.image` differs from `desired.image` and the new release is valid: a new `Partial`
 *   entry goes in front (an unfinished one before it keeps `Partial` and gets a completionTime, as
 *   the CVO records an interrupted update) and `desired` moves.
 * Pure: no I/O, time comes in as `nowMs`.
 * @see https://github.com/openshift/hypershift/blob/main/hypershift-operator/controllers/hostedcluster/hostedcluster_controller.go (computeClusterVersionStatus)
 */
import { versionFromImage } from '../../release.js';
import { formatTime, remainingMs, startTime } from '../../time.js';
import type { ClusterVersionStatus, UpdateHistory } from '../../types.js';
import { deepCopyJSON } from '@hcc/crds';

/** Input of {@link computeVersionStatus}. */
export interface VersionInput {
  /** `spec.release.image`. */
  releaseImage: string;
  /** `metadata.generation`. */
  generation: number;
  /** The current `status.version`, if any (not mutated). */
  current: ClusterVersionStatus | undefined;
  nowMs: number;
  availableDelayMs: number;
  /** ValidReleaseImage is True: a rollout may start or finish. */
  releaseValid: boolean;
  /** The control-plane namespace and the kubeconfig Secret exist: a rollout may finish. */
  controlPlaneReady: boolean;
  /** When ValidReleaseImage last became True (ms); a rollout finishes no sooner than this + delay. */
  gateMs?: number;
}

/** Output: the new `status.version`, and how long until the running rollout may finish. */
export interface VersionOutput {
  version: ClusterVersionStatus;
  /** Set while a `Partial` rollout waits for its timer. */
  requeueAfterMs?: number;
}

const partial = (image: string, now: string): UpdateHistory => ({
  state: 'Partial',
  startedTime: now,
  completionTime: null,
  version: versionFromImage(image),
  image,
  verified: false,
});

/**
 * The new `status.version` by the rules above; `input.current` is copied, never mutated. Pure and total (never throws);
 * `requeueAfterMs` (milliseconds) is set while the newest rollout waits for its timer and may finish.
 */
export function computeVersionStatus(input: VersionInput): VersionOutput {
  const now = formatTime(input.nowMs);
  const image = input.releaseImage;
  let version: ClusterVersionStatus;
  if (!input.current || !input.current.history?.length) {
    version = {
      desired: { image, version: versionFromImage(image) },
      history: [partial(image, now)],
      observedGeneration: input.generation,
      availableUpdates: null,
    };
  } else {
    version = deepCopyJSON(input.current);
  }

  // The newest rollout finishes when its time has come.
  let requeueAfterMs: number | undefined;
  const head = version.history[0]!;
  if (head.state === 'Partial' && head.completionTime === null && head.image === version.desired.image) {
    if (input.releaseValid && input.controlPlaneReady) {
      const startMs = Math.max(startTime(head.startedTime) ?? input.nowMs, input.gateMs ?? 0);
      const wait = remainingMs(input.nowMs, startMs, input.availableDelayMs);
      if (wait === 0) {
        head.state = 'Completed';
        head.completionTime = now;
        head.version = versionFromImage(head.image);
      } else {
        requeueAfterMs = wait;
      }
    }
  }

  // A new release starts a new rollout.
  if (image !== version.desired.image && input.releaseValid) {
    if (head.state === 'Partial' && head.completionTime === null) head.completionTime = now;
    version.desired = { image, version: versionFromImage(image) };
    version.observedGeneration = input.generation;
    version.history.unshift(partial(image, now));
    requeueAfterMs = input.controlPlaneReady ? Math.max(1, input.availableDelayMs) : undefined;
  }
  return requeueAfterMs === undefined ? { version } : { version, requeueAfterMs };
}

/** True when some rollout of this cluster completed (the control plane has run at least once). */
export const hasCompletedRollout = (version: ClusterVersionStatus | undefined): boolean =>
  (version?.history ?? []).some((h) => h.state === 'Completed');

/** The version of the newest completed rollout, if any. */
export const currentVersion = (version: ClusterVersionStatus | undefined): string | undefined =>
  (version?.history ?? []).find((h) => h.state === 'Completed')?.version;
