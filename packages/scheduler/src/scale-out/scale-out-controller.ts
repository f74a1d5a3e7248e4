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
      if (!debouncer.observe(demand.missingSlots, deps.now().getTime()) || inFlight) return undefined;
      inFlight = true;
      return signal(demand).finally(() => (inFlight = false));
    },
  };
}
