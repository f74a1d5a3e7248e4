/**
 * The simulated HyperShift operator's metrics, read from the sim at each scrape (prom-client's
 * `collect`), named as client-go's workqueue metrics are for a controller:
 * - `hcc_hypershift_sim_queue_depth{controller}`: keys waiting (`workqueue_depth`);
 * - `hcc_hypershift_sim_queue_adds_total{controller}`: keys added since start (`workqueue_adds_total`);
 * - `hcc_hypershift_sim_queue_retries_total{controller}`: rate-limited retries since start, i.e.
 *   reconciles that failed and were requeued with backoff (`workqueue_retries_total`);
 * - `hcc_hypershift_sim_cached_objects{kind}`: objects in its informer caches.
 * `controller` is `hostedcluster` or `nodepool`.
 * @see https://github.com/kubernetes/client-go/blob/master/util/workqueue/metrics.go
 */
import client from 'prom-client';
import type { SimStats } from '@hcc/hypershift-sim';

/**
 * Registers the sim's series in `registry` (the `hcc hypershift-sim` ops server's, or the embedded
 * management cluster's API server's `/metrics`).
 * @param stats - the running sim's `stats()`
 */
export function registerSimMetrics(registry: client.Registry, stats: () => SimStats): void {
  // stats() only counts (queue lengths, cache sizes): each series reads it at its own collect.
  const controllers = ['hostedcluster', 'nodepool'] as const;
  new client.Gauge({
    name: 'hcc_hypershift_sim_queue_depth',
    help: 'Keys waiting in each simulated HyperShift controller\'s work queue.',
    labelNames: ['controller'],
    registers: [registry],
    collect() {
      for (const c of controllers) this.set({ controller: c }, stats().queues[c].depth);
    },
  });
  // Counters read as totals from the queue: each scrape adds what was counted since the last one.
  const counter = (name: string, help: string, field: 'adds' | 'retries') => {
    const last: Record<string, number> = {};
    new client.Counter({
      name,
      help,
      labelNames: ['controller'],
      registers: [registry],
      collect() {
        for (const c of controllers) {
          const now = stats().queues[c][field];
          this.inc({ controller: c }, Math.max(0, now - (last[c] ?? 0)));
          last[c] = now;
        }
      },
    });
  };
  counter('hcc_hypershift_sim_queue_adds_total', 'Keys added to each simulated HyperShift controller\'s work queue since start.', 'adds');
  counter('hcc_hypershift_sim_queue_retries_total', 'Rate-limited retries (failed reconciles requeued with backoff) of each simulated HyperShift controller since start.', 'retries');
  new client.Gauge({
    name: 'hcc_hypershift_sim_cached_objects',
    help: 'Objects in the simulated HyperShift operator\'s informer caches, by kind (Namespace: control-plane namespaces only).',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      for (const [kind, n] of Object.entries(stats().cached)) this.set({ kind }, n);
    },
  });
}
