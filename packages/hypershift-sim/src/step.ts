/**
 * Reconcile steps (STYLE.md §2): a reconcile is an ordered list of steps over one copy of the
 * object. Each step makes one decision and answers:
 * - `'continue'`: nothing for me to do (or I did something that needs no fresh read), go on;
 * - `'stop'`: I wrote the object (the write comes back as an informer event), or there is nothing
 *   more to do now;
 * - `requeueAfter(ms, then)`: look again after `ms`, and meanwhile stop or continue.
 * A step throws for transient failures; the worker loop retries the key with backoff.
 */
import type { ReconcileResult } from '@hcc/client';

/** What a step answers. */
export type StepResult = 'continue' | 'stop' | { readonly requeueAfterMs: number; readonly then: 'continue' | 'stop' };

/** One decision of a reconcile. `run` gets the working copy of the object, never a cached one. */
export interface Step<T> {
  readonly name: string;
  run(obj: T): Promise<StepResult>;
}

/** Ask to be reconciled again after `ms` milliseconds; `then` says whether later steps run now. */
export const requeueAfter = (ms: number, then: 'continue' | 'stop' = 'stop'): StepResult => ({
  requeueAfterMs: Math.max(1, Math.ceil(ms)),
  then,
});

/** The outcome of {@link runSteps}: the worker's result and the step that ended the pass. */
export interface StepsOutcome {
  result: ReconcileResult;
  /** Name of the step that stopped, or `''` when every step continued. */
  stoppedAt: string;
}

/**
 * Runs steps in order until one stops. The earliest requeue any step asked for is returned.
 */
export async function runSteps<T>(steps: readonly Step<T>[], obj: T): Promise<StepsOutcome> {
  let requeueAfterMs: number | undefined;
  for (const step of steps) {
    const r = await step.run(obj);
    if (r === 'continue') continue;
    if (r !== 'stop') {
      requeueAfterMs = requeueAfterMs === undefined ? r.requeueAfterMs : Math.min(requeueAfterMs, r.requeueAfterMs);
      if (r.then === 'continue') continue;
    }
    return { result: requeueAfterMs === undefined ? undefined : { requeueAfterMs }, stoppedAt: step.name };
  }
  return { result: requeueAfterMs === undefined ? undefined : { requeueAfterMs }, stoppedAt: '' };
}
