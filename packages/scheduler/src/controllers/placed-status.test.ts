import { describe, expect, it } from 'vitest';
import { ApiError, Store } from '@hcc/client';
import type { Condition, HostedCluster, KubeObject, ManagementCluster, NodePool } from '@hcc/crds';
import { reconcilePlacedStatus, type PlacedStatusDeps } from './placed-status.js';

const now = new Date('2026-11-30T00:00:00Z');
const Label = 'controlcenter.hcc.dev/management-cluster';
const lostAt = '2026-11-29T23:59:00Z';

const mc = (ready: 'True' | 'False' | 'Unknown' | undefined, reason = 'HeartbeatExpired', since = lostAt): ManagementCluster => ({
  metadata: { name: 'm' },
  spec: {},
  status: { conditions: ready ? [{ type: 'Ready', status: ready, reason: ready === 'True' ? 'SyncerHeartbeat' : reason, lastTransitionTime: since }] : [] },
});
const available: Condition = { type: 'Available', status: 'True', reason: 'AsExpected', message: 'The hosted control plane is available', observedGeneration: 3, lastTransitionTime: '2026-11-29T12:00:00Z' };
const degraded: Condition = { type: 'Degraded', status: 'False', reason: 'AsExpected', lastTransitionTime: '2026-11-29T12:00:00Z' };
const hc = (conditions: Condition[] = [available, degraded], placedOn: string | undefined = 'm'): HostedCluster =>
  ({ metadata: { name: 'h', namespace: 'ns', resourceVersion: '7', labels: placedOn ? { [Label]: placedOn } : {} }, spec: {}, status: { conditions } }) as unknown as HostedCluster;
const np = (conditions: Condition[]): NodePool => ({ metadata: { name: 'p', namespace: 'ns', labels: { [Label]: 'm' } }, spec: { clusterName: 'h' }, status: { conditions } }) as unknown as NodePool;

function setup(cluster: ManagementCluster | undefined, objects: { hc?: HostedCluster; np?: NodePool } = {}) {
  const managementClusters = new Store<ManagementCluster>();
  if (cluster) managementClusters.set('m', cluster);
  const hostedClusters = new Store<HostedCluster>();
  if (objects.hc) hostedClusters.set('ns/h', objects.hc);
  const nodePools = new Store<NodePool>();
  if (objects.np) nodePools.set('ns/p', objects.np);
  const writes: { kind: string; obj: KubeObject; conditions: Condition[] }[] = [];
  const events: string[] = [];
  const deps: PlacedStatusDeps = {
    managementClusters,
    hostedClusters,
    nodePools,
    writeConditions: async (kind, obj, conditions) => void writes.push({ kind, obj, conditions }),
    recordEvent: (obj, type, reason, message) => void events.push(`${obj.metadata.name} ${type} ${reason} ${message}`),
    marked: new Map(),
    now: () => now,
  };
  return { deps, writes, events, managementClusters, hostedClusters };
}

describe('reconcilePlacedStatus', () => {
  it('a HostedCluster on a cluster whose heartbeat expired: Available=Unknown, the rest of its status kept, a Warning Event', async () => {
    const { deps, writes, events } = setup(mc('False'), { hc: hc() });
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(writes).toHaveLength(1);
    expect(writes[0]!.kind).toBe('HostedCluster');
    expect(writes[0]!.obj.metadata.resourceVersion).toBe('7');
    const message = `Management cluster m is not Ready since ${lostAt} (HeartbeatExpired): the rest of this status is its last report`;
    expect(writes[0]!.conditions).toEqual([
      { type: 'Available', status: 'Unknown', reason: 'ManagementClusterNotReady', message, observedGeneration: 3, lastTransitionTime: '2026-11-30T00:00:00Z' },
      degraded,
    ]);
    // No times in the Event: a flapping cluster folds into one Event per object.
    expect(events).toEqual(['h Warning ManagementClusterNotReady Available=Unknown: management cluster m is not Ready (HeartbeatExpired)']);
  });

  it('a NodePool there: Ready=Unknown (its MESSAGE column)', async () => {
    const { deps, writes } = setup(mc('Unknown', 'SyncerNeverReported'), { np: np([{ type: 'Ready', status: 'True', reason: 'AsExpected', lastTransitionTime: lostAt }]) });
    await reconcilePlacedStatus(deps, 'NodePool/ns/p');
    expect(writes.map((w) => [w.kind, w.conditions])).toEqual([
      ['NodePool', [expect.objectContaining({ type: 'Ready', status: 'Unknown', reason: 'ManagementClusterNotReady', message: expect.stringContaining('(SyncerNeverReported)') })]],
    ]);
  });

  it('an object nothing was reported for from there (a NodePool created while its cluster was away) is not said to show a last report', async () => {
    const { deps, writes } = setup(mc('False'), { np: np([]) });
    await reconcilePlacedStatus(deps, 'NodePool/ns/p');
    const message = `Management cluster m is not Ready since ${lostAt} (HeartbeatExpired): nothing has been reported from there yet`;
    expect(writes.map((w) => w.conditions)).toEqual([[expect.objectContaining({ type: 'Ready', status: 'Unknown', reason: 'ManagementClusterNotReady', message })]]);
    // Its own mark is all it holds: a scheduler that looks again (restarted) writes nothing new.
    const again = setup(mc('False'), { np: np(writes[0]!.conditions) });
    await reconcilePlacedStatus(again.deps, 'NodePool/ns/p');
    expect(again.writes).toEqual([]);
    // Nor does a mark made over an earlier report, when it is all the status holds.
    const marked = setup(mc('False'), { hc: hc([available]) });
    await reconcilePlacedStatus(marked.deps, 'HostedCluster/ns/h');
    expect(marked.writes[0]!.conditions[0]!.message).toBe(`Management cluster m is not Ready since ${lostAt} (HeartbeatExpired): the rest of this status is its last report`);
    const restarted = setup(mc('False'), { hc: hc(marked.writes[0]!.conditions) });
    await reconcilePlacedStatus(restarted.deps, 'HostedCluster/ns/h');
    expect(restarted.writes).toEqual([]);
  });

  it("counts the control center's own Scheduled condition as no report (a HostedCluster bound while its cluster was away)", async () => {
    const scheduled: Condition = { type: 'Scheduled', status: 'True', reason: 'Scheduled', message: 'placed on m', lastTransitionTime: lostAt };
    const { deps, writes } = setup(mc('False'), { hc: hc([scheduled]) });
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(writes[0]!.conditions).toEqual([scheduled, expect.objectContaining({ type: 'Available', message: `Management cluster m is not Ready since ${lostAt} (HeartbeatExpired): nothing has been reported from there yet` })]);
  });

  it('leaves alone an object being deleted that no syncer holds any more (its copy torn down, others\' finalizers keep it): nothing of it is on that cluster', async () => {
    const tornDown: Condition = { type: 'Available', status: 'False', reason: 'TornDown', message: 'deleted: nothing of it runs in management cluster m any more; waiting for the finalizers example.com/hold', lastTransitionTime: lostAt };
    const obj = hc([tornDown]);
    obj.metadata.deletionTimestamp = lostAt;
    obj.metadata.finalizers = ['example.com/hold'];
    for (const cluster of [mc('False'), undefined]) {
      const { deps, writes, events } = setup(cluster, { hc: obj });
      await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
      expect(writes).toEqual([]);
      expect(events).toEqual([]);
    }
  });

  it('a HostedCluster that never had an Available condition gets one', async () => {
    const { deps, writes } = setup(mc('False', 'ManagementClusterUnreachable'), { hc: hc([]) });
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(writes[0]!.conditions).toEqual([expect.objectContaining({ type: 'Available', status: 'Unknown', message: expect.stringContaining('(ManagementClusterUnreachable)') })]);
    expect(writes[0]!.conditions[0]).not.toHaveProperty('observedGeneration');
  });

  it.each([
    { name: 'the cluster is Ready', cluster: mc('True'), obj: hc() },
    { name: 'the cluster has not reported yet (no Ready condition: cluster-health marks it first)', cluster: mc(undefined), obj: hc() },
    { name: 'the HostedCluster is not placed', cluster: mc('False'), obj: hc(undefined, '') },
    {
      name: 'already marked (by an earlier scheduler)',
      cluster: mc('False'),
      obj: hc([{ ...available, status: 'Unknown', reason: 'ManagementClusterNotReady', message: `Management cluster m is not Ready since ${lostAt} (HeartbeatExpired): the rest of this status is its last report` }]),
    },
  ])('nothing to write when $name', async ({ cluster, obj }) => {
    const { deps, writes, events } = setup(cluster, { hc: obj });
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/gone');
    expect(writes).toEqual([]);
    expect(events).toEqual([]);
  });

  it('marks once per not-Ready episode: a status written back meanwhile is not fought over; a new episode marks again', async () => {
    const { deps, writes, hostedClusters, managementClusters } = setup(mc('False'), { hc: hc() });
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(writes).toHaveLength(1);
    // A syncer whose heartbeat fails but whose upsync works copies Available=True back up.
    hostedClusters.set('ns/h', hc());
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(writes).toHaveLength(1);
    // The same episode under another reason (its syncer said unreachable, then stopped reporting): a new message.
    managementClusters.set('m', mc('False', 'ManagementClusterUnreachable'));
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(writes).toHaveLength(2);
    // Ready again: forgotten; lost again later: marked again.
    managementClusters.set('m', mc('True'));
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(deps.marked.size).toBe(0);
    managementClusters.set('m', mc('False', 'HeartbeatExpired', '2026-11-30T00:10:00Z'));
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(writes).toHaveLength(3);
  });

  it('releases an object being deleted whose cluster no longer exists (nobody will tear its copy down); leaves the others', async () => {
    const deleting = (finalizers: string[], placedOn = 'gone') =>
      ({ ...hc([available], placedOn), metadata: { ...hc().metadata, labels: { [Label]: placedOn }, deletionTimestamp: '2026-11-30T00:00:00Z', finalizers } }) as HostedCluster;
    const cases: { obj: HostedCluster; cluster?: ManagementCluster; released: boolean }[] = [
      { obj: deleting(['controlcenter.hcc.dev/syncer']), released: true },
      { obj: deleting(['hypershift.openshift.io/finalizer']), released: true },
      { obj: deleting(['example.com/other']), released: false },
      { obj: { ...deleting(['controlcenter.hcc.dev/syncer']), metadata: { ...hc().metadata, labels: { [Label]: 'gone' }, finalizers: ['controlcenter.hcc.dev/syncer'] } } as HostedCluster, released: false },
      { obj: deleting(['controlcenter.hcc.dev/syncer'], 'm'), cluster: mc('True'), released: false },
    ];
    for (const c of cases) {
      const { deps } = setup(c.cluster, { hc: c.obj });
      const released: string[] = [];
      deps.releaseSyncerFinalizers = async (kind, obj, cluster, why) => void released.push(`${kind} ${obj.metadata.name} ${cluster}: ${why}`);
      await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
      expect(released, JSON.stringify(c.obj.metadata)).toEqual(
        c.released ? ['HostedCluster h gone: management cluster gone no longer exists: released without tearing down its copy there (a syncer that comes back deletes it)'] : [],
      );
    }
  });

  it('a HostedCluster left on a ManagementCluster that no longer exists: Available=Unknown, and again if written back', async () => {
    const { deps, writes, events, hostedClusters } = setup(undefined, { hc: hc() });
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(writes).toHaveLength(1);
    expect(writes[0]!.conditions[0]).toMatchObject({
      type: 'Available',
      status: 'Unknown',
      reason: 'ManagementClusterNotReady',
      message: 'Management cluster m no longer exists (its ManagementCluster was deleted): the rest of this status is its last report',
    });
    expect(events).toEqual(['h Warning ManagementClusterNotReady Available=Unknown: management cluster m no longer exists']);
    // Marked already: nothing more to write.
    hostedClusters.set('ns/h', { ...hc(), status: { conditions: writes[0]!.conditions } } as HostedCluster);
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(writes).toHaveLength(1);
    // A draining syncer wrote the old status back: marked again (no episode memo for a gone cluster).
    hostedClusters.set('ns/h', hc());
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(writes).toHaveLength(2);
  });

  it('an object being deleted there: its deletion waits for that syncer, and a Warning Event says so and how to retire the cluster, once', async () => {
    const obj = { ...hc(), metadata: { ...hc().metadata, deletionTimestamp: '2026-11-30T00:00:00Z', finalizers: ['controlcenter.hcc.dev/syncer'] } } as HostedCluster;
    const { deps, events, hostedClusters } = setup(mc('False'), { hc: hc() });
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(events).toHaveLength(1);
    hostedClusters.set('ns/h', { ...obj, status: { conditions: [{ ...available, status: 'Unknown', reason: 'ManagementClusterNotReady', message: `Management cluster m is not Ready since ${lostAt} (HeartbeatExpired): the rest of this status is its last report` }] } } as unknown as HostedCluster);
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    await reconcilePlacedStatus(deps, 'HostedCluster/ns/h');
    expect(events.slice(1)).toEqual([
      'h Warning WaitingForManagementCluster Deletion waits for the syncer of management cluster m to tear down the copy there; the cluster is not Ready (HeartbeatExpired). If it is gone for good, retire it: kubectl delete managementcluster m --wait=false',
    ]);
    // Once the cluster is being deleted there is nothing to advise: its retirement releases the object.
    const { deps: d2, events: e2 } = setup({ ...mc('False'), metadata: { name: 'm', deletionTimestamp: lostAt } }, { hc: obj });
    await reconcilePlacedStatus(d2, 'HostedCluster/ns/h');
    expect(e2.filter((e) => e.includes('WaitingForManagementCluster'))).toEqual([]);
  });

  it('an object gone before its write (404) is done: no error, no Event, nothing marked', async () => {
    const { deps, events } = setup(mc('False'), { np: np([]) });
    deps.writeConditions = async () => {
      throw new ApiError(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'nodepools.hypershift.openshift.io "p" not found' });
    };
    await expect(reconcilePlacedStatus(deps, 'NodePool/ns/p')).resolves.toBeUndefined();
    expect(events).toEqual([]);
    expect(deps.marked.size).toBe(0);
  });

  it('a failed write is not remembered as marked (the queue retries it)', async () => {
    const { deps } = setup(mc('False'), { hc: hc() });
    deps.writeConditions = async () => {
      throw new Error('409 Conflict');
    };
    await expect(reconcilePlacedStatus(deps, 'HostedCluster/ns/h')).rejects.toThrow('409');
    expect(deps.marked.size).toBe(0);
  });
});
