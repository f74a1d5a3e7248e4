/**
 * The scheduler keeps binds in flight while the control center is slow to answer them: with the
 * default `--workers` (64) a backlog of HostedClusters is bound 64 at a time, not one worker's
 * round trip after another. Real `hcc control-center` and `hcc scheduler` processes; between them
 * a proxy (plain HTTP to the scheduler, HTTPS to the control center) that holds every binding for
 * 300 ms, as a loaded control center answers late, and counts how many are open at once.
 */
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeconfig, RestClient, writeKubeconfig } from '@hcc/client';
import { HostedClusterResource, NamespaceResource, type HostedCluster } from '@hcc/crds';
import { startControlCenterProcess, startSchedulerProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { FakeFleet, minimalHostedCluster } from './helpers/fake-fleet.js';
import { waitFor } from './helpers/tools.js';

const Label = 'controlcenter.hcc.dev/management-cluster';
const ns = 'binds';
const total = 200;
const holdMs = 300;

/** A proxy to `target` that delays each POST of a binding by `holdMs` and records the most open at once. */
function bindingProxy(target: string, ca: Buffer | undefined): { server: http.Server; open: () => number; max: () => number; bindings: () => number } {
  const to = new URL(target);
  let open = 0;
  let max = 0;
  let bindings = 0;
  const agent = new https.Agent({ keepAlive: true, ...(ca ? { ca } : {}) });
  const server = http.createServer((req, res) => {
    const isBinding = req.method === 'POST' && /\/binding(\?|$)/.test(req.url ?? '');
    const forward = () => {
      const up = https.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host }, agent }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => {
          if (isBinding) open--;
        });
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (!isBinding) return forward();
    bindings++;
    max = Math.max(max, ++open);
    setTimeout(forward, holdMs);
  });
  return { server, open: () => open, max: () => max, bindings: () => bindings };
}

describe('scheduler: binds in flight while the control center answers slowly', () => {
  let cc: ControlCenterProcess;
  let sched: SchedulerProcess;
  let client: RestClient;
  let fleet: FakeFleet;
  let proxy: ReturnType<typeof bindingProxy>;

  beforeAll(async () => {
    cc = await startControlCenterProcess();
    client = new RestClient(loadKubeconfig(cc.kubeconfig));
    const schedulerConn = loadKubeconfig(cc.schedulerKubeconfig);
    proxy = bindingProxy(schedulerConn.server, schedulerConn.ca);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    const viaProxy = path.join(cc.dir, 'scheduler-via-proxy.kubeconfig');
    writeKubeconfig(viaProxy, { server: `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`, token: schedulerConn.token!, contextName: 'scheduler-via-proxy' });
    sched = await startSchedulerProcess({ kubeconfig: viaProxy, args: ['--no-leader-elect', '--seed', '1'] });
    await client.create(NamespaceResource, undefined, { metadata: { name: ns } });
    fleet = new FakeFleet(client, { heartbeatMs: [500, 1000], lagMs: [0, 0] });
    await fleet.start();
    for (const name of ['mgmt-1', 'mgmt-2']) await fleet.register({ name, capacity: total });
  });
  afterAll(async () => {
    await fleet?.stop();
    await sched?.stop();
    proxy?.server.closeAllConnections();
    proxy?.server.close();
    client?.close();
    await cc?.stop();
  });

  it('binds a backlog 64 at a time by default, and places every HostedCluster once', async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < total) await client.create(HostedClusterResource, ns, minimalHostedCluster(`hc-${String(next++).padStart(3, '0')}`, ns));
      }),
    );
    const placed = await waitFor(
      `all ${total} HostedClusters placed`,
      () => {
        const items = fleet.informer.lister.list().filter((h: HostedCluster) => h.metadata.namespace === ns && h.metadata.labels?.[Label]);
        return items.length === total ? items : undefined;
      },
      60_000,
      100,
    );
    expect(placed).toHaveLength(total);
    expect(fleet.rebinds).toEqual([]);
    // Each bind held 300 ms: one worker at a time would take a minute; 64 at once keep 64 open
    // (the scheduler's connections to the control center), never more.
    expect(proxy.max()).toBe(64);
    expect(proxy.bindings()).toBe(total);
  });
});
