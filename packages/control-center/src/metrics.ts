/**
 * Prometheus metrics of the control center, named like kube-apiserver's where one exists.
 */
import client from 'prom-client';

/** A metrics registry with the control center's metrics. */
export function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, group, resource, subresource and HTTP response code.',
    labelNames: ['verb', 'group', 'resource', 'subresource', 'code'],
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, group, resource and subresource (watches excluded).',
    labelNames: ['verb', 'group', 'resource', 'subresource'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const watches = new client.Gauge({ name: 'apiserver_registered_watchers', help: 'Number of currently open watch streams.', registers: [registry] });
  const objects = new client.Gauge({ name: 'apiserver_storage_objects', help: 'Number of stored objects per resource.', labelNames: ['resource'], registers: [registry] });
  const revision = new client.Gauge({ name: 'hcc_storage_revision', help: 'The storage revision (latest resourceVersion).', registers: [registry] });
  const validationChecks = new client.Counter({
    name: 'hcc_validation_checks_total',
    help: 'Schema and CEL checks of custom resources created with POST, by where they ran: "worker" (a validation worker thread) or "in-process" (the request thread: no worker configured, or none alive, or the object could not be handed over).',
    labelNames: ['where'],
    registers: [registry],
  });
  const validationWorkers = new client.Gauge({ name: 'hcc_validation_workers', help: 'Live validation worker threads.', registers: [registry] });
  return { registry, requests, duration, watches, objects, revision, validationChecks, validationWorkers };
}

export type ControlCenterMetrics = ReturnType<typeof createMetrics>;
