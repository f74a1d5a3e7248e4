/**
 * Availability, end to end: two `hcc scheduler` replicas with short leader-election durations
 * (`--lease-duration 4 --renew-deadline 3 --retry-period 0.5`) against one `hcc control-center`;
 * the test plays the syncers (fake-fleet.ts). Mid-burst the leader is killed with SIGKILL (no
 * Lease release); the standby takes over within the lease duration (plus client-go's retry
 * jitter), every HostedCluster ends up placed, none is bound twice (its placement label never
 * changes, and it gets at most one `Scheduled` Event, naming the cluster it is on), and no
 * cluster goes over capacity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseResource, loadKubeconfig, RestClient, type Lease } from '@hcc/client';
import { EventResource, HostedClusterResource, NamespaceResource, SecretResource, type KubeObject } from '@hcc/crds';
import { startControlCenterProcess, startSchedulerProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { FakeFleet, minimalHostedCluster } from './helpers/fake-fleet.js';
import { hccBin, waitFor } from './helpers/tools.js';
import { spawnSync } from 'node:child_process';

const Label = 'controlcenter.hcc.dev/management-cluster';
const ns = 'ha';
const leaseDurationSeconds = 4;
const retryPeriodSeconds = 0.5;
const electionArgs = (id: string) => ['--id', id, '--lease-duration', String(leaseDurationSeconds), '--renew-deadline', '3', '--retry-period', String(retryPeriodSeconds)];
const total = 800;
const clusters = 5;
const capacity = 200;

describe('scheduler: leader failover mid-burst', () => {
  let cc: ControlCenterProcess;
  let client: RestClient;
  let fleet: FakeFleet;
  const scheds: Record<string, SchedulerProcess> = {};
  const holder = async () => (await client.get<Lease>(leaseResource, 'hcc-system', 'hcc-scheduler').catch(() => undefined))?.spec?.holderIdentity ?? '';

  beforeAll(async () => {
    cc = await startControlCenterProcess();
    client = new RestClient(loadKubeconfig(cc.kubeconfig));
    await client.create(NamespaceResource, undefined, { metadata: { name: ns } });
    await client.create(SecretResource, ns, { metadata: { name: 'pull-secret', namespace: ns }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from('{}').toString('base64') } });
    fleet = new FakeFleet(client);
    await fleet.start();
    for (let i = 1; i <= clusters; i++) await fleet.register({ name: `mgmt-${i}`, capacity });
    scheds.a = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig, args: electionArgs('sched-a') });
    await waitFor('sched-a to lead', async () => (await holder()) === 'sched-a', 20_000);
    scheds.b = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig, args: electionArgs('sched-b') });
  });
  afterAll(async () => {
    await fleet?.stop();
    await Promise.all(Object.values(scheds).map((s) => s.stop()));
    client?.close();
    await cc?.stop();
  });

  it('refuses to start a scheduler with --no-leader-elect while another holds the Lease (two binding at once could overbook)', () => {
    const r = spawnSync(process.execPath, [hccBin, 'scheduler', '--kubeconfig', cc.schedulerKubeconfig, '--no-leader-elect', '--log-level', 'silent'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^hcc scheduler: --no-leader-elect: the scheduler "sched-a" holds the Lease hcc-system\/hcc-scheduler \(renewed \d+ s ago\): two schedulers binding at once could place more HostedClusters/);
  });

  it('the standby takes over within the lease duration; nothing is lost or bound twice', async () => {
    expect(await scheds.b!.metric('hcc_scheduler_is_leader')).toBe(0);
    expect(await scheds.a!.metric('hcc_scheduler_is_leader')).toBe(1);
    // Create steadily (8 in flight) so the burst spans the failover.
    let next = 0;
    const creating = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < total) {
          const i = next++;
          await client.create(HostedClusterResource, ns, minimalHostedCluster(`hc-${String(i).padStart(4, '0')}`, ns));
        }
      }),
    );
    const placed = () => fleet.informer.lister.list().filter((h) => h.metadata.namespace === ns && h.metadata.labels?.[Label]).length;
    await waitFor('the leader to place 150', () => placed() >= 150, 30_000, 20);
    await scheds.a!.kill('SIGKILL');
    const killedAt = Date.now();
    const placedAtKill = placed();
    await waitFor('sched-b to hold the Lease', async () => (await holder()) === 'sched-b', 20_000, 100);
    const takeoverMs = Date.now() - killedAt;
    // client-go's bound: the Lease expires leaseDuration after the standby observed its last renewal
    // (its polls, every retryPeriod × up to 2.2 with jitter, see a renewal that late), then the next
    // attempt (as late again) takes it. Three more seconds for a loaded machine.
    expect(takeoverMs).toBeLessThan((leaseDurationSeconds + 2 * 2.2 * retryPeriodSeconds + 3) * 1000);
    await creating;
    expect(placedAtKill).toBeLessThan(total);

    const all = await waitFor(
      'every HostedCluster placed with Scheduled=True',
      () => {
        const items = fleet.informer.lister.list().filter((h) => h.metadata.namespace === ns);
        return items.length === total && items.every((h) => h.metadata.labels?.[Label] && h.status?.conditions?.some((c) => c.type === 'Scheduled' && c.status === 'True')) ? items : undefined;
      },
      60_000,
      250,
    );
    expect(await scheds.b!.metric('hcc_scheduler_is_leader')).toBe(1);
    expect(fleet.rebinds).toEqual([]);
    for (let i = 1; i <= clusters; i++) expect(fleet.placedOn(`mgmt-${i}`)).toBeLessThanOrEqual(capacity);

    // At most one Scheduled Event per HostedCluster, and it names the cluster the label says.
    const events: (KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } })[] = [];
    let cont: string | undefined;
    do {
      const page = await client.list<(typeof events)[number]>(EventResource, { namespace: ns, fieldSelector: 'reason=Scheduled', limit: 500, continue: cont });
      events.push(...page.items);
      cont = page.metadata.continue;
    } while (cont);
    const byHC = new Map<string, string[]>();
    for (const e of events) byHC.set(e.involvedObject!.name!, [...(byHC.get(e.involvedObject!.name!) ?? []), e.message!]);
    for (const h of all) {
      const msgs = byHC.get(h.metadata.name!) ?? [];
      expect(msgs.length, h.metadata.name).toBeLessThanOrEqual(1);
      if (msgs[0]) expect(msgs[0]).toBe(`Successfully assigned ${ns}/${h.metadata.name} to management cluster ${h.metadata.labels![Label]}`);
    }
    console.log(`failover: leader killed at ${placedAtKill}/${total} placed; standby led after ${takeoverMs} ms`);
  });
});

describe('scheduler: --no-leader-elect holds the Lease', () => {
  let cc: ControlCenterProcess;
  let client: RestClient;
  const scheds: SchedulerProcess[] = [];
  const holder = async () => (await client.get<Lease>(leaseResource, 'hcc-system', 'hcc-scheduler').catch(() => undefined))?.spec?.holderIdentity ?? '';

  beforeAll(async () => {
    cc = await startControlCenterProcess();
    client = new RestClient(loadKubeconfig(cc.kubeconfig));
  });
  afterAll(async () => {
    await Promise.all(scheds.map((s) => s.stop()));
    client?.close();
    await cc?.stop();
  });

  it('a scheduler started beside it stands by until it stops, then takes over (two never bind at once)', async () => {
    const solo = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig, args: ['--no-leader-elect', ...electionArgs('solo')] });
    scheds.push(solo);
    await waitFor('the --no-leader-elect scheduler to hold the Lease', async () => (await holder()) === 'solo', 20_000, 100);
    const standby = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig, args: electionArgs('standby') });
    scheds.push(standby);
    // Longer than the lease duration plus the retry jitter: the standby would have taken an unheld Lease by now.
    await new Promise((r) => setTimeout(r, (leaseDurationSeconds + 2) * 1000));
    expect(await standby.metric('hcc_scheduler_is_leader')).toBe(0);
    expect(await holder()).toBe('solo');
    await solo.kill('SIGTERM'); // releases the Lease as it stops
    await waitFor('the standby to lead', async () => (await standby.metric('hcc_scheduler_is_leader')) === 1, 20_000, 100);
    expect(await holder()).toBe('standby');
  }, 60_000);
});
