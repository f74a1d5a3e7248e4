/**
 * Resilience: with `hcc up` running and HostedClusters being created, updated and deleted,
 * every process is killed (SIGKILL) once — the control center, a syncer, a management cluster,
 * the scheduler — and restarted by `hcc up`. Afterwards the state converges exactly: each
 * management cluster holds what is placed on it and nothing else, with the current spec, and
 * every virtual HostedCluster shows its cluster's status for its current generation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { kubectl, waitFor } from './helpers/tools.js';
import { startHccUp, type HccUp } from './helpers/processes.js';
import { nodePool, noneHostedCluster, pullSecret, releaseImage } from './helpers/manifests.js';

const Label = 'controlcenter.hcc.dev/management-cluster';
function manifests(names: string[], version: string): string {
  return names.map((n) => [pullSecret(n, 'fleet'), noneHostedCluster(n, 'fleet', version), nodePool(`${n}-workers`, n, 'fleet', version)].join('---\n')).join('---\n');
}
const image = releaseImage;

interface Obj {
  metadata: { name: string; generation?: number; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { release: { image: string } };
  status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
}

describe('convergence after every process is killed', () => {
  let hcc: HccUp;
  const k = (args: string[], input?: string) => kubectl('1.35', hcc.kubeconfig, args, { input });
  const list = async (kubeconfig: string, resource: string): Promise<Obj[]> => {
    const r = await kubectl('1.35', kubeconfig, ['get', resource, '-n', 'fleet', '-o', 'json']);
    if (r.code !== 0) throw new Error(r.stderr);
    return (JSON.parse(r.stdout) as { items: Obj[] }).items;
  };
  const pids = () => JSON.parse(readFileSync(path.join(hcc.stateDir, 'processes.json'), 'utf8')) as Record<string, number>;
  const killAndWaitForRestart = async (name: string) => {
    // `up` is hcc up itself, the one pid that stops everything.
    expect(pids().up).toBe(hcc.proc.pid);
    const before = pids()[name]!;
    process.kill(before, 'SIGKILL');
    await waitFor(`${name} to be restarted`, () => pids()[name] !== before, 20_000);
  };

  beforeAll(async () => {
    hcc = await startHccUp(['--management-clusters', '3', '--capacity', '120']);
  });
  afterAll(async () => {
    await hcc?.stop();
  });

  it('converges exactly', async () => {
    expect((await k(['create', 'namespace', 'fleet'])).code).toBe(0);
    // The fleet: 3 clusters, 300 HostedClusters with NodePools and Secrets.
    const all = Array.from({ length: 300 }, (_, i) => `hc-${String(i).padStart(3, '0')}`);
    const upgraded = new Set(all.slice(0, 30));
    const deleted = all.slice(280);
    const apply = (names: string[], version: string) => k(['apply', '-f', '-'], manifests(names, version));
    const first = await apply(all.slice(0, 150), '4.16.12');
    expect(first.code, first.stderr).toBe(0);
    await killAndWaitForRestart('control-center');
    // Writes keep coming while processes die: kubectl retries nothing, so retry until accepted.
    await waitFor('the second batch to be accepted', async () => (await apply(all.slice(150), '4.16.12')).code === 0, 60_000, 500);
    await killAndWaitForRestart('syncer-mgmt-1');
    await waitFor('an upgrade to be accepted', async () => (await apply([...upgraded], '4.17.3')).code === 0, 60_000, 500);
    await killAndWaitForRestart('mgmt-2');
    await waitFor('deletions to be accepted', async () => (await k(['delete', 'hc', ...deleted, '-n', 'fleet', '--wait=false'])).code === 0, 60_000, 500);
    await killAndWaitForRestart('scheduler');
    await killAndWaitForRestart('syncer-mgmt-2');
    await killAndWaitForRestart('mgmt-3');
    await killAndWaitForRestart('syncer-mgmt-3');

    const expected = new Map(all.filter((n) => !deleted.includes(n)).map((n) => [n, image(upgraded.has(n) ? '4.17.3' : '4.16.12')]));
    await waitFor(
      'every management cluster to hold exactly what is placed on it',
      async () => {
        const up = await list(hcc.kubeconfig, 'hostedclusters');
        if (up.length !== expected.size) return false;
        for (const h of up) {
          if (expected.get(h.metadata.name) !== h.spec.release.image) return false;
          const owner = h.metadata.labels?.[Label];
          if (!owner) return false;
          const avail = h.status?.conditions?.find((c) => c.type === 'Available');
          if (avail?.status !== 'True' || avail.observedGeneration !== h.metadata.generation) return false;
        }
        for (const mc of ['mgmt-1', 'mgmt-2', 'mgmt-3']) {
          const down = (await list(hcc.mgmtKubeconfig(mc), 'hostedclusters')).filter((d) => d.metadata.labels?.['controlcenter.hcc.dev/synced-by']);
          const want = up.filter((h) => h.metadata.labels?.[Label] === mc);
          if (down.map((d) => d.metadata.name).sort().join() !== want.map((h) => h.metadata.name).sort().join()) return false;
          for (const d of down) if (d.spec.release.image !== expected.get(d.metadata.name)) return false;
          const nps = await list(hcc.mgmtKubeconfig(mc), 'nodepools');
          if (nps.map((n) => n.metadata.name).sort().join() !== want.map((h) => `${h.metadata.name}-workers`).sort().join()) return false;
        }
        return true;
      },
      240_000,
      2000,
    );
    // Nothing is duplicated or orphaned: no copies of the deleted ones' Secrets anywhere (this
    // follows a little after the HostedClusters: the Secret loses its placement label once the
    // HostedCluster is gone).
    await waitFor('the deleted ones\' Secrets to leave every management cluster', async () => {
      for (const mc of ['mgmt-1', 'mgmt-2', 'mgmt-3']) {
        const secrets = new Set((await list(hcc.mgmtKubeconfig(mc), 'secrets')).map((s) => s.metadata.name));
        if (deleted.some((n) => secrets.has(`${n}-pull-secret`))) return false;
      }
      return true;
    }, 30_000, 1000);
  }, 480_000);
});
