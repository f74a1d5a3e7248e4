/**
 * `hcc syncer --take-over-from`: which of the control centers named there this syncer takes the
 * copies of now. One is taken over only while its syncer shows no sign of running for this
 * ManagementCluster name: its presence Lease (presence.ts) has expired or is absent, and no copy
 * of its appeared after this syncer started. A live one is waited for (TakeOverWaiting); one whose
 * syncer shows it runs after all is given up for the rest of this run (TakeOverStopped). The two
 * syncers would otherwise delete each other's copies without end.
 */
import type { Presence } from './presence.js';
import { formatMicroTime } from '@hcc/client';

/** Warning Event on a ManagementCluster: a control center named in `--take-over-from` still runs a syncer there; its copies are taken over once it has stopped. */
export const ReasonTakeOverWaiting = 'TakeOverWaiting';
/** Warning Event on a ManagementCluster whose syncer stopped taking over from a control center that still runs a syncer there. */
export const ReasonTakeOverStopped = 'TakeOverStopped';

/** Where {@link TakeOver} says what it decided: a log line (and, for a warning, an Event on the ManagementCluster with `reason`). */
export type TakeOverReport = (level: 'info' | 'warn' | 'error', controlCenter: string, message: string, reason?: string) => void;

/** The take-over state of one syncer. */
export class TakeOver {
  /** The IDs taken over now: the syncer's ControlCenterIdentity.takeOverFrom, read at every pass. */
  readonly active = new Set<string>();
  readonly #requested: ReadonlySet<string>;
  readonly #stopped = new Set<string>();
  /** What was last said per ID (said again only when it changes). */
  readonly #said = new Map<string, string>();
  readonly #report: TakeOverReport;

  /** @param requested - the IDs of `--take-over-from`, without this control center's own */
  constructor(requested: Iterable<string>, report: TakeOverReport) {
    this.#requested = new Set(requested);
    this.#report = report;
  }

  /**
   * Decides from the presence Leases seen now (undefined: they could not be read) which requested
   * IDs are taken over: those whose Lease is absent or expired, unless given up.
   * @param nowMs - now, in ms since the epoch
   * @returns the IDs taken over from now on that were not before (their copies are to be looked at again)
   */
  observe(seen: ReadonlyMap<string, Presence> | undefined, nowMs: number): string[] {
    const added: string[] = [];
    for (const id of this.#requested) {
      if (this.#stopped.has(id)) continue;
      if (!seen) {
        this.active.delete(id);
        this.#say(id, 'unknown', 'warn', `--take-over-from ${id}: the presence Leases in the management cluster cannot be read, so whether that control center's syncer still runs here is not known: its copies are not taken over until they can be read`, ReasonTakeOverWaiting);
        continue;
      }
      const p = seen.get(id);
      if (p && p.liveUntilMs > nowMs) {
        this.active.delete(id);
        this.#say(id, 'waiting', 'warn', `--take-over-from ${id}: that control center's syncer still runs for this management cluster (its Lease ${p.lease} was renewed at ${p.renewTime}): its copies are taken over once it has stopped (its Lease expired, at ${formatMicroTime(p.liveUntilMs)} at the earliest); stop that control center's syncers`, ReasonTakeOverWaiting);
        continue;
      }
      if (!this.active.has(id)) added.push(id);
      this.active.add(id);
      this.#say(id, 'active', 'info', p ? `taking over the copies of control center ${id}: its syncer's Lease ${p.lease} expired (last renewed at ${p.renewTime})` : `taking over the copies of control center ${id}: no syncer of it holds a Lease in this management cluster`);
    }
    return added;
  }

  /**
   * Gives up taking over from `id` for the rest of this run: a copy of its appeared after this
   * syncer started (`evidence`), so its syncer runs (one too old to keep a presence Lease).
   * @returns false when `id` was not being taken over
   */
  stop(id: string, evidence: string): boolean {
    if (!this.active.delete(id)) return false;
    this.#stopped.add(id);
    this.#say(id, 'stopped', 'error', `the control center ${id} named in --take-over-from still runs a syncer for this management cluster: ${evidence} after this syncer started; this syncer no longer takes over its copies (the two would delete each other's, and each HostedCluster copy deleted tears down a control plane): stop that control center's syncers, then restart this one`, ReasonTakeOverStopped);
    return true;
  }

  #say(id: string, state: string, level: 'info' | 'warn' | 'error', message: string, reason?: string): void {
    if (this.#said.get(id) === state) return;
    this.#said.set(id, state);
    this.#report(level, id, message, reason);
  }
}
