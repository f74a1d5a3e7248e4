/**
 * The scheduler keeps binds in flight while the control center is slow to answer them: with the
 * default `--workers` (64) a backlog of HostedClusters is bound 64 at a time, not one worker's
 * round trip after another; and a leader whose binds all wait keeps its Lease, renewed on
 * connections of its own; and the NodePools of placed HostedClusters get their placement label
 * 64 label patches at a time. Real `hcc control-center` and `hcc scheduler` processes; between them
 * a proxy (plain HTTP to the scheduler, HTTPS to the control center) that holds every binding,
 * as a loaded control center answers late, and counts how many are open at once.
 */
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseResource as LeaseResource, loadKubeconfig, RestClient, writeKubeconfig, type KubeObject } from '@hcc/client';
import { HostedClusterResource, NamespaceResource, NodePoolResource, type HostedCluster } from '@hcc/crds';
import { startControlCenterProcess, startSchedulerProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { FakeFleet, minimalHostedCluster } from './helpers/fake-fleet.js';
import { waitFor } from './helpers/tools.js';

const Label = 'controlcenter.hcc.dev/management-cluster';
const ns = 'binds';

/** Whether a request is a binding: `POST .../hostedclusters/NAME/binding`. */
const isBindingRequest = (req: http.IncomingMessage) => req.method === 'POST' && /\/binding(\?|$)/.test(req.url ?? '');

/** A proxy to `target` that delays each request `held` picks (default: bindings) by `holdMs` and records the most open at once. */
function holdingProxy(target: string, ca: Buffer | undefined, holdMs: number, held: (req: http.IncomingMessage) => boolean = isBindingRequest): { server: http.Server; max: () => number; held: () => number } {
  const to = new URL(target);
  let open = 0;
  let max = 0;
  let heldCount = 0;
  const agent = new https.Agent({ keepAlive: true, ...(ca ? { ca } : {}) });
  const server = http.createServer((req, res) => {
    const isHeld = held(req);
    const forward = () => {
      const up = https.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host }, agent }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => {
          if (isHeld) open--;
        });
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (!isHeld) return forward();
    heldCount++;
    max = Math.max(max, ++open);
    setTimeout(forward, holdMs);
  });
  return { server, max: () => max, held: () => heldCount };
}

/** A control center, the proxy, a scheduler (with `args`) that reaches the control center only through it, and two fake clusters of `capacity`. */
function useFleet(holdMs: number, capacity: number, args: string[], held?: (req: http.IncomingMessage) => boolean) {
  const env = {} as { cc: ControlCenterProcess; sched: SchedulerProcess; client: RestClient; fleet: FakeFleet; proxy: ReturnType<typeof holdingProxy> };
  beforeAll(async () => {
    env.cc = await startControlCenterProcess();
    env.client = new RestClient(loadKubeconfig(env.cc.kubeconfig));
    const schedulerConn = loadKubeconfig(env.cc.schedulerKubeconfig);
    env.proxy = holdingProxy(schedulerConn.server, schedulerConn.ca, holdMs, held);
    await new Promise<void>((resolve) => env.proxy.server.listen(0, '127.0.0.1', resolve));
    const viaProxy = path.join(env.cc.dir, 'scheduler-via-proxy.kubeconfig');
    writeKubeconfig(viaProxy, { server: `http://127.0.0.1:${(env.proxy.server.address() as AddressInfo).port}`, token: schedulerConn.token!, contextName: 'scheduler-via-proxy' });
    env.sched = await startSchedulerProcess({ kubeconfig: viaProxy, args });
    await env.client.create(NamespaceResource, undefined, { metadata: { name: ns } });
    env.fleet = new FakeFleet(env.client, { heartbeatMs: [500, 1000], lagMs: [0, 0] });
    await env.fleet.start();
    for (const name of ['mgmt-1', 'mgmt-2']) await env.fleet.register({ name, capacity });
  });
  afterAll(async () => {
    await env.fleet?.stop();
    await env.sched?.stop();
    env.proxy?.server.closeAllConnections();
    env.proxy?.server.close();
    env.client?.close();
    await env.cc?.stop();
  });
  return env;
}

/** The name of the `i`th HostedCluster the tests create. */
const hcName = (i: number) => `hc-${String(i).padStart(3, '0')}`;

/** Calls `create(i)` for i = 0 … total − 1, 16 at a time. */
async function createAll(total: number, create: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < total) await create(next++);
    }),
  );
}

/** Creates `total` HostedClusters 16 at a time, then waits until every one is placed; returns them. */
async function createAndPlace(env: ReturnType<typeof useFleet>, total: number, timeoutMs: number): Promise<HostedCluster[]> {
  await createAll(total, (i) => env.client.create(HostedClusterResource, ns, minimalHostedCluster(hcName(i), ns)));
  return waitFor(
    `all ${total} HostedClusters placed`,
    () => {
      const items = env.fleet.informer.lister.list().filter((h: HostedCluster) => h.metadata.namespace === ns && h.metadata.labels?.[Label]);
      return items.length === total ? items : undefined;
    },
    timeoutMs,
    100,
  );
}

describe('scheduler: binds in flight while the control center answers slowly', () => {
  const total = 200;
  // Held 1.5 s: 64 binds begin within one hold even when creates arrive slowly on a loaded machine
  // (with 300 ms that needed >213 HostedClusters/s, and a busy run reached only 63).
  const env = useFleet(1500, total, ['--no-leader-elect', '--seed', '1']);

  it('binds a backlog 64 at a time by default, and places every HostedCluster once', async () => {
    const placed = await createAndPlace(env, total, 60_000);
    expect(placed).toHaveLength(total);
    expect(env.fleet.rebinds).toEqual([]);
    // Each bind held 1.5 s: one worker at a time would take five minutes; 64 at once keep 64 open
    // (the scheduler's connections to the control center), never more.
    expect(env.proxy.max()).toBe(64);
    expect(env.proxy.held()).toBe(total);
  });
});

describe('scheduler: a leader whose binds all wait longer than its renew deadline', () => {
  // Binds held 4 s against a 3 s renew deadline: with the Lease on the binds' connections, its
  // renewals would queue behind 64 held binds, the leader would step down with its binds still in
  // flight, and a standby would decide without them.
  const total = 100;
  const env = useFleet(4000, 60, ['--lease-duration', '4', '--renew-deadline', '3', '--retry-period', '0.5', '--id', 'leader-a', '--seed', '1']);

  it('keeps its Lease (renewed on connections of its own) while every bind waits, and places every HostedCluster', async () => {
    await waitFor('the scheduler to lead', () => /"msg":"became leader"/.test(env.sched.output()), 30_000);
    const placed = await createAndPlace(env, total, 60_000);
    expect(placed).toHaveLength(total);
    expect(env.fleet.rebinds).toEqual([]);
    expect(env.proxy.max()).toBe(64);
    const out = env.sched.output();
    expect(out).not.toMatch(/failed to renew lease|lost lease|stopped leading/);
    const lease = await env.client.get<{ spec: { holderIdentity?: string } } & KubeObject>(LeaseResource, 'hcc-system', 'hcc-scheduler');
    expect(lease.spec.holderIdentity).toBe('leader-a');
  });
});

describe('scheduler: placement propagation while the control center answers slowly', () => {
  // The NodePools of placed HostedClusters get their placement label from the scheduler's
  // propagation workers (one label PATCH each), which the syncer waits for before copying them.
  const total = 150;
  const isNodePoolPatch = (req: http.IncomingMessage) => req.method === 'PATCH' && /\/nodepools\//.test(req.url ?? '');
  const env = useFleet(1500, total, ['--no-leader-elect', '--seed', '1'], isNodePoolPatch);

  it('labels a backlog of NodePools 64 at a time by default', async () => {
    await createAndPlace(env, total, 60_000);
    await createAll(total, (i) =>
      env.client.create(NodePoolResource, ns, {
        apiVersion: 'hypershift.openshift.io/v1beta1',
        kind: 'NodePool',
        metadata: { name: `np-${hcName(i)}`, namespace: ns },
        spec: { clusterName: hcName(i), replicas: 0, management: { upgradeType: 'InPlace' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' }, platform: { type: 'None' } },
      } as KubeObject),
    );
    await waitFor(
      `all ${total} NodePools labelled with their HostedCluster's placement`,
      async () => {
        const nps = (await env.client.list<KubeObject>(NodePoolResource, { namespace: ns })).items;
        return nps.length === total && nps.every((np) => np.metadata.labels?.[Label]) ? nps : undefined;
      },
      60_000,
      200,
    );
    // Each label patch held 1.5 s: 16 workers would keep 16 open; 64 keep 64 (every connection).
    expect(env.proxy.max()).toBe(64);
    expect(env.proxy.held()).toBeGreaterThanOrEqual(total);
  });
});
