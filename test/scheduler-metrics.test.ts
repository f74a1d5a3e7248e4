/**
 * The scheduler's per-cluster gauges as Prometheus reads them: a ManagementCluster without a
 * capacity is unbounded, `+Inf` (not a sentinel such as -1, which a `free_slots < N` alert or a
 * `sum()` would misread), one with a capacity shows it. Real processes: `hcc control-center`,
 * `hcc scheduler`, kubectl.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, waitFor } from './helpers/tools.js';
import { startControlCenterProcess, startSchedulerProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';

describe('scheduler per-cluster gauges', () => {
  let cc: ControlCenterProcess;
  let scheduler: SchedulerProcess;
  beforeAll(async () => {
    cc = await startControlCenterProcess();
    scheduler = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig });
  }, 60_000);
  afterAll(async () => {
    await scheduler?.stop();
    await cc?.stop();
  });

  it('shows an unbounded cluster as +Inf capacity and free slots, a bounded one as its number', async () => {
    const mc = (name: string, spec: string) => `apiVersion: controlcenter.hcc.dev/v1alpha1\nkind: ManagementCluster\nmetadata:\n  name: ${name}\nspec: ${spec}\n`;
    const r = await kubectl('1.35', cc.kubeconfig, ['create', '-f', '-'], { input: `${mc('unbounded', '{}')}---\n${mc('bounded', '{capacity: 7}')}` });
    expect(r.code, r.stderr).toBe(0);
    const text = await waitFor('both clusters in /metrics', async () => {
      const t = await (await fetch(`${scheduler.url}/metrics`)).text();
      return t.includes('hcc_managementcluster_capacity{cluster="unbounded"}') && t.includes('hcc_managementcluster_capacity{cluster="bounded"}') && t;
    }, 30_000);
    expect(text).toContain('hcc_managementcluster_capacity{cluster="unbounded"} +Inf');
    expect(text).toContain('hcc_managementcluster_free_slots{cluster="unbounded"} +Inf');
    expect(text).toContain('hcc_managementcluster_capacity{cluster="bounded"} 7');
    expect(text).not.toMatch(/hcc_managementcluster_(capacity|free_slots)\{[^}]*\} -1$/m);
  }, 60_000);
});
