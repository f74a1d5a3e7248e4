/**
 * Prometheus metrics of the scheduler, named after kube-scheduler's where one exists.
 */
import client from 'prom-client';

export function createSchedulerMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  return {
    registry,
    attempts: new client.Counter({
      name: 'hcc_scheduler_schedule_attempts_total',
      help: 'Scheduling attempts by result (scheduled, unschedulable, error).',
      labelNames: ['result'],
      registers: [registry],
    }),
    e2eLatency: new client.Histogram({
      name: 'hcc_scheduler_e2e_scheduling_duration_seconds',
      help: 'Time from HostedCluster creation to bind, in seconds.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    schedulingDuration: new client.Histogram({
      name: 'hcc_scheduler_scheduling_algorithm_duration_seconds',
      help: 'Time spent in filter and score for one HostedCluster, in seconds.',
      buckets: [0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05],
      registers: [registry],
    }),
    pending: new client.Gauge({
      name: 'hcc_pending_hostedclusters',
      help: 'HostedClusters waiting for a placement because no management cluster fits.',
      registers: [registry],
    }),
    queueDepth: new client.Gauge({ name: 'hcc_scheduler_queue_depth', help: 'Keys waiting in the scheduling queue.', registers: [registry] }),
    freeSlots: new client.Gauge({
      name: 'hcc_managementcluster_free_slots',
      help: 'Free slots per management cluster as the scheduler counts them (reported budget less unreported placements).',
      labelNames: ['cluster'],
      registers: [registry],
    }),
    leader: new client.Gauge({ name: 'hcc_scheduler_is_leader', help: '1 while this replica leads.', registers: [registry] }),
  };
}

export type SchedulerMetrics = ReturnType<typeof createSchedulerMetrics>;
