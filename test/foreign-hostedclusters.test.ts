/**
 * A HostedCluster created in a management cluster directly (not through the control center) takes
 * a slot there: the syncer reports it among `hostedClusters` but not among its own copies
 * (`syncedHostedClusters`), and the scheduler never takes it for one of its placements, so the
 * cluster is not overbooked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, waitFor } from './helpers/tools.js';
import { startHccUp, type HccUp } from './helpers/processes.js';
import { noneHostedCluster } from './helpers/manifests.js';

const Label = 'controlcenter.hcc.dev/management-cluster';

interface Obj {
  metadata: { name: string; labels?: Record<string, string> };
  status?: { hostedClusters?: number; syncedHostedClusters?: number; conditions?: { type: string; status: string; reason?: string }[] };
}

describe('HostedClusters created in a management cluster directly', () => {
  let hcc: HccUp;
  const k = (args: string[], input?: string) => kubectl('1.35', hcc.kubeconfig, args, { input });
  const mk = (args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig('mgmt-1'), args, { input });
  const json = async <T>(p: Promise<{ code: number; stdout: string; stderr: string }>): Promise<T> => {
    const r = await p;
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as T;
  };

  /** A heartbeat now: the syncer reports at once when a HostedCluster leaves its cluster. */
  const heartbeatNow = async (name: string) => {
    expect((await mk(['apply', '-f', '-'], noneHostedCluster(name, 'foreign'))).code).toBe(0);
    expect((await mk(['delete', 'hc', name, '-n', 'foreign', '--wait=true'])).code).toBe(0);
  };
  const mcStatus = async () => (await json<Obj>(k(['get', 'mc', 'mgmt-1', '-o', 'json']))).status ?? {};

  beforeAll(async () => {
    // Heartbeats 5 minutes apart: placements outrun them, as in a burst.
    hcc = await startHccUp(['--management-clusters', '1', '--capacity', '4', '--heartbeat-interval', '300']);
  });
  afterAll(async () => {
    await hcc?.stop();
  });

  it('count against the capacity, even when placements outrun the heartbeats', async () => {
    expect((await mk(['create', 'namespace', 'foreign'])).code).toBe(0);
    expect((await mk(['apply', '-f', '-'], noneHostedCluster('f1', 'foreign'))).code).toBe(0);
    await heartbeatNow('tick-1');
    await waitFor('a heartbeat that reports f1', async () => (await mcStatus()).hostedClusters === 1, 30_000);
    expect((await mcStatus()).syncedHostedClusters).toBe(0);

    // Four at once against capacity 4 with one slot taken: three fit.
    expect((await k(['create', 'namespace', 'burst'])).code).toBe(0);
    const burst = ['x1', 'x2', 'x3', 'x4'].map((n) => noneHostedCluster(n, 'burst')).join('\n---\n');
    const applied = await k(['apply', '-f', '-'], burst);
    expect(applied.code, applied.stderr).toBe(0);
    const judged = async () =>
      waitFor('all four to be judged', async () => {
        const l = (await json<{ items: Obj[] }>(k(['get', 'hc', '-n', 'burst', '-o', 'json']))).items;
        return l.length === 4 && l.every((h) => h.metadata.labels?.[Label] || h.status?.conditions?.some((c) => c.type === 'Scheduled' && c.status === 'False')) ? l : undefined;
      }, 30_000);
    expect((await judged()).filter((h) => h.metadata.labels?.[Label])).toHaveLength(3);
    await waitFor('the three copies', async () => (await json<{ items: Obj[] }>(mk(['get', 'hc', '-n', 'burst', '-o', 'json']))).items.length === 3, 30_000);

    // A heartbeat that counts the copies opens no slot for the fourth.
    await heartbeatNow('tick-2');
    await waitFor('a heartbeat that counts the copies', async () => (await mcStatus()).syncedHostedClusters === 3, 30_000);
    expect((await mcStatus()).hostedClusters).toBe(4);
    await new Promise((r) => setTimeout(r, 2000));
    expect((await judged()).filter((h) => h.metadata.labels?.[Label])).toHaveLength(3);
    expect((await json<{ items: Obj[] }>(mk(['get', 'hc', '-A', '-o', 'json']))).items).toHaveLength(4);
  });
});
