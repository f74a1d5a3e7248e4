import { describe, expect, it } from 'vitest';
import { FakeWorld, at, hostedCluster } from '../../testing/fixtures.js';
import { ensureFinalizer } from './hostedcluster-reconcile-finalizer.js';

describe('ensureFinalizer', () => {
  it.each([
    { name: 'adds it to a new cluster and stops', input: hostedCluster(), want: { result: 'stop', finalizers: ['hypershift.openshift.io/finalizer'], calls: ['update hostedclusters clusters/example'] } },
    {
      name: 'keeps other finalizers',
      input: hostedCluster({ metadata: { finalizers: ['controlcenter.hcc.dev/syncer'] } }),
      want: { result: 'stop', finalizers: ['controlcenter.hcc.dev/syncer', 'hypershift.openshift.io/finalizer'], calls: ['update hostedclusters clusters/example'] },
    },
    {
      name: 'passes when present',
      input: hostedCluster({ metadata: { finalizers: ['hypershift.openshift.io/finalizer'] } }),
      want: { result: 'continue', finalizers: ['hypershift.openshift.io/finalizer'], calls: [] },
    },
    {
      name: 'never adds it to a cluster being deleted',
      input: hostedCluster({ metadata: { deletionTimestamp: at(), finalizers: ['x'] } }),
      want: { result: 'continue', finalizers: ['x'], calls: [] },
    },
  ])('$name', async ({ input, want }) => {
    const world = new FakeWorld([input]);
    const result = await ensureFinalizer(world.hostedClusterDeps()).run(structuredClone(input));
    expect({ result, finalizers: world.hostedClusters.get('clusters/example')!.metadata.finalizers, calls: world.calls }).toEqual(want);
  });
});
