/**
 * A control center replaced at its address while a syncer runs: started again on an empty data dir
 * that kept its certificates and tokens (as an etcd wiped, rebuilt or restored from another
 * cluster's backup). Its relist shows none of the objects the copies were made from; the running
 * syncer must not take that for "all deleted" (it tore every hosted control plane down): it sees
 * the control center's ID changed, stops with nothing deleted, and started again serves the new
 * control center and leaves the old one's copies. And a syncer whose management cluster is the
 * control center itself stops before it registers. Real processes: `hcc control-center`,
 * `hcc scheduler`, `hcc management-cluster`, `hcc syncer`, kubectl.
 */
import path from 'node:path';
import { readdirSync, rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, tempDir, waitFor } from './helpers/tools.js';
import { spawnHcc, startControlCenterProcess, startHcc, startSchedulerProcess, stopProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { noneHostedCluster, pullSecret } from './helpers/manifests.js';

const ns = 'team';

describe('a control center replaced at its address while its syncer runs', () => {
  const t = tempDir('hcc-ccnew-');
  const mgmtAdmin = path.join(t.dir, 'mgmt-admin.kubeconfig');
  let cc: ControlCenterProcess;
  let scheduler: SchedulerProcess | undefined;
  let mgmt: { proc: ChildProcess; output: () => string } | undefined;
  const syncers: { proc: ChildProcess; output: () => string }[] = [];

  const kc = (args: string[], input?: string) => kubectl('1.35', cc.kubeconfig, args, { input });
  const km = (args: string[]) => kubectl('1.35', mgmtAdmin, args);
  const startSyncer = async () => {
    const s = await startHcc(['syncer', '--name', 'm1', '--kubeconfig', cc.kubeconfig, '--management-kubeconfig', mgmtAdmin, '--heartbeat-interval', '1'], /"msg":"syncer ready"/);
    syncers.push(s);
    return s;
  };
  /** uid of the object in the management cluster, or '' when it is not there. */
  const uidThere = async (kind: string, name: string) => (await km(['get', kind, '-n', ns, name, '-o', 'jsonpath={.metadata.uid}', '--ignore-not-found'])).stdout.trim();

  beforeAll(async () => {
    // In the test's own directory, which afterAll removes: the replacement below reuses it.
    cc = await startControlCenterProcess({ dir: path.join(t.dir, 'cc') });
    scheduler = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig });
    mgmt = await startHcc(['management-cluster', '--name', 'm1', '--data-dir', path.join(t.dir, 'm1'), '--kubeconfig', mgmtAdmin, '--available-delay', '300', '--delete-delay', '200'], /"msg":"management cluster ready"/);
    expect((await kc(['create', 'namespace', ns])).code).toBe(0);
    await startSyncer();
  }, 120_000);

  afterAll(async () => {
    for (const s of syncers) await stopProcess(s.proc);
    if (mgmt) await stopProcess(mgmt.proc);
    await scheduler?.stop();
    await cc?.stop();
    t.cleanup();
  });

  it('the running syncer stops with every copy kept; started again, it serves the new control center and leaves them', async () => {
    expect((await kc(['apply', '-f', '-'], [pullSecret('hc1', ns), noneHostedCluster('hc1', ns)].join('---\n'))).code).toBe(0);
    const copies = await waitFor('the copies of hc1 and its pull secret', async () => {
      const hc = await uidThere('hostedcluster', 'hc1');
      const secret = await uidThere('secret', 'hc1-pull-secret');
      return hc && secret ? { hc, secret } : undefined;
    }, 60_000);
    const oldID = (await kc(['get', 'namespace', 'kube-system', '-o', 'jsonpath={.metadata.uid}'])).stdout.trim();

    // The same address, certificates and tokens; none of the data (a new kube-system uid).
    const port = Number(new URL(cc.url).port);
    await cc.kill('SIGKILL');
    const dataDir = path.join(cc.dir, 'data');
    for (const entry of readdirSync(dataDir)) if (entry !== 'pki') rmSync(path.join(dataDir, entry), { recursive: true, force: true });
    cc = await startControlCenterProcess({ dir: cc.dir, port });
    const newID = (await kc(['get', 'namespace', 'kube-system', '-o', 'jsonpath={.metadata.uid}'])).stdout.trim();
    expect(newID).not.toBe(oldID);

    // The running syncer sees the change and exits (its Deployment or hcc up starts it again).
    const running = syncers[0]!;
    const code = await waitFor('the syncer to exit', () => running.proc.exitCode ?? undefined, 90_000);
    expect(code).toBe(1);
    expect(running.output()).toContain(`the control center's ID changed from ${oldID} to ${newID}`);
    expect(running.output()).not.toContain('deleting the copy');
    expect([await uidThere('hostedcluster', 'hc1'), await uidThere('secret', 'hc1-pull-secret')]).toEqual([copies.hc, copies.secret]);

    // Started again: it serves the new control center, and the old one's copies stay.
    expect((await kc(['create', 'namespace', ns])).code).toBe(0);
    const again = await startSyncer();
    await waitFor('the OtherControlCenter report', () => again.output().includes(oldID), 30_000);
    await new Promise((r) => setTimeout(r, 3000));
    expect(again.output()).not.toContain('deleting the copy');
    expect([await uidThere('hostedcluster', 'hc1'), await uidThere('secret', 'hc1-pull-secret')]).toEqual([copies.hc, copies.secret]);
  }, 240_000);

  it('a syncer whose --management-kubeconfig points at the control center itself stops, saying so, and registers nothing', async () => {
    const loop = spawnHcc(['syncer', '--name', 'loop1', '--kubeconfig', cc.kubeconfig, '--management-kubeconfig', cc.kubeconfig, '--heartbeat-interval', '1']);
    syncers.push(loop);
    const code = await waitFor('the syncer to exit', () => loop.proc.exitCode ?? undefined, 60_000);
    expect(code).toBe(1);
    expect(loop.output()).toContain('--management-kubeconfig points at the control center itself');
    const mc = await kc(['get', 'managementcluster', 'loop1', '--ignore-not-found', '-o', 'name']);
    expect(mc.code, mc.stderr).toBe(0);
    expect(mc.stdout.trim()).toBe('');
  }, 90_000);

  it("a syncer whose --kubeconfig is a management cluster's (the admin's, which may read its kube-system) says so and claims no control center ID", async () => {
    const wrong = spawnHcc(['syncer', '--name', 'm9', '--kubeconfig', mgmtAdmin, '--management-kubeconfig', mgmtAdmin, '--heartbeat-interval', '1']);
    syncers.push(wrong);
    await waitFor('the refusal', () => wrong.output().includes('the server --kubeconfig points at does not serve ManagementClusters'), 30_000);
    expect(wrong.output()).not.toContain('serving the control center of this ID');
    await stopProcess(wrong.proc);
  }, 60_000);
});
