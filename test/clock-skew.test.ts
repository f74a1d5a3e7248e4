/**
 * A syncer whose host clock is wrong (its `status.lastHeartbeatTime` stamps are off) must not
 * change what the scheduler thinks of its cluster: the heartbeat's age is measured on the
 * scheduler's clock from when the stamp last changed, as kube's node lifecycle controller does.
 * - 10 minutes ahead, then silent (SIGSTOP): the cluster still goes Ready=False HeartbeatExpired
 *   within the grace period, and takes no new HostedCluster;
 * - a minute behind, heartbeating: it stays Ready, with no HeartbeatExpired flapping, also across
 *   a scheduler restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hccBin, kubectl, tempDir, waitFor } from './helpers/tools.js';
import { startControlCenterProcess, startHcc, startSchedulerProcess, stopProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';

const skewedClock = path.join(path.dirname(fileURLToPath(import.meta.url)), 'helpers', 'skewed-clock.cjs');

describe('a syncer with a wrong clock', () => {
  const t = tempDir('hcc-clock-skew-');
  const procs: ChildProcess[] = [];
  let cc: ControlCenterProcess;
  let scheduler: SchedulerProcess;
  let mgmtKubeconfig = '';
  const k = (args: string[]) => kubectl('1.35', cc.kubeconfig, args);
  const ready = async () => (await k(['get', 'mc', 'm1', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}'])).stdout;

  /** Starts `hcc syncer` for m1 with its clock off by skewMs; resolves once it is ready. */
  const startSkewedSyncer = async (skewMs: number): Promise<ChildProcess> => {
    const args = ['-r', skewedClock, hccBin, 'syncer', '--name', 'm1', '--kubeconfig', cc.kubeconfig, '--management-kubeconfig', mgmtKubeconfig, '--heartbeat-interval', '1'];
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SKEW_MS: String(skewMs) } });
    procs.push(p);
    let out = '';
    p.stdout!.on('data', (d) => (out += d.toString()));
    p.stderr!.on('data', (d) => (out += d.toString()));
    await waitFor('the skewed syncer ready', () => out.includes('"msg":"syncer ready"'), 30_000);
    return p;
  };

  beforeAll(async () => {
    cc = await startControlCenterProcess({ dir: path.join(t.dir, 'cc') });
    mgmtKubeconfig = path.join(t.dir, 'm1.kubeconfig');
    const m = await startHcc(['management-cluster', '--name', 'm1', '--data-dir', path.join(t.dir, 'm1'), '--kubeconfig', mgmtKubeconfig], '"msg":"management cluster ready"');
    procs.push(m.proc);
    // Grace 8 s (heartbeats every 1 s announce a 4 s Lease): far below the skews (a minute, ten),
    // far above how late a heartbeat gets on a loaded machine (the stamps have whole seconds).
    scheduler = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig, args: ['--heartbeat-grace', '8'] });
  }, 120_000);

  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGCONT');
    await scheduler?.stop();
    for (const p of procs.reverse()) await stopProcess(p);
    await cc?.stop();
    t.cleanup();
  });

  it('10 minutes ahead, then silent: HeartbeatExpired within the grace period all the same', async () => {
    const syncer = await startSkewedSyncer(600_000);
    await waitFor('m1 Ready', async () => (await ready()) === 'True/SyncerHeartbeat', 15_000);
    const stamp = Date.parse((await k(['get', 'mc', 'm1', '-o', 'jsonpath={.status.lastHeartbeatTime}'])).stdout);
    expect(stamp - Date.now()).toBeGreaterThan(500_000);
    syncer.kill('SIGSTOP');
    await waitFor('m1 Ready=False HeartbeatExpired', async () => (await ready()) === 'False/HeartbeatExpired', 30_000);
    syncer.kill('SIGCONT');
    await stopProcess(syncer);
  }, 60_000);

  it('a minute behind, heartbeating: stays Ready, no HeartbeatExpired', async () => {
    await startSkewedSyncer(-60_000);
    await waitFor('m1 Ready again', async () => (await ready()) === 'True/SyncerHeartbeat', 15_000);
    const before = (await k(['get', 'events', '--field-selector', 'reason=HeartbeatExpired,involvedObject.name=m1', '-A', '-o', 'jsonpath={range .items[*]}{.count}{" "}{end}'])).stdout;
    const seen = new Set<string>();
    for (const end = Date.now() + 10_000; Date.now() < end; ) {
      seen.add(await ready());
      await new Promise((r) => setTimeout(r, 300));
    }
    expect([...seen]).toEqual(['True/SyncerHeartbeat']);
    // A scheduler that starts (a restart, a new leader) does not take the old stamp for a lost
    // cluster either: it judges from when it sees the heartbeat, as kube's node lifecycle
    // controller assumes "now" for a Node it has not seen yet.
    await scheduler.stop();
    scheduler = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig, args: ['--heartbeat-grace', '8'] });
    for (const end = Date.now() + 10_000; Date.now() < end; ) {
      seen.add(await ready());
      await new Promise((r) => setTimeout(r, 300));
    }
    expect([...seen]).toEqual(['True/SyncerHeartbeat']);
    const after = (await k(['get', 'events', '--field-selector', 'reason=HeartbeatExpired,involvedObject.name=m1', '-A', '-o', 'jsonpath={range .items[*]}{.count}{" "}{end}'])).stdout;
    expect(after).toBe(before);
  }, 60_000);
});
