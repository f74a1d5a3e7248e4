/**
 * `hcc syncer --take-over-from`: which of the control centers named there this syncer takes the
 * copies of now. One is taken over only while its syncer shows no sign of running for this
 * ManagementCluster name: its presence Lease (presence.ts) has expired or is absent, and no copy
 * of its appeared after this syncer started. A live one is waited for (TakeOverWaiting); one whose
 * syncer shows it runs after all is given up for the rest of this run (TakeOverStopped). The two
 * syncers would otherwise delete each other's copies without end.
 */
import type { Presence } from './presence.js';

/** The syncer flag that names the control centers whose copies this syncer takes over (cli/commands/syncer.ts). */
export const TakeOverFromFlag = '--take-over-from';

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
  /** Per control center: what its Lease looked like when this syncer last saw it change, and when (this syncer's clock). */
  readonly #seen = new Map<string, { key: string; changedAtMs: number; graceMs: number; renewedSeen: boolean; lease?: string; renewTime?: string }>();

  /** @param requested - the IDs of `--take-over-from`, without this control center's own */
  constructor(requested: Iterable<string>, report: TakeOverReport) {
    this.#requested = new Set(requested);
    this.#report = report;
  }

  /**
   * Records what the presence Leases look like now (every control center's, undefined: they could
   * not be read) and decides which requested IDs are taken over: a control center's syncer counts
   * as running until this syncer has seen its Lease unchanged (or absent) for that Lease's grace
   * period (`ownGraceMs` for one never seen), on this syncer's own clock, as client-go's leader
   * election times a Lease from when it last saw it change. So neither clocks apart nor a Lease
   * deleted or back-dated by hand make a running syncer look stopped, and every take-over waits
   * at least one grace period after this syncer started.
   * @param nowMs - now, in ms since the epoch
   * @param ownGraceMs - the grace period of a Lease never seen: this syncer's own (ms)
   * @returns the IDs taken over from now on that were not before (their copies are to be looked at again)
   */
  observe(seen: ReadonlyMap<string, Presence> | undefined, nowMs: number, ownGraceMs = 0): string[] {
    if (seen) {
      for (const [id, p] of seen) this.#track(id, p, nowMs, ownGraceMs);
      for (const id of this.#requested) if (!seen.has(id)) this.#track(id, undefined, nowMs, ownGraceMs);
    }
    const added: string[] = [];
    for (const id of this.#requested) {
      if (this.#stopped.has(id)) continue;
      const t = this.#seen.get(id);
      if (!seen || !t) {
        this.active.delete(id);
        this.#say(id, 'unknown', 'warn', `${TakeOverFromFlag} ${id}: the presence Leases in the management cluster cannot be read, so whether that control center's syncer still runs here is not known: its copies are not taken over until they can be read`, ReasonTakeOverWaiting);
        continue;
      }
      if (nowMs - t.changedAtMs < t.graceMs) {
        this.active.delete(id);
        const what = t.lease ? `its Lease ${t.lease} was last seen renewed ${Math.round((nowMs - t.changedAtMs) / 1000)} s ago` : `it holds no Lease here now, seen for ${Math.round((nowMs - t.changedAtMs) / 1000)} s`;
        this.#say(id, 'waiting', 'warn', `${TakeOverFromFlag} ${id}: that control center's syncer may still run for this management cluster (${what}): its copies are taken over once its Lease has not been renewed for ${Math.round(t.graceMs / 1000)} s; stop that control center's syncers`, ReasonTakeOverWaiting);
        continue;
      }
      if (!this.active.has(id)) added.push(id);
      this.active.add(id);
      this.#say(id, 'active', 'info', t.lease ? `taking over the copies of control center ${id}: its syncer's Lease ${t.lease} has not been renewed for ${Math.round((nowMs - t.changedAtMs) / 1000)} s (last renewal written at ${t.renewTime})` : `taking over the copies of control center ${id}: no syncer of it has held a Lease in this management cluster for ${Math.round((nowMs - t.changedAtMs) / 1000)} s`);
    }
    return added;
  }

  /**
   * Whether control center `id`'s syncer shows that it runs here: this syncer saw its Lease
   * renewed (changed after it was first seen) within the Lease's grace period. A Lease seen only
   * once (perhaps left behind by a syncer stopped long ago) is no such sign.
   */
  isLive(id: string, nowMs: number): boolean {
    const t = this.#seen.get(id);
    return !!t?.lease && !!t.renewedSeen && nowMs - t.changedAtMs < t.graceMs;
  }

  #track(id: string, p: Presence | undefined, nowMs: number, ownGraceMs: number): void {
    const key = p ? `${p.lease}@${p.resourceVersion}` : 'absent';
    const t = this.#seen.get(id);
    if (t?.key === key) return;
    // Gone after being seen: it counts as running for the longer of its grace and this syncer's.
    const graceMs = p ? Math.max(p.graceMs, ownGraceMs) : Math.max(t?.graceMs ?? 0, ownGraceMs);
    this.#seen.set(id, { key, changedAtMs: nowMs, graceMs, renewedSeen: !!p && !!t && t.key !== 'absent', ...(p ? { lease: p.lease, renewTime: p.renewTime } : {}) });
  }

  /**
   * Gives up taking over from `id` for the rest of this run: a copy of its appeared after this
   * syncer started (`evidence`), so its syncer runs (one too old to keep a presence Lease).
   * @returns false when `id` was not being taken over
   */
  stop(id: string, evidence: string): boolean {
    if (!this.active.delete(id)) return false;
    this.#stopped.add(id);
    this.#say(id, 'stopped', 'error', `the control center ${id} named in ${TakeOverFromFlag} still runs a syncer for this management cluster: ${evidence} after this syncer started; this syncer no longer takes over its copies (the two would delete each other's, and each HostedCluster copy deleted tears down a control plane): stop that control center's syncers, then restart this one`, ReasonTakeOverStopped);
    return true;
  }

  #say(id: string, state: string, level: 'info' | 'warn' | 'error', message: string, reason?: string): void {
    if (this.#said.get(id) === state) return;
    this.#said.set(id, state);
    this.#report(level, id, message, reason);
  }
}
