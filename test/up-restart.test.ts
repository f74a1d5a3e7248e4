/**
 * `hcc up` stopped and started again on the same state dir: what was created is still there, and
 * the control center and the management clusters come back on the ports they had, so a copy of
 * the admin kubeconfig taken before (an external syncer's, one merged into ~/.kube/config) still
 * works, as a kind cluster keeps its API server port across restarts. A port taken meanwhile by
 * another process is not fought over: that server gets a new one and its kubeconfig says so. What
 * the restart does not change (a --capacity the clusters keep, clusters no longer started) is said
 * on the console.
 */
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kubectl, tempDir, waitFor } from './helpers/tools.js';
import { startHccUp, type HccUp } from './helpers/processes.js';
import { noneHostedCluster, pullSecret } from './helpers/manifests.js';

const serverOf = (kubeconfig: string) => /server: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))![1]!;

describe('hcc up restarted on the same state dir', () => {
  const t = tempDir('hcc-up-restart-');
  const stateDir = path.join(t.dir, 'state');
  let hcc: HccUp | undefined;
  let blocker: Server | undefined;
  afterAll(async () => {
    await hcc?.stop();
    blocker?.close();
    t.cleanup();
  });

  it('keeps what was created and comes back on the same ports; a port taken meanwhile is given up for a free one', async () => {
    hcc = await startHccUp(['--state-dir', stateDir, '--management-clusters', '2']);
    const admin = path.join(stateDir, 'admin.kubeconfig');
    const copy = path.join(t.dir, 'copied.kubeconfig');
    copyFileSync(admin, copy);
    const k = (args: string[], input?: string) => kubectl('1.35', copy, args, { input });
    expect((await k(['create', 'namespace', 'keep'])).code).toBe(0);
    const r = await k(['apply', '-f', '-'], `${pullSecret('ex', 'keep')}---\n${noneHostedCluster('ex', 'keep')}`);
    expect(r.code, r.stderr).toBe(0);
    expect((await k(['wait', '--for=condition=Available', 'hc/ex', '-n', 'keep', '--timeout=60s'])).code).toBe(0);
    const before = { cc: serverOf(admin), m1: serverOf(path.join(stateDir, 'management-clusters', 'mgmt-1.kubeconfig')), m2: serverOf(path.join(stateDir, 'management-clusters', 'mgmt-2.kubeconfig')) };
    await hcc.stop();
    hcc = undefined;

    // Another process takes mgmt-2's port while hcc is down.
    blocker = createServer();
    await new Promise<void>((res) => blocker!.listen({ host: '127.0.0.1', port: Number(new URL(before.m2).port) }, res));

    hcc = await startHccUp(['--state-dir', stateDir, '--management-clusters', '2', '--capacity', '7']);
    // A setting the existing clusters keep is said on the console, not only in a syncer's log.
    expect(hcc.output()).toContain('! --capacity 7 not applied: mgmt-1 keeps 50, mgmt-2 keeps 50 (set when first created; change it with kubectl patch mc NAME');
    expect(serverOf(admin)).toBe(before.cc);
    expect(serverOf(path.join(stateDir, 'management-clusters', 'mgmt-1.kubeconfig'))).toBe(before.m1);
    const m2 = serverOf(path.join(stateDir, 'management-clusters', 'mgmt-2.kubeconfig'));
    expect(m2).not.toBe(before.m2);
    // And says so: copies of that kubeconfig need the new port.
    expect(hcc.output()).toContain(`! mgmt-2: port ${new URL(before.m2).port} (in mgmt-2.kubeconfig before) is taken by another process; now at ${m2}: copies of mgmt-2.kubeconfig taken earlier need the new one`);
    expect(hcc.output()).not.toContain('! control center: port');
    // The copy taken before the restart still reaches the control center, which still holds the HostedCluster.
    await waitFor('ex Available after the restart', async () => (await k(['get', 'hc', 'ex', '-n', 'keep', '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}'])).stdout === 'True', 30_000);
    const mcs = await k(['get', 'mc', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}']);
    expect(mcs.stdout.trim()).toBe('mgmt-1=True mgmt-2=True');

    // Fewer management clusters than before: the one left out is named, with what to do.
    await hcc.stop();
    // (With a short --heartbeat-grace for its scheduler: heartbeats every 1 s announce a 4 s Lease.)
    hcc = await startHccUp(['--state-dir', stateDir, '--management-clusters', '1', '--heartbeat-grace', '2']);
    expect(hcc.output()).toContain('! mgmt-2 registered earlier in this state dir but not started now (--management-clusters 1): it goes Ready=False and keeps what is placed there');
    // It does, within seconds rather than the default 40 s grace.
    await waitFor('mgmt-2 Ready=False HeartbeatExpired', async () =>
      (await k(['get', 'mc', 'mgmt-2', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}'])).stdout === 'False/HeartbeatExpired', 20_000);
  }, 180_000);

  it('an embedded cluster whose data was removed by hand comes back under its name: its old registration is cleared and what was placed there is copied again', async () => {
    await hcc?.stop();
    hcc = undefined;
    const dir = path.join(t.dir, 'rebuilt');
    const k = (args: string[], input?: string) => kubectl('1.35', path.join(dir, 'admin.kubeconfig'), args, { input });
    const inMgmt2 = (args: string[]) => kubectl('1.35', path.join(dir, 'management-clusters', 'mgmt-2.kubeconfig'), args);
    hcc = await startHccUp(['--state-dir', dir, '--management-clusters', '2']);
    // Placed on mgmt-2: mgmt-1 cordoned.
    expect((await k(['patch', 'mc', 'mgmt-1', '--type=merge', '-p', '{"spec":{"unschedulable":true}}'])).code).toBe(0);
    expect((await k(['create', 'namespace', 'rb'])).code).toBe(0);
    const r = await k(['apply', '-f', '-'], `${pullSecret('rx', 'rb')}---\n${noneHostedCluster('rx', 'rb')}`);
    expect(r.code, r.stderr).toBe(0);
    expect((await k(['wait', '--for=condition=Available', 'hc/rx', '-n', 'rb', '--timeout=60s'])).code).toBe(0);
    expect((await k(['get', 'hc', 'rx', '-n', 'rb', '-o', 'jsonpath={.metadata.labels.controlcenter\\.hcc\\.dev/management-cluster}'])).stdout).toBe('mgmt-2');
    const oldID = (await k(['get', 'mc', 'mgmt-2', '-o', 'jsonpath={.status.clusterID}'])).stdout;
    expect(oldID).not.toBe('');
    // hcc up records the ID of each embedded cluster it runs: only a registration it knows was its own is ever cleared.
    expect(readFileSync(path.join(dir, 'management-clusters', 'mgmt-2.cluster-id'), 'utf8').trim()).toBe(oldID);
    expect(hcc.output()).not.toContain('a new cluster under the name');
    await hcc.stop();
    hcc = undefined;

    // Restarted within the heartbeat grace (mgmt-2 still reads Ready=True from the last run).
    rmSync(path.join(dir, 'data', 'mgmt-2'), { recursive: true });
    hcc = await startHccUp(['--state-dir', dir, '--management-clusters', '2']);
    expect(hcc.output()).toContain('• mgmt-2: a new cluster under the name (its data removed by hand): the old one\'s cluster ID and Lease cleared, so its syncer takes the name; what is placed there is copied again');
    // Its new syncer holds the name: a new cluster ID, Ready from a heartbeat of this start.
    const newID = (await k(['get', 'mc', 'mgmt-2', '-o', 'jsonpath={.status.clusterID}'])).stdout;
    expect(newID).not.toBe('');
    expect(newID).not.toBe(oldID);
    expect(readFileSync(path.join(dir, 'management-clusters', 'mgmt-2.cluster-id'), 'utf8').trim()).toBe(newID);
    // What was placed there is in the new cluster again, and Available upstream from it.
    await waitFor('the copy of rx in the new mgmt-2', async () => (await inMgmt2(['get', 'hc', 'rx', '-n', 'rb', '-o', 'name'])).stdout.trim() === 'hostedcluster.hypershift.openshift.io/rx', 30_000);
    await waitFor('rx Available from the new copy', async () => (await inMgmt2(['get', 'hc', 'rx', '-n', 'rb', '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}'])).stdout === 'True', 30_000);
    expect((await k(['wait', '--for=condition=Available', 'hc/rx', '-n', 'rb', '--timeout=30s'])).code).toBe(0);
    // No conflict was ever recorded for it.
    expect((await k(['get', 'events', '--field-selector', 'reason=SyncerConflict', '-A', '-o', 'name'])).stdout.trim()).toBe('');

    // A record that is no cluster ID (edited by hand) counts as none: a registration whose Lease
    // has expired (4 s with 1 s heartbeats) is still cleared.
    await hcc.stop();
    hcc = undefined;
    writeFileSync(path.join(dir, 'management-clusters', 'mgmt-2.cluster-id'), 'garbage!!\n');
    rmSync(path.join(dir, 'data', 'mgmt-2'), { recursive: true });
    await new Promise((r) => setTimeout(r, 6000));
    hcc = await startHccUp(['--state-dir', dir, '--management-clusters', '2']);
    expect(hcc.output()).toContain('• mgmt-2: a new cluster under the name');
    const thirdID = (await k(['get', 'mc', 'mgmt-2', '-o', 'jsonpath={.status.clusterID}'])).stdout;
    expect(thirdID).not.toBe(newID);
    expect(readFileSync(path.join(dir, 'management-clusters', 'mgmt-2.cluster-id'), 'utf8').trim()).toBe(thirdID);
  }, 180_000);

  it('switching --mode keeps what the clusters were given; a Pull start after a Push one switches them to Pull and keeps serving what they hold', async () => {
    await hcc?.stop();
    const dir = path.join(t.dir, 'push-then-pull');
    const k = (args: string[], input?: string) => kubectl('1.35', path.join(dir, 'admin.kubeconfig'), args, { input });
    hcc = await startHccUp(['--state-dir', dir, '--management-clusters', '1']);
    expect((await k(['patch', 'mc', 'mgmt-1', '--type=merge', '-p', '{"spec":{"capacity":7,"platforms":["None","AWS"]}}'])).code).toBe(0);
    await hcc.stop();
    hcc = undefined;
    hcc = await startHccUp(['--state-dir', dir, '--management-clusters', '1', '--mode', 'Push']);
    // The operator's capacity and platforms stay (set when first created), in Push mode too.
    expect((await k(['get', 'mc', 'mgmt-1', '-o', 'jsonpath={.spec.mode} {.spec.capacity} {.spec.platforms}'])).stdout).toBe('Push 7 ["None","AWS"]');
    // The kubeconfig Secret it wrote is owned by the cluster: it goes with it.
    const uid = (await k(['get', 'mc', 'mgmt-1', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    expect(JSON.parse((await k(['get', 'secret', 'mgmt-1-kubeconfig', '-n', 'hcc-system', '-o', 'jsonpath={.metadata.ownerReferences}'])).stdout)).toEqual([
      { apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', name: 'mgmt-1', uid },
    ]);
    expect((await k(['create', 'namespace', 'sw'])).code).toBe(0);
    const r = await k(['apply', '-f', '-'], `${pullSecret('sx', 'sw')}---\n${noneHostedCluster('sx', 'sw')}`);
    expect(r.code, r.stderr).toBe(0);
    expect((await k(['wait', '--for=condition=Available', 'hc/sx', '-n', 'sw', '--timeout=60s'])).code).toBe(0);
    await hcc.stop();
    hcc = undefined;

    hcc = await startHccUp(['--state-dir', dir, '--management-clusters', '1']);
    expect(hcc.output()).toContain('• mgmt-1 was in Push mode (an earlier --mode Push start): now Pull, its kubeconfig Secret deleted');
    const mc = JSON.parse((await k(['get', 'mc', 'mgmt-1', '-o', 'json'])).stdout);
    expect(mc.spec.mode).toBe('Pull');
    expect(mc.spec.kubeconfigSecretRef).toBeUndefined();
    expect((await k(['get', 'secret', 'mgmt-1-kubeconfig', '-n', 'hcc-system', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    // Its pull syncer serves what the push syncer placed: a change upstream reaches the copy.
    expect((await k(['label', 'hc', 'sx', '-n', 'sw', 'switched=yes'])).code).toBe(0);
    await waitFor('the label on the copy in mgmt-1', async () =>
      (await kubectl('1.35', path.join(dir, 'management-clusters', 'mgmt-1.kubeconfig'), ['get', 'hc', 'sx', '-n', 'sw', '-o', 'jsonpath={.metadata.labels.switched}'])).stdout === 'yes', 30_000);
  }, 180_000);
});
