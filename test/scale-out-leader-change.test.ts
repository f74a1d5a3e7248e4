/**
 * The scale-out signal's `minIntervalSeconds` holds across a leader change: `hcc control-center` +
 * `hcc scheduler --config FILE` (scaleOut.command appends a line per signal), the test playing the
 * syncers of a full fleet. The scheduler signals once; a new scheduler process (as after a
 * restart, a standby taking over, or a Lease lost to a control-center outage and won back) reads
 * the last `FleetOutOfBudget` Event and does not signal again within the interval, though it
 * leads and still sees the missing slots.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeconfig, RestClient } from '@hcc/client';
import { HostedClusterResource, NamespaceResource, SecretResource } from '@hcc/crds';
import { startControlCenterProcess, startSchedulerProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { FakeFleet, minimalHostedCluster } from './helpers/fake-fleet.js';
import { tempDir, waitFor } from './helpers/tools.js';

describe('scale-out signal across a leader change', () => {
  let cc: ControlCenterProcess;
  let sched: SchedulerProcess | undefined;
  let client: RestClient;
  let fleet: FakeFleet;
  const dir = tempDir('hcc-scale-out-leader-');
  const signals = path.join(dir.dir, 'signals.txt');
  const config = path.join(dir.dir, 'scheduler.yaml');
  const signalCount = () => (existsSync(signals) ? readFileSync(signals, 'utf8').split('\n').filter(Boolean).length : 0);

  beforeAll(async () => {
    writeFileSync(
      config,
      [
        'apiVersion: controlcenter.hcc.dev/v1alpha1',
        'kind: SchedulerConfiguration',
        'scaleOut:',
        `  command: [${JSON.stringify(process.execPath)}, -e, ${JSON.stringify(`require("fs").appendFileSync(${JSON.stringify(signals)}, new Date().toISOString() + "\\n")`)}]`,
        '  minIntervalSeconds: 300',
        '  debounceSeconds: 1',
      ].join('\n'),
    );
    cc = await startControlCenterProcess();
    client = new RestClient(loadKubeconfig(cc.kubeconfig));
    await client.create(NamespaceResource, undefined, { metadata: { name: 'fleet' } });
    await client.create(SecretResource, 'fleet', { metadata: { name: 'pull-secret', namespace: 'fleet' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from('{}').toString('base64') } });
    fleet = new FakeFleet(client, { heartbeatMs: [300, 500], lagMs: [0, 200] });
    await fleet.start();
    await fleet.register({ name: 'small', capacity: 1, platforms: ['None'] });
  });
  afterAll(async () => {
    await fleet?.stop();
    await sched?.stop();
    client?.close();
    await cc?.stop();
    dir.cleanup();
  });

  it('signals once, and a new leader within minIntervalSeconds does not signal again', async () => {
    const start = () => startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig, args: ['--config', config] });
    sched = await start();
    for (const n of ['a', 'b', 'c']) await client.create(HostedClusterResource, 'fleet', minimalHostedCluster(n, 'fleet', { platform: 'None' }));
    await waitFor('the first scale-out signal', () => signalCount() === 1, 20_000);
    await sched.stop();

    sched = await start();
    await waitFor('the new scheduler to see 2 missing slots', async () => (await sched!.metric('hcc_scheduler_missing_slots')) === 2, 30_000);
    // Debounce (1 s) and several ticks later: still the one signal.
    await new Promise((r) => setTimeout(r, 4000));
    expect(signalCount()).toBe(1);
  });
});
