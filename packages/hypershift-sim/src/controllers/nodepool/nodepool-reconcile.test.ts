/**
 * Whole NodePool passes over an in-memory world.
 */
import { describe, expect, it } from 'vitest';
import { findCondition } from '../../conditions.js';
import { FakeWorld, at, hostedCluster, nodePool } from '../../testing/fixtures.js';
import { reconcileNodePool } from './nodepool-reconcile.js';

const key = 'clusters/workers';

async function settle(world: FakeWorld) {
  const stops: string[] = [];
  for (let i = 0; i < 20; i++) {
    const before = world.calls.length;
    const out = await reconcileNodePool(world.nodePools.get(key), world.nodePoolDeps());
    stops.push(out.stoppedAt);
    if (world.calls.length === before) return { ...out, stops };
  }
  throw new Error('no settled state');
}

describe('reconcileNodePool', () => {
  it('without its HostedCluster: untouched (no finalizer, no status)', async () => {
    const world = new FakeWorld([nodePool()]);
    const out = await settle(world);
    expect(out.stoppedAt).toBe('requireHostedCluster');
    expect(world.calls).toEqual([]);
  });

  it('finalizer, owner reference, status; Ready after the delay; deleted after deleteDelayMs', async () => {
    const hc = hostedCluster({ status: { conditions: [{ type: 'Available', status: 'True', reason: 'AsExpected', lastTransitionTime: at() }] } });
    const world = new FakeWorld([hc, nodePool()]);
    const first = await settle(world);
    expect(first.stops.slice(0, 3)).toEqual(['ensureFinalizer', 'ensureOwnerReference', 'updateStatus']);
    expect(first.result).toEqual({ requeueAfterMs: 2999 });
    world.clock.step(3000);
    await settle(world);
    const np = world.nodePools.get(key)!;
    expect(np.status?.replicas).toBe(2);
    expect(findCondition(np.status?.conditions, 'Ready')?.status).toBe('True');
    expect(np.metadata.ownerReferences).toEqual([{ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', name: 'example', uid: 'uid-hc' }]);

    world.put({ ...np, metadata: { ...np.metadata, deletionTimestamp: at(3000) } });
    expect((await reconcileNodePool(world.nodePools.get(key), world.nodePoolDeps())).result).toEqual({ requeueAfterMs: 1499 });
    world.clock.step(1500);
    await reconcileNodePool(world.nodePools.get(key), world.nodePoolDeps());
    expect(world.nodePools.has(key)).toBe(false);
  });
});
