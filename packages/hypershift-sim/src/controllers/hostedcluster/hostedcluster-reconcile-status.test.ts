import { describe, expect, it } from 'vitest';
import { FakeWorld, at, hostedCluster, namespace, pullSecret, secret } from '../../testing/fixtures.js';
import { observeFacts, updateStatus } from './hostedcluster-reconcile-status.js';

describe('observeFacts', () => {
  it.each([
    { name: 'nothing there', input: [], want: { pullSecret: 'missing', controlPlaneNamespace: false, kubeconfigSecret: false, kubeadminPasswordSecret: false } },
    {
      name: 'everything there',
      input: [pullSecret(), namespace('clusters-example'), secret('clusters', 'example-admin-kubeconfig'), secret('clusters', 'example-kubeadmin-password')],
      want: { pullSecret: 'found', controlPlaneNamespace: true, kubeconfigSecret: true, kubeadminPasswordSecret: true },
    },
    {
      name: 'pull secret without .dockerconfigjson, terminating namespace',
      input: [secret('clusters', 'pull-secret', { other: 'eA==' }), namespace('clusters-example', { deletionTimestamp: at() })],
      want: { pullSecret: 'invalid', controlPlaneNamespace: false, kubeconfigSecret: false, kubeadminPasswordSecret: false },
    },
    { name: 'pull secret in another namespace does not count', input: [secret('other', 'pull-secret', { '.dockerconfigjson': 'e30=' })], want: { pullSecret: 'missing', controlPlaneNamespace: false, kubeconfigSecret: false, kubeadminPasswordSecret: false } },
  ])('$name', ({ input, want }) => {
    expect(observeFacts(hostedCluster(), new FakeWorld(input).hostedClusterDeps())).toEqual(want);
  });
});

describe('updateStatus (step)', () => {
  it('writes a changed status through the status subresource and stops', async () => {
    const world = new FakeWorld([hostedCluster(), pullSecret()]);
    const result = await updateStatus(world.hostedClusterDeps()).run(hostedCluster());
    expect(result).toBe('stop');
    expect(world.calls).toEqual(['updateStatus hostedclusters clusters/example']);
    expect(world.hostedClusters.get('clusters/example')!.status?.version?.history?.[0]?.state).toBe('Partial');
  });

  it('skips the write when nothing changed, asking for a requeue while a rollout waits', async () => {
    const world = new FakeWorld([hostedCluster(), pullSecret(), namespace('clusters-example'), secret('clusters', 'example-admin-kubeconfig'), secret('clusters', 'example-kubeadmin-password')]);
    const step = updateStatus(world.hostedClusterDeps());
    expect(await step.run(structuredClone(world.hostedClusters.get('clusters/example')!))).toEqual({ requeueAfterMs: 2999, then: 'stop' });
    world.clock.step(1000);
    expect(await step.run(structuredClone(world.hostedClusters.get('clusters/example')!))).toEqual({ requeueAfterMs: 1999, then: 'continue' });
    expect(world.calls).toHaveLength(1);
    world.clock.step(2000);
    expect(await step.run(structuredClone(world.hostedClusters.get('clusters/example')!))).toBe('stop');
    expect(await step.run(structuredClone(world.hostedClusters.get('clusters/example')!))).toBe('continue');
    expect(world.calls).toHaveLength(2);
  });
});
