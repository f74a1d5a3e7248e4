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
  const fanoutGroups = new client.Gauge({
    name: 'hcc_watch_fanout_groups',
    help: 'Store registrations shared by watch streams: one per resource and selection (namespace, name, label and field selector) among full-object watches past their start; each event is selected and serialised once per group, not once per stream.',
    registers: [registry],
  });
  const objects = new client.Gauge({ name: 'apiserver_storage_objects', help: 'Number of stored objects per resource.', labelNames: ['resource'], registers: [registry] });
  const revision = new client.Gauge({ name: 'hcc_storage_revision', help: 'The storage revision (latest resourceVersion).', registers: [registry] });
  const corrupt = new client.Gauge({
    name: 'hcc_storage_corrupt_objects',
    help: 'Keys in etcd holding a value that is not an object (written by something else): GET and writes of each answer 500 until it is deleted with ignoreStoreReadErrorWithClusterBreakingPotential; the log names them.',
    registers: [registry],
  });
  const validationChecks = new client.Counter({
    name: 'hcc_validation_checks_total',
    help: 'Schema and CEL checks of custom resources created with POST, by where they ran: "worker" (a validation worker thread) or "in-process" (the request thread: no worker configured, or none alive, or the object could not be handed over).',
    labelNames: ['where'],
    registers: [registry],
  });
  const validationWorkers = new client.Gauge({ name: 'hcc_validation_workers', help: 'Live validation worker threads.', registers: [registry] });
  return { registry, requests, duration, watches, fanoutGroups, objects, revision, corrupt, validationChecks, validationWorkers };
}

/** What {@link createMetrics} returns: the registry and its metrics, by name. */
export type ControlCenterMetrics = ReturnType<typeof createMetrics>;

/** The labels of one API request in `apiserver_request_total` and `apiserver_request_duration_seconds`. */
export interface RequestLabels {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
}

/** Records one finished API request: its labels, HTTP code, and duration in seconds (undefined: not observed, as for watches). */
export type RequestRecorder = (labels: RequestLabels, code: number, seconds: number | undefined) => void;

/**
 * Makes the recorder of API requests, which keeps the prom-client child of each label set:
 * `inc(labels)` checks every label name and hashes the set on each call, a bound child does not.
 * The children kept are as many as the series, so callers must give only bounded label values:
 * the group, resource and subresource the server serves, never a path's unchecked segments (a
 * client could otherwise grow the series without bound, as kubernetes/kubernetes#76302 and
 * #141007 describe for kube-apiserver).
 * @param m the two request metrics of {@link createMetrics}
 * @returns a {@link RequestRecorder}
 */
export function createRequestRecorder(m: Pick<ControlCenterMetrics, 'requests' | 'duration'>): RequestRecorder {
  type Children = { counts: Map<number, client.Counter.Internal>; duration: client.Histogram.Internal<string> };
  const children = new Map<string, Children>();
  return (labels, code, seconds) => {
    const key = `${labels.verb} ${labels.group} ${labels.resource} ${labels.subresource}`;
    let c = children.get(key);
    if (!c) children.set(key, (c = { counts: new Map(), duration: m.duration.labels({ ...labels }) }));
    let count = c.counts.get(code);
    if (!count) c.counts.set(code, (count = m.requests.labels({ ...labels, code: String(code) })));
    count.inc();
    if (seconds !== undefined) c.duration.observe(seconds);
  };
}
