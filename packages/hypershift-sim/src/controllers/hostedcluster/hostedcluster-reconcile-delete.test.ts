import { describe, expect, it } from 'vitest';
import { FakeWorld, at, hostedCluster, namespace, nodePool, secret } from '../../testing/fixtures.js';
import { deleteHostedCluster } from './hostedcluster-reconcile-delete.js';

const finalizer = 'hypershift.openshift.io/finalizer';
const deleting = (finalizers = [finalizer]) => hostedCluster({ metadata: { deletionTimestamp: at(), finalizers } });

describe('deleteHostedCluster', () => {
  it.each([
    { name: 'live cluster: nothing to do', input: { hc: hostedCluster(), objects: [], nowMs: 0 }, want: { result: 'continue', calls: [] } },
    { name: 'not our finalizer: nothing to hold', input: { hc: deleting(['other']), objects: [], nowMs: 0 }, want: { result: 'stop', calls: [] } },
    {
      name: 'deletes NodePools, Secrets and the namespace, then waits',
      input: {
        hc: deleting(),
        objects: [
          nodePool(),
          nodePool({ metadata: { name: 'gone', deletionTimestamp: at(), finalizers: [finalizer] } }),
          nodePool({ metadata: { name: 'other-cluster' }, spec: { clusterName: 'other' } }),
          secret('clusters', 'example-admin-kubeconfig'),
          secret('clusters', 'example-kubeadmin-password'),
          namespace('clusters-example'),
        ],
        nowMs: 0,
      },
      want: {
        result: { requeueAfterMs: 2000, then: 'stop' },
        calls: ['delete nodepools clusters/workers', 'delete secrets clusters/example-admin-kubeconfig', 'delete secrets clusters/example-kubeadmin-password', 'delete namespaces clusters-example'],
      },
    },
    {
      name: 'waits for a terminating namespace without deleting it again',
      input: { hc: deleting(), objects: [namespace('clusters-example', { deletionTimestamp: at() })], nowMs: 0 },
      want: { result: { requeueAfterMs: 2000, then: 'stop' }, calls: [] },
    },
    {
      name: 'everything gone but teardown time not over: requeues for the rest',
      input: { hc: deleting(), objects: [], nowMs: 200 },
      want: { result: { requeueAfterMs: 1299, then: 'stop' }, calls: [] },
    },
    {
      name: 'everything gone and time over: drops the finalizer',
      input: { hc: deleting([finalizer, 'controlcenter.hcc.dev/syncer']), objects: [], nowMs: 1500 },
      want: { result: 'stop', calls: ['update hostedclusters clusters/example'] },
    },
  ])('$name', async ({ input, want }) => {
    const world = new FakeWorld([input.hc, ...input.objects]);
    world.clock.step(input.nowMs);
    const result = await deleteHostedCluster(world.hostedClusterDeps({ deleteDelayMs: 500 })).run(structuredClone(input.hc));
    expect({ result, calls: world.calls }).toEqual(want);
  });

  it('the finalizer removal keeps other finalizers', async () => {
    const hc = deleting([finalizer, 'controlcenter.hcc.dev/syncer']);
    const world = new FakeWorld([hc]);
    world.clock.step(5000);
    await deleteHostedCluster(world.hostedClusterDeps()).run(structuredClone(hc));
    expect(world.hostedClusters.get('clusters/example')!.metadata.finalizers).toEqual(['controlcenter.hcc.dev/syncer']);
  });
});
