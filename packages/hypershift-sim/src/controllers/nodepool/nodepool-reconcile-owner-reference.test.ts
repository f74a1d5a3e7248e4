import { describe, expect, it } from 'vitest';
import type { OwnerReference } from '@hcc/crds';
import { FakeWorld, hostedCluster, nodePool } from '../../testing/fixtures.js';
import { ensureOwnerReference } from './nodepool-reconcile-owner-reference.js';

const owner: OwnerReference = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', name: 'example', uid: 'uid-hc' };
const other: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'uid-cm' };

describe('ensureOwnerReference', () => {
  it.each([
    { name: 'adds the HostedCluster', input: [] as OwnerReference[], want: { result: 'stop', refs: [owner] } },
    { name: 'keeps other owners', input: [other], want: { result: 'stop', refs: [other, owner] } },
    { name: 'present: continue', input: [owner], want: { result: 'continue', refs: [owner] } },
    { name: 'fixes a stale uid in place', input: [{ ...owner, uid: 'old' }, other], want: { result: 'stop', refs: [owner, other] } },
    {
      name: 'a v1alpha1 reference is moved to v1beta1',
      input: [{ ...owner, apiVersion: 'hypershift.openshift.io/v1alpha1', controller: false }],
      want: { result: 'stop', refs: [{ ...owner, controller: false }] },
    },
  ])('$name', async ({ input, want }) => {
    const np = nodePool({ metadata: { ownerReferences: input } });
    const world = new FakeWorld([hostedCluster(), np]);
    const result = await ensureOwnerReference(world.nodePoolDeps()).run(structuredClone(np));
    expect({ result, refs: world.nodePools.get('clusters/workers')!.metadata.ownerReferences }).toEqual(want);
  });

  it('stops without a HostedCluster', async () => {
    const world = new FakeWorld([nodePool()]);
    expect(await ensureOwnerReference(world.nodePoolDeps()).run(nodePool())).toBe('stop');
    expect(world.calls).toEqual([]);
  });
});
