import { describe, expect, it } from 'vitest';
import { FakeWorld, hostedCluster, nodePool } from '../../testing/fixtures.js';
import { requireHostedCluster } from './nodepool-reconcile-hosted-cluster.js';

describe('requireHostedCluster', () => {
  it.each([
    { name: 'cluster exists', input: { objects: [hostedCluster()], np: nodePool() }, want: 'continue' },
    { name: 'no such cluster', input: { objects: [], np: nodePool() }, want: 'stop' },
    { name: 'same name in another namespace does not count', input: { objects: [hostedCluster({ metadata: { namespace: 'other' } })], np: nodePool() }, want: 'stop' },
  ])('$name', async ({ input, want }) => {
    const world = new FakeWorld(input.objects);
    expect(await requireHostedCluster(world.nodePoolDeps()).run(input.np)).toBe(want);
    expect(world.calls).toEqual([]);
  });
});
