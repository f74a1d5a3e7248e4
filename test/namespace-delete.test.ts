/**
 * A namespace deleted whole in the control center: its Secrets go at once there, but the copies
 * of what its HostedCluster uses stay in the management cluster until the operator has torn the
 * copy down (its teardown may need the cloud credentials and the pull secret), then go with the
 * namespace the syncer made.
 */
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, tempDir, waitFor } from './helpers/tools.js';
import { startControlCenterProcess, startHcc, startSchedulerProcess, stopProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { nodePool, noneHostedCluster, pullSecret } from './helpers/manifests.js';

describe('deleting a namespace in the control center', () => {
  const t = tempDir('hcc-nsdel-');
  let cc: ControlCenterProcess;
  let scheduler: SchedulerProcess;
  const procs: ChildProcess[] = [];
  const mgmtKubeconfig = path.join(t.dir, 'm1.kubeconfig');
  const ns = 'nsdel';
  const k = (args: string[], input?: string) => kubectl('1.35', cc.kubeconfig, args, { input });
  const mk = (args: string[]) => kubectl('1.35', mgmtKubeconfig, args);
  /**
   * What the management cluster shows of HostedCluster copy `ex` and its pull secret copy in
   * namespace ns, every 200 ms until the HostedCluster copy is gone (30 s at most): each change of
   * state once, as "hc secret", "hc -", "- secret" or "- -". The Secret is read first: one missing
   * then, with the HostedCluster copy still there after, went too early.
   */
  const copiesUntilHostedClusterGone = async (ns: string): Promise<string[]> => {
    const seen: string[] = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      const secret = await mk(['get', 'secret/ex-pull-secret', '-n', ns, '--ignore-not-found', '-o', 'name']);
      const hc = await mk(['get', 'hc/ex', '-n', ns, '--ignore-not-found', '-o', 'name']);
      const state = `${hc.stdout.trim() ? 'hc' : '-'} ${secret.stdout.trim() ? 'secret' : '-'}`;
      if (seen.at(-1) !== state) seen.push(state);
      if (!hc.stdout.trim()) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    return seen;
  };

  beforeAll(async () => {
    cc = await startControlCenterProcess();
    // The operator stand-in takes 4 s to tear a HostedCluster down.
    const mgmt = await startHcc(['management-cluster', '--name', 'm1', '--data-dir', path.join(t.dir, 'm1'), '--kubeconfig', mgmtKubeconfig, '--available-delay', '200', '--delete-delay', '4000'], /"msg":"management cluster ready"/);
    procs.push(mgmt.proc);
    scheduler = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig });
    const syncer = await startHcc(['syncer', '--name', 'm1', '--kubeconfig', cc.kubeconfig, '--management-kubeconfig', mgmtKubeconfig, '--heartbeat-interval', '1'], /"msg":"syncer ready"/);
    procs.push(syncer.proc);
  }, 120_000);

  afterAll(async () => {
    for (const p of procs.reverse()) await stopProcess(p);
    await scheduler?.stop();
    await cc?.stop();
    t.cleanup();
  });

  it('keeps the pull secret copy while the HostedCluster copy is torn down, then cleans up', async () => {
    expect((await k(['create', 'namespace', ns])).code).toBe(0);
    const apply = await k(['apply', '-f', '-'], [pullSecret('ex', ns), noneHostedCluster('ex', ns)].join('---\n'));
    expect(apply.code, apply.stderr).toBe(0);
    await waitFor('the copies', async () => (await mk(['get', 'hc/ex', 'secret/ex-pull-secret', '-n', ns, '-o', 'name'])).stdout.trim().split('\n').length === 2, 30_000);

    expect((await k(['delete', 'namespace', ns, '--wait=false'])).code).toBe(0);
    // Until the HostedCluster copy is gone, its pull secret copy is there at every look.
    const seen = await copiesUntilHostedClusterGone(ns);
    expect(seen[0], seen.join(' → ')).toBe('hc secret');
    expect(seen, seen.join(' → ')).not.toContain('hc -');
    expect(seen.at(-1)?.startsWith('-'), seen.join(' → ')).toBe(true);
    // Then the Secret copy and the namespace the syncer made go, and the control center's namespace too.
    await waitFor('the namespace gone downstream', async () => (await mk(['get', 'namespace', ns, '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 45_000);
    await waitFor('the namespace gone upstream', async () => (await k(['get', 'namespace', ns, '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 45_000);
  }, 150_000);

  it('keeps the pull secret copy when `kubectl delete -f` deletes the Secret before the HostedCluster, then removes it', async () => {
    const ns2 = 'delf';
    expect((await k(['create', 'namespace', ns2])).code).toBe(0);
    const manifests = [pullSecret('ex', ns2), noneHostedCluster('ex', ns2), nodePool('ex-np', 'ex', ns2)].join('---\n');
    const apply = await k(['apply', '-f', '-'], manifests);
    expect(apply.code, apply.stderr).toBe(0);
    await waitFor('the copies', async () => (await mk(['get', 'hc/ex', 'np/ex-np', 'secret/ex-pull-secret', '-n', ns2, '-o', 'name'])).stdout.trim().split('\n').length === 3, 30_000);

    // File order: the Secret is deleted (and gone upstream) before the HostedCluster.
    expect((await k(['delete', '-f', '-', '--wait=false'], manifests)).code).toBe(0);
    const seen = await copiesUntilHostedClusterGone(ns2);
    expect(seen[0], seen.join(' → ')).toBe('hc secret');
    expect(seen, seen.join(' → ')).not.toContain('hc -');
    // Once no copy uses it, the Secret copy goes too (its deletion is looked at again then).
    await waitFor('the Secret copy gone', async () => (await mk(['get', 'secret/ex-pull-secret', '-n', ns2, '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 15_000);
  }, 120_000);
});
