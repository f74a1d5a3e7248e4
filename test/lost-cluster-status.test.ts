/**
 * What a user sees of HostedClusters and NodePools on a management cluster that is lost, and
 * found again (real processes: control center, scheduler, an embedded management cluster with
 * its hypershift-sim, a syncer; kubectl 1.35):
 * - the syncer stops (SIGSTOP): its ManagementCluster goes Ready=False (HeartbeatExpired), and
 *   what is placed there reads `Available=Unknown` / NodePool `Ready=Unknown`, reason
 *   ManagementClusterNotReady, in `kubectl get hc`/`np` and a Warning Event — not the last `True`;
 * - it resumes (SIGCONT): Ready again (a Normal ManagementClusterReady Event), and the syncer puts
 *   each status back from its copy;
 * - the management cluster's API stops answering (SIGSTOP) while the syncer runs: within 1 s the
 *   syncer says so (Ready=False ManagementClusterUnreachable, a Warning Event), the
 *   mark is made, and the syncer does not write its stale cached status over it; the API back,
 *   the status is the copy's again;
 * - the cluster lost again (its API, while its syncer runs on) and retired as the README says
 *   (delete what it holds, then the cluster): all goes, the NodePools deleted after their
 *   HostedCluster included.
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, tempDir, waitFor } from './helpers/tools.js';
import { spawnHcc, startControlCenterProcess, startHcc, startSchedulerProcess, stopProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { nodePool, noneHostedCluster, pullSecret } from './helpers/manifests.js';

const ns = 'lost';

describe('status of what a lost management cluster holds', () => {
  const t = tempDir('hcc-lost-status-');
  const procs: ChildProcess[] = [];
  let cc: ControlCenterProcess;
  let scheduler: SchedulerProcess;
  let mgmt: ChildProcess;
  let syncer: ChildProcess;
  const k = (args: string[], input?: string) => kubectl('1.35', cc.kubeconfig, args, { input });
  const jsonpath = async (args: string[], path: string) => {
    const r = await k([...args, '-o', `jsonpath=${path}`]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  const hcAvailable = () => jsonpath(['get', 'hc', 'ex', '-n', ns], '{.status.conditions[?(@.type=="Available")].status}/{.status.conditions[?(@.type=="Available")].reason}');
  const npReady = () => jsonpath(['get', 'np', 'ex-workers', '-n', ns], '{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}');
  const mcReady = () => jsonpath(['get', 'mc', 'm1'], '{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}');

  beforeAll(async () => {
    cc = await startControlCenterProcess({ dir: path.join(t.dir, 'cc') });
    const mgmtKubeconfig = path.join(t.dir, 'm1.kubeconfig');
    const m = await startHcc(['management-cluster', '--name', 'm1', '--data-dir', path.join(t.dir, 'm1'), '--kubeconfig', mgmtKubeconfig, '--available-delay', '300'], '"msg":"management cluster ready"');
    mgmt = m.proc;
    procs.push(mgmt);
    // Heartbeats every 0.5 s (Lease 2 s); the scheduler's grace 5 s: a lost cluster shows within
    // seconds, and a heartbeat late on a loaded machine (a beat waits up to 1 s on an unreachable
    // management cluster; the stamps have whole seconds) does not expire one that still reports.
    const s = await startHcc(['syncer', '--name', 'm1', '--kubeconfig', cc.kubeconfig, '--management-kubeconfig', mgmtKubeconfig, '--heartbeat-interval', '0.5'], '"msg":"syncer ready"');
    syncer = s.proc;
    procs.push(syncer);
    scheduler = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig, args: ['--heartbeat-grace', '5'] });
    expect((await k(['create', 'namespace', ns])).code).toBe(0);
    const r = await k(['apply', '-f', '-'], [pullSecret('ex', ns), noneHostedCluster('ex', ns), nodePool('ex-workers', 'ex', ns)].join('---\n'));
    expect(r.code, r.stderr).toBe(0);
    await waitFor('ex Available and its NodePool Ready', async () => (await hcAvailable()) === 'True/AsExpected' && (await npReady()) === 'True/AsExpected', 60_000);
  }, 120_000);

  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGCONT');
    await scheduler?.stop();
    for (const p of procs.reverse()) await stopProcess(p);
    await cc?.stop();
    t.cleanup();
  });

  it('a stopped syncer: Ready=False, what it holds reads Unknown and says why; resumed, the status is the copy\'s again', async () => {
    syncer.kill('SIGSTOP');
    await waitFor('m1 Ready=False HeartbeatExpired', async () => (await mcReady()) === 'False/HeartbeatExpired', 30_000);
    await waitFor('ex Available=Unknown', async () => (await hcAvailable()) === 'Unknown/ManagementClusterNotReady', 15_000);
    await waitFor('ex-workers Ready=Unknown', async () => (await npReady()) === 'Unknown/ManagementClusterNotReady', 15_000);
    const since = await jsonpath(['get', 'mc', 'm1'], '{.status.conditions[?(@.type=="Ready")].lastTransitionTime}');
    // What `kubectl get hc` shows: AVAILABLE Unknown, MESSAGE naming the cluster (the rest kept: version, kubeconfig Secret, placement).
    const table = await k(['get', 'hc', '-n', ns]);
    expect(table.stdout).toMatch(new RegExp(`^ex\\s+4\\.16\\.12\\s+ex-admin-kubeconfig\\s+Completed\\s+Unknown\\s+\\S+\\s+Management cluster m1 is not Ready since ${since} \\(HeartbeatExpired\\): the rest of this status is its last report\\s+m1$`, 'm'));
    const events = await k(['get', 'events', '-n', ns, '--field-selector', 'reason=ManagementClusterNotReady', '-o', 'jsonpath={range .items[*]}{.type} {.involvedObject.kind}/{.involvedObject.name}{"\\n"}{end}']);
    expect(events.stdout.trim().split('\n').sort()).toEqual(['Warning HostedCluster/ex', 'Warning NodePool/ex-workers']);

    syncer.kill('SIGCONT');
    await waitFor('m1 Ready again', async () => (await mcReady()) === 'True/SyncerHeartbeat', 30_000);
    // The syncer says so with a Normal Event, as a kubelet records NodeReady.
    await waitFor('a ManagementClusterReady Event', async () => {
      const r = await k(['get', 'events', '-A', '--field-selector', 'reason=ManagementClusterReady,involvedObject.name=m1', '-o', 'jsonpath={range .items[*]}{.type} {.message}{"\\n"}{end}']);
      // Was HeartbeatExpired; on a loaded machine the first heartbeat after SIGCONT may still time
      // out on the management cluster (every timer fires at once) and mark it unreachable first.
      return /Normal Management cluster m1 is Ready again \(was False, (HeartbeatExpired|ManagementClusterUnreachable)\): its syncer reaches it and reports/.test(r.stdout);
    }, 10_000);
    await waitFor('ex Available=True again (from its copy)', async () => (await hcAvailable()) === 'True/AsExpected', 15_000);
    // Available again upstream after the outage, not at the copy's older transition time.
    const availableSince = await jsonpath(['get', 'hc', 'ex', '-n', ns], '{.status.conditions[?(@.type=="Available")].lastTransitionTime}');
    expect(Date.parse(availableSince)).toBeGreaterThanOrEqual(Date.parse(since));
    await waitFor('ex-workers Ready=True again', async () => (await npReady()) === 'True/AsExpected', 15_000);
  }, 90_000);

  it('an unreachable management cluster: the syncer does not copy its stale cache over the mark; reachable, the status comes back', async () => {
    mgmt.kill('SIGSTOP');
    // The syncer says so (its heartbeat waits at most 1 s, half its 2 s Lease, for the API), with a Warning Event.
    // Reason and message read together: one condition, not two reads across a change.
    const marked = 'False/ManagementClusterUnreachable|';
    const why = await waitFor('m1 Ready=False ManagementClusterUnreachable', async () => {
      const r = await jsonpath(['get', 'mc', 'm1'], '{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}|{.status.conditions[?(@.type=="Ready")].message}');
      return r.startsWith(marked) ? r.slice(marked.length) : undefined;
    }, 15_000);
    expect(why).toBe("The syncer runs but cannot reach the management cluster's API (the management cluster's API did not answer within 1s); no new HostedClusters are placed here");
    await waitFor('a ManagementClusterUnreachable Event', async () =>
      (await k(['get', 'events', '-A', '--field-selector', 'reason=ManagementClusterUnreachable,involvedObject.name=m1', '-o', 'jsonpath={.items[*].type}'])).stdout.includes('Warning'), 10_000);
    await waitFor('ex Available=Unknown', async () => (await hcAvailable()) === 'Unknown/ManagementClusterNotReady', 15_000);
    // The syncer is running (its cache says Available=True) and sees the mark: it leaves it.
    const seen = new Set<string>();
    for (const end = Date.now() + 3000; Date.now() < end; ) {
      seen.add(await hcAvailable());
      await new Promise((r) => setTimeout(r, 200));
    }
    expect([...seen]).toEqual(['Unknown/ManagementClusterNotReady']);

    mgmt.kill('SIGCONT');
    await waitFor('m1 Ready again', async () => (await mcReady()) === 'True/SyncerHeartbeat', 60_000);
    await waitFor('ex Available=True again', async () => (await hcAvailable()) === 'True/AsExpected', 20_000);
  }, 150_000);

  it('a ManagementCluster removed by force (finalizer taken off) while it holds HostedClusters: they read Unknown, "no longer exists"', async () => {
    syncer.kill('SIGSTOP');
    try {
      expect((await k(['delete', 'mc', 'm1', '--wait=false'])).code).toBe(0);
      expect((await k(['patch', 'mc', 'm1', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]'])).code).toBe(0);
      await waitFor('m1 gone', async () => (await k(['get', 'mc', 'm1', '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 15_000);
      await waitFor('ex Available=Unknown', async () => (await hcAvailable()) === 'Unknown/ManagementClusterNotReady', 15_000);
      await waitFor('ex-workers Ready=Unknown', async () => (await npReady()) === 'Unknown/ManagementClusterNotReady', 15_000);
      expect(await jsonpath(['get', 'hc', 'ex', '-n', ns], '{.status.conditions[?(@.type=="Available")].message}')).toBe(
        'Management cluster m1 no longer exists (its ManagementCluster was deleted): the rest of this status is its last report',
      );
    } finally {
      syncer.kill('SIGCONT');
    }
    // Its pull syncer registers it again (a new ManagementCluster), and the status is the copy's again.
    await waitFor('m1 Ready again', async () => (await k(['get', 'mc', 'm1', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).stdout === 'True', 30_000);
    await waitFor('ex Available=True again', async () => (await hcAvailable()) === 'True/AsExpected', 20_000);
  }, 90_000);

  it('retiring a lost cluster as the README says lets everything go, the NodePools deleted after their HostedCluster included, also while its syncer still runs', async () => {
    // Its API gone, its syncer still running and reporting ManagementClusterUnreachable (as a push
    // syncer, or a pull syncer outside its cluster, outlives the cluster): lost all the same.
    mgmt.kill('SIGSTOP');
    await waitFor('m1 Ready=False ManagementClusterUnreachable', async () => (await mcReady()) === 'False/ManagementClusterUnreachable', 30_000);
    const uid = await jsonpath(['get', 'mc', 'm1'], '{.metadata.uid}');
    // The HostedCluster first (its deletion waits for the lost syncer; an Event says so and how
    // to retire the cluster), then the cluster, as that Event says.
    expect((await k(['delete', 'hc', '-A', '-l', 'controlcenter.hcc.dev/management-cluster=m1', '--wait=false'])).code).toBe(0);
    await waitFor('a WaitingForManagementCluster Event on ex', async () =>
      (await k(['get', 'events', '-n', ns, '--field-selector', 'reason=WaitingForManagementCluster,involvedObject.name=ex', '-o', 'jsonpath={.items[*].message}'])).stdout.includes(
        'Deletion waits for the syncer of management cluster m1 to tear down the copy there; the cluster is not Ready (',
      ), 15_000);
    expect((await k(['delete', 'mc', 'm1', '--wait=false'])).code).toBe(0);
    const gone = async (args: string[]) => (await k([...args, '--ignore-not-found', '-o', 'name'])).stdout.trim() === '';
    // The NodePool is deleted only after its HostedCluster is gone: the cluster waits for it too
    // (it used to go first, leaving the NodePool Terminating for good). A pull syncer that still
    // runs registers its cluster again once it is gone (the README says to stop it first): that is
    // a new ManagementCluster.
    await waitFor('the HostedCluster, its NodePool and the ManagementCluster gone', async () =>
      (await gone(['get', 'hc', 'ex', '-n', ns])) && (await gone(['get', 'np', 'ex-workers', '-n', ns])) && (await k(['get', 'mc', 'm1', '--ignore-not-found', '-o', 'jsonpath={.metadata.uid}'])).stdout.trim() !== uid, 60_000);
    const events = await k(['get', 'events', '-n', ns, '--field-selector', 'reason=SyncerGone', '-o', 'jsonpath={range .items[*]}{.involvedObject.kind}/{.involvedObject.name}{"\\n"}{end}']);
    expect(events.stdout.trim().split('\n').sort()).toEqual(['HostedCluster/ex', 'NodePool/ex-workers']);
    // The namespace can go too (nothing left holding a finalizer).
    const del = await k(['delete', 'namespace', ns, '--timeout=30s']);
    expect(del.code, del.stderr).toBe(0);
  }, 120_000);
});
