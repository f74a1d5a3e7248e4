import { describe, expect, it } from 'vitest';
import { FakeWorld, at, hostedCluster, nodePool } from '../../testing/fixtures.js';
import { updateStatus } from './nodepool-reconcile-status.js';

const availableHC = hostedCluster({ status: { conditions: [{ type: 'Available', status: 'True', reason: 'AsExpected', lastTransitionTime: at() }] } });

describe('updateStatus (NodePool step)', () => {
  it('writes, then skips while waiting, then writes the result', async () => {
    const world = new FakeWorld([availableHC, nodePool()]);
    const step = updateStatus(world.nodePoolDeps());
    const get = () => structuredClone(world.nodePools.get('clusters/workers')!);
    expect(await step.run(get())).toEqual({ requeueAfterMs: 2999, then: 'stop' }); // from the end of the second the cluster became Available
    world.clock.step(1000);
    expect(await step.run(get())).toEqual({ requeueAfterMs: 1999, then: 'continue' });
    world.clock.step(2000);
    // The first rollout done: the current config is recorded first, then the status.
    expect(await step.run(get())).toBe('stop');
    expect(await step.run(get())).toBe('stop');
    expect(await step.run(get())).toBe('continue');
    expect(world.calls).toEqual(['updateStatus nodepools clusters/workers', 'update nodepools clusters/workers', 'updateStatus nodepools clusters/workers']);
    const np = world.nodePools.get('clusters/workers')!;
    expect(np.status?.replicas).toBe(2);
    expect(np.metadata.annotations?.['hypershift.openshift.io/nodePoolCurrentConfig']).toMatch(/^[0-9a-f]{8}$/);
    expect(np.status?.conditions?.find((c) => c.type === 'UpdatingConfig')).toMatchObject({ status: 'False', message: '' });
  });

  it('rolls out a changed config: UpdatingConfig=True with the target hash until the delay passes, then the annotation follows', async () => {
    const world = new FakeWorld([availableHC, nodePool({ spec: { config: [{ name: 'kubelet' }] } })]);
    world.configMaps.set('clusters/kubelet', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubelet', namespace: 'clusters' }, data: { config: 'maxPods: 250' } });
    const step = updateStatus(world.nodePoolDeps());
    const get = () => structuredClone(world.nodePools.get('clusters/workers')!);
    const updatingConfig = () => world.nodePools.get('clusters/workers')!.status?.conditions?.find((c) => c.type === 'UpdatingConfig');
    const settle = async () => {
      for (let i = 0; i < 5 && (await step.run(get())) !== 'continue'; i++);
    };
    await step.run(get());
    world.clock.step(3000);
    await settle();
    const first = world.nodePools.get('clusters/workers')!.metadata.annotations?.['hypershift.openshift.io/nodePoolCurrentConfig'];
    expect(updatingConfig()).toMatchObject({ status: 'False' });

    // The ConfigMap's content changes (the controller's ConfigMap watch requeues the pool).
    world.configMaps.set('clusters/kubelet', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubelet', namespace: 'clusters' }, data: { config: 'maxPods: 300' } });
    expect(await step.run(get())).toEqual({ requeueAfterMs: 2000, then: 'stop' });
    const target = updatingConfig()!.message.replace('Updating config in progress. Target config: ', '');
    expect(updatingConfig()).toMatchObject({ status: 'True', reason: 'AsExpected' });
    expect(target).toMatch(/^[0-9a-f]{8}$/);
    expect(target).not.toBe(first);
    expect(world.nodePools.get('clusters/workers')!.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });

    world.clock.step(1000);
    expect(await step.run(get())).toEqual({ requeueAfterMs: 1999, then: 'continue' }); // still rolling (times are whole seconds)
    world.clock.step(2000);
    await settle();
    expect(world.nodePools.get('clusters/workers')!.metadata.annotations?.['hypershift.openshift.io/nodePoolCurrentConfig']).toBe(target);
    expect(updatingConfig()).toMatchObject({ status: 'False', message: '' });
  });

  it('stops without a HostedCluster', async () => {
    const world = new FakeWorld([nodePool()]);
    expect(await updateStatus(world.nodePoolDeps()).run(nodePool())).toBe('stop');
  });
});
