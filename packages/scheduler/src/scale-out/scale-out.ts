/**
 * The scale-out signal: when HostedClusters wait because the fleet is out of budget, say so where
 * an autoscaler or a person can act — a metric (`hcc_scheduler_missing_slots`, next to
 * `hcc_pending_hostedclusters`), a Warning Event `FleetOutOfBudget` in `hcc-system`, and the
 * optional webhook and command of the configuration's `scaleOut`, called with how many slots are
 * missing (the seed's "auto-scaling of clusters").
 *
 * Contract:
 * - Missing slots = waiting HostedClusters that budget alone keeps out: at least one cluster
 *   passed every other filter and failed only Budget (Budget runs last), or no cluster is
 *   registered at all. HostedClusters that wait for a platform, selector, taint or release no
 *   cluster offers are not counted: more of the same clusters would not place them.
 * - Debounced: a signal goes out once slots have been missing for `debounceSeconds`, then at most
 *   once per `minIntervalSeconds` while they stay missing (failures count: no hammering) — also
 *   across a lost and regained Lease, a restart or another replica taking over: a new leader first
 *   reads when the last signal went out (its `FleetOutOfBudget` Event) and counts from there.
 * - Only the leader signals; the decision ({@link ScaleOutDebouncer}, {@link fleetDemand}) is pure
 *   and the calls ({@link notifyWebhook}, {@link runCommand}) never throw.
 */
import { spawn } from 'node:child_process';
import { ControlCenterAPIVersion } from '@hcc/crds';
import type { ClusterInfo } from '../framework/types.js';

/** Why a HostedCluster waits, as the last scheduling attempt found. */
export interface PendingInfo {
  /** True when only budget keeps it out (see the module comment). */
  budgetBound: boolean;
  /** Its `spec.platform.type` (`None` when absent). */
  platform: string;
  /** When it was first found unschedulable in this wait, ms since the epoch. */
  sinceMs: number;
  /** When its last FailedScheduling Event was recorded, ms since the epoch. */
  eventMs?: number;
}

/** What the fleet lacks right now. */
export interface FleetDemand {
  /** HostedClusters waiting for any reason. */
  pending: number;
  /** HostedClusters waiting for budget only: the slots to add. */
  missingSlots: number;
  /** missingSlots by platform type, so an autoscaler can add the right kind of cluster. */
  byPlatform: Record<string, number>;
  /** Registered management clusters: ManagementClusters, those reporting one `status.clusterID` (one cluster under several names) counted once. */
  managementClusters: number;
  /** Free slots over Ready clusters that are neither cordoned nor being deleted (what placement could still use), a count. */
  freeSlots: number;
  /** Free slots over Ready clusters that are cordoned (`spec.unschedulable`) and not being deleted: uncordoning one gives them, a count. */
  cordonedFreeSlots: number;
  /** Key `namespace/name` of the budget-bound HostedCluster waiting longest, '' when none. */
  oldestPending: string;
}

/** Sums up the pending set against a fleet snapshot (pure). */
export function fleetDemand(pending: ReadonlyMap<string, PendingInfo>, clusters: readonly ClusterInfo[]): FleetDemand {
  let missingSlots = 0;
  const byPlatform: Record<string, number> = {};
  let oldest = '';
  let oldestMs = Infinity;
  for (const [key, p] of pending) {
    if (!p.budgetBound) continue;
    missingSlots++;
    byPlatform[p.platform] = (byPlatform[p.platform] ?? 0) + 1;
    if (p.sinceMs < oldestMs || (p.sinceMs === oldestMs && key < oldest)) {
      oldestMs = p.sinceMs;
      oldest = key;
    }
  }
  let freeSlots = 0;
  let cordonedFreeSlots = 0;
  for (const c of clusters) {
    // A cluster being deleted takes no placements, and nothing gives it back.
    if (!c.ready || !Number.isFinite(c.freeSlots) || c.cluster.metadata.deletionTimestamp) continue;
    if (c.cluster.spec?.unschedulable) cordonedFreeSlots += c.freeSlots;
    else freeSlots += c.freeSlots;
  }
  // A second name for a cluster counted already is not another cluster (the same status.clusterID, whichever is ready).
  const managementClusters = new Set(clusters.map((c) => (c.cluster.status?.clusterID ? `id:${c.cluster.status.clusterID}` : `name:${c.name}`))).size;
  return { pending: pending.size, missingSlots, byPlatform, managementClusters, freeSlots, cordonedFreeSlots, oldestPending: oldest };
}

/** The JSON body of a webhook call (and stdin of the command). */
export interface ScaleOutRequest extends FleetDemand {
  apiVersion: string;
  kind: 'ScaleOutRequest';
  /** RFC 3339 time of the signal. */
  time: string;
}

/** Builds the request body for a demand. */
export const scaleOutRequest = (d: FleetDemand, now: Date): ScaleOutRequest => ({
  apiVersion: ControlCenterAPIVersion,
  kind: 'ScaleOutRequest',
  time: now.toISOString(),
  ...d,
});

/** `n` and the noun, singular for one (`1 slot`, `2 slots`). */
const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/**
 * The Event message for a signal, e.g. `12 HostedClusters wait for budget: 12 slots missing (12
 * AWS) across 3 management clusters, which have no free slots; oldest waiting: ns/name. ...`.
 * Free slots the waiting HostedClusters cannot use (another platform, a taint, a selector) are
 * named as such: they are why budget alone is not the answer on those clusters. Free slots on
 * cordoned clusters are named too, with uncordoning as a way out.
 */
export function scaleOutMessage(d: FleetDemand): string {
  const platforms = Object.entries(d.byPlatform)
    .sort(([a, na], [b, nb]) => nb - na || a.localeCompare(b))
    .map(([p, n]) => `${n} ${p}`)
    .join(', ');
  const waits = d.missingSlots === 1 ? 'waits' : 'wait';
  const cordoned = d.cordonedFreeSlots > 0 ? `${d.cordonedFreeSlots} on cordoned ones` : '';
  const free =
    d.freeSlots === 0
      ? `${d.managementClusters === 1 ? 'which has' : 'which have'} no free slots${cordoned ? ` apart from ${cordoned}` : ''}`
      : `whose ${count(d.freeSlots, 'free slot', 'free slots')} ${d.missingSlots === 1 ? 'it cannot' : 'they cannot'} use (platform, taints or selectors)${cordoned ? `, and ${cordoned}` : ''}`;
  return (
    `${count(d.missingSlots, 'HostedCluster', 'HostedClusters')} ${waits} for budget: ${count(d.missingSlots, 'slot', 'slots')} missing (${platforms}) across ` +
    `${count(d.managementClusters, 'management cluster', 'management clusters')}, ${free}; oldest waiting: ${d.oldestPending}. ` +
    (d.cordonedFreeSlots > 0 ? 'Uncordon a management cluster, add one or raise a capacity.' : 'Add a management cluster or raise a capacity.')
  );
}

/** Debounce settings, in seconds (see ScaleOutSettings). */
export interface DebounceSettings {
  debounceSeconds: number;
  minIntervalSeconds: number;
}

/** Decides when to signal; see the module comment. Pure: the caller passes the time. */
export class ScaleOutDebouncer {
  #sinceMs: number | undefined;
  #lastMs: number | undefined;

  constructor(private readonly settings: DebounceSettings) {}

  /**
   * Records a signal sent before this debouncer existed (by an earlier leader, or this process
   * before it lost its Lease), so `minIntervalSeconds` counts from it.
   * @param atMs - when it went out, ms since the epoch (same clock as {@link observe}'s `nowMs`)
   */
  signalledAt(atMs: number): void {
    if (this.#lastMs === undefined || atMs > this.#lastMs) this.#lastMs = atMs;
  }

  /**
   * Records the current number of missing slots.
   * @param nowMs - ms since the epoch (or any monotonic clock)
   * @returns true when a signal should go out now
   */
  observe(missingSlots: number, nowMs: number): boolean {
    if (missingSlots <= 0) {
      this.#sinceMs = undefined;
      return false;
    }
    this.#sinceMs ??= nowMs;
    if (nowMs - this.#sinceMs < this.settings.debounceSeconds * 1000) return false;
    if (this.#lastMs !== undefined && nowMs - this.#lastMs < this.settings.minIntervalSeconds * 1000) return false;
    this.#lastMs = nowMs;
    return true;
  }
}

/** Outcome of one call. */
export interface SignalResult {
  ok: boolean;
  /** e.g. `HTTP 200`, `exit code 0`, or the error. */
  detail: string;
}

/** How much of a failed signal's own words (a webhook's answer, a command's stderr) a result keeps, in characters. */
export const SignalOutputChars = 300;

/** `text` without surrounding blank space, cut to its last `max` characters (where an error usually is). */
function tail(text: string, max = SignalOutputChars): string {
  const t = text.trim();
  return t.length > max ? `…${t.slice(t.length - max)}` : t;
}

/**
 * POSTs the request as JSON (`content-type: application/json`). 2xx is success; any other answer
 * fails with its status and the start of its body (`HTTP 500: no capacity left`); a call that
 * does not complete fails with the reason (`timed out after 30000 ms`, `fetch failed: connect
 * ECONNREFUSED 127.0.0.1:1`).
 * @param timeoutMs - the whole call, in milliseconds
 */
export async function notifyWebhook(url: string, body: ScaleOutRequest, timeoutMs: number): Promise<SignalResult> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'hcc-scheduler' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text().catch(() => '');
    if (res.ok) return { ok: true, detail: `HTTP ${res.status}` };
    const said = text.trim().slice(0, SignalOutputChars);
    return { ok: false, detail: `HTTP ${res.status}${said ? `: ${said}` : ''}` };
  } catch (err) {
    const e = err as Error & { cause?: unknown };
    if (e.name === 'TimeoutError') return { ok: false, detail: `timed out after ${timeoutMs} ms` };
    const cause = e.cause instanceof Error ? e.cause.message : undefined;
    return { ok: false, detail: cause && !e.message.includes(cause) ? `${e.message}: ${cause}` : e.message };
  }
}

/**
 * Runs the command (argv, no shell) with `HCC_MISSING_SLOTS`, `HCC_PENDING_HOSTEDCLUSTERS` and
 * `HCC_SCALE_OUT_REQUEST` (the JSON body) in its environment and the JSON body on stdin. Exit 0 is
 * success; a failure's detail carries the end of its stderr (`exit code 3: quota exceeded`). It
 * runs in a process group of its own: past `timeoutMs` the whole group is killed (SIGKILL), so a
 * hung script leaves nothing behind (a `sleep` it started included), and it fails; a scheduler
 * that exits while it runs kills the group too (its own group gets no Ctrl-C). What it starts in
 * the background and leaves running when it exits in time is left alone. Its stdout is discarded.
 */
export function runCommand(argv: readonly string[], body: ScaleOutRequest, timeoutMs: number): Promise<SignalResult> {
  return new Promise((resolve) => {
    const json = JSON.stringify(body);
    let settled = false;
    let stderr = '';
    const done = (r: SignalResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      process.off('exit', killGroup);
      resolve(r);
    };
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: true,
      env: { ...process.env, HCC_MISSING_SLOTS: String(body.missingSlots), HCC_PENDING_HOSTEDCLUSTERS: String(body.pending), HCC_SCALE_OUT_REQUEST: json },
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4 * SignalOutputChars);
    });
    child.stderr!.on('error', () => undefined);
    const withStderr = (detail: string) => {
      const said = tail(stderr);
      return said ? `${detail}: ${said}` : detail;
    };
    // The group: the command and whatever it started (a shell script's `sleep`).
    function killGroup(): void {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
    const timer = setTimeout(() => {
      killGroup();
      done({ ok: false, detail: withStderr(`timed out after ${timeoutMs} ms`) });
    }, timeoutMs);
    // Its own group gets no Ctrl-C from the terminal: a scheduler that exits first takes it along.
    process.once('exit', killGroup);
    let drain: ReturnType<typeof setTimeout> | undefined;
    child.on('error', (err) => done({ ok: false, detail: err.message }));
    child.on('exit', (code, signal) => {
      // Exited in time: no timeout may kill it (or what it left running) while its stderr drains.
      clearTimeout(timer);
      process.off('exit', killGroup);
      const result = (): SignalResult => (code === 0 ? { ok: true, detail: 'exit code 0' } : { ok: false, detail: withStderr(signal ? `killed by ${signal}` : `exit code ${code}`) });
      // stderr may still hold its last words: read them until it closes, or briefly (a process it
      // left running in the background may keep it open).
      if (child.stderr!.destroyed) return done(result());
      child.stderr!.once('close', () => done(result()));
      drain = setTimeout(() => done(result()), 200);
    });
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(json);
  });
}
