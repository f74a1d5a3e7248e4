/**
 * Capacity safety under a burst, end to end: 2,000 HostedClusters created as fast as the control
 * center takes them against 10 ManagementClusters of capacity 150 (1,500 slots), with real `hcc
 * control-center` and `hcc scheduler` processes. The test plays the 10 syncers (fake-fleet.ts):
 * heartbeats at random intervals whose `hostedClusters` lag behind the placements. Exactly 1,500
 * are placed, no cluster goes over its capacity, the other 500 wait with kube-scheduler's
 * message, no placement label ever changes once set, and a new cluster places the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeconfig, RestClient } from '@hcc/client';
import { HostedClusterResource, NamespaceResource, SecretResource, type HostedCluster } from '@hcc/crds';
import { startControlCenterProcess, startSchedulerProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { FakeFleet, minimalHostedCluster } from './helpers/fake-fleet.js';
import { waitFor } from './helpers/tools.js';

const Label = 'controlcenter.hcc.dev/management-cluster';
const ns = 'burst';
const clusters = 10;
const capacity = 150;
const total = 2000;
/** Creates in flight at once: the control center takes ~1,000 creates/s on 2 cores at 16. */
const createConcurrency = 16;

const scheduled = (h: HostedCluster) => h.status?.conditions?.find((c) => c.type === 'Scheduled');

describe('scheduler: a burst of 2,000 HostedClusters against 1,500 slots', () => {
  let cc: ControlCenterProcess;
  let sched: SchedulerProcess;
  let client: RestClient;
  let fleet: FakeFleet;

  beforeAll(async () => {
    cc = await startControlCenterProcess();
    client = new RestClient(loadKubeconfig(cc.kubeconfig));
    sched = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig, args: ['--no-leader-elect', '--seed', '1'] });
    await client.create(NamespaceResource, undefined, { metadata: { name: ns } });
    await client.create(SecretResource, ns, { metadata: { name: 'pull-secret', namespace: ns }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from('{}').toString('base64') } });
    fleet = new FakeFleet(client, { heartbeatMs: [200, 1500], lagMs: [0, 3000] });
    await fleet.start();
    for (let i = 1; i <= clusters; i++) await fleet.register({ name: `mgmt-${i}`, capacity });
  });
  afterAll(async () => {
    await fleet?.stop();
    await sched?.stop();
    client?.close();
    await cc?.stop();
  });

  it('places exactly 1,500, never over capacity, never twice; 500 wait with a clear message', async () => {
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: createConcurrency }, async () => {
        while (next < total) {
          const i = next++;
          await client.create(HostedClusterResource, ns, minimalHostedCluster(`hc-${String(i).padStart(4, '0')}`, ns));
        }
      }),
    );
    const createdMs = Date.now() - started;

    const lister = fleet.informer.lister;
    const all = await waitFor(
      'every HostedCluster to have a Scheduled condition',
      () => {
        const items = lister.list().filter((h) => h.metadata.namespace === ns);
        return items.length === total && items.every((h) => scheduled(h)) ? items : undefined;
      },
      90_000,
      250,
    );
    const settledMs = Date.now() - started;

    const perCluster: Record<string, number> = {};
    for (const h of all) {
      const c = h.metadata.labels?.[Label];
      if (c) perCluster[c] = (perCluster[c] ?? 0) + 1;
    }
    expect(Object.values(perCluster).reduce((a, b) => a + b, 0)).toBe(clusters * capacity);
    for (let i = 1; i <= clusters; i++) expect(perCluster[`mgmt-${i}`], `mgmt-${i}`).toBe(capacity);
    for (const h of all) {
      const cond = scheduled(h)!;
      if (h.metadata.labels?.[Label]) expect(cond).toMatchObject({ status: 'True', reason: 'Scheduled', message: `Placed on management cluster ${h.metadata.labels[Label]}` });
      else expect(cond).toMatchObject({ status: 'False', reason: 'Unschedulable', message: '0/10 management clusters are available: 10 no budget.' });
    }
    expect(all.filter((h) => !h.metadata.labels?.[Label])).toHaveLength(total - clusters * capacity);

    // The scale-out signal's metric counts the waiting ones; heartbeats keep arriving and change nothing.
    await waitFor('hcc_pending_hostedclusters 500', async () => (await sched.metric('hcc_pending_hostedclusters')) === 500, 10_000);
    expect(await sched.metric('hcc_scheduler_missing_slots')).toBe(500);
    const beats = fleet.heartbeats;
    await waitFor('more heartbeats', () => fleet.heartbeats > beats + 3 * clusters, 20_000);
    expect(lister.list().filter((h) => h.metadata.labels?.[Label]).length).toBe(clusters * capacity);
    expect(fleet.rebinds).toEqual([]);
    console.log(`burst: ${total} creates in ${createdMs} ms; all decided after ${settledMs} ms`);
  });

  it('a new management cluster places the waiting ones, still never twice', async () => {
    await fleet.register({ name: 'mgmt-11', capacity: 600 });
    await waitFor('500 placements on mgmt-11', () => fleet.placedOn('mgmt-11') === 500, 60_000);
    const all = fleet.informer.lister.list().filter((h) => h.metadata.namespace === ns);
    expect(all.every((h) => h.metadata.labels?.[Label])).toBe(true);
    for (let i = 1; i <= clusters; i++) expect(fleet.placedOn(`mgmt-${i}`)).toBe(capacity);
    await waitFor('no HostedCluster pending', async () => (await sched.metric('hcc_pending_hostedclusters')) === 0, 10_000);
    await waitFor('every condition Scheduled=True', () => {
      const items = fleet.informer.lister.list().filter((h) => h.metadata.namespace === ns);
      return items.every((h) => scheduled(h)?.status === 'True');
    }, 30_000);
    expect(fleet.rebinds).toEqual([]);
  });
});
