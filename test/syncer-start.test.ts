/**
 * A syncer started before its control center is reachable (or while it restarts) keeps trying to
 * register, with backoff, and becomes Ready once the control center answers — instead of giving
 * up and idling behind a live /healthz (found by a break test of `hcc up`: a control center
 * killed during the start left both syncers idle for good).
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kubectl, tempDir, waitFor } from './helpers/tools.js';
import { spawnHcc, startControlCenterProcess, startHcc, stopProcess, type ControlCenterProcess } from './helpers/processes.js';

describe('hcc syncer started before the control center answers', () => {
  const t = tempDir('hcc-syncer-start-');
  const procs: ChildProcess[] = [];
  let cc: ControlCenterProcess | undefined;

  afterAll(async () => {
    for (const p of procs.reverse()) await stopProcess(p);
    await cc?.stop();
    t.cleanup();
  });

  it('retries registering until the control center is back, then reports Ready', async () => {
    // A control center that has written its kubeconfig, then is stopped: the syncer's kubeconfig
    // points at a port where nothing listens.
    const first = await startControlCenterProcess({ dir: t.dir });
    const port = Number(new URL(first.url).port);
    await first.kill('SIGTERM');

    const mgmtKubeconfig = path.join(t.dir, 'm1.kubeconfig');
    const mgmt = await startHcc(['management-cluster', '--name', 'm1', '--data-dir', path.join(t.dir, 'm1'), '--kubeconfig', mgmtKubeconfig], '"msg":"management cluster ready"');
    procs.push(mgmt.proc);

    const syncer = spawnHcc(['syncer', '--name', 'm1', '--kubeconfig', first.kubeconfig, '--management-kubeconfig', mgmtKubeconfig, '--heartbeat-interval', '1']);
    procs.push(syncer.proc);
    await waitFor('two failed registrations', () => (syncer.output().match(/registering the ManagementCluster failed; retrying/g) ?? []).length >= 2, 30_000);
    expect(syncer.proc.exitCode, syncer.output()).toBeNull();
    expect(syncer.output()).toContain('ECONNREFUSED');

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
});
