import { describe, expect, it } from 'vitest';
import { FakeWorld, hostedCluster } from '../../testing/fixtures.js';
import { defaultClusterIDs, newInfraID, randomString } from './hostedcluster-reconcile-default-ids.js';

describe('defaultClusterIDs', () => {
  it.each([
    {
      name: 'sets both when empty',
      input: hostedCluster({ spec: { clusterID: '', infraID: '' } }),
      want: { result: 'stop', clusterID: '00000000-0000-4000-8000-000000000001', infraID: 'example-rrrrr', writes: 1 },
    },
    {
      name: 'sets a missing clusterID only',
      input: hostedCluster({ spec: { clusterID: undefined } }),
      want: { result: 'stop', clusterID: '00000000-0000-4000-8000-000000000001', infraID: 'example-abcde', writes: 1 },
    },
    {
      name: 'sets a missing infraID only (the CLI usually sets it)',
      input: hostedCluster({ spec: { infraID: '' } }),
      want: { result: 'stop', clusterID: '11111111-2222-4333-8444-555555555555', infraID: 'example-rrrrr', writes: 1 },
    },
    {
      // Sent without a spec (withSpec gives it `{}`): writing just the IDs would be refused.
      name: 'leaves a HostedCluster without a spec alone',
      input: { ...hostedCluster(), spec: {} } as ReturnType<typeof hostedCluster>,
      want: { result: 'continue', clusterID: undefined, infraID: undefined, writes: 0 },
    },
    {
      name: 'leaves set IDs alone',
      input: hostedCluster(),
      want: { result: 'continue', clusterID: '11111111-2222-4333-8444-555555555555', infraID: 'example-abcde', writes: 0 },
    },
  ])('$name', async ({ input, want }) => {
    const world = new FakeWorld([input]);
    const result = await defaultClusterIDs(world.hostedClusterDeps()).run(structuredClone(input));
    const stored = world.hostedClusters.get('clusters/example')!;
    expect({ result, clusterID: stored.spec.clusterID, infraID: stored.spec.infraID, writes: world.calls.length }).toEqual(want);
  });

  it('infraIDs use utilrand characters and are valid DNS labels', () => {
    let i = 0;
    const seq = [0, 0.3, 0.6, 0.99, 0.5];
    const id = newInfraID('demo', () => seq[i++ % seq.length]!);
    expect(id).toMatch(/^demo-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(randomString(3, () => 0)).toBe('bbb');
  });
});
