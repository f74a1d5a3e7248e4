/**
 * Runs the scale-out signal for the leader: about once a second it sums up the pending set against
 * the fleet ({@link fleetDemand}), updates the metrics, and when the debouncer says so sends the
 * signal — a Warning Event `FleetOutOfBudget` in `hcc-system` whose involvedObject is the
 * scheduler's Lease `hcc-system/hcc-scheduler` (so `kubectl get events -n hcc-system` and
 * `kubectl describe lease hcc-scheduler -n hcc-system` show it), then the configured webhook and
 * command. One signal at a time: a tick while one is in flight only updates metrics.
 *
 * Why the Lease: an Event must live in its object's namespace, the fleet has no namespaced object
 * of its own, and cluster-autoscaler does the same with its status ConfigMap in kube-system.
 * Each waiting HostedCluster also carries its own `FailedScheduling` Event and condition.
 */
import type { Logger } from 'pino';
import type { EventRecorder } from '@hcc/client';
import type { KubeObject } from '@hcc/crds';
import type { ScaleOutSettings } from '../config/config.js';
import type { ClusterInfo } from '../framework/types.js';
import type { SchedulerMetrics } from '../metrics.js';
import {
  fleetDemand,
  notifyWebhook,
  runCommand,
  ScaleOutDebouncer,
  scaleOutMessage,
  scaleOutRequest,
  type FleetDemand,
  type PendingInfo,
  type ScaleOutRequest,
  type SignalResult,
} from './scale-out.js';

/** Event reason of the fleet-level signal. */
export const EventReasonFleetOutOfBudget = 'FleetOutOfBudget';

/** What the controller reads and calls; injected so tests need no server or processes. */
export interface ScaleOutDeps {
  settings: ScaleOutSettings;
  pending: ReadonlyMap<string, PendingInfo>;
  /** The fleet as the cache sees it now. */
  snapshot(): ClusterInfo[];
  /** The object the Event is about (the scheduler's Lease, read fresh for its uid). */
  eventObject(): Promise<KubeObject>;
  recorder: Pick<EventRecorder, 'event'>;
  metrics: SchedulerMetrics;
  logger: Logger;
  now: () => Date;
  webhook?: (url: string, body: ScaleOutRequest, timeoutMs: number) => Promise<SignalResult>;
  command?: (argv: readonly string[], body: ScaleOutRequest, timeoutMs: number) => Promise<SignalResult>;
  /**
   * When the fleet's last signal went out, ms since the epoch (undefined: none known), read once
   * before this controller may signal: the last `FleetOutOfBudget` Event's `lastTimestamp`
   * ({@link lastSignalMs}). Absent: counted from this controller's start.
   */
  lastSignal?: () => Promise<number | undefined>;
}

/**
 * When the last scale-out signal went out, from the `FleetOutOfBudget` Events about the scheduler's
 * Lease (`lastTimestamp`, whole seconds; an Event bumped by a repeat carries the latest): what a new
 * leader's debouncer counts `minIntervalSeconds` from. Events expire after the control center's
 * `--event-ttl` (1 h by default): an older signal is not remembered.
 * @param events - the Events of `hcc-system` (any; only this reason and Lease count)
 * @returns ms since the epoch, or undefined when there is none
 */
export function lastSignalMs(events: readonly KubeObject[], leaseName: string): number | undefined {
  let last: number | undefined;
  for (const e of events) {
    const ev = e as KubeObject & { reason?: string; involvedObject?: { kind?: string; name?: string }; lastTimestamp?: string; eventTime?: string; firstTimestamp?: string };
    if (ev.reason !== EventReasonFleetOutOfBudget || ev.involvedObject?.kind !== 'Lease' || ev.involvedObject.name !== leaseName) continue;
    const t = Date.parse(ev.lastTimestamp ?? ev.eventTime ?? ev.firstTimestamp ?? '');
    if (Number.isFinite(t) && (last === undefined || t > last)) last = t;
  }
  return last;
}

/** The controller's one method, called every tick by the leader. */
export interface ScaleOutController {
  /** Updates metrics; maybe starts a signal. Returns the signal's promise when one started (for tests). */
  tick(): Promise<void> | undefined;
}

/** Creates the controller; see the module comment. */
export function createScaleOutController(deps: ScaleOutDeps): ScaleOutController {
  const debouncer = new ScaleOutDebouncer(deps.settings);
  const webhook = deps.webhook ?? notifyWebhook;
  const command = deps.command ?? runCommand;
  let inFlight = false;
  // Until the last signal's time is read, this controller does not signal (metrics still update).
  let seeded = !deps.lastSignal;
  deps
    .lastSignal?.()
    .then(
      (ms) => ms !== undefined && debouncer.signalledAt(ms),
      (err) => deps.logger.warn({ err, controller: 'scale-out' }, 'could not read when the last scale-out signal went out; minIntervalSeconds counts from now'),
    )
    .finally(() => (seeded = true));

  const signal = async (demand: FleetDemand): Promise<void> => {
    const body = scaleOutRequest(demand, deps.now());
    const log = deps.logger.child({ controller: 'scale-out' });
    log.warn({ missingSlots: demand.missingSlots, pending: demand.pending, byPlatform: demand.byPlatform }, 'fleet out of budget; signalling scale-out');
    try {
      deps.recorder.event(await deps.eventObject(), 'Warning', EventReasonFleetOutOfBudget, scaleOutMessage(demand));
      deps.metrics.scaleOutSignals.inc({ target: 'event', result: 'success' });
    } catch (err) {
      deps.metrics.scaleOutSignals.inc({ target: 'event', result: 'failure' });
      log.warn({ err }, 'scale-out event not recorded');
    }
    const timeoutMs = deps.settings.timeoutSeconds * 1000;
    const calls: Promise<void>[] = [];
    const report = (target: string, r: SignalResult) => {
      deps.metrics.scaleOutSignals.inc({ target, result: r.ok ? 'success' : 'failure' });
      if (r.ok) log.info({ target, detail: r.detail }, 'scale-out signal sent');
      else log.warn({ target, detail: r.detail }, 'scale-out signal failed');
    };
    if (deps.settings.webhook) calls.push(webhook(deps.settings.webhook, body, timeoutMs).then((r) => report('webhook', r)));
    if (deps.settings.command) calls.push(command(deps.settings.command, body, timeoutMs).then((r) => report('command', r)));
    await Promise.all(calls);
  };

  return {
    tick: () => {
      const demand = fleetDemand(deps.pending, deps.snapshot());
      deps.metrics.pending.set(demand.pending);
      deps.metrics.missingSlots.set(demand.missingSlots);
      if (!seeded) return undefined;
      if (!debouncer.observe(demand.missingSlots, deps.now().getTime()) || inFlight) return undefined;
      inFlight = true;
      return signal(demand).finally(() => (inFlight = false));
    },
  };
}
