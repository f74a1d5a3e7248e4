/**
 * Capacity safety under a burst: HostedClusters created concurrently with
 * @kubernetes/client-node never put more on a management cluster than its capacity, whatever the
 * heartbeat timing; the ones that fit nowhere say why, and so do their NodePools; a fleet change
 * (more capacity, a placed one deleted) places them without waiting for the next heartbeat (the
 * syncers here beat every 5 minutes), and the NodePools follow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { kubectl, waitFor } from './helpers/tools.js';
import { startHccUp, type HccUp } from './helpers/processes.js';

const Label = 'controlcenter.hcc.dev/management-cluster';
const group = 'hypershift.openshift.io';
const version = 'v1beta1';

/** A minimal valid platform-None HostedCluster. */
function hostedCluster(name: string) {
  return {
    apiVersion: `${group}/${version}`,
    kind: 'HostedCluster',
    metadata: { name, namespace: 'burst' },
    spec: {
      release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' },
      pullSecret: { name: 'pull-secret' },
      dns: { baseDomain: 'example.com' },
      networking: { clusterNetwork: [{ cidr: '10.132.0.0/14' }], serviceNetwork: [{ cidr: '172.31.0.0/16' }], networkType: 'OVNKubernetes' },
      platform: { type: 'None' },
      services: ['APIServer', 'OAuthServer', 'Konnectivity', 'Ignition'].map((service) => ({ service, servicePublishingStrategy: { type: 'NodePort', nodePort: { address: '10.0.0.1' } } })),
    },
  };
}

/** A NodePool of `cluster`. */
function nodePool(cluster: string) {
  return {
    apiVersion: `${group}/${version}`,
    kind: 'NodePool',
    metadata: { name: `${cluster}-workers`, namespace: 'burst' },
    spec: { clusterName: cluster, replicas: 2, management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' } },
  };
}

interface HC {
  metadata: { name: string; labels?: Record<string, string> };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

describe('a burst of creates against a small fleet', () => {
  let hcc: HccUp;
  let api: CustomObjectsApi;
  const list = async () => ((await api.listNamespacedCustomObject({ group, version, namespace: 'burst', plural: 'hostedclusters' })) as { items: HC[] }).items;
  const listNodePools = async () => ((await api.listNamespacedCustomObject({ group, version, namespace: 'burst', plural: 'nodepools' })) as { items: HC[] }).items;
  const readyOf = (np: HC) => np.status?.conditions?.find((c) => c.type === 'Ready');

  beforeAll(async () => {
    // Heartbeats 5 minutes apart: room that appears must count without waiting for one.
    hcc = await startHccUp(['--management-clusters', '3', '--capacity', '4', '--heartbeat-interval', '300']);
    const kc = new KubeConfig();
    kc.loadFromFile(hcc.kubeconfig);
    api = kc.makeApiClient(CustomObjectsApi);
    expect((await kubectl('1.35', hcc.kubeconfig, ['create', 'namespace', 'burst'])).code).toBe(0);
    expect((await kubectl('1.35', hcc.kubeconfig, ['create', 'secret', 'generic', 'pull-secret', '-n', 'burst', '--from-literal=.dockerconfigjson={}'])).code).toBe(0);
  });
  afterAll(async () => {
    await hcc?.stop();
  });

  it('places exactly the capacity and never overbooks', async () => {
    const n = 30;
    await Promise.all(Array.from({ length: n }, (_, i) => api.createNamespacedCustomObject({ group, version, namespace: 'burst', plural: 'hostedclusters', body: hostedCluster(`hc-${String(i).padStart(2, '0')}`) })));
    const settled = await waitFor('every HostedCluster to have a Scheduled condition', async () => {
      const items = await list();
      return items.length === n && items.every((h) => h.status?.conditions?.some((c) => c.type === 'Scheduled')) ? items : undefined;
    }, 60_000);
    const perCluster: Record<string, number> = {};
    for (const h of settled) {
      const c = h.metadata.labels?.[Label];
      if (c) perCluster[c] = (perCluster[c] ?? 0) + 1;
    }
    expect(perCluster).toEqual({ 'mgmt-1': 4, 'mgmt-2': 4, 'mgmt-3': 4 });
    const pending = settled.filter((h) => !h.metadata.labels?.[Label]);
    expect(pending).toHaveLength(18);
    for (const h of pending) {
      const cond = h.status!.conditions!.find((c) => c.type === 'Scheduled')!;
      expect(cond).toMatchObject({ status: 'False', reason: 'Unschedulable' });
      expect(cond.message).toBe('0/3 management clusters are available: 3 no budget.');
      // And where `kubectl get hc` looks (AVAILABLE, MESSAGE), instead of an empty row.
      expect(h.status!.conditions!.find((c) => c.type === 'Available')).toMatchObject({ status: 'False', reason: 'Unschedulable' });
    }
    const row = await kubectl('1.35', hcc.kubeconfig, ['get', 'hc', pending[0]!.metadata.name!, '-n', 'burst', '--no-headers']);
    expect(row.stdout).toMatch(/\sFalse\s+Not placed on a management cluster: 0\/3 management clusters are available: 3 no budget\.\s*$/m);
    // Their NodePools wait with them, and say so where `kubectl get nodepools` looks (MESSAGE).
    await Promise.all(pending.map((h) => api.createNamespacedCustomObject({ group, version, namespace: 'burst', plural: 'nodepools', body: nodePool(h.metadata.name) })));
    const marked = await waitFor('every NodePool marked not placed', async () => {
      const nps = await listNodePools();
      return nps.length === pending.length && nps.every((np) => readyOf(np)?.reason === 'Unschedulable') ? nps : undefined;
    }, 30_000);
    for (const np of marked) {
      expect(np.metadata.labels?.[Label]).toBeUndefined();
      expect(readyOf(np)).toMatchObject({ status: 'False', message: `Not placed on a management cluster: waiting for HostedCluster ${np.metadata.name.replace(/-workers$/, '')}: 0/3 management clusters are available: 3 no budget.` });
    }
    const npRow = await kubectl('1.35', hcc.kubeconfig, ['get', 'nodepools', `${pending[0]!.metadata.name}-workers`, '-n', 'burst', '--no-headers']);
    expect(npRow.stdout).toMatch(/\sNot placed on a management cluster: waiting for HostedCluster hc-\d\d: 0\/3 management clusters are available: 3 no budget\.\s*$/m);
    // Later heartbeats do not change the outcome: still nobody over capacity.
    await new Promise((r) => setTimeout(r, 2500));
    const again = await list();
    expect(again.filter((h) => h.metadata.labels?.[Label]).length).toBe(12);
  });

  it('places waiting HostedClusters when the fleet gains room', async () => {
    const p = await kubectl('1.35', hcc.kubeconfig, ['patch', 'managementcluster', 'mgmt-2', '--type=merge', '-p', '{"spec":{"capacity":6}}']);
    expect(p.code, p.stderr).toBe(0);
    const items = await waitFor('two more placements on mgmt-2', async () => {
      const l = await list();
      return l.filter((h) => h.metadata.labels?.[Label] === 'mgmt-2').length === 6 ? l : undefined;
    }, 30_000);
    expect(items.filter((h) => h.metadata.labels?.[Label]).length).toBe(14);
    // Placed: the not-placed mark went with the binding.
    for (const h of items.filter((i) => i.metadata.labels?.[Label])) expect(h.status?.conditions?.find((c) => c.type === 'Available')?.reason, h.metadata.name).not.toBe('Unschedulable');
    expect(items.filter((h) => h.metadata.labels?.[Label] === 'mgmt-1').length).toBe(4);
    // The NodePools of the two placed follow them there and lose the mark; the other 16 keep it.
    const placedNow = new Map(items.map((h) => [`${h.metadata.name}-workers`, h.metadata.labels?.[Label]]));
    await waitFor('the NodePools to follow their HostedClusters', async () => {
      const nps = await listNodePools();
      const moved = nps.filter((np) => placedNow.get(np.metadata.name));
      const waiting = nps.filter((np) => !placedNow.get(np.metadata.name));
      return moved.length === 2 &&
        moved.every((np) => np.metadata.labels?.[Label] === placedNow.get(np.metadata.name) && readyOf(np)?.reason !== 'Unschedulable') &&
        waiting.length === 16 &&
        waiting.every((np) => !np.metadata.labels?.[Label] && readyOf(np)?.reason === 'Unschedulable')
        ? nps
        : undefined;
    }, 30_000);
  });

  it('places a waiting HostedCluster in the slot a deleted one frees', async () => {
    const before = await list();
    const onMgmt1 = before.filter((h) => h.metadata.labels?.[Label] === 'mgmt-1');
    expect(onMgmt1).toHaveLength(4);
    const waiting = before.filter((h) => !h.metadata.labels?.[Label]).length;
    const del = await kubectl('1.35', hcc.kubeconfig, ['delete', 'hc', onMgmt1[0]!.metadata.name, '-n', 'burst', '--wait=true']);
    expect(del.code, del.stderr).toBe(0);
    const after = await waitFor('a waiting HostedCluster placed on mgmt-1', async () => {
      const l = await list();
      return l.filter((h) => h.metadata.labels?.[Label] === 'mgmt-1').length === 4 ? l : undefined;
    }, 30_000);
    expect(after.filter((h) => !h.metadata.labels?.[Label])).toHaveLength(waiting - 1);
    expect(after.filter((h) => h.metadata.labels?.[Label] === 'mgmt-2')).toHaveLength(6);
  });

  it('a scheduler restarted after a crash takes its own Lease back (the same holder), not waiting out its lease duration', async () => {
    const lease = async () => {
      const r = await kubectl('1.35', hcc.kubeconfig, ['get', 'lease', 'hcc-scheduler', '-n', 'hcc-system', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { spec: { holderIdentity: string; leaseTransitions?: number; renewTime: string } }).spec;
    };
    const before = await lease();
    const pids = () => JSON.parse(readFileSync(path.join(hcc.stateDir, 'processes.json'), 'utf8')) as Record<string, number>;
    const pid = pids().scheduler!;
    process.kill(pid, 'SIGKILL');
    await waitFor('the scheduler to be restarted', () => pids().scheduler !== pid, 20_000);
    const after = await waitFor('the restarted scheduler to renew the Lease', async () => {
      const l = await lease();
      return l.renewTime !== before.renewTime && Date.parse(l.renewTime) > Date.parse(before.renewTime) ? l : undefined;
    }, 30_000);
    expect(after.holderIdentity).toBe(before.holderIdentity);
    expect(after.leaseTransitions ?? 0).toBe(before.leaseTransitions ?? 0);
  });
});
