import { describe, expect, it } from 'vitest';
import { FakeWorld, at, nodePool } from '../../testing/fixtures.js';
import { ensureFinalizer } from './nodepool-reconcile-finalizer.js';

describe('ensureFinalizer (NodePool)', () => {
  it.each([
    { name: 'adds it and stops', input: nodePool(), want: { result: 'stop', finalizers: ['hypershift.openshift.io/finalizer'] } },
    { name: 'present: continue', input: nodePool({ metadata: { finalizers: ['hypershift.openshift.io/finalizer'] } }), want: { result: 'continue', finalizers: ['hypershift.openshift.io/finalizer'] } },
    { name: 'being deleted: never added', input: nodePool({ metadata: { deletionTimestamp: at(), finalizers: ['x'] } }), want: { result: 'continue', finalizers: ['x'] } },
  ])('$name', async ({ input, want }) => {
    const world = new FakeWorld([input]);
    const result = await ensureFinalizer(world.nodePoolDeps()).run(structuredClone(input));
    expect({ result, finalizers: world.nodePools.get('clusters/workers')!.metadata.finalizers }).toEqual(want);
  });
});
