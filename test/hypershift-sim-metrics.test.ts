/**
 * The simulated HyperShift operator's metrics: on an embedded management cluster's own `/metrics`
 * (`hcc management-cluster`, what `hcc up` runs), its controllers' work queues and caches, named
 * as client-go's workqueue metrics: keys added per controller, keys waiting, rate-limited retries
 * (failed reconciles), and how many objects its informers hold.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { noneHostedCluster, pullSecret } from './helpers/manifests.js';
import { startHcc, stopProcess } from './helpers/processes.js';
import { kubectl, tempDir, waitFor } from './helpers/tools.js';

/** The value of one series in Prometheus text, e.g. `hcc_hypershift_sim_queue_adds_total{controller="hostedcluster"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('hcc management-cluster: the simulated operator on /metrics', () => {
  const t = tempDir('hcc-sim-metrics-');
  afterAll(() => t.cleanup());

  it('counts the keys its controllers were given and the objects its caches hold', async () => {
    const kubeconfig = path.join(t.dir, 'm1.kubeconfig');
    const mgmt = await startHcc(['management-cluster', '--name', 'm1', '--data-dir', path.join(t.dir, 'm1'), '--kubeconfig', kubeconfig, '--available-delay', '200'], '"msg":"management cluster ready"');
    try {
      const kc = parse(readFileSync(kubeconfig, 'utf8'));
      const server: string = kc.clusters[0].cluster.server;
      const token: string = kc.users[0].user.token;
      const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
      const { Agent } = await import('undici');
      const dispatcher = new Agent({ connect: { ca } });
      const metrics = async () => {
        const r = await fetch(`${server}/metrics`, { headers: { authorization: `Bearer ${token}` }, dispatcher } as RequestInit);
        expect(r.status).toBe(200);
        return r.text();
      };
      const before = await metrics();
      expect(sample(before, 'hcc_hypershift_sim_queue_depth{controller="hostedcluster"}')).toBe(0);
      expect(sample(before, 'hcc_hypershift_sim_cached_objects{kind="HostedCluster"}')).toBe(0);

      const k = (args: string[], input?: string) => kubectl('1.35', kubeconfig, args, { input, cacheDir: path.join(t.dir, 'cache') });
      expect((await k(['create', 'namespace', 'clusters'])).code).toBe(0);
      const created = await k(['apply', '-f', '-'], `${pullSecret('hc1', 'clusters')}---\n${noneHostedCluster('hc1', 'clusters')}`);
      expect(created.code, created.stderr).toBe(0);
      await waitFor('Available', async () => (await k(['get', 'hc', 'hc1', '-n', 'clusters', '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}'])).stdout === 'True', 30_000);
      const after = await metrics();
      // Its own writes (finalizer, IDs, status) bring it back: added more than once.
      expect(sample(after, 'hcc_hypershift_sim_queue_adds_total{controller="hostedcluster"}')).toBeGreaterThanOrEqual(2);
      // (A 409 on one of its own writes is retried too, so the count is not asserted.)
      expect(sample(after, 'hcc_hypershift_sim_queue_retries_total{controller="hostedcluster"}')).toEqual(expect.any(Number));
      expect(sample(after, 'hcc_hypershift_sim_queue_adds_total{controller="nodepool"}')).toBe(0);
      expect(sample(after, 'hcc_hypershift_sim_cached_objects{kind="HostedCluster"}')).toBe(1);
      expect(sample(after, 'hcc_hypershift_sim_cached_objects{kind="Namespace"}')).toBe(1); // the control-plane namespace
      expect(sample(after, 'hcc_hypershift_sim_cached_objects{kind="Secret"}')).toBeGreaterThanOrEqual(3); // the pull secret, kubeconfig, kubeadmin password
      // Counters only grow between scrapes.
      const adds = sample(after, 'hcc_hypershift_sim_queue_adds_total{controller="hostedcluster"}')!;
      expect(sample(await metrics(), 'hcc_hypershift_sim_queue_adds_total{controller="hostedcluster"}')).toBeGreaterThanOrEqual(adds);
      // The API server's own series are still there beside them.
      expect(await metrics()).toContain('apiserver_request_total{');
    } finally {
      await stopProcess(mgmt.proc);
    }
  }, 90_000);
});
