/**
 * The whole loop, end to end, with real processes (`hcc up`) and real kubectl: HostedClusters
 * applied to the control center are placed by budget on management clusters, replicated there
 * with the Secrets they reference, made Available by the operator (hypershift-sim), visible
 * through the control center, updated, and deleted everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { kubectl, repoRoot, waitFor } from './helpers/tools.js';
import { startHccUp, type HccUp } from './helpers/processes.js';

const Label = 'controlcenter.hcc.dev/management-cluster';
const demo = path.join(repoRoot, 'demo', 'manifests');

interface Obj {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; generation?: number; finalizers?: string[] };
  spec?: Record<string, any>;
  status?: Record<string, any>;
}

describe('hcc up: the whole loop', () => {
  let hcc: HccUp;
  const k = (args: string[], input?: string) => kubectl('1.35', hcc.kubeconfig, args, { input });
  const kOld = (args: string[]) => kubectl('1.20', hcc.kubeconfig, args);
  const mk = (cluster: string, args: string[]) => kubectl('1.35', hcc.mgmtKubeconfig(cluster), args);
  const json = async <T = Obj>(args: string[], run = k): Promise<T> => {
    const r = await run([...args, '-o', 'json']);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  };

  beforeAll(async () => {
    hcc = await startHccUp(['--management-clusters', '2', '--capacity', '3']);
  });
  afterAll(async () => {
    await hcc?.stop();
  });

  it('registers every management cluster as Ready with its budget', async () => {
    const list = await json<{ items: Obj[] }>(['get', 'managementclusters']);
    expect(list.items.map((m) => m.metadata.name).sort()).toEqual(['mgmt-1', 'mgmt-2']);
    for (const mc of list.items) {
      expect(mc.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')?.status).toBe('True');
      expect(mc.status?.budget).toBe(3);
      expect(mc.spec?.capacity).toBe(3);
    }
    const table = await k(['get', 'mc']);
    expect(table.stdout).toMatch(/NAME\s+READY\s+BUDGET\s+HOSTED/);
  });

  it('places each applied HostedCluster on exactly one cluster, spread by budget, and replicates it only there', async () => {
    const applied = await k(['apply', '-f', demo]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('hostedcluster.hypershift.openshift.io/demo-aws created');
    const hcs = await waitFor('5 placements', async () => {
      const l = await json<{ items: Obj[] }>(['get', 'hostedclusters', '-n', 'clusters']);
      return l.items.length === 5 && l.items.every((h) => h.metadata.labels?.[Label]) ? l.items : undefined;
    }, 30_000);
    const placement = Object.fromEntries(hcs.map((h) => [h.metadata.name, h.metadata.labels![Label]!]));
    const counts = Object.values(placement).reduce<Record<string, number>>((m, c) => ((m[c] = (m[c] ?? 0) + 1), m), {});
    // 5 HostedClusters on two clusters of capacity 3: most budget first spreads them 3 + 2.
    expect(Object.values(counts).sort()).toEqual([2, 3]);
    for (const h of hcs) {
      const cond = h.status?.conditions?.find((c: { type: string }) => c.type === 'Scheduled');
      expect(cond).toMatchObject({ status: 'True', reason: 'Scheduled' });
    }
    // Each HostedCluster, its NodePools and its referenced Secrets exist only in its owner's cluster.
    for (const [name, owner] of Object.entries(placement)) {
      const other = owner === 'mgmt-1' ? 'mgmt-2' : 'mgmt-1';
      await waitFor(`${name} on ${owner}`, async () => (await mk(owner, ['get', 'hostedcluster', name, '-n', 'clusters'])).code === 0, 30_000);
      expect((await mk(other, ['get', 'hostedcluster', name, '-n', 'clusters', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
      const secret = `${name}-pull-secret`;
      await waitFor(`${secret} on ${owner}`, async () => (await mk(owner, ['get', 'secret', secret, '-n', 'clusters'])).code === 0, 30_000);
      expect((await mk(other, ['get', 'secret', secret, '-n', 'clusters', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
      await waitFor(`control-plane namespace of ${name}`, async () => (await mk(owner, ['get', 'namespace', `clusters-${name}`])).code === 0, 30_000);
    }
    // Placement is the scheduler's: users cannot move or set it.
    const other = placement['demo-none'] === 'mgmt-1' ? 'mgmt-2' : 'mgmt-1';
    const move = await k(['label', 'hc', 'demo-none', '-n', 'clusters', `${Label}=${other}`, '--overwrite']);
    expect(move.code).not.toBe(0);
    expect(move.stderr).toContain('the placement is immutable once set');
    // A replace with the manifest as the user wrote it (no placement label, no resourceVersion)
    // works and keeps the placement, as an update keeps the status.
    const mine = await json(['get', 'hc', 'demo-none', '-n', 'clusters']);
    delete mine.metadata.labels[Label];
    for (const f of ['resourceVersion', 'uid', 'managedFields', 'creationTimestamp', 'generation', 'finalizers']) delete mine.metadata[f];
    delete mine.status;
    mine.metadata.annotations = { ...mine.metadata.annotations, replaced: 'yes' };
    const replaced = await k(['replace', '-f', '-'], JSON.stringify(mine));
    expect(replaced.code, replaced.stderr).toBe(0);
    const after = await json(['get', 'hc', 'demo-none', '-n', 'clusters']);
    expect(after.metadata.labels[Label]).toBe(placement['demo-none']);
    expect(after.metadata.annotations.replaced).toBe('yes');
    // The NodePool follows its HostedCluster.
    const np = await json(['get', 'nodepool', 'demo-aws-us-east-1a', '-n', 'clusters']);
    expect(np.metadata.labels?.[Label]).toBe(placement['demo-aws']);
    // An unreferenced Secret never leaves the control center.
    await k(['create', 'secret', 'generic', 'not-referenced', '-n', 'clusters', '--from-literal=a=b']);
    await new Promise((r) => setTimeout(r, 1500));
    for (const c of ['mgmt-1', 'mgmt-2']) expect((await mk(c, ['get', 'secret', 'not-referenced', '-n', 'clusters', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
  });

  it('reports Available through the control center, for kubectl 1.35 and 1.20', async () => {
    const w = await k(['wait', '--for=condition=Available', 'hostedclusters', '--all', '-n', 'clusters', '--timeout=60s']);
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toContain('hostedcluster.hypershift.openshift.io/demo-aws condition met');
    const h = await json(['get', 'hostedcluster', 'demo-aws', '-n', 'clusters']);
    expect(h.status?.kubeconfig?.name).toBeTruthy();
    expect(h.status?.version?.history?.[0]).toMatchObject({ state: 'Completed', image: h.spec?.release.image });
    const old = await kOld(['wait', '--for=condition=Available', 'hostedcluster/demo-kubevirt', '-n', 'clusters', '--timeout=30s']);
    expect(old.code, old.stderr).toBe(0);
    const table = await kOld(['get', 'hc', '-n', 'clusters']);
    expect(table.stdout).toMatch(/demo-aws\s+4\.16\.12\s+\S+\s+Completed\s+True\s+False/);
    const describe = await k(['describe', 'hc', 'demo-aws', '-n', 'clusters']);
    expect(describe.stdout).toContain('Successfully assigned clusters/demo-aws to management cluster');
    // The kubeconfig Secret the operator wrote is copied up, so users can reach their cluster.
    const kc = await json(['get', 'secret', h.status!.kubeconfig.name, '-n', 'clusters']);
    expect(Buffer.from((kc as unknown as { data: { kubeconfig: string } }).data.kubeconfig, 'base64').toString()).toContain('clusters:');
  });

  it('rolls a release image change out to the management cluster and back', async () => {
    const image = 'quay.io/openshift-release-dev/ocp-release:4.17.3-x86_64';
    const p = await k(['patch', 'hc', 'demo-none', '-n', 'clusters', '--type=merge', '-p', JSON.stringify({ spec: { release: { image } } })]);
    expect(p.code, p.stderr).toBe(0);
    const owner = (await json(['get', 'hc', 'demo-none', '-n', 'clusters'])).metadata.labels![Label]!;
    await waitFor('the new image downstream', async () => (await mk(owner, ['get', 'hc', 'demo-none', '-n', 'clusters', '-o', 'jsonpath={.spec.release.image}'])).stdout === image, 20_000);
    const up = await waitFor('the upgrade to complete upstream', async () => {
      const h = await json(['get', 'hc', 'demo-none', '-n', 'clusters']);
      const top = h.status?.version?.history?.[0];
      return top?.image === image && top.state === 'Completed' ? h : undefined;
    }, 30_000);
    expect(up.status?.version?.history?.length).toBeGreaterThanOrEqual(2);
    // observedGeneration is translated to the control center's generation.
    const avail = up.status?.conditions?.find((c: { type: string }) => c.type === 'Available');
    expect(avail?.observedGeneration).toBe(up.metadata.generation);
    // The spec moved on since the placement (generation ≥ 3 now): kubectl wait still sees Scheduled.
    expect(up.metadata.generation).toBeGreaterThanOrEqual(3);
    const wait = await k(['wait', '--for=condition=Scheduled', 'hc/demo-none', '-n', 'clusters', '--timeout=10s']);
    expect(wait.code, wait.stderr).toBe(0);
    expect(wait.stdout).toContain('hostedcluster.hypershift.openshift.io/demo-none condition met');
  });

  it('keeps the placement when a re-applied manifest no longer has the labels applied before (kubectl sends labels: null)', async () => {
    const manifest = readFileSync(path.join(demo, '50-azure.yaml'), 'utf8');
    const withLabels = manifest.replace(/(kind: HostedCluster\nmetadata:\n  name: demo-azure\n)/, '$1  labels:\n    team: payments\n');
    expect(withLabels).not.toBe(manifest);
    const first = await k(['apply', '-f', '-'], withLabels);
    expect(first.code, first.stderr).toBe(0);
    const before = await json(['get', 'hc', 'demo-azure', '-n', 'clusters']);
    expect(before.metadata.labels).toMatchObject({ team: 'payments', [Label]: expect.any(String) });
    const again = await k(['apply', '-f', '-'], manifest);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('hostedcluster.hypershift.openshift.io/demo-azure configured');
    const after = await json(['get', 'hc', 'demo-azure', '-n', 'clusters']);
    expect(after.metadata.labels).toEqual({ [Label]: before.metadata.labels![Label] });
  });

  it('rejects malformed manifests with a clear Status error and changes nothing', async () => {
    const before = await json<{ items: Obj[] }>(['get', 'hc', '-A']);
    const moon = await k(['apply', '-f', '-'], `apiVersion: hypershift.openshift.io/v1beta1
kind: HostedCluster
metadata: {name: broken, namespace: clusters}
spec:
  release: {image: quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64}
  platform: {type: Moon}
`);
    expect(moon.code).not.toBe(0);
    expect(moon.stderr).toContain('spec.platform.type: Unsupported value: "Moon"');
    const alpha = await k(['apply', '-f', path.join(repoRoot, 'testdata', 'hypershift', '06-none-v1alpha1-nodeport.yaml')]);
    expect(alpha.code).not.toBe(0);
    expect(alpha.stderr).toContain('no matches for kind "HostedCluster" in version "hypershift.openshift.io/v1alpha1"');
    const after = await json<{ items: Obj[] }>(['get', 'hc', '-A']);
    expect(after.items.map((h) => h.metadata.name).sort()).toEqual(before.items.map((h) => h.metadata.name).sort());
  });

  it('deletes a HostedCluster everywhere, waiting for the operator teardown', async () => {
    const owner = (await json(['get', 'hc', 'demo-agent', '-n', 'clusters'])).metadata.labels![Label]!;
    const d = await k(['delete', 'hc', 'demo-agent', '-n', 'clusters', '--timeout=60s']);
    expect(d.code, d.stderr).toBe(0);
    expect((await k(['get', 'hc', 'demo-agent', '-n', 'clusters', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    // Its NodePools go with it, as the HyperShift operator deletes them.
    await waitFor('the NodePool to go', async () => (await k(['get', 'np', 'demo-agent', '-n', 'clusters', '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 20_000);
    // By the time the virtual object is gone, the management cluster holds nothing of it.
    expect((await mk(owner, ['get', 'hc', 'demo-agent', '-n', 'clusters', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    expect((await mk(owner, ['get', 'namespace', 'clusters-demo-agent', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    // Its Secrets leave the management cluster once nothing placed there references them.
    await waitFor('the pull secret to leave the management cluster', async () =>
      (await mk(owner, ['get', 'secret', 'demo-agent-pull-secret', '-n', 'clusters', '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 20_000);
    // The kubeconfig Secrets copied up for users go with their HostedCluster (owner references).
    await waitFor('the admin kubeconfig Secret to go', async () =>
      (await k(['get', 'secret', 'demo-agent-admin-kubeconfig', '-n', 'clusters', '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 20_000);
    // The freed slot shows in the budget the syncer reports.
    const placedThere = (await json<{ items: Obj[] }>(['get', 'hc', '-n', 'clusters', '-l', `${Label}=${owner}`])).items.length;
    await waitFor('the budget to go up', async () => {
      const mc = await json(['get', 'mc', owner]);
      return mc.status?.hostedClusters === placedThere && mc.status?.budget === 3 - placedThere;
    }, 20_000);
  });

  it('keeps a ManagementCluster that still holds HostedClusters when it is deleted, and places nothing new on it', async () => {
    const held = (await json<{ items: Obj[] }>(['get', 'hc', '-n', 'clusters'])).items;
    const busy = held[0]!.metadata.labels![Label]!;
    const d = await k(['delete', 'mc', busy, '--wait=false']);
    expect(d.code, d.stderr).toBe(0);
    const mc = await json<Obj & { metadata: { deletionTimestamp?: string; finalizers?: string[] } }>(['get', 'mc', busy]);
    expect(mc.metadata.deletionTimestamp).toBeTruthy();
    expect(mc.metadata.finalizers).toContain('controlcenter.hcc.dev/placements');
    // Its HostedClusters are still served from it.
    expect((await mk(busy, ['get', 'hc', held[0]!.metadata.name, '-n', 'clusters', '-o', 'name'])).code).toBe(0);
  });
});
