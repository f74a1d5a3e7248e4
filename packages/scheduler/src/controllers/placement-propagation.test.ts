import { describe, expect, it } from 'vitest';
import { Store } from '@hcc/client';
import type { Condition, HostedCluster, KubeObject, NodePool } from '@hcc/crds';
import { reconcilePropagation, type PropagationDeps } from './placement-propagation.js';

const now = new Date('2026-12-02T00:00:00Z');
const Label = 'controlcenter.hcc.dev/management-cluster';
const why = '0/2 management clusters are available: 2 no budget.';
const unscheduled: Condition = { type: 'Scheduled', status: 'False', reason: 'Unschedulable', message: why, lastTransitionTime: '2026-12-01T23:00:00Z' };
const hcMark: Condition = { type: 'Available', status: 'False', reason: 'Unschedulable', message: `Not placed on a management cluster: ${why}`, lastTransitionTime: '2026-12-01T23:00:00Z' };
const npMark: Condition = {
  type: 'Ready',
  status: 'False',
  reason: 'Unschedulable',
  message: `Not placed on a management cluster: waiting for HostedCluster h: ${why}`,
  observedGeneration: 1,
  lastTransitionTime: '2026-12-02T00:00:00Z',
};
const autoscaling: Condition = { type: 'AutoscalingEnabled', status: 'False', reason: 'AsExpected', lastTransitionTime: '2026-12-01T22:00:00Z' };

const hc = (o: { placedOn?: string; conditions?: Condition[]; deleting?: boolean } = {}): HostedCluster =>
  ({
    metadata: { name: 'h', namespace: 'ns', resourceVersion: '5', labels: o.placedOn ? { [Label]: o.placedOn } : {}, ...(o.deleting ? { deletionTimestamp: '2026-12-02T00:00:00Z' } : {}) },
    spec: {},
    status: { conditions: o.conditions ?? [unscheduled, hcMark] },
  }) as unknown as HostedCluster;
const np = (o: { placedOn?: string; conditions?: Condition[] } = {}): NodePool =>
  ({
    metadata: { name: 'p', namespace: 'ns', resourceVersion: '9', generation: 1, labels: o.placedOn ? { [Label]: o.placedOn } : {} },
    spec: { clusterName: 'h' },
    ...(o.conditions ? { status: { conditions: o.conditions } } : {}),
  }) as unknown as NodePool;

function setup(objects: { hc?: HostedCluster; np?: NodePool }) {
  const hostedClusters = new Store<HostedCluster>();
  if (objects.hc) hostedClusters.set('ns/h', objects.hc);
  const nodePools = new Store<NodePool>();
  if (objects.np) nodePools.set('ns/p', objects.np);
  const labelPatches: { kind: string; name: string; labels: Record<string, string | null> }[] = [];
  const statusWrites: { resourceVersion?: string; conditions: Condition[] }[] = [];
  const deps: PropagationDeps = {
    hostedClusters,
    nodePools,
    secrets: new Store<KubeObject>(),
    configMaps: new Store<KubeObject>(),
    clustersFor: () => new Set(),
    patchLabels: async (kind, _ns, name, labels) => void labelPatches.push({ kind, name, labels }),
    writeNodePoolConditions: async (o, conditions) => void statusWrites.push({ resourceVersion: o.metadata.resourceVersion, conditions }),
    now: () => now,
  };
  return { deps, labelPatches, statusWrites };
}

describe('reconcilePropagation: NodePools', () => {
  it('labels a NodePool with its placed HostedCluster’s management cluster, and writes no status', async () => {
    const { deps, labelPatches, statusWrites } = setup({ hc: hc({ placedOn: 'm1', conditions: [] }), np: np() });
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(labelPatches).toEqual([{ kind: 'NodePool', name: 'p', labels: { [Label]: 'm1' } }]);
    expect(statusWrites).toEqual([]);
  });

  it('marks a NodePool whose HostedCluster cannot be placed Ready=False Unschedulable, keeping its other conditions', async () => {
    const { deps, labelPatches, statusWrites } = setup({ hc: hc(), np: np({ conditions: [autoscaling] }) });
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(labelPatches).toEqual([]);
    expect(statusWrites).toEqual([{ resourceVersion: '9', conditions: [autoscaling, npMark] }]);
  });

  it('writes nothing when the mark is already up to date', async () => {
    const { deps, statusWrites } = setup({ hc: hc(), np: np({ conditions: [npMark] }) });
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(statusWrites).toEqual([]);
  });

  it('follows a changed scheduling message, keeping lastTransitionTime', async () => {
    const older = { ...npMark, message: 'Not placed on a management cluster: waiting for HostedCluster h: 0/1 management clusters are available: 1 cordoned.', lastTransitionTime: '2026-12-01T20:00:00Z' };
    const { deps, statusWrites } = setup({ hc: hc(), np: np({ conditions: [older] }) });
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(statusWrites).toEqual([{ resourceVersion: '9', conditions: [{ ...npMark, lastTransitionTime: '2026-12-01T20:00:00Z' }] }]);
  });

  it('leaves a Ready condition another writer set alone', async () => {
    const ready: Condition = { type: 'Ready', status: 'False', reason: 'WaitingForHostedCluster', message: 'by someone else', lastTransitionTime: '2026-12-01T22:00:00Z' };
    const { deps, statusWrites } = setup({ hc: hc(), np: np({ conditions: [ready] }) });
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(statusWrites).toEqual([]);
  });

  it('does not mark a NodePool whose HostedCluster is only not yet scheduled (no Scheduled=False)', async () => {
    const { deps, statusWrites } = setup({ hc: hc({ conditions: [] }), np: np() });
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(statusWrites).toEqual([]);
  });

  it.each([
    ['placed on a cluster since (the NodePool labelled)', { np: np({ placedOn: 'm1', conditions: [autoscaling, npMark] }), hc: hc({ placedOn: 'm1', conditions: [] }) }],
    ['being deleted', { np: np({ conditions: [autoscaling, npMark] }), hc: hc({ deleting: true }) }],
  ])('removes the mark once its HostedCluster is %s', async (_what, objects) => {
    const { deps, statusWrites } = setup(objects);
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(statusWrites).toEqual([{ resourceVersion: '9', conditions: [autoscaling] }]);
  });

  it('marks a NodePool whose HostedCluster does not exist (a typo in spec.clusterName), and clears the mark once it does', async () => {
    const missing = { ...npMark, message: 'Not placed on a management cluster: waiting for HostedCluster h: no HostedCluster "h" in namespace ns' };
    const { deps, statusWrites } = setup({ np: np({ conditions: [autoscaling] }) });
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(statusWrites).toEqual([{ resourceVersion: '9', conditions: [autoscaling, missing] }]);
    // Its HostedCluster created (not scheduled yet): the mark goes.
    const created = setup({ hc: hc({ conditions: [] }), np: np({ conditions: [autoscaling, missing] }) });
    await reconcilePropagation(created.deps, 'NodePool/ns/p');
    expect(created.statusWrites).toEqual([{ resourceVersion: '9', conditions: [autoscaling] }]);
  });

  it('marks a NodePool that names no HostedCluster (no spec) as such', async () => {
    const specless = np({ conditions: [autoscaling] });
    delete (specless as { spec?: unknown }).spec;
    const { deps, statusWrites } = setup({ np: specless });
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(statusWrites).toEqual([
      { resourceVersion: '9', conditions: [autoscaling, { ...npMark, message: 'Not placed on a management cluster: waiting for a HostedCluster: spec.clusterName names none' }] },
    ]);
  });

  it('a labelled NodePool whose HostedCluster got placed: the label patch first; the mark goes on the update that follows', async () => {
    const { deps, labelPatches, statusWrites } = setup({ hc: hc({ placedOn: 'm1', conditions: [] }), np: np({ conditions: [npMark] }) });
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(labelPatches).toEqual([{ kind: 'NodePool', name: 'p', labels: { [Label]: 'm1' } }]);
    expect(statusWrites).toEqual([]);
    deps.nodePools = (() => {
      const s = new Store<NodePool>();
      s.set('ns/p', np({ placedOn: 'm1', conditions: [npMark] }));
      return s;
    })();
    await reconcilePropagation(deps, 'NodePool/ns/p');
    expect(statusWrites).toEqual([{ resourceVersion: '9', conditions: [] }]);
  });
});
