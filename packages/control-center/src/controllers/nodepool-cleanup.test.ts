/**
 * The NodePool cleanup of never-placed HostedClusters survives a restart: a HostedCluster left
 * Terminating with `controlcenter.hcc.dev/nodepools` (the process died after the delete started,
 * before or while its NodePools were deleted) is finished by the next start's sweep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { allCRDs, FinalizerNodePools, HostedClusterResource, NodePoolResource, type KubeObject } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';
import { hostedClusterBody } from '../testing/fixtures.js';
import { createObject, deleteObject } from '../handlers/object-ops.js';
import { storageKey } from '../registry/types.js';
import { NodePoolCleanup } from './nodepool-cleanup.js';

const ctx = () => ({ fieldValidation: 'Ignore' as const, warnings: [], now: new Date() });

describe('NodePool cleanup after a restart', () => {
  // No cleanup of its own runs here (not the control center's mode): the state is what a crash left.
  let cc: RunningControlCenter;
  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('deletes the NodePools of a HostedCluster left Terminating with its finalizer, then lets it go', async () => {
    const info = (r: typeof HostedClusterResource) => cc.registry.lookup(r.group, r.version, r.resource)!;
    const hcs = info(HostedClusterResource);
    const nps = info(NodePoolResource);
    await createObject(cc.store, hcs, 'clusters', hostedClusterBody('gone', 'clusters', {}, { finalizers: [FinalizerNodePools] }), ctx(), { dryRun: false });
    const np = (name: string, clusterName: string): KubeObject => ({
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'NodePool',
      metadata: { name, namespace: 'clusters' },
      spec: { clusterName, replicas: 1, management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' } },
    });
    for (let i = 0; i < 20; i++) await createObject(cc.store, nps, 'clusters', np(`gone-${i}`, 'gone'), ctx(), { dryRun: false });
    await createObject(cc.store, nps, 'clusters', np('kept', 'other'), ctx(), { dryRun: false });
    // Half of them deleted before the "crash".
    for (let i = 0; i < 10; i++) await deleteObject(cc.store, nps, 'clusters', `gone-${i}`, ctx(), { dryRun: false });
    await deleteObject(cc.store, hcs, 'clusters', 'gone', ctx(), { dryRun: false });
    expect(cc.store.get(storageKey(hcs, 'clusters', 'gone'))?.object.metadata.deletionTimestamp).toBeDefined();

    const cleanup = new NodePoolCleanup(cc.store, cc.registry, pino({ enabled: false }));
    cleanup.start();
    try {
      for (let i = 0; i < 200 && cc.store.get(storageKey(hcs, 'clusters', 'gone')); i++) await new Promise((r) => setTimeout(r, 25));
      expect(cc.store.get(storageKey(hcs, 'clusters', 'gone'))).toBeUndefined();
      const left = cc.store.list(`/hypershift.openshift.io/nodepools/clusters/`).items.map((it) => it.object.metadata.name);
      expect(left).toEqual(['kept']);
    } finally {
      cleanup.stop();
    }
  });
});
