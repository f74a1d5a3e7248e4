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
    expect(await step.run(get())).toBe('stop');
    expect(await step.run(get())).toBe('continue');
    expect(world.calls).toEqual(['updateStatus nodepools clusters/workers', 'updateStatus nodepools clusters/workers']);
    expect(world.nodePools.get('clusters/workers')!.status?.replicas).toBe(2);
  });

  it('stops without a HostedCluster', async () => {
    const world = new FakeWorld([nodePool()]);
    expect(await updateStatus(world.nodePoolDeps()).run(nodePool())).toBe('stop');
  });
});
