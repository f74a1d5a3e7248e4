import { describe, expect, it } from 'vitest';
import { FakeWorld, at, hostedCluster, namespace } from '../../testing/fixtures.js';
import { ensureControlPlaneNamespace } from './hostedcluster-reconcile-control-plane-namespace.js';

describe('ensureControlPlaneNamespace', () => {
  it.each([
    { name: 'creates it', input: [], want: { result: 'continue', calls: ['create namespaces clusters-example'] } },
    { name: 'leaves an existing one', input: [namespace('clusters-example')], want: { result: 'continue', calls: [] } },
    {
      name: 'waits while an old one terminates',
      input: [namespace('clusters-example', { deletionTimestamp: at() })],
      want: { result: { requeueAfterMs: 2000, then: 'stop' }, calls: [] },
    },
  ])('$name', async ({ input, want }) => {
    const world = new FakeWorld(input);
    const result = await ensureControlPlaneNamespace(world.hostedClusterDeps()).run(hostedCluster());
    expect({ result, calls: world.calls }).toEqual(want);
  });

  it('labels it as a control plane and annotates the HostedCluster key', async () => {
    const world = new FakeWorld();
    await ensureControlPlaneNamespace(world.hostedClusterDeps()).run(hostedCluster());
    expect(world.namespaces.get('clusters-example')!.metadata).toMatchObject({
      labels: { 'hypershift.openshift.io/hosted-control-plane': 'true' },
      annotations: { 'hypershift.openshift.io/cluster': 'clusters/example' },
    });
  });
});
