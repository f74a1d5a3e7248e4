/**
 * `spec.pausedUntil` of a HostedCluster or NodePool, read as HyperShift's
 * util.ProcessPausedUntilField reads it: a boolean as Go's strconv.ParseBool takes one (`true`,
 * `True`, `TRUE`, `t`, `T`, `1` pause until the field changes; their false forms do not), else an
 * RFC 3339 time pauses until then; anything else (or a time already past) does not pause.
 * @see https://github.com/openshift/hypershift/blob/main/support/util/pausereconcile.go
 */
import type { ConditionInput } from './conditions.js';
import { Messages, Reasons } from './names.js';

/** What Go's strconv.ParseBool accepts. */
const goTrue = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const goFalse = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Whether reconciliation is paused now; `untilMs` (ms since the epoch) when it ends by itself. */
export interface PauseState {
  paused: boolean;
  untilMs?: number;
}

/**
 * @param pausedUntil - the object's `spec.pausedUntil`
 * @param nowMs - now, in ms since the epoch
 */
export function reconciliationPaused(pausedUntil: unknown, nowMs: number): PauseState {
  if (typeof pausedUntil !== 'string' || pausedUntil === '') return { paused: false };
  if (goTrue.has(pausedUntil)) return { paused: true };
  if (goFalse.has(pausedUntil)) return { paused: false };
  // RFC 3339 only, as Go's time.Parse(time.RFC3339, ...): a date alone is not a time.
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(pausedUntil)) return { paused: false };
  const untilMs = Date.parse(pausedUntil);
  return Number.isFinite(untilMs) && untilMs > nowMs ? { paused: true, untilMs } : { paused: false };
}

/**
 * The `ReconciliationActive` condition of a HostedCluster or NodePool, as HyperShift's
 * GenerateReconciliationActiveCondition makes it: True while it reconciles; False, reason
 * `ReconciliationPaused`, while paused, saying until when (a boolean pauses "until field removed",
 * a time "until: <the field>").
 * @param pausedUntil - the object's `spec.pausedUntil`
 * @param pause - {@link reconciliationPaused} of it
 * @param generation - the object's metadata.generation
 */
export function reconciliationActiveCondition(pausedUntil: unknown, pause: PauseState, generation: number): ConditionInput {
  if (!pause.paused) return { type: 'ReconciliationActive', status: 'True', reason: Reasons.ReconciliationActive, message: Messages.ReconciliationActive, observedGeneration: generation };
  const message = typeof pausedUntil === 'string' && goTrue.has(pausedUntil) ? 'Reconciliation paused until field removed' : `Reconciliation paused until: ${String(pausedUntil)}`;
  return { type: 'ReconciliationActive', status: 'False', reason: Reasons.ReconciliationPaused, message, observedGeneration: generation };
}

/** How long until a pause with an end is over, in milliseconds (at least 1); undefined for one without. */
export function pauseEndsInMs(pause: PauseState, nowMs: number): number | undefined {
  return pause.untilMs === undefined ? undefined : Math.max(1, pause.untilMs - nowMs);
}
