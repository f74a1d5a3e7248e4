/**
 * Whole passes over an in-memory world: the order of the steps and the timeline they produce.
 */
import { describe, expect, it } from 'vitest';
import type { HostedCluster } from '@hcc/crds';
import { findCondition } from '../../conditions.js';
import { FakeWorld, Image415, hostedCluster, nodePool, pullSecret } from '../../testing/fixtures.js';
import { reconcileHostedCluster } from './hostedcluster-reconcile.js';
import { withSpec } from '../../zero-spec.js';

const key = 'clusters/example';

/** Runs passes until one neither writes nor stops early (a settled state); returns the last result. */
async function settle(world: FakeWorld, deps = world.hostedClusterDeps({ availableDelayMs: 2000, deleteDelayMs: 500 })) {
  const stops: string[] = [];
  for (let i = 0; i < 20; i++) {
    const before = world.calls.length;
    const out = await reconcileHostedCluster(world.hostedClusters.get(key), deps);
    stops.push(out.stoppedAt);
    if (world.calls.length === before) return { ...out, stops };
  }
  throw new Error(`no settled state after 20 passes: ${stops.join(',')}`);
}

const cond = (world: FakeWorld, type: string) => findCondition(world.hostedClusters.get(key)?.status?.conditions, type)?.status;

describe('reconcileHostedCluster', () => {
  it('a gone key is nothing to do', async () => {
    const world = new FakeWorld();
    expect(await reconcileHostedCluster(undefined, world.hostedClusterDeps())).toEqual({ result: undefined, stoppedAt: 'gone' });
  });

  it('creates: finalizer, IDs, status, namespace and Secrets; Available after the delay', async () => {
    const world = new FakeWorld([hostedCluster({ spec: { clusterID: '', infraID: '' } }), pullSecret()]);
    const first = await settle(world);
    expect(first.stops.slice(0, 3)).toEqual(['ensureFinalizer', 'defaultClusterIDs', 'updateStatus']);
    expect(world.calls).toEqual([
      'update hostedclusters clusters/example',
      'update hostedclusters clusters/example',
      'updateStatus hostedclusters clusters/example',
      'create namespaces clusters-example',
      'create secrets clusters/example-admin-kubeconfig',
      'create secrets clusters/example-kubeadmin-password',
      'updateStatus hostedclusters clusters/example',
    ]);
    expect(first.result).toEqual({ requeueAfterMs: 2999 });
    expect(cond(world, 'Available')).toBe('False');
    expect(cond(world, 'Progressing')).toBe('True');

    world.clock.step(3000);
    const second = await settle(world);
    expect(second.result).toBeUndefined();
    expect(cond(world, 'Available')).toBe('True');
    expect(cond(world, 'Progressing')).toBe('False');
    expect(world.hostedClusters.get(key)!.status?.kubeconfig).toEqual({ name: 'example-admin-kubeconfig' });
  });

  it('blocks without a pull secret: no namespace, no Secrets; proceeds once it exists', async () => {
    const world = new FakeWorld([hostedCluster()]);
    const blocked = await settle(world);
    expect(blocked.stoppedAt).toBe('blockOnInvalidSpec');
    expect(world.namespaces.size + world.secrets.size).toBe(0);
    expect(cond(world, 'ValidReleaseImage')).toBe('False');

    world.put(pullSecret());
    world.clock.step(5000);
    await settle(world);
    expect(world.namespaces.has('clusters-example')).toBe(true);
    expect(cond(world, 'ValidReleaseImage')).toBe('True');
    expect(cond(world, 'Available')).toBe('False');
    world.clock.step(3000);
    await settle(world);
    expect(cond(world, 'Available')).toBe('True');
  });

  it('a HostedCluster sent without a spec gets a finalizer and a status saying what is wrong, and stops there', async () => {
    const specless = hostedCluster();
    delete (specless as { spec?: unknown }).spec;
    const world = new FakeWorld([withSpec(specless), pullSecret()]);
    const out = await settle(world);
    expect(out.stoppedAt).toBe('blockOnInvalidSpec');
    expect(world.calls).toEqual(['update hostedclusters clusters/example', 'updateStatus hostedclusters clusters/example']);
    expect(world.hostedClusters.get(key)!.spec).toEqual({});
    const valid = findCondition(world.hostedClusters.get(key)?.status?.conditions, 'ValidReleaseImage');
    expect(valid).toMatchObject({ status: 'False' });
    expect(valid?.message).toBeTruthy();
    expect(world.namespaces.size).toBe(0);
    // No release, so no version reported (none made up from an empty image).
    expect(world.hostedClusters.get(key)!.status?.version).toBeUndefined();
  });

  it('upgrades and deletes', async () => {
    const world = new FakeWorld([hostedCluster(), pullSecret(), nodePool()]);
    await settle(world);
    world.clock.step(3000);
    await settle(world);

    const hc = structuredClone(world.hostedClusters.get(key)!) as HostedCluster;
    hc.spec.release = { image: Image415 };
    world.put({ ...hc, metadata: { ...hc.metadata, generation: 2 } });
    const upgrading = await settle(world);
    // Stored times have second precision: the wait is measured from the end of that second.
    expect(upgrading.result).toEqual({ requeueAfterMs: 2999 });
    expect(cond(world, 'Progressing')).toBe('True');
    expect(cond(world, 'Available')).toBe('True');
    world.clock.step(3000);
    await settle(world);
    expect(world.hostedClusters.get(key)!.status?.version?.history?.map((h) => h.state)).toEqual(['Completed', 'Completed']);

    // Delete: the API server sets deletionTimestamp; the finalizer holds the object.
    const live = world.hostedClusters.get(key)!;
    world.put({ ...live, metadata: { ...live.metadata, deletionTimestamp: new Date(world.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z') } });
    world.calls.length = 0;
    const tearingDown = await reconcileHostedCluster(world.hostedClusters.get(key), world.hostedClusterDeps());
    expect(tearingDown).toEqual({ result: { requeueAfterMs: 2000 }, stoppedAt: 'deleteHostedCluster' });
    expect(world.calls).toEqual([
      'delete nodepools clusters/workers',
      'delete secrets clusters/example-admin-kubeconfig',
      'delete secrets clusters/example-kubeadmin-password',
      'delete namespaces clusters-example',
    ]);
    world.finishNamespaceDeletions();
    world.clock.step(2000);
    await reconcileHostedCluster(world.hostedClusters.get(key), world.hostedClusterDeps());
    expect(world.hostedClusters.has(key)).toBe(false);
  });
});
