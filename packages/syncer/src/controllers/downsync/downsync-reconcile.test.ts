import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { ApiError } from '@hcc/client';
import type { KubeObject } from '@hcc/crds';
import { downsyncSteps, reconcileDownsync } from './downsync-reconcile.js';
import type { DownsyncDeps, SideWriter, SyncKind } from './types.js';

type Call = [string, ...unknown[]];

function fakeSide(calls: Call[], name: string, live: Map<string, KubeObject> = new Map(), current: (kind: SyncKind) => KubeObject | undefined = () => undefined): SideWriter {
  return {
    get: async (_k, ns, n) => live.get(`${ns}/${n}`),
    create: async (kind, obj) => (calls.push([`${name}.create`, kind, obj]), obj),
    update: async (kind, obj) => (calls.push([`${name}.update`, kind, obj]), obj),
    patch: async (kind, ns, n, patch) => {
      calls.push([`${name}.patch`, kind, `${ns}/${n}`, patch]);
      const cur = current(kind) ?? ({ metadata: { name: n, namespace: ns } } as KubeObject);
      return { ...cur, metadata: { ...cur.metadata, ...((patch as { metadata?: object }).metadata ?? {}) } };
    },
    delete: async (kind, ns, n) => void calls.push([`${name}.delete`, kind, `${ns}/${n}`]),
  };
}

function deps(up: Partial<Record<SyncKind, KubeObject>>, down: Partial<Record<SyncKind, KubeObject>>, calls: Call[]): DownsyncDeps {
  return {
    cluster: 'mgmt-1',
    getUpstream: (k) => up[k],
    getDownstream: (k) => down[k],
    upstream: fakeSide(calls, 'up', new Map(), (k) => up[k]),
    downstream: fakeSide(calls, 'down'),
    ensureDownstreamNamespace: async (ns) => void calls.push(['ensureNamespace', ns]),
    log: pino({ enabled: false }),
  };
}

const hc = (extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'hypershift.openshift.io/v1beta1',
  kind: 'HostedCluster',
  metadata: { name: 'ex', namespace: 'clusters', uid: 'u1', generation: 1, resourceVersion: '10', ...extra },
  spec: { release: { image: 'a' } },
});
const downCopy = (extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  ...hc(),
  metadata: { name: 'ex', namespace: 'clusters', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }, annotations: { 'controlcenter.hcc.dev/upstream-uid': 'u1' }, ...extra },
});

async function run(up: Partial<Record<SyncKind, KubeObject>>, down: Partial<Record<SyncKind, KubeObject>>) {
  const calls: Call[] = [];
  const d = deps(up, down, calls);
  const res = await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
  return { calls, res };
}

describe('downsync of a HostedCluster', () => {
  it('adds the syncer finalizer first, then creates the copy in the same pass', async () => {
    const { calls } = await run({ HostedCluster: hc() }, {});
    expect(calls[0]).toEqual(['up.patch', 'HostedCluster', 'clusters/ex', { metadata: { resourceVersion: '10', finalizers: ['controlcenter.hcc.dev/syncer'] } }]);
    expect(calls.slice(1).map((c) => c[0])).toEqual(['ensureNamespace', 'down.create']);
  });

  it('then creates the copy in its namespace', async () => {
    const { calls } = await run({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, {});
    expect(calls.map((c) => c[0])).toEqual(['ensureNamespace', 'down.create']);
  });

  it('deletes the copy when the upstream object is gone', async () => {
    const { calls } = await run({}, { HostedCluster: downCopy() });
    expect(calls).toEqual([['down.delete', 'HostedCluster', 'clusters/ex']]);
  });

  it('takes a copy that is already gone (404 from the management cluster) as deleted, not as an error', async () => {
    const calls: Call[] = [];
    const d = deps({}, { HostedCluster: downCopy() }, calls);
    d.downstream.delete = async () => {
      throw new ApiError(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'hostedclusters.hypershift.openshift.io "ex" not found' });
    };
    await expect(reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex')).resolves.toBeUndefined();
    d.downstream.delete = async () => {
      throw new ApiError(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, reason: 'Forbidden', message: 'no' });
    };
    await expect(reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex')).rejects.toThrow('no');
  });

  it('never deletes a HostedCluster hcc did not create', async () => {
    const { calls } = await run({}, { HostedCluster: { ...downCopy(), metadata: { name: 'ex', namespace: 'clusters' } } });
    expect(calls).toEqual([]);
  });

  it('on upstream deletion: deletes the copy and waits for the operator', async () => {
    const { calls, res } = await run({ HostedCluster: hc({ deletionTimestamp: 'now', finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: downCopy() });
    expect(calls).toEqual([['down.delete', 'HostedCluster', 'clusters/ex']]);
    expect(res).toEqual({ requeueAfterMs: 2000 });
  });

  it('removes its finalizer only once the copy is gone', async () => {
    const { calls } = await run({ HostedCluster: hc({ deletionTimestamp: 'now', finalizers: ['other', 'controlcenter.hcc.dev/syncer'] }) }, {});
    expect(calls).toEqual([['up.patch', 'HostedCluster', 'clusters/ex', { metadata: { resourceVersion: '10', finalizers: ['other'] } }]]);
  });

  it('adopts an operator-generated clusterID upstream before anything else is written', async () => {
    const down = { ...downCopy(), spec: { release: { image: 'a' }, clusterID: 'gen' } };
    const { calls } = await run({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: down });
    expect(calls).toEqual([['up.patch', 'HostedCluster', 'clusters/ex', { metadata: { resourceVersion: '10' }, spec: { clusterID: 'gen' } }]]);
  });
});
