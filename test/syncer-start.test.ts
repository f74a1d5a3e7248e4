/**
 * A syncer started before its control center is reachable (or while it restarts) keeps trying to
 * register, with backoff, and becomes Ready once the control center answers — instead of giving
 * up and idling behind a live /healthz (found by a break test of `hcc up`: a control center
 * killed during the start left both syncers idle for good).
 *
 * Then, with the same processes and a scheduler whose `--heartbeat-grace` is shorter than the
 * syncer's heartbeat interval: the cluster stays Ready (the scheduler honours the Lease duration
 * the syncer announces), also across a control-center restart longer than that grace (the time
 * the scheduler could not see the cluster does not count); deleted, its ManagementCluster takes
 * the syncer's Lease with it.
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isNotFound, loadKubeconfig, RestClient } from '@hcc/client';
import { LeaseResource, ManagementClusterResource, SystemNamespace, type KubeObject, type ManagementCluster } from '@hcc/crds';
import { kubectl, tempDir, waitFor } from './helpers/tools.js';
import { spawnHcc, startControlCenterProcess, startHcc, startSchedulerProcess, stopProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';

describe('hcc syncer started before the control center answers', () => {
  const t = tempDir('hcc-syncer-start-');
  const procs: ChildProcess[] = [];
  let cc: ControlCenterProcess | undefined;
  /** The syncer the first test starts (the second one goes on with it). */
  let runningSyncer: ReturnType<typeof spawnHcc> | undefined;
  let scheduler: SchedulerProcess | undefined;
  let client: RestClient | undefined;
  /** The control center's port: it comes back on the same one. */
  let port = 0;
  const readyOf = async () => (await client!.get<ManagementCluster>(ManagementClusterResource, undefined, 'm1')).status?.conditions?.find((x) => x.type === 'Ready');
  /** Reads m1's Ready condition every 100 ms for `ms`: each `status/reason` seen that was not `True/SyncerHeartbeat`. */
  const notReadySeen = async (ms: number): Promise<string[]> => {
    const seen: string[] = [];
    for (const end = Date.now() + ms; Date.now() < end; ) {
      const r = await readyOf();
      seen.push(`${r?.status}/${r?.reason}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    return seen.filter((x) => x !== 'True/SyncerHeartbeat');
  };

  afterAll(async () => {
    client?.close();
    await scheduler?.stop();
    for (const p of procs.reverse()) await stopProcess(p);
    await cc?.stop();
    t.cleanup();
  });

  it('retries registering until the control center is back, then reports Ready', async () => {
    // A control center that has written its kubeconfig, then is stopped: the syncer's kubeconfig
    // points at a port where nothing listens.
    const first = await startControlCenterProcess({ dir: t.dir });
    port = Number(new URL(first.url).port);
    await first.kill('SIGTERM');

    const mgmtKubeconfig = path.join(t.dir, 'm1.kubeconfig');
    const mgmt = await startHcc(['management-cluster', '--name', 'm1', '--data-dir', path.join(t.dir, 'm1'), '--kubeconfig', mgmtKubeconfig], '"msg":"management cluster ready"');
    procs.push(mgmt.proc);

    const syncer = spawnHcc(['syncer', '--name', 'm1', '--kubeconfig', first.kubeconfig, '--management-kubeconfig', mgmtKubeconfig, '--heartbeat-interval', '1']);
    procs.push(syncer.proc);
    runningSyncer = syncer;
    // It first reads the control center's ID (its copies carry it), then registers: both retried.
    await waitFor("two failed reads of the control center's ID", () => (syncer.output().match(/reading the control center's ID \(its kube-system namespace\) failed; retrying/g) ?? []).length >= 2, 30_000);
    expect(syncer.proc.exitCode, syncer.output()).toBeNull();
    expect(syncer.output()).toContain('ECONNREFUSED');
    // /readyz says which step fails and why, once (not the step, then the step again).
    const started = syncer.output().split('\n').find((l) => l.includes('"msg":"syncer started"'));
    const metrics = new URL(JSON.parse(started!).metrics as string);
    const ready = await fetch(new URL('/readyz?verbose', metrics));
    expect(ready.status).toBe(500); // as kube-apiserver's /readyz with a failed check
    const why = await ready.text();
    expect(why).toMatch(/reading the control center ID failed \(retrying\): .*ECONNREFUSED/);
    expect(why).not.toContain('ID; reading');

    // The control center comes back on the same port.
    cc = await startControlCenterProcess({ dir: t.dir, port });
    await waitFor('syncer ready', () => {
      if (syncer.proc.exitCode !== null) throw new Error(`syncer exited: ${syncer.output()}`);
      return syncer.output().includes('"msg":"syncer ready"');
    }, 60_000);
    await waitFor('ManagementCluster m1 Ready', async () => {
      const r = await kubectl('1.35', cc!.kubeconfig, ['get', 'mc', 'm1', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
      return r.stdout.trim() === 'True';
    }, 60_000);
  }, 180_000);

  it('stays Ready under a scheduler whose --heartbeat-grace is shorter than its heartbeat interval', async () => {
    expect(cc && runningSyncer, 'the previous test started the control center and the syncer').toBeTruthy();
    client = new RestClient(loadKubeconfig(cc!.kubeconfig));
    const c = client;
    // The syncer beats every 1 s and announces its Lease duration (4 × 1 s); the scheduler's own
    // grace is 0.5 s: the shape of a 60 s interval under the default 40 s grace, in seconds.
    const mc = await c.get<ManagementCluster>(ManagementClusterResource, undefined, 'm1');
    expect(mc.status?.leaseDurationSeconds).toBe(4);
    scheduler = await startSchedulerProcess({ kubeconfig: cc!.schedulerKubeconfig, args: ['--heartbeat-grace', '0.5'] });
    const before = await readyOf();
    expect(before?.status).toBe('True');
    // Once per interval the old scheduler declared it lost 0.6 s after each beat (Ready=False for ~0.4 s).
    expect(await notReadySeen(6000)).toEqual([]);
    expect((await readyOf())?.lastTransitionTime).toBe(before?.lastTransitionTime);
  }, 90_000);

  it('stays Ready across a control-center restart longer than its grace period: time the scheduler could not see does not count', async () => {
    expect(cc && runningSyncer && scheduler && client, 'the previous tests started every process').toBeTruthy();
    const expiredEvents = async () => (await kubectl('1.35', cc!.kubeconfig, ['get', 'events', '-A', '--field-selector', 'reason=HeartbeatExpired,involvedObject.name=m1', '-o', 'name'])).stdout.trim();
    const before = await readyOf();
    expect(before?.status).toBe('True');
    expect(await expiredEvents()).toBe('');
    // The control center is away for 6 s, longer than the cluster's 4 s grace (its syncer's Lease);
    // the syncer, paused meanwhile, heartbeats again 0.5 s after the control center is back. The
    // scheduler counted the whole outage into the heartbeat's age and declared the cluster lost
    // as soon as it could write (Ready=False for the second until the syncer's next heartbeat).
    await cc!.kill('SIGTERM');
    runningSyncer!.proc.kill('SIGSTOP');
    try {
      await new Promise((res) => setTimeout(res, 6000));
      cc = await startControlCenterProcess({ dir: t.dir, port });
      // Not longer: on a loaded machine the syncer's first beat after SIGCONT takes another second.
      await new Promise((res) => setTimeout(res, 500));
    } finally {
      runningSyncer!.proc.kill('SIGCONT');
    }
    expect(await notReadySeen(6000)).toEqual([]);
    expect((await readyOf())?.lastTransitionTime, 'Ready never left True').toBe(before?.lastTransitionTime);
    expect(await expiredEvents()).toBe('');
  }, 90_000);

  it('says in /readyz, once it served, that heartbeats have failed for longer than its Lease (counted in /metrics) or that the management cluster does not answer; ready again once they do', async () => {
    expect(cc && runningSyncer, 'the previous tests started every process').toBeTruthy();
    const started = runningSyncer!.output().split('\n').find((l) => l.includes('"msg":"syncer started"'));
    const ops = new URL(JSON.parse(started!).metrics as string);
    const readyz = async () => {
      const r = await fetch(new URL('/readyz?verbose', ops));
      return { code: r.status, text: await r.text() };
    };
    expect((await readyz()).code).toBe(200);
    await cc!.kill('SIGTERM');
    try {
      // Heartbeats every 1 s, a 4 s Lease: unready once the last good one is older than that.
      const notReady = await waitFor('/readyz failing', async () => {
        const r = await readyz();
        return r.code !== 200 && r.text;
      }, 30_000);
      expect(notReady).toMatch(/heartbeats have failed for \d+s, longer than the 4s Lease, so the control center takes m1 as not ready: .*ECONNREFUSED/);
      const metrics = await (await fetch(new URL('/metrics', ops))).text();
      expect(Number(/hcc_syncer_heartbeats_total\{cluster="m1",result="failure"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0);
      expect(Number(/hcc_syncer_heartbeats_total\{cluster="m1",result="success"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0);
      const last = Number(/hcc_syncer_last_heartbeat_success_timestamp_seconds\{cluster="m1"\} ([\d.e+]+)/.exec(metrics)?.[1]);
      expect(Date.now() / 1000 - last).toBeGreaterThan(4);
    } finally {
      cc = await startControlCenterProcess({ dir: t.dir, port });
    }
    await waitFor('/readyz ok again', async () => (await readyz()).code === 200, 30_000);
    // The management cluster's API stops answering (its process paused): unready, saying so.
    const mgmt = procs[0]!;
    mgmt.kill('SIGSTOP');
    try {
      const unreachable = await waitFor('/readyz naming the management cluster', async () => {
        const r = await readyz();
        return r.code !== 200 && r.text;
      }, 30_000);
      expect(unreachable).toContain("the management cluster's API does not answer (the control center shows m1 not ready)");
    } finally {
      mgmt.kill('SIGCONT');
    }
    await waitFor('/readyz ok once it answers', async () => (await readyz()).code === 200, 30_000);
    // A control center that hangs (paused) rather than refuses: the heartbeat in flight has no answer yet.
    cc!.proc.kill('SIGSTOP');
    try {
      const hung = await waitFor('/readyz failing while the control center hangs', async () => {
        const r = await readyz();
        return r.code !== 200 && r.text;
      }, 30_000);
      expect(hung).toMatch(/heartbeats have failed for \d+s, longer than the 4s Lease, so the control center takes m1 as not ready: \S/);
    } finally {
      cc!.proc.kill('SIGCONT');
    }
    await waitFor('/readyz ok once the control center answers again', async () => (await readyz()).code === 200, 30_000);
  }, 120_000);

  it('owns its Lease by its ManagementCluster, so deleting the cluster deletes the Lease', async () => {
    expect(cc && runningSyncer, 'the previous tests started the control center and the syncer').toBeTruthy();
    const c = client ?? (client = new RestClient(loadKubeconfig(cc!.kubeconfig)));
    const mc = await c.get<ManagementCluster>(ManagementClusterResource, undefined, 'm1');
    const lease = await c.get<KubeObject>(LeaseResource, SystemNamespace, 'm1');
    expect(lease.metadata.ownerReferences).toEqual([{ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', name: 'm1', uid: mc.metadata.uid }]);
    // Its syncer stopped first (a running one registers its cluster again), the cluster is deleted:
    // the control center's garbage collector deletes the Lease, as kube's deletes a Node's Lease.
    await stopProcess(runningSyncer!.proc);
    const del = await kubectl('1.35', cc!.kubeconfig, ['delete', 'mc', 'm1', '--timeout=30s']);
    expect(del.code, del.stderr).toBe(0);
    await waitFor('the Lease hcc-system/m1 deleted with its ManagementCluster', async () => {
      try {
        await c.get(LeaseResource, SystemNamespace, 'm1');
        return false;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    }, 20_000);
  }, 60_000);
});
