/**
 * Prometheus metrics of the scheduler, named after kube-scheduler's where one exists
 * (`scheduler_schedule_attempts_total`, `scheduler_pending_pods`, ...). Gauges about the fleet
 * are refreshed by the leader about once a second and reset when it stops leading, so a standby
 * replica never reports stale numbers.
 * @see https://kubernetes.io/docs/reference/instrumentation/metrics/
 */
import client from 'prom-client';

/**
 * Creates the scheduler's metrics in their own registry (with the process's default metrics).
 * Per-cluster gauges are labelled `cluster` (the ManagementCluster name).
 */
export function createSchedulerMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  return {
    registry,
    attempts: new client.Counter({
      name: 'hcc_scheduler_schedule_attempts_total',
      help: 'Scheduling attempts by result (scheduled, unschedulable, error) and profile.',
      labelNames: ['result', 'profile'],
      registers: [registry],
    }),
    rejections: new client.Counter({
      name: 'hcc_scheduler_unschedulable_reasons_total',
      help: 'Unschedulable attempts by the filter plugin that ruled clusters out (one count per plugin per attempt).',
      labelNames: ['plugin'],
      registers: [registry],
    }),
    e2eLatency: new client.Histogram({
      name: 'hcc_scheduler_e2e_scheduling_duration_seconds',
      help: 'Time from HostedCluster creation to bind, in seconds.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
      registers: [registry],
    }),
    schedulingDuration: new client.Histogram({
      name: 'hcc_scheduler_scheduling_algorithm_duration_seconds',
      help: 'Time spent in filter and score for one HostedCluster, in seconds.',
      buckets: [0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05],
      registers: [registry],
    }),
    bindingDuration: new client.Histogram({
      name: 'hcc_scheduler_binding_duration_seconds',
      help: 'Time the bind PATCH took, in seconds.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers: [registry],
    }),
    pending: new client.Gauge({
      name: 'hcc_pending_hostedclusters',
      help: 'HostedClusters waiting for a placement because no management cluster fits.',
      registers: [registry],
    }),
    missingSlots: new client.Gauge({
      name: 'hcc_scheduler_missing_slots',
      help: 'Slots the fleet lacks: waiting HostedClusters that only budget keeps from a management cluster.',
      registers: [registry],
    }),
    scaleOutSignals: new client.Counter({
      name: 'hcc_scheduler_scale_out_signals_total',
      help: 'Scale-out signals by target (event, webhook, command) and result (success, failure).',
      labelNames: ['target', 'result'],
      registers: [registry],
    }),
    queueDepth: new client.Gauge({ name: 'hcc_scheduler_queue_depth', help: 'Keys waiting in the scheduling queue.', registers: [registry] }),
    assumed: new client.Gauge({ name: 'hcc_scheduler_assumed_hostedclusters', help: 'Placements reserved in the cache that the informer has not shown yet.', registers: [registry] }),
    freeSlots: new client.Gauge({
      name: 'hcc_managementcluster_free_slots',
      help: 'Free slots per management cluster as the scheduler counts them (reported budget less unreported placements; +Inf when neither a capacity nor a reported budget bounds it).',
      labelNames: ['cluster'],
      registers: [registry],
    }),
    placed: new client.Gauge({
      name: 'hcc_managementcluster_placed_hostedclusters',
      help: 'HostedClusters bound or assumed per management cluster.',
      labelNames: ['cluster'],
      registers: [registry],
    }),
    capacity: new client.Gauge({
      name: 'hcc_managementcluster_capacity',
      help: 'spec.capacity per management cluster (+Inf when unset: unbounded).',
      labelNames: ['cluster'],
      registers: [registry],
    }),
    clusterReady: new client.Gauge({
      name: 'hcc_managementcluster_ready',
      help: '1 when the management cluster takes new placements by heartbeat (Ready filter), else 0.',
      labelNames: ['cluster'],
      registers: [registry],
    }),
    leader: new client.Gauge({ name: 'hcc_scheduler_is_leader', help: '1 while this replica leads.', registers: [registry] }),
  };
}

/** The scheduler's metrics, as {@link createSchedulerMetrics} returns them. */
export type SchedulerMetrics = ReturnType<typeof createSchedulerMetrics>;
