/**
 * The placement engine against a mixed fleet, end to end: `hcc control-center` + `hcc scheduler
 * --config FILE` processes, the test playing the syncers (fake-fleet.ts) of management clusters
 * with different platforms, labels, taints, supported releases and capacities. Checks each filter
 * and the SpreadByLabel profile through real placements, the explanations `kubectl describe hc`
 * shows (condition + Events), cordon, a lost cluster (Ready=False, keeps what it holds, takes
 * nothing new), and the scale-out signal (metric, Event, webhook, command) followed by a new
 * cluster that places what waited.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeconfig, RestClient } from '@hcc/client';
import { EventResource, HostedClusterResource, ManagementClusterResource, NamespaceResource, NodePoolResource, SecretResource, type KubeObject, type ManagementCluster } from '@hcc/crds';
import { startControlCenterProcess, startSchedulerProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { FakeFleet, minimalHostedCluster } from './helpers/fake-fleet.js';
import { hccBin, kubectl, tempDir, waitFor } from './helpers/tools.js';

const Label = 'controlcenter.hcc.dev/management-cluster';
const Selector = 'controlcenter.hcc.dev/management-cluster-selector';
const Tolerations = 'controlcenter.hcc.dev/tolerations';
const Profile = 'controlcenter.hcc.dev/scheduler-profile';
const versions = ['4.18', '4.17', '4.16', '4.15', '4.14'];
const ocp = (v: string) => `quay.io/openshift-release-dev/ocp-release:${v}-x86_64`;

describe('scheduler: policies, explanations, lost clusters and scale-out against a mixed fleet', () => {
  let cc: ControlCenterProcess;
  let sched: SchedulerProcess;
  let client: RestClient;
  let fleet: FakeFleet;
  let webhook: Server;
  const webhookBodies: Record<string, unknown>[] = [];
  const dir = tempDir('hcc-sched-fleet-');
  const commandOut = path.join(dir.dir, 'scale-out.jsonl');

  const hc = (ns: string, name: string) => fleet.informer.lister.get(`${ns}/${name}`);
  const placement = (ns: string, name: string) => hc(ns, name)?.metadata.labels?.[Label];
  const scheduledCond = (ns: string, name: string) => hc(ns, name)?.status?.conditions?.find((c) => c.type === 'Scheduled');
  const create = async (ns: string, name: string, o: Parameters<typeof minimalHostedCluster>[2] = {}) => {
    await client.create(HostedClusterResource, ns, minimalHostedCluster(name, ns, o));
  };
  const decided = (ns: string, name: string, timeoutMs = 15_000) => waitFor(`${ns}/${name} to be decided`, () => scheduledCond(ns, name), timeoutMs);
  const namespace = async (ns: string) => {
    await client.create(NamespaceResource, undefined, { metadata: { name: ns } });
    await client.create(SecretResource, ns, { metadata: { name: 'pull-secret', namespace: ns }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from('{}').toString('base64') } });
  };

  beforeAll(async () => {
    webhook = createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        webhookBodies.push(JSON.parse(b));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
    const config = path.join(dir.dir, 'scheduler.yaml');
    writeFileSync(
      config,
      [
        'apiVersion: controlcenter.hcc.dev/v1alpha1',
        'kind: SchedulerConfiguration',
        'profiles:',
        '- name: default',
        '- name: spread',
        '  scores: [{name: SpreadByLabel, weight: 1}]',
        '  pluginConfig: [{name: SpreadByLabel, args: {topologyKey: region}}]',
        'scaleOut:',
        `  webhook: http://127.0.0.1:${(webhook.address() as AddressInfo).port}/scale-out`,
        `  command: [${JSON.stringify(process.execPath)}, -e, ${JSON.stringify(`require("fs").appendFileSync(${JSON.stringify(commandOut)}, JSON.stringify({env: process.env.HCC_MISSING_SLOTS, stdin: require("fs").readFileSync(0, "utf8")}) + "\\n")`)}]`,
        '  minIntervalSeconds: 2',
        '  debounceSeconds: 1',
      ].join('\n'),
    );
    cc = await startControlCenterProcess();
    client = new RestClient(loadKubeconfig(cc.kubeconfig));
    sched = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig, args: ['--config', config, '--heartbeat-grace', '4', '--seed', '7'] });
    for (const ns of ['fleet', 'a', 'a-b', 'tenant']) await namespace(ns);
    fleet = new FakeFleet(client, { heartbeatMs: [300, 700], lagMs: [0, 500] });
    await fleet.start();
    await fleet.register({ name: 'aws-eu', capacity: 3, platforms: ['AWS'], labels: { region: 'eu-west-1' }, supportedVersions: versions });
    await fleet.register({ name: 'aws-us', capacity: 3, platforms: ['AWS'], labels: { region: 'us-east-1' }, supportedVersions: versions });
    await fleet.register({ name: 'kv', capacity: 2, platforms: ['KubeVirt'], labels: { region: 'eu-west-1' }, supportedVersions: versions });
    await fleet.register({ name: 'gpu', capacity: 2, platforms: ['AWS'], labels: { region: 'us-east-1', gpu: 'true' }, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
  });
  afterAll(async () => {
    await fleet?.stop();
    await sched?.stop();
    client?.close();
    await cc?.stop();
    webhook?.close();
    dir.cleanup();
  });

  it('places by platform, selector, taints and tolerations, release and control-plane namespace', async () => {
    await create('fleet', 'kv-1', { platform: 'KubeVirt' });
    await create('fleet', 'sel-us', { platform: 'AWS', annotations: { [Selector]: 'region=us-east-1' } });
    await create('fleet', 'gpu-1', { platform: 'AWS', annotations: { [Selector]: 'gpu=true', [Tolerations]: JSON.stringify([{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }]) } });
    await create('fleet', 'old', { platform: 'AWS', image: ocp('4.12.9') });
    await create('a-b', 'c', { platform: 'AWS', annotations: { [Selector]: 'region=eu-west-1' } });
    for (const [ns, n] of [['fleet', 'kv-1'], ['fleet', 'sel-us'], ['fleet', 'gpu-1'], ['fleet', 'old'], ['a-b', 'c']] as const) await decided(ns, n);
    expect(placement('fleet', 'kv-1')).toBe('kv');
    expect(placement('fleet', 'sel-us')).toBe('aws-us');
    expect(placement('fleet', 'gpu-1')).toBe('gpu');
    expect(placement('a-b', 'c')).toBe('aws-eu');
    expect(placement('fleet', 'old')).toBeUndefined();
    expect(scheduledCond('fleet', 'old')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: '0/4 management clusters are available: 2 release 4.12 not supported, 1 had untolerated taint {dedicated: gpu}, 1 platform AWS not supported.',
    });
    // a/b-c would get the control-plane namespace a-b-c, like a-b/c on aws-eu: never the same cluster.
    await create('a', 'b-c', { platform: 'AWS', annotations: { [Selector]: 'region=eu-west-1' } });
    expect(await decided('a', 'b-c')).toMatchObject({
      status: 'False',
      message: "0/4 management clusters are available: 2 didn't match management cluster selector, 1 control-plane namespace a-b-c already in use, 1 platform AWS not supported.",
    });
    // Once a-b/c is gone, a/b-c fits.
    await client.delete(HostedClusterResource, 'a-b', 'c');
    await waitFor('a/b-c placed on aws-eu', () => placement('a', 'b-c') === 'aws-eu', 15_000);
  });

  it('a NodePool created before its HostedCluster says it waits for it, and goes where it goes once created', async () => {
    await client.create(NodePoolResource, 'fleet', {
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'NodePool',
      metadata: { name: 'early-np', namespace: 'fleet' },
      spec: { clusterName: 'early', replicas: 1, management: { upgradeType: 'Replace' }, release: { image: ocp('4.16.12') }, platform: { type: 'None' } },
    });
    const np = async () => JSON.parse((await kubectl('1.35', cc.kubeconfig, ['get', 'np', 'early-np', '-n', 'fleet', '-o', 'json'])).stdout) as KubeObject & { status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } };
    const ready = await waitFor('the NodePool marked', async () => (await np()).status?.conditions?.find((c) => c.type === 'Ready'), 15_000);
    expect(ready).toMatchObject({ status: 'False', reason: 'Unschedulable', message: 'Not placed on a management cluster: waiting for HostedCluster early: no HostedCluster "early" in namespace fleet' });
    await create('fleet', 'early', { platform: 'AWS', annotations: { [Selector]: 'region=us-east-1' } });
    await waitFor('the NodePool placed with its HostedCluster', async () => (await np()).metadata.labels?.[Label] === 'aws-us', 15_000);
    await waitFor('the mark gone', async () => !(await np()).status?.conditions?.some((c) => c.reason === 'Unschedulable'), 15_000);
    await client.delete(HostedClusterResource, 'fleet', 'early');
  });

  it('kubectl describe hc shows the Scheduled condition and the Events, in kube-scheduler words', async () => {
    const placed = await kubectl('1.35', cc.kubeconfig, ['describe', 'hostedcluster', 'kv-1', '-n', 'fleet']);
    expect(placed.code, placed.stderr).toBe(0);
    expect(placed.stdout).toMatch(/Reason:\s+Scheduled/);
    expect(placed.stdout).toMatch(/Message:\s+Placed on management cluster kv/);
    expect(placed.stdout).toMatch(/Normal\s+Scheduled\s+.*hcc-scheduler\s+Successfully assigned fleet\/kv-1 to management cluster kv/);
    const waiting = await kubectl('1.35', cc.kubeconfig, ['describe', 'hostedcluster', 'old', '-n', 'fleet']);
    expect(waiting.code, waiting.stderr).toBe(0);
    expect(waiting.stdout).toMatch(/Reason:\s+Unschedulable/);
    expect(waiting.stdout).toMatch(/Warning\s+FailedScheduling\s+.*hcc-scheduler\s+0\/4 management clusters are available: 2 release 4\.12 not supported, 1 had untolerated taint \{dedicated: gpu\}, 1 platform AWS not supported\./);
  });

  it('spreads one tenant across regions with the profile it names', async () => {
    const spread = { platform: 'AWS', annotations: { [Profile]: 'spread' } };
    await create('tenant', 't-1', spread);
    await waitFor('t-1 placed', () => placement('tenant', 't-1'), 15_000);
    await create('tenant', 't-2', spread);
    await waitFor('t-2 placed', () => placement('tenant', 't-2'), 15_000);
    const region = (c: string | undefined) => ({ 'aws-eu': 'eu-west-1', 'aws-us': 'us-east-1' })[c as 'aws-eu'];
    expect(new Set([region(placement('tenant', 't-1')), region(placement('tenant', 't-2'))])).toEqual(new Set(['eu-west-1', 'us-east-1']));
    await create('tenant', 't-3', { platform: 'AWS', annotations: { [Profile]: 'nope' } });
    expect(await decided('tenant', 't-3')).toMatchObject({ status: 'False', reason: 'Unschedulable', message: 'scheduler profile "nope" is not configured (profiles: default, spread)' });
  });

  it('a selector changed on a placed HostedCluster is accepted with a warning: the placement stays', async () => {
    const before = placement('tenant', 't-1');
    const r = await kubectl('1.35', cc.kubeconfig, ['annotate', '--overwrite', 'hc', 't-1', '-n', 'tenant', `${Selector}=region=nowhere`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Warning: metadata.annotations[${Selector}]: this HostedCluster is already placed on management cluster ${before}; placements are not re-evaluated, so it stays there (as a pod stays on its node when its nodeSelector changes); it takes effect only for a HostedCluster created anew (deleting this one tears its control plane down)`);
    await new Promise((res) => setTimeout(res, 1000));
    expect(placement('tenant', 't-1')).toBe(before);
  });

  it('a cordoned cluster takes nothing new; uncordoned, it does', async () => {
    // The scheduler watches ManagementClusters and HostedClusters on separate streams: the cordon
    // must arrive first. A capacity change in the same write shows in its /metrics when it has.
    await client.patch(ManagementClusterResource, undefined, 'aws-us', { spec: { unschedulable: true, capacity: 4 } }, 'merge');
    await waitFor('the cordon in the scheduler\'s cache', async () => (await sched.metric('hcc_managementcluster_capacity{cluster="aws-us"}')) === 4, 15_000);
    await create('fleet', 'us-2', { platform: 'AWS', annotations: { [Selector]: 'region=us-east-1' } });
    expect(await decided('fleet', 'us-2')).toMatchObject({
      status: 'False',
      message: "0/4 management clusters are available: 1 cordoned, 1 didn't match management cluster selector, 1 had untolerated taint {dedicated: gpu}, 1 platform AWS not supported.",
    });
    expect(placement('fleet', 'sel-us')).toBe('aws-us');
    await client.patch(ManagementClusterResource, undefined, 'aws-us', { spec: { unschedulable: false, capacity: 3 } }, 'merge');
    await waitFor('us-2 placed after uncordon', () => placement('fleet', 'us-2') === 'aws-us', 15_000);
  });

  it('a cluster whose heartbeat stops becomes Ready=False, keeps what it holds and takes nothing new', async () => {
    const held = fleet.informer.lister.list().filter((h) => h.metadata.labels?.[Label] === 'aws-eu').map((h) => `${h.metadata.namespace}/${h.metadata.name}`);
    expect(held.length).toBeGreaterThan(0);
    const lostAt = Date.now();
    fleet.lose('aws-eu');
    const mc = await waitFor(
      'aws-eu Ready=False',
      async () => {
        const m = await client.get<ManagementCluster>(ManagementClusterResource, undefined, 'aws-eu');
        return m.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'False') ? m : undefined;
      },
      20_000,
    );
    const ready = mc.status!.conditions!.find((c) => c.type === 'Ready')!;
    expect(ready).toMatchObject({ reason: 'HeartbeatExpired', message: expect.stringMatching(/^No heartbeat from the syncer for more than 4s \(last: .*\); no new HostedClusters are placed here$/) });
    expect(Date.parse(ready.lastTransitionTime!)).toBeGreaterThanOrEqual(Math.floor(lostAt / 1000) * 1000);
    const table = await kubectl('1.35', cc.kubeconfig, ['get', 'mc', 'aws-eu']);
    expect(table.stdout).toMatch(/aws-eu\s+False/);

    await create('fleet', 'eu-2', { platform: 'AWS', annotations: { [Selector]: 'region=eu-west-1' } });
    expect(await decided('fleet', 'eu-2')).toMatchObject({ status: 'False', message: "0/4 management clusters are available: 2 didn't match management cluster selector, 1 not ready, 1 platform AWS not supported." });
    for (const key of held) expect(fleet.informer.lister.get(key)?.metadata.labels?.[Label], key).toBe('aws-eu');
    expect(fleet.rebinds).toEqual([]);
  });

  it('signals scale-out when only budget is missing, and places the waiting ones on a new cluster', async () => {
    for (const n of ['kv-2', 'kv-3', 'kv-4', 'kv-5']) await create('fleet', n, { platform: 'KubeVirt' });
    await waitFor('kv full and 3 KubeVirt HostedClusters waiting', () => ['kv-2', 'kv-3', 'kv-4', 'kv-5'].filter((n) => scheduledCond('fleet', n)?.status === 'False').length === 3, 15_000);
    const waitingKV = ['kv-2', 'kv-3', 'kv-4', 'kv-5'].find((n) => scheduledCond('fleet', n)?.status === 'False')!;
    // aws-eu is still lost (previous test): not ready comes first, then the others by filter.
    expect(scheduledCond('fleet', waitingKV)!.message).toBe('0/4 management clusters are available: 2 platform KubeVirt not supported, 1 no budget, 1 not ready.');
    await waitFor('hcc_scheduler_missing_slots 3', async () => (await sched.metric('hcc_scheduler_missing_slots')) === 3, 10_000);
    expect(await sched.metric('hcc_pending_hostedclusters')).toBeGreaterThanOrEqual(3 + 3); // + old, t-3, eu-2: not budget-bound

    const body = await waitFor('the webhook to be called with 3 missing slots', () => webhookBodies.find((b) => b.missingSlots === 3), 15_000);
    expect(body).toMatchObject({ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ScaleOutRequest', missingSlots: 3, byPlatform: { KubeVirt: 3 }, managementClusters: 4 });
    const line = await waitFor('the command to run', () => {
      try {
        return readFileSync(commandOut, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { env: string; stdin: string }).find((l) => l.env === '3');
      } catch {
        return undefined;
      }
    }, 10_000);
    expect(JSON.parse(line.stdin)).toMatchObject({ missingSlots: 3, kind: 'ScaleOutRequest' });
    const events = await client.list<KubeObject & { reason?: string; type?: string; message?: string; involvedObject?: { kind?: string; name?: string } }>(EventResource, {
      namespace: 'hcc-system',
      fieldSelector: 'reason=FleetOutOfBudget',
    });
    const ev = events.items.find((e) => e.message?.startsWith('3 HostedClusters wait for budget'));
    expect(ev).toMatchObject({ type: 'Warning', involvedObject: { kind: 'Lease', name: 'hcc-scheduler' } });
    expect(ev!.message).toMatch(/^3 HostedClusters wait for budget: 3 slots missing \(3 KubeVirt\) across 4 management clusters/);
    await fleet.register({ name: 'kv-big', capacity: 5, platforms: ['KubeVirt'], labels: { region: 'us-east-1' }, supportedVersions: versions });
    await waitFor('the waiting KubeVirt HostedClusters placed on kv-big', () => ['kv-2', 'kv-3', 'kv-4', 'kv-5'].every((n) => placement('fleet', n)), 15_000);
    expect(['kv-2', 'kv-3', 'kv-4', 'kv-5'].filter((n) => placement('fleet', n) === 'kv-big')).toHaveLength(3);
    await waitFor('no missing slots', async () => (await sched.metric('hcc_scheduler_missing_slots')) === 0, 10_000);
    // Nothing budget-bound waits any more: no further signal, even after the minimum interval
    // (one begun before the metric read 0 may still land: it is stamped before then).
    const settled = Date.now();
    await new Promise((r) => setTimeout(r, 2500));
    expect(webhookBodies.filter((b) => Date.parse(String(b.time)) > settled)).toEqual([]);
    expect(fleet.rebinds).toEqual([]);
  });

  it('retiring the lost cluster: deleting it and then its HostedClusters releases them (SyncerGone), and the cluster goes', async () => {
    const held = fleet.informer.lister.list().filter((h) => h.metadata.labels?.[Label] === 'aws-eu');
    expect(held.length).toBeGreaterThan(0);
    // Its syncer had put its finalizer on what it copied, and will never take it off; one came
    // from an exported manifest with HyperShift's, which only the syncer removes after a teardown.
    for (const [i, h] of held.entries()) {
      const finalizers = i === 0 ? ['controlcenter.hcc.dev/syncer', 'hypershift.openshift.io/finalizer'] : ['controlcenter.hcc.dev/syncer'];
      await client.patch(HostedClusterResource, h.metadata.namespace, h.metadata.name!, { metadata: { finalizers } }, 'merge');
    }
    const del = await kubectl('1.35', cc.kubeconfig, ['delete', 'mc', 'aws-eu', '--wait=false']);
    expect(del.code, del.stderr).toBe(0);
    // Held by what is placed on it.
    const terminating = await client.get<ManagementCluster>(ManagementClusterResource, undefined, 'aws-eu');
    expect(terminating.metadata.deletionTimestamp).toBeTruthy();
    expect(terminating.metadata.finalizers).toContain('controlcenter.hcc.dev/placements');
    const rm = await kubectl('1.35', cc.kubeconfig, ['delete', 'hc', '-A', '-l', `${Label}=aws-eu`, '--wait=false']);
    expect(rm.code, rm.stderr).toBe(0);
    await waitFor('the retired cluster\'s HostedClusters gone', async () => (await client.list(HostedClusterResource, { labelSelector: `${Label}=aws-eu` })).items.length === 0, 20_000);
    await waitFor('aws-eu gone', async () => (await client.list<ManagementCluster>(ManagementClusterResource)).items.every((m) => m.metadata.name !== 'aws-eu'), 20_000);
    const events = await client.list<KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } }>(EventResource, { namespace: held[0]!.metadata.namespace });
    const gone = events.items.find((e) => e.reason === 'SyncerGone' && e.involvedObject?.name === held[0]!.metadata.name);
    expect(gone?.message).toMatch(/^management cluster aws-eu is being deleted and its syncer has not reported since .*: released without tearing down its copy there$/);
  });

  it('hcc scheduler with an identity that may not place HostedClusters (the admin kubeconfig) stops at start, saying which to use', () => {
    const r = spawnSync(process.execPath, [hccBin, 'scheduler', '--kubeconfig', cc.kubeconfig, '--metrics-port', '0', '--no-leader-elect'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('may not place HostedClusters: only members of the group hcc:schedulers may');
    expect(r.stderr).toContain('--scheduler-kubeconfig');
    // One line, on stderr: not repeated as a JSON log line on stdout.
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).not.toContain('may not place');
  });

  it('hcc scheduler refuses an invalid configuration file, listing every problem, before it connects', () => {
    const bad = path.join(dir.dir, 'bad.yaml');
    writeFileSync(bad, 'profiles:\n- filters: [Ready, Readyy]\n  scores: [{name: Pack, weight: 0}]\nscaleOut: {webhook: "ftp://x"}\n');
    const r = spawnSync(process.execPath, [hccBin, 'scheduler', '--config', bad, '--kubeconfig', '/nonexistent'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`hcc scheduler: invalid scheduler configuration ${bad}:`);
    expect(r.stderr).toContain('- profiles[0].filters[1]: Unsupported value: "Readyy"');
    expect(r.stderr).toContain('- profiles[0].filters: Required value: must include "Budget"');
    expect(r.stderr).toContain('- profiles[0].scores[0].weight: Invalid value: 0: must be an integer from 1 to 100');
    expect(r.stderr).toContain('- scaleOut.webhook: Invalid value: "ftp://x": must be an http or https URL');
  });

  it('a ManagementCluster no syncer ever reported for shows Ready=Unknown (SyncerNeverReported) once the grace period is over', async () => {
    const created = Date.now();
    await client.create<ManagementCluster>(ManagementClusterResource, undefined, { apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name: 'ghost' }, spec: { capacity: 2 } });
    try {
      const mc = await waitFor('ghost Ready=Unknown', async () => {
        const m = await client.get<ManagementCluster>(ManagementClusterResource, undefined, 'ghost');
        return m.status?.conditions?.find((c) => c.type === 'Ready') ? m : undefined;
      }, 20_000);
      expect(Date.now() - created).toBeGreaterThanOrEqual(3_000); // not before the 4 s grace period (creationTimestamp has second precision)
      expect(mc.status!.conditions!.find((c) => c.type === 'Ready')).toMatchObject({
        status: 'Unknown',
        reason: 'SyncerNeverReported',
        message: expect.stringContaining('No syncer has reported for this management cluster since it was created'),
      });
      const table = await kubectl('1.35', cc.kubeconfig, ['get', 'mc', 'ghost']);
      expect(table.stdout).toMatch(/ghost\s+Unknown/);
    } finally {
      await client.delete(ManagementClusterResource, undefined, 'ghost');
    }
  });
});
