import { describe, expect, it } from 'vitest';
import { FakeWorld, at, nodePool } from '../../testing/fixtures.js';
import { deleteNodePool } from './nodepool-reconcile-delete.js';

const finalizer = 'hypershift.openshift.io/finalizer';

describe('deleteNodePool', () => {
  it.each([
    { name: 'live NodePool: nothing to do', input: { np: nodePool(), nowMs: 0 }, want: { result: 'continue', calls: [] } },
    { name: 'not our finalizer', input: { np: nodePool({ metadata: { deletionTimestamp: at(), finalizers: ['x'] } }), nowMs: 0 }, want: { result: 'stop', calls: [] } },
    {
      name: 'teardown time not over',
      input: { np: nodePool({ metadata: { deletionTimestamp: at(), finalizers: [finalizer] } }), nowMs: 100 },
      want: { result: { requeueAfterMs: 1399, then: 'stop' }, calls: [] },
    },
    {
      name: 'time over: finalizer dropped (no HostedCluster needed)',
      input: { np: nodePool({ metadata: { deletionTimestamp: at(), finalizers: [finalizer] } }), nowMs: 1500 },
      want: { result: 'stop', calls: ['update nodepools clusters/workers'] },
    },
  ])('$name', async ({ input, want }) => {
    const world = new FakeWorld([input.np]);
    world.clock.step(input.nowMs);
    const result = await deleteNodePool(world.nodePoolDeps({ deleteDelayMs: 500 })).run(structuredClone(input.np));
    expect({ result, calls: world.calls }).toEqual(want);
  });
});
