import { describe, expect, it } from 'vitest';
import { Store } from '@hcc/client';
import type { Condition, ManagementCluster } from '@hcc/crds';
import { reconcileClusterHealth } from './cluster-health.js';

const now = new Date('2026-11-30T00:00:00Z');
const mc = (o: { ready?: 'True' | 'False'; heartbeatAgeMs?: number; reason?: string; createdAgoMs?: number; leaseDurationSeconds?: number }): ManagementCluster => ({
  metadata: { name: 'm', ...(o.createdAgoMs !== undefined && { creationTimestamp: new Date(now.getTime() - o.createdAgoMs).toISOString() }) },
  spec: {},
  status: {
    conditions: o.ready ? [{ type: 'Ready', status: o.ready, reason: o.reason ?? 'SyncerHeartbeat', lastTransitionTime: '2026-11-29T00:00:00Z' }] : [],
    lastHeartbeatTime: o.heartbeatAgeMs === undefined ? undefined : new Date(now.getTime() - o.heartbeatAgeMs).toISOString(),
    ...(o.leaseDurationSeconds !== undefined && { leaseDurationSeconds: o.leaseDurationSeconds }),
  },
});

describe('reconcileClusterHealth', () => {
  it.each([
    { name: 'fresh heartbeat: look again when it would expire', input: mc({ ready: 'True', heartbeatAgeMs: 10_000 }), want: { result: { requeueAfterMs: 30_100 }, write: undefined } },
    {
      name: 'expired heartbeat: Ready=False, HeartbeatExpired, transition time now',
      input: mc({ ready: 'True', heartbeatAgeMs: 41_000 }),
      want: {
        result: undefined,
        write: {
          type: 'Ready',
          status: 'False',
          reason: 'HeartbeatExpired',
          lastTransitionTime: '2026-11-30T00:00:00Z',
          message: `No heartbeat from the syncer for more than 40s (last: ${new Date(now.getTime() - 41_000).toISOString()}); no new HostedClusters are placed here`,
        },
      },
    },
    { name: 'never heartbeated but Ready=True: expired', input: mc({ ready: 'True' }), want: { result: undefined, write: expect.objectContaining({ status: 'False', reason: 'HeartbeatExpired', message: expect.stringContaining('(last: never)') }) } },
    { name: 'already not ready: nothing to do', input: mc({ ready: 'False', heartbeatAgeMs: 100_000, reason: 'HeartbeatExpired' }), want: { result: undefined, write: undefined } },
    {
      name: 'not ready by its syncer (management cluster unreachable), syncer still reporting: left as the syncer says',
      input: mc({ ready: 'False', heartbeatAgeMs: 10_000, reason: 'ManagementClusterUnreachable' }),
      want: { result: { requeueAfterMs: 30_100 }, write: undefined },
    },
    {
      name: 'not ready by its syncer, and the syncer stopped reporting: HeartbeatExpired',
      input: mc({ ready: 'False', heartbeatAgeMs: 41_000, reason: 'ManagementClusterUnreachable' }),
      want: { result: undefined, write: expect.objectContaining({ status: 'False', reason: 'HeartbeatExpired' }) },
    },
    { name: 'no Ready condition but a heartbeat: the syncer reported, its condition is its own to write', input: mc({ heartbeatAgeMs: 100_000 }), want: { result: undefined, write: undefined } },
    { name: 'never reported, created within the grace period: look again when it ends', input: mc({ createdAgoMs: 10_000 }), want: { result: { requeueAfterMs: 30_100 }, write: undefined } },
    {
      name: 'never reported since its creation longer ago than the grace period: Ready=Unknown, SyncerNeverReported',
      input: mc({ createdAgoMs: 41_000 }),
      want: {
        result: undefined,
        write: {
          type: 'Ready',
          status: 'Unknown',
          reason: 'SyncerNeverReported',
          lastTransitionTime: '2026-11-30T00:00:00Z',
          message: `No syncer has reported for this management cluster since it was created (${new Date(now.getTime() - 41_000).toISOString()}); start \`hcc syncer --name m\` there; no HostedClusters are placed here until it does`,
        },
      },
    },
    {
      name: 'never reported, Push mode: the message points to its kubeconfig Secret and Events, not to a syncer to start',
      input: { ...mc({ createdAgoMs: 41_000 }), spec: { mode: 'Push' } } as ManagementCluster,
      want: { result: undefined, write: expect.objectContaining({ status: 'Unknown', message: expect.stringMatching(/^The push syncer has not reached this management cluster .*check spec\.kubeconfigSecretRef, the Events of `kubectl describe mc m`/) }) },
    },
    {
      name: 'a 60 s heartbeat interval (Lease 240 s announced) 50 s after its beat: still Ready, look again when the announced Lease ends',
      input: mc({ ready: 'True', heartbeatAgeMs: 50_000, leaseDurationSeconds: 240 }),
      want: { result: { requeueAfterMs: 190_100 }, write: undefined },
    },
    {
      name: 'expired past the announced Lease: Ready=False, the message states that grace',
      input: mc({ ready: 'True', heartbeatAgeMs: 241_000, leaseDurationSeconds: 240 }),
      want: { result: undefined, write: expect.objectContaining({ status: 'False', reason: 'HeartbeatExpired', message: expect.stringMatching(/^No heartbeat from the syncer for more than 240s /) }) },
    },
    {
      name: 'an announced Lease shorter than --heartbeat-grace does not shorten it',
      input: mc({ ready: 'True', heartbeatAgeMs: 10_000, leaseDurationSeconds: 4 }),
      want: { result: { requeueAfterMs: 30_100 }, write: undefined },
    },
    {
      name: 'an absurd announced Lease: looked at again within the hour (no timer overflow)',
      input: mc({ ready: 'True', heartbeatAgeMs: 1_000, leaseDurationSeconds: 2_147_483_647 }),
      want: { result: { requeueAfterMs: 3_600_000 }, write: undefined },
    },
    {
      name: 'expired, Push mode: the same hint',
      input: { ...mc({ ready: 'True', heartbeatAgeMs: 41_000 }), spec: { mode: 'Push' } } as ManagementCluster,
      want: { result: undefined, write: expect.objectContaining({ status: 'False', reason: 'HeartbeatExpired', message: expect.stringContaining('(Push mode: check spec.kubeconfigSecretRef') }) },
    },
  ])('$name', async ({ input, want }) => {
    const store = new Store<ManagementCluster>();
    store.set('m', input);
    const writes: Condition[][] = [];
    const events: string[] = [];
    const result = await reconcileClusterHealth(
      { managementClusters: store, now: () => now, heartbeatGraceMs: 40_000, writeConditions: async (_mc, c) => void writes.push(c), recordEvent: (_mc, type, reason, message) => void events.push(`${type} ${reason} ${message}`) },
      'm',
    );
    expect(result).toEqual(want.result);
    const ready = writes[0]?.find((c) => c.type === 'Ready');
    expect(ready).toEqual(want.write);
    // Each write that marks the cluster not Ready is also a Warning Event with the same reason and
    // message, without the last heartbeat's time (so that a flapping cluster's Events fold).
    const eventMessage = (c: Condition): string => (c.reason === 'HeartbeatExpired' ? `Management cluster m is not Ready: ${c.message!.replace(/ \(last: [^)]*\)/, '')}` : c.message!);
    expect(events).toEqual(ready ? [`Warning ${ready.reason} ${eventMessage(ready)}`] : []);
    for (const e of events) expect(e).not.toContain('(last:');
  });

  it("judges the heartbeat's age on the scheduler's clock: a syncer clock ahead does not keep a silent cluster fresh", async () => {
    // The syncer stamped its last heartbeat 10 minutes ahead; the scheduler saw it 41 s ago.
    const ahead = mc({ ready: 'True', heartbeatAgeMs: -600_000 });
    const store = new Store<ManagementCluster>();
    store.set('m', ahead);
    const writes: Condition[][] = [];
    const seen = now.getTime() - 41_000;
    await reconcileClusterHealth({ managementClusters: store, now: () => now, heartbeatGraceMs: 40_000, heartbeatSeenMs: () => seen, writeConditions: async (_mc, c) => void writes.push(c) }, 'm');
    expect(writes[0]?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'HeartbeatExpired' });
    // And one behind, whose heartbeat the scheduler just saw change, is fresh.
    const behind = mc({ ready: 'True', heartbeatAgeMs: 600_000 });
    store.set('m', behind);
    expect(await reconcileClusterHealth({ managementClusters: store, now: () => now, heartbeatGraceMs: 40_000, heartbeatSeenMs: () => now.getTime(), writeConditions: async (_mc, c) => void writes.push(c) }, 'm')).toEqual({ requeueAfterMs: 40_100 });
    expect(writes).toHaveLength(1);
  });

  it('a deleted cluster finishes quietly', async () => {
    expect(await reconcileClusterHealth({ managementClusters: new Store(), now: () => now, heartbeatGraceMs: 1, writeConditions: async () => {} }, 'gone')).toBeUndefined();
  });
});

describe('reconcileClusterHealth: retiring a ManagementCluster', () => {
  const deleting = (heartbeatAgeMs: number): ManagementCluster => ({
    ...mc({ ready: 'False', heartbeatAgeMs, reason: 'HeartbeatExpired' }),
    metadata: { name: 'm', deletionTimestamp: '2026-11-29T23:59:00Z', finalizers: ['controlcenter.hcc.dev/placements'] },
  });
  const run = async (cluster: ManagementCluster, placed: number) => {
    const store = new Store<ManagementCluster>();
    store.set('m', cluster);
    const released: string[] = [];
    const finalizerWrites: string[][] = [];
    const events: string[] = [];
    const result = await reconcileClusterHealth(
      {
        managementClusters: store,
        now: () => now,
        heartbeatGraceMs: 40_000,
        writeConditions: async () => {},
        recordEvent: (_mc, type, reason, message) => void events.push(`${type} ${reason} ${message}`),
        placedOn: () => placed,
        writeFinalizers: async (_mc, f) => void finalizerWrites.push(f),
        releaseSyncerFinalizers: async (c, why) => (released.push(`${c}: ${why}`), 1),
      },
      'm',
    );
    return { result, released, finalizerWrites, events };
  };

  it('a deleted cluster whose syncer is gone releases what is being deleted on it, and waits for the rest', async () => {
    const r = await run(deleting(100_000), 2);
    expect(r.released).toEqual([`m: management cluster m is being deleted and its syncer has not reported since ${new Date(now.getTime() - 100_000).toISOString()}: released without tearing down its copy there`]);
    expect(r.result).toEqual({ requeueAfterMs: 5000 });
    expect(r.finalizerWrites).toEqual([]);
  });

  it('a deleted cluster whose heartbeat is older than --heartbeat-grace but within its announced Lease still counts as reporting; releases nothing', async () => {
    const slow = { ...deleting(100_000), status: { ...deleting(100_000).status, leaseDurationSeconds: 240 } };
    const r = await run(slow, 2);
    expect(r.released).toEqual([]);
    expect(r.result).toEqual({ requeueAfterMs: 5000 });
  });

  it('a deleted cluster whose syncer still reports waits for it to tear down; releases nothing, and says what it waits for', async () => {
    const r = await run(deleting(1_000), 2);
    expect(r.released).toEqual([]);
    expect(r.result).toEqual({ requeueAfterMs: 5000 });
    expect(r.events).toEqual(['Normal WaitingForHostedClusters Management cluster m is being deleted: waiting for the 2 HostedClusters and NodePools placed on it to be deleted (kubectl get hostedclusters,nodepools -A -l controlcenter.hcc.dev/management-cluster=m); it takes no new placements']);
    expect((await run(deleting(1_000), 0)).events).toEqual([]);
    // Said again only when what it says changes.
    const said = new Map<string, string>();
    const store = new Store<ManagementCluster>();
    store.set('m', deleting(1_000));
    const events: string[] = [];
    let placed = 2;
    const pass = () => reconcileClusterHealth({ managementClusters: store, now: () => now, heartbeatGraceMs: 40_000, writeConditions: async () => {}, recordEvent: (_mc, _t, _r, m) => void events.push(m), waitingSaid: said, placedOn: () => placed, writeFinalizers: async () => {} }, 'm');
    await pass();
    await pass();
    placed = 1;
    await pass();
    expect(events.map((m) => /the (\d+) HostedClusters/.exec(m)?.[1])).toEqual(['2', '1']);
  });

  it('a deleted cluster whose syncer still reports, but has not reached its API for longer than the grace period, is lost too: released (push mode, a syncer outside its cluster)', async () => {
    const unreachable = (sinceMs: number): ManagementCluster => {
      const d = deleting(1_000);
      const message = "The syncer runs but cannot reach the management cluster's API (connect ECONNREFUSED); no new HostedClusters are placed here";
      return { ...d, status: { ...d.status, conditions: [{ type: 'Ready', status: 'False', reason: 'ManagementClusterUnreachable', message, lastTransitionTime: new Date(now.getTime() - sinceMs).toISOString() }] } };
    };
    const r = await run(unreachable(41_000), 2);
    expect(r.released).toEqual([
      `m: management cluster m is being deleted and its syncer has not reached its API since ${new Date(now.getTime() - 41_000).toISOString()}: released without tearing down its copy there. Its syncer's last report: The syncer runs but cannot reach the management cluster's API (connect ECONNREFUSED); no new HostedClusters are placed here`,
    ]);
    expect((await run(unreachable(10_000), 2)).released).toEqual([]);
  });

  it('a deleted cluster whose heartbeat just expired is marked Ready=False while it waits', async () => {
    const fresh = { ...deleting(41_000), status: mc({ ready: 'True', heartbeatAgeMs: 41_000 }).status };
    const store = new Store<ManagementCluster>();
    store.set('m', fresh);
    const writes: Condition[][] = [];
    const result = await reconcileClusterHealth(
      { managementClusters: store, now: () => now, heartbeatGraceMs: 40_000, writeConditions: async (_mc, c) => void writes.push(c), placedOn: () => 2, writeFinalizers: async () => {}, releaseSyncerFinalizers: async () => 0 },
      'm',
    );
    expect(writes[0]?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'HeartbeatExpired' });
    expect(result).toEqual({ requeueAfterMs: 5000 });
  });

  it('once nothing is placed, the placements finalizer goes', async () => {
    const r = await run(deleting(100_000), 0);
    expect(r.finalizerWrites).toEqual([[]]);
    expect(r.released).toEqual([]);
  });
});
