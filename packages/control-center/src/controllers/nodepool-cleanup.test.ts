/**
 * The NodePool cleanup of never-placed HostedClusters survives a restart: a HostedCluster left
 * Terminating with `controlcenter.hcc.dev/nodepools` (the process died after the delete started,
 * before or while its NodePools were deleted) is finished by the next start's sweep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { allCRDs, FinalizerNodePools, HostedClusterResource, NodePoolResource, type KubeObject } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter, useTestControlCenter } from '../testing/in-process.js';
import { hostedClusterBody } from '../testing/fixtures.js';
import { createObject, deleteObject } from '../handlers/object-ops.js';
import { storageKey } from '../registry/types.js';
import { NodePoolCleanup } from './nodepool-cleanup.js';
import type { Store, StoreEvent } from '../storage/store.js';

const ctx = () => ({ fieldValidation: 'Ignore' as const, warnings: [], now: new Date() });

/**
 * `store`, but its `transact` fails (an injected storage error) while `fail(key)` says so, and its
 * `watch` hands the callback to `onWatch` instead of the store's events (the test delivers them).
 */
function intercepted(store: Store, opts: { fail?: (key: string) => boolean; onWatch?: (fn: (ev: StoreEvent) => void) => void }): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'transact' && opts.fail) {
        return (k: string, fn: Parameters<Store['transact']>[1]) => (opts.fail!(k) ? Promise.reject(new Error('injected storage failure')) : target.transact(k, fn));
      }
      if (prop === 'watch' && opts.onWatch) {
        return (prefix: string, from: number, fn: (ev: StoreEvent) => void) => {
          opts.onWatch!(fn);
          return target.watch(prefix, from, () => {});
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** A NodePool of HostedCluster `clusterName` in namespace `clusters`. */
const nodePool = (name: string, clusterName: string): KubeObject => ({
  apiVersion: 'hypershift.openshift.io/v1beta1',
  kind: 'NodePool',
  metadata: { name, namespace: 'clusters' },
  spec: { clusterName, replicas: 1, management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' } },
});

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
    const np = nodePool;
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

describe('NodePool cleanup retried after a failed finalizer removal', () => {
  let cc: RunningControlCenter;
  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('does not wait the delete delay again: the retry follows with the work queue backoff (from 5 ms)', async () => {
    const info = (r: typeof HostedClusterResource) => cc.registry.lookup(r.group, r.version, r.resource)!;
    const hcs = info(HostedClusterResource);
    await createObject(cc.store, hcs, 'clusters', hostedClusterBody('retried', 'clusters', {}, { finalizers: [FinalizerNodePools] }), ctx(), { dryRun: false });
    await deleteObject(cc.store, hcs, 'clusters', 'retried', ctx(), { dryRun: false });
    const key = storageKey(hcs, 'clusters', 'retried');
    // The first finalizer removal fails (a storage error), as a conflict with another writer would.
    let failures = 0;
    const store = intercepted(cc.store, { fail: (k) => k === key && failures++ === 0 });
    const delayMs = 5_000;
    const cleanup = new NodePoolCleanup(store, cc.registry, pino({ enabled: false }), delayMs);
    const started = Date.now();
    cleanup.start();
    try {
      // Gone right after the delay and one retry (~5 s); waiting the delay again would take ~10 s.
      while (cc.store.get(key) && Date.now() - started < delayMs + 4_500) await new Promise((r) => setTimeout(r, 50));
      expect(failures).toBeGreaterThanOrEqual(2);
      expect(cc.store.get(key)).toBeUndefined();
    } finally {
      cleanup.stop();
    }
  });
});

describe('NodePool cleanup on a HostedCluster learnt deleted late', () => {
  // The control center's own cleanup is not running here; the test drives one whose store watch
  // it holds, to hand it the events a lagging replica gets (a late DELETED, or one made up by an
  // etcd re-list after a HostedCluster of the same name was created again).
  let cc: RunningControlCenter;
  let deliver: ((ev: StoreEvent) => void) | undefined;
  let cleanup: NodePoolCleanup;
  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });
    const store = intercepted(cc.store, { onWatch: (fn) => (deliver = fn) });
    cleanup = new NodePoolCleanup(store, cc.registry, pino({ enabled: false }));
    cleanup.start();
  });
  afterAll(async () => {
    cleanup?.stop();
    await cc?.close();
  });

  const np = nodePool;
  const names = () =>
    cc.store
      .list(`/hypershift.openshift.io/nodepools/clusters/`)
      .items.map((it) => it.object.metadata.name)
      .sort();
  const settle = () => new Promise((r) => setTimeout(r, 100));

  it('leaves the NodePools created after the delete it hears of, re-listed or not, and deletes those from before', async () => {
    const info = (r: typeof HostedClusterResource) => cc.registry.lookup(r.group, r.version, r.resource)!;
    const hcs = info(HostedClusterResource);
    const nps = info(NodePoolResource);
    // The old HostedCluster, with a NodePool (no NodePool at its delete: gone without the finalizer).
    const old = await createObject(cc.store, hcs, 'clusters', hostedClusterBody('u1', 'clusters', {}), ctx(), { dryRun: false });
    await deleteObject(cc.store, hcs, 'clusters', 'u1', ctx(), { dryRun: false });
    const deletedAt = cc.store.currentRevision();
    const oldRv = Number(old.metadata.resourceVersion);
    await createObject(cc.store, nps, 'clusters', np('early', 'u1'), ctx(), { dryRun: false }); // after the delete: kept
    // A HostedCluster of the same name again, with its NodePools.
    await createObject(cc.store, hcs, 'clusters', hostedClusterBody('u1', 'clusters', {}), ctx(), { dryRun: false });
    const newRev = cc.store.currentRevision();
    await createObject(cc.store, nps, 'clusters', np('u1-a', 'u1'), ctx(), { dryRun: false });
    await createObject(cc.store, nps, 'clusters', np('u1-b', 'u1'), ctx(), { dryRun: false });
    const gone = { ...old, metadata: { ...old.metadata, resourceVersion: String(deletedAt) } };
    const key = storageKey(hcs, 'clusters', 'u1');

    // Made up by a re-list: its revision is the new HostedCluster's creation, after 'early'.
    deliver!({ type: 'DELETED', key, revision: newRev, object: gone, prevObject: old, relisted: true });
    await settle();
    expect(names()).toEqual(['early', 'u1-a', 'u1-b']);
    // A late DELETED at the delete's own revision.
    deliver!({ type: 'DELETED', key, revision: deletedAt, object: gone, prevObject: old });
    await settle();
    expect(names()).toEqual(['early', 'u1-a', 'u1-b']);
    expect(oldRv).toBeLessThan(deletedAt);

    // A DELETED after the NodePools were created deletes them (what it does for a HostedCluster that went without the finalizer).
    const now = cc.store.currentRevision();
    deliver!({ type: 'DELETED', key, revision: now + 1, object: { ...gone, metadata: { ...gone.metadata, resourceVersion: String(now + 1) } }, prevObject: old });
    for (let i = 0; i < 40 && names().length; i++) await settle();
    expect(names()).toEqual([]);
  });
});

describe('NodePool cleanup retried after a HostedCluster that went without the finalizer', () => {
  const control = useTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });

  it('tries the NodePools again while their deletion fails (a storage error), and deletes them', async () => {
    const cc = control();
    const hcs = cc.registry.lookup(HostedClusterResource.group, HostedClusterResource.version, HostedClusterResource.resource)!;
    const nps = cc.registry.lookup(NodePoolResource.group, NodePoolResource.version, NodePoolResource.resource)!;
    await createObject(cc.store, nps, 'clusters', nodePool('orphan-a', 'went'), ctx(), { dryRun: false });
    const npKey = storageKey(nps, 'clusters', 'orphan-a');
    let failures = 0;
    let deliver: ((ev: StoreEvent) => void) | undefined;
    const store = intercepted(cc.store, { fail: (k) => k === npKey && failures < 2 && ++failures > 0, onWatch: (fn) => (deliver = fn) });
    const cleanup = new NodePoolCleanup(store, cc.registry, pino({ enabled: false }));
    cleanup.start();
    try {
      const rev = cc.store.currentRevision() + 1;
      const gone = hostedClusterBody('went', 'clusters', {});
      gone.metadata = { ...gone.metadata, uid: 'went-uid', resourceVersion: String(rev) };
      deliver!({ type: 'DELETED', key: storageKey(hcs, 'clusters', 'went'), revision: rev, object: gone });
      // Two failures, each tried again after the work queue's backoff.
      for (let i = 0; i < 60 && cc.store.get(npKey); i++) await new Promise((r) => setTimeout(r, 100));
      expect(failures).toBe(2);
      expect(cc.store.get(npKey)).toBeUndefined();
    } finally {
      cleanup.stop();
    }
  });
});
