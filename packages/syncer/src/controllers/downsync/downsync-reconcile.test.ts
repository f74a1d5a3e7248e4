import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { ApiError, Skipped } from '@hcc/client';
import type { KubeObject } from '@hcc/crds';
import { downsyncSteps, reconcileDownsync } from './downsync-reconcile.js';
import type { DownsyncDeps, SideWriter, SyncKind } from './types.js';
import { OwnWrites } from '@hcc/client';
import { controlCenterStamp, controlCenterSeal } from '../../control-center-identity.js';

/** The ID and seal a syncer of control center `id` writes on a copy of upstream uid `uid`. */
const stampOf = (id: string, uid: string) => controlCenterStamp(id, uid);

type Call = [string, ...unknown[]];
let clock = 1_000_000;

function fakeSide(calls: Call[], name: string, live: Map<string, KubeObject> = new Map(), current: (kind: SyncKind) => KubeObject | undefined = () => undefined): SideWriter {
  return {
    get: async (_k, ns, n) => live.get(`${ns}/${n}`),
    create: async (kind, obj) => (calls.push([`${name}.create`, kind, obj]), { ...obj, metadata: { ...obj.metadata, resourceVersion: '1' } }),
    update: async (kind, obj) => (calls.push([`${name}.update`, kind, obj]), obj),
    patch: async (kind, ns, n, patch) => {
      calls.push([`${name}.patch`, kind, `${ns}/${n}`, patch]);
      const cur = current(kind) ?? ({ metadata: { name: n, namespace: ns } } as KubeObject);
      return { ...cur, metadata: { ...cur.metadata, ...((patch as { metadata?: object }).metadata ?? {}) } };
    },
    delete: async (kind, ns, n, preconditions) => void calls.push([`${name}.delete`, kind, `${ns}/${n}`, ...(preconditions ? [preconditions] : [])]),
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
    ownWrites: new OwnWrites(),
    downWrites: new OwnWrites(),
    recentCreates: new Map(),
    now: () => clock,
    warn: (obj, reason, message) => void calls.push(['warn', `${obj.kind}/${obj.metadata.name}`, reason, message]),
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

  it("reports fields the management cluster's CRD dropped (FieldsDropped) and writes the copy again later; a clean write reports nothing", async () => {
    for (const existing of [undefined, downCopy()]) {
      const calls: Call[] = [];
      const up = { ...hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }), spec: { release: { image: 'b' }, newFeature: 'on' } };
      const d = deps({ HostedCluster: up }, existing ? { HostedCluster: existing } : {}, calls);
      const warnings: (string | undefined)[] = [];
      const answer = (onWarning: ((t: string) => void) | undefined) => {
        warnings.push(onWarning ? 'asked' : undefined);
        onWarning?.('unknown field "spec.newFeature"');
        onWarning?.('some other warning');
      };
      d.downstream.create = async (_k, obj, onWarning) => (answer(onWarning), obj);
      d.downstream.patch = async (_k, _ns, _n, _p, onWarning) => (answer(onWarning), existing!);
      const res = await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
      expect(warnings).toEqual(['asked']);
      expect(res).toEqual({ requeueAfterMs: 300_000 });
      expect(calls.filter((c) => c[0] === 'warn')).toEqual([
        [
          'warn',
          'HostedCluster/ex',
          'FieldsDropped',
          'management cluster mgmt-1 does not know "spec.newFeature" (its HostedCluster CRD is older than the control center\'s): the copy there lacks them; upgrade HyperShift there or leave them unset',
        ],
      ]);
    }
    const { calls, res } = await run({ HostedCluster: { ...hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) } }, {});
    expect(res).toBeUndefined();
    expect(calls.filter((c) => c[0] === 'warn')).toEqual([]);
  });

  it('reports a copy the management cluster refuses (CopyFailed) and fails the pass; passing errors stay in the log', async () => {
    const refuse = (code: number, reason: string, message: string) => new ApiError(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });
    const up = hc({ finalizers: ['controlcenter.hcc.dev/syncer'] });
    for (const [err, event] of [
      [refuse(403, 'Forbidden', 'admission webhook "policy.example.com" denied the request: no HostedClusters here'), true],
      [refuse(422, 'Invalid', 'HostedCluster.hypershift.openshift.io "ex" is invalid: spec.x: Required value'), true],
      [refuse(409, 'Conflict', 'the object has been modified'), false],
      [refuse(500, 'InternalError', 'etcd is down'), false],
    ] as const) {
      for (const existing of [undefined, downCopy()]) {
        const calls: Call[] = [];
        const d = deps({ HostedCluster: { ...up, spec: { release: { image: 'b' } } } }, existing ? { HostedCluster: existing } : {}, calls);
        d.downstream.create = async () => {
          throw err;
        };
        d.downstream.patch = async () => {
          throw err;
        };
        await expect(reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex')).rejects.toBe(err);
        expect(calls.filter((c) => c[0] === 'warn')).toEqual(
          event ? [['warn', 'HostedCluster/ex', 'CopyFailed', `management cluster mgmt-1 refused the HostedCluster copy (${err.code} ${err.reason}): ${err.message}; retrying`]] : [],
        );
      }
    }
  });

  it('waits, without a CopyFailed Event, while the namespace there is being deleted (403 NamespaceTerminating), marking Available=Unknown upstream', async () => {
    // kube-apiserver's NamespaceLifecycle admission answers a create in a terminating namespace so.
    const terminating = new ApiError(403, {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message: 'hostedclusters.hypershift.openshift.io "ex" is forbidden: unable to create new content in namespace clusters because it is being terminated',
      details: { name: 'ex', group: 'hypershift.openshift.io', kind: 'hostedclusters', causes: [{ reason: 'NamespaceTerminating', message: 'namespace clusters is being terminated', field: 'metadata.namespace' }] },
    });
    const calls: Call[] = [];
    const marked: KubeObject[] = [];
    const d = deps({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, {}, calls);
    d.downstream.create = async () => {
      throw terminating;
    };
    d.updateUpstreamStatus = async (_k, obj) => (marked.push(obj), obj);
    let now = 5_000_000;
    d.now = () => now;
    d.namespaceWaits = new Map();
    const res = await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(res).toEqual({ requeueAfterMs: 1_000 });
    expect(calls.filter((c) => c[0] === 'warn')).toEqual([]);
    expect(marked).toHaveLength(1);
    expect((marked[0]!.status as { conditions: unknown[] }).conditions).toEqual([
      expect.objectContaining({ type: 'Available', status: 'Unknown', reason: 'NamespaceTerminating', message: 'management cluster mgmt-1 has no copy yet: namespace clusters there is being deleted; the copy is made once it is gone' }),
    ]);
    // Looked at less often the longer it waits (a quarter of the wait, at most 30 s) ...
    now += 20_000;
    expect(await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex')).toEqual({ requeueAfterMs: 5_000 });
    expect(calls.filter((c) => c[0] === 'warn')).toEqual([]);
    // ... and a namespace stuck terminating for over 2 minutes gets a Warning Event.
    now += 110_000;
    expect(await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex')).toEqual({ requeueAfterMs: 30_000 });
    expect(calls.filter((c) => c[0] === 'warn')).toEqual([
      ['warn', 'HostedCluster/ex', 'NamespaceTerminating', 'management cluster mgmt-1: namespace clusters there has been terminating for over 2 minutes (its status there says what holds it); the HostedCluster is copied once it is gone'],
    ]);
    // Once a create goes through, a later wait counts from its own start.
    d.downstream.create = async (_k, obj) => obj;
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(d.namespaceWaits.size).toBe(0);
  });

  it('marks Available=Unknown (CopyFailed) upstream when the management cluster refuses to create the copy, once per message; not when a change is refused', async () => {
    const refused = new ApiError(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, reason: 'Forbidden', message: 'admission webhook "policy.example.com" denied the request' });
    const shown = { conditions: [{ type: 'Available', status: 'True', reason: 'AsExpected', message: 'ok', lastTransitionTime: '2026-12-01T00:00:00Z' }] };
    const marked: KubeObject[] = [];
    const attempt = async (status: unknown, existing?: KubeObject) => {
      const calls: Call[] = [];
      const d = deps({ HostedCluster: { ...hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }), status } as KubeObject }, existing ? { HostedCluster: existing } : {}, calls);
      d.downstream.create = async () => {
        throw refused;
      };
      d.downstream.patch = async () => {
        throw refused;
      };
      d.updateUpstreamStatus = async (_k, obj) => (marked.push(obj), obj);
      await expect(reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex')).rejects.toBe(refused);
    };
    await attempt(shown);
    expect(marked).toHaveLength(1);
    const cond = (marked[0]!.status as { conditions: { type: string; status: string; reason: string; message: string; lastTransitionTime: string }[] }).conditions[0]!;
    expect(cond).toMatchObject({ type: 'Available', status: 'Unknown', reason: 'CopyFailed', message: 'management cluster mgmt-1 has no copy: it refused to create one (403 Forbidden): admission webhook "policy.example.com" denied the request' });
    expect(cond.lastTransitionTime).not.toBe('2026-12-01T00:00:00Z');
    expect(marked[0]!.metadata.resourceVersion).toBe('10');
    // Already marked with this message: no second write.
    await attempt(marked[0]!.status);
    expect(marked).toHaveLength(1);
    // A copy exists and a change to it is refused: its status is the operator's, left as it is.
    await attempt(shown, { ...downCopy(), spec: { release: { image: 'old' } } });
    expect(marked).toHaveLength(1);
  });

  it('deletes the copy when the upstream object is gone', async () => {
    const { calls } = await run({}, { HostedCluster: downCopy() });
    expect(calls).toEqual([['down.delete', 'HostedCluster', 'clusters/ex']]);
    // The copy it looked at only (its uid): a same-named object made since by a user is not deleted.
    const withUid = await run({}, { HostedCluster: downCopy({ uid: 'copy-uid' }) });
    expect(withUid.calls).toEqual([['down.delete', 'HostedCluster', 'clusters/ex', { uid: 'copy-uid' }]]);
  });

  it('deletes a copy once: a pass before the informer shows the deletion sees it being deleted (Skipped, no second DELETE)', async () => {
    const calls: Call[] = [];
    const secretCopy: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ps', namespace: 'clusters', uid: 'c1', resourceVersion: '9', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }, annotations: { 'controlcenter.hcc.dev/upstream-uid': 's1' } }, data: {} };
    const d = deps({}, { Secret: secretCopy }, calls);
    d.stillReferenced = async () => false;
    await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    expect(calls).toEqual([['down.delete', 'Secret', 'clusters/ps', { uid: 'c1' }]]);
    calls.length = 0;
    // The informer still shows resourceVersion 9.
    expect(await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps')).toBe(Skipped);
    expect(calls).toEqual([]);
  });

  it('fails the pass (to be retried) when deleting the copy fails; a copy already gone is for the writer to absorb (side-writer.test.ts)', async () => {
    const calls: Call[] = [];
    const d = deps({}, { HostedCluster: downCopy() }, calls);
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

  it('marks an object others\' finalizers still hold as torn down (Available=False, a NodePool Ready=False with no replicas) before its finalizer goes', async () => {
    for (const kind of ['HostedCluster', 'NodePool'] as const) {
      const calls: Call[] = [];
      const base = hc({ deletionTimestamp: 'now', finalizers: ['example.com/hold', 'controlcenter.hcc.dev/syncer'] });
      const up: KubeObject = {
        ...base,
        kind,
        spec: kind === 'NodePool' ? { clusterName: 'ex', replicas: 2 } : base.spec,
        status: { ...(kind === 'NodePool' ? { replicas: 2 } : {}), conditions: [{ type: kind === 'NodePool' ? 'Ready' : 'Available', status: 'True', reason: 'AsExpected', message: '', lastTransitionTime: '2026-12-01T00:00:00Z' }] },
      };
      const d = deps({ [kind]: up }, {}, calls);
      d.updateUpstreamStatus = async (_k, obj) => (calls.push(['up.status', obj.status]), { ...obj, metadata: { ...obj.metadata, resourceVersion: '11' } });
      await reconcileDownsync(d, downsyncSteps(d), `${kind}/clusters/ex`);
      expect(calls.map((c) => c[0])).toEqual(['up.status', 'up.patch']);
      const status = calls[0]![1] as { replicas?: number; conditions: { type: string; status: string; reason: string; message: string }[] };
      expect(status.conditions).toEqual([
        expect.objectContaining({
          type: kind === 'NodePool' ? 'Ready' : 'Available',
          status: 'False',
          reason: 'TornDown',
          message: 'deleted: nothing of it runs in management cluster mgmt-1 any more; waiting for the finalizers example.com/hold',
        }),
      ]);
      expect(status.replicas).toBe(kind === 'NodePool' ? 0 : undefined);
      // The finalizer goes with the resourceVersion the status write returned.
      expect(calls[1]![3]).toEqual({ metadata: { resourceVersion: '11', finalizers: ['example.com/hold'] } });
      // Marked already (a pass after a failed finalizer patch): no second status write.
      calls.length = 0;
      const marked = { ...up, status: status as unknown as KubeObject['status'] };
      const again = deps({ [kind]: marked }, {}, calls);
      again.updateUpstreamStatus = d.updateUpstreamStatus;
      await reconcileDownsync(again, downsyncSteps(again), `${kind}/clusters/ex`);
      expect(calls.map((c) => c[0])).toEqual(['up.patch']);
    }
  });

  it('removes HyperShift\'s finalizer too when the manifest came with it (no operator runs upstream to remove it)', async () => {
    const { calls } = await run({ HostedCluster: hc({ deletionTimestamp: 'now', finalizers: ['hypershift.openshift.io/finalizer', 'other', 'controlcenter.hcc.dev/syncer'] }) }, {});
    expect(calls).toEqual([['up.patch', 'HostedCluster', 'clusters/ex', { metadata: { resourceVersion: '10', finalizers: ['other'] } }]]);
  });

  it('builds the next pass on what its own upstream write returned, not on the informer\'s older object', async () => {
    const calls: Call[] = [];
    const up = hc();
    const d = deps({ HostedCluster: up }, {}, calls);
    d.upstream.patch = async (kind, ns, n, patch) => {
      calls.push(['up.patch', kind, `${ns}/${n}`, patch]);
      return { ...up, metadata: { ...up.metadata, resourceVersion: '11', finalizers: ['controlcenter.hcc.dev/syncer'] } };
    };
    d.downstream.create = async () => {
      throw new ApiError(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, reason: 'InternalError', message: 'boom' });
    };
    await expect(reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex')).rejects.toThrow('boom');
    expect(calls.map((c) => c[0])).toEqual(['up.patch', 'ensureNamespace']);
    // The informer still shows resourceVersion 10 without the finalizer: it is not added again.
    calls.length = 0;
    d.downstream.create = async (kind, obj) => (calls.push(['down.create', kind, obj]), obj);
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls.map((c) => c[0])).toEqual(['ensureNamespace', 'down.create']);
  });

  it('brings a drifted copy back with a merge patch of only what hcc manages, without a resourceVersion', async () => {
    const up = hc({ finalizers: ['controlcenter.hcc.dev/syncer'], labels: { team: 'a' } });
    const synced = { ...downCopy(), metadata: { ...downCopy().metadata, resourceVersion: '7', finalizers: ['hypershift.openshift.io/finalizer'] }, status: { conditions: [] } };
    const first = await run({ HostedCluster: up }, { HostedCluster: synced });
    const inSyncCopy = { ...synced, metadata: { ...synced.metadata, labels: { ...(first.calls[0]![3] as { metadata: { labels: Record<string, string> } }).metadata.labels, 'controlcenter.hcc.dev/synced-by': 'mgmt-1' } } };
    // Apply what the first pass wrote, then drift the spec and a synced label locally.
    const patch = first.calls[0]![3] as { metadata: { labels: Record<string, string>; annotations: Record<string, string> } };
    const applied = { ...inSyncCopy, metadata: { ...inSyncCopy.metadata, labels: { ...synced.metadata.labels, ...patch.metadata.labels }, annotations: { ...synced.metadata.annotations, ...patch.metadata.annotations } } };
    expect((await run({ HostedCluster: up }, { HostedCluster: applied })).calls).toEqual([]);
    const drifted = { ...applied, metadata: { ...applied.metadata, labels: { ...applied.metadata.labels, team: 'b', local: 'x' } }, spec: { release: { image: 'b' }, paused: 'true' } };
    const { calls } = await run({ HostedCluster: up }, { HostedCluster: drifted });
    expect(calls).toEqual([['down.patch', 'HostedCluster', 'clusters/ex', { metadata: { labels: { team: 'a' } }, spec: { release: { image: 'a' }, paused: null } }]]);
  });

  it("never creates a copy whose control-plane namespace is someone else's namespace there (CopyBlocked, Available=Unknown, another look in a minute)", async () => {
    const calls: Call[] = [];
    const up = hc({ finalizers: ['controlcenter.hcc.dev/syncer'] });
    const d = deps({ HostedCluster: up }, {}, calls);
    const asked: string[] = [];
    d.foreignControlPlaneNamespace = async (o) => (asked.push(o.metadata.name!), 'its control-plane namespace clusters-ex exists here and is not a control plane\'s');
    d.updateUpstreamStatus = async (kind, obj) => (calls.push(['up.status', kind, obj]), obj);
    expect(await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex')).toEqual({ requeueAfterMs: 60_000 });
    expect(asked).toEqual(['ex']);
    expect(calls.map((c) => c[0])).toEqual(['warn', 'up.status']);
    expect(calls[0]!.slice(2)).toEqual([
      'CopyBlocked',
      "management cluster mgmt-1: its control-plane namespace clusters-ex exists here and is not a control plane's; the HostedCluster is not copied there: rename it or its namespace, or remove that namespace there",
    ]);
    // Once the copy exists the question is not asked again (the operator has labelled its namespace).
    const copied = deps({ HostedCluster: up }, { HostedCluster: downCopy() }, []);
    copied.foreignControlPlaneNamespace = async () => {
      throw new Error('not asked for an existing copy');
    };
    await reconcileDownsync(copied, downsyncSteps(copied), 'HostedCluster/clusters/ex');
  });

  it('does not send a patch again while its informer has not shown the last one; a pass that writes nothing is Skipped', async () => {
    /** RFC 7386 JSON merge patch, as the management cluster applies it. */
    const merge = (t: unknown, p: unknown): unknown => {
      if (p === null || typeof p !== 'object' || Array.isArray(p)) return p;
      const out: Record<string, unknown> = t && typeof t === 'object' && !Array.isArray(t) ? { ...(t as Record<string, unknown>) } : {};
      for (const [k, v] of Object.entries(p)) {
        if (v === null) delete out[k];
        else out[k] = merge(out[k], v);
      }
      return out;
    };
    const calls: Call[] = [];
    let up = hc({ finalizers: ['controlcenter.hcc.dev/syncer'], generation: 2 });
    const copy = { ...downCopy(), metadata: { ...downCopy().metadata, uid: 'd1', resourceVersion: '7' } };
    const down: Partial<Record<SyncKind, KubeObject>> = { HostedCluster: copy };
    const d = deps({ HostedCluster: up }, down, calls);
    d.getUpstream = () => up;
    let live: KubeObject = copy;
    let rv = 7;
    d.downstream.patch = async (kind, ns, n, patch) => {
      calls.push(['down.patch', kind, `${ns}/${n}`, patch]);
      live = merge(live, patch) as KubeObject;
      live = { ...live, metadata: { ...live.metadata, resourceVersion: String(++rv) } };
      return live;
    };
    const pass = () => reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');

    expect(await pass()).toBeUndefined();
    expect(calls.map((c) => c[0])).toEqual(['down.patch']);
    expect((calls[0]![3] as KubeObject).metadata.annotations).toMatchObject({ 'controlcenter.hcc.dev/upstream-generation': '2' });
    // The informer still shows resourceVersion 7: the pass builds on what the patch returned.
    calls.length = 0;
    expect(await pass()).toBe(Skipped);
    expect(calls).toEqual([]);
    // An upstream change meanwhile: only that change is sent.
    up = { ...up, metadata: { ...up.metadata, generation: 3 }, spec: { release: { image: 'b' } } };
    expect(await pass()).toBeUndefined();
    expect(calls).toEqual([['down.patch', 'HostedCluster', 'clusters/ex', { metadata: { annotations: { 'controlcenter.hcc.dev/upstream-generation': '3' } }, spec: { release: { image: 'b' } } }]]);
    // The informer shows a later version (someone else's write since): it is what the pass builds on.
    calls.length = 0;
    down.HostedCluster = { ...live, metadata: { ...live.metadata, resourceVersion: '20' }, spec: { release: { image: 'c' } } };
    await pass();
    expect(calls).toEqual([['down.patch', 'HostedCluster', 'clusters/ex', { spec: { release: { image: 'b' } } }]]);
    // Upstream and copy both gone: nothing to write.
    calls.length = 0;
    const gone = deps({}, {}, calls);
    expect(await reconcileDownsync(gone, downsyncSteps(gone), 'HostedCluster/clusters/ex')).toBe(Skipped);
    expect(calls).toEqual([]);
  });

  it('does not create a copy again while its informer has not shown the one it just created', async () => {
    const calls: Call[] = [];
    const up = hc({ finalizers: ['controlcenter.hcc.dev/syncer'] });
    const down: Partial<Record<SyncKind, KubeObject>> = {};
    const d = deps({ HostedCluster: up }, down, calls);
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls.map((c) => c[0])).toEqual(['ensureNamespace', 'down.create']);
    calls.length = 0;
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls).toEqual([]);
    // An upstream change before the informer catches up is patched onto the created copy.
    const changed = { ...up, metadata: { ...up.metadata, generation: 2 }, spec: { release: { image: 'b' } } };
    const d2 = { ...d, getUpstream: () => changed };
    await reconcileDownsync(d2, downsyncSteps(d2), 'HostedCluster/clusters/ex');
    expect(calls.map((c) => c[0])).toEqual(['down.patch']);
    expect(calls[0]![3]).toMatchObject({ spec: { release: { image: 'b' } } });
    // Once the informer shows the copy, the memory of the create is dropped; after the TTL a
    // missing copy is created again (it was deleted before the informer saw it).
    calls.length = 0;
    clock += 31_000;
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls.map((c) => c[0])).toEqual(['ensureNamespace', 'down.create']);
    down.HostedCluster = { ...downCopy(), metadata: { ...downCopy().metadata, annotations: { ...(calls[1]![2] as KubeObject).metadata.annotations } }, spec: up.spec };
    calls.length = 0;
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(d.recentCreates.size).toBe(0);
  });

  it('creates the copy again when it vanished before the informer showed it (404 on the patch)', async () => {
    const calls: Call[] = [];
    const up = hc({ finalizers: ['controlcenter.hcc.dev/syncer'] });
    const d = deps({ HostedCluster: up }, {}, calls);
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    d.downstream.patch = async () => {
      throw new ApiError(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'gone' });
    };
    const d2 = { ...d, getUpstream: () => ({ ...up, spec: { release: { image: 'c' } } }) };
    await expect(reconcileDownsync(d2, downsyncSteps(d2), 'HostedCluster/clusters/ex')).resolves.toEqual({ requeueAfterMs: 500 });
    expect(d.recentCreates.size).toBe(0);
    calls.length = 0;
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls.map((c) => c[0])).toEqual(['ensureNamespace', 'down.create']);
  });
});

describe('downsync of a Secret that cannot change in place', () => {
  const secretUp: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ps', namespace: 'clusters', uid: 's1', resourceVersion: '3' }, type: 'Opaque', data: { a: 'bmV3' } };
  const copy = (labels: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'ps', namespace: 'clusters', labels, annotations: { 'controlcenter.hcc.dev/upstream-uid': 's1' } },
    type: 'Opaque',
    immutable: true,
    data: { a: 'b2xk' },
  });
  const invalid = (message: string, causes: { field: string; message: string }[]) =>
    new ApiError(422, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 422, reason: 'Invalid', message, details: { name: 'ps', kind: 'Secret', causes: causes.map((c) => ({ reason: 'FieldValueForbidden', ...c })) } });
  const immutable = invalid('Secret "ps" is invalid: data: Forbidden: field is immutable when `immutable` is set', [{ field: 'data', message: 'Forbidden: field is immutable when `immutable` is set' }]);
  const runSecret = async (down: KubeObject, refusal: ApiError = immutable) => {
    const calls: Call[] = [];
    const d = deps({ Secret: secretUp }, { Secret: down }, calls);
    d.upstream.get = async () => secretUp;
    d.downstream.dryRunCreate = async () => void calls.push(['down.dryRunCreate']);
    const patch = d.downstream.patch;
    d.downstream.patch = async (...a) => {
      await patch(...a);
      throw refusal;
    };
    const res = await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    return { calls, res };
  };

  it('replaces a copy hcc made (delete now, create on the next pass), as kubectl replace --force', async () => {
    const { calls, res } = await runSecret(copy({ 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }));
    expect(calls.map((c) => c[0])).toEqual(['down.patch', 'down.dryRunCreate', 'down.delete']);
    expect(res).toEqual({ requeueAfterMs: 500 });
  });

  it('keeps the copy when the management cluster would refuse the new one, made from the object as it is now (this pass may lag)', async () => {
    const now = { ...secretUp, metadata: { ...secretUp.metadata, annotations: { big: 'a'.repeat(262_140) } } };
    const calls: Call[] = [];
    const d = deps({ Secret: secretUp }, { Secret: copy({ 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }) }, calls);
    d.upstream.get = async () => now;
    d.downstream.dryRunCreate = async (_k, obj) => {
      calls.push(['down.dryRunCreate']);
      if (obj.metadata.annotations?.big) throw invalid('Secret "ps" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes', [{ field: 'metadata.annotations', message: 'Too long: may not be more than 262144 bytes' }]);
    };
    d.downstream.patch = async () => {
      throw immutable;
    };
    await expect(reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps')).rejects.toThrow('Too long');
    expect(calls.map((c) => c[0])).toEqual(['down.dryRunCreate', 'warn']);
    expect(calls[1]!.slice(1, 3)).toEqual(['Secret/ps', 'CopyFailed']);
  });

  it('replaces it for a changed type too, and for nothing else: another 422 leaves the live copy, says so in a CopyFailed Event and fails the pass', async () => {
    const typeChanged = invalid('Secret "ps" is invalid: type: Invalid value: "kubernetes.io/tls": field is immutable', [{ field: 'type', message: 'Invalid value: "kubernetes.io/tls": field is immutable' }]);
    expect((await runSecret(copy({ 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }), typeChanged)).calls.map((c) => c[0])).toEqual(['down.patch', 'down.dryRunCreate', 'down.delete']);
    for (const refusal of [
      // The copy's annotations (the user's and hcc's own) over the size limit: a new copy would be refused too.
      invalid('Secret "ps" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes', [{ field: 'metadata.annotations', message: 'Too long: may not be more than 262144 bytes' }]),
      // An immutability rule and another one: replacing would not get the copy through either.
      invalid('Secret "ps" is invalid: [data: Forbidden: field is immutable when `immutable` is set, metadata.labels: Invalid value: "x"]', [
        { field: 'data', message: 'Forbidden: field is immutable when `immutable` is set' },
        { field: 'metadata.labels', message: 'Invalid value: "x"' },
      ]),
      // No causes to go by.
      new ApiError(422, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 422, reason: 'Invalid', message: 'Secret "ps" is invalid' }),
    ]) {
      const calls: Call[] = [];
      const d = deps({ Secret: secretUp }, { Secret: copy({ 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }) }, calls);
      d.downstream.patch = async () => {
        throw refusal;
      };
      await expect(reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps'), refusal.message).rejects.toBe(refusal);
      expect(calls.map((c) => c[0]), refusal.message).toEqual(['warn']);
      expect(calls[0]!.slice(1, 3)).toEqual(['Secret/ps', 'CopyFailed']);
    }
  });

  it('leaves a Secret hcc did not make, says why in a Warning Event upstream, and looks again in a minute', async () => {
    const { calls, res } = await runSecret(copy({ team: 'x' }));
    expect(calls.map((c) => c[0])).toEqual(['down.patch', 'warn']);
    expect(calls[1]!.slice(1, 3)).toEqual(['Secret/ps', 'CopyBlocked']);
    expect(calls[1]![3]).toContain('management cluster mgmt-1 has a Secret clusters/ps that hcc did not create');
    expect(res).toEqual({ requeueAfterMs: 60_000 });
  });

  it('never deletes a HostedCluster copy the management cluster refuses to change: the pass fails and is retried', async () => {
    const calls: Call[] = [];
    const up = hc({ finalizers: ['controlcenter.hcc.dev/syncer'], generation: 2 });
    const d = deps({ HostedCluster: up }, { HostedCluster: downCopy() }, calls);
    d.downstream.patch = async () => {
      throw immutable;
    };
    await expect(reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex')).rejects.toThrow('immutable');
    expect(calls.filter((c) => c[0] === 'down.delete')).toEqual([]);
  });
});

describe('a copy whose clusterID was changed by hand in the management cluster', () => {
  it('keeps its own (it never changes once set), says so in a FieldConflict Event, and still gets the rest of the spec', async () => {
    const up = { ...hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }), spec: { release: { image: 'new' }, clusterID: 'c-up' } };
    const down = { ...downCopy(), spec: { release: { image: 'a' }, clusterID: 'c-down' } };
    const { calls } = await run({ HostedCluster: up }, { HostedCluster: down });
    const patch = calls.find((c) => c[0] === 'down.patch')![3] as { spec: Record<string, unknown> };
    expect(patch.spec).toEqual({ release: { image: 'new' } });
    const warn = calls.find((c) => c[0] === 'warn')!;
    expect(warn.slice(2)).toEqual([
      'FieldConflict',
      'the copy in management cluster mgmt-1 has spec.clusterID c-down, this HostedCluster c-up; it never changes once set, so the copy keeps its own and the rest of the spec is still copied: it was changed there by hand',
    ]);
  });
});

describe('a copy with no room for the synced-keys record', () => {
  it('says so in a KeysUntracked Event, and remembers what it synced so that a key removed upstream still leaves the copy', async () => {
    const random = Object.fromEntries(Array.from({ length: 2580 }, (_, i) => [`${i}-${'0123456789abcdef'.repeat(6)}`.slice(0, 100) + String(i * 7919), '']));
    const up = hc({ finalizers: ['controlcenter.hcc.dev/syncer'], annotations: { ...random, 'rm-me': 'x' } });
    const calls: Call[] = [];
    const d = deps({ HostedCluster: up }, { HostedCluster: downCopy() }, calls);
    d.rememberedKeys = new Map();
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    const warns = calls.filter((c) => c[0] === 'warn');
    expect(warns.map((c) => c[2])).toEqual(['KeysUntracked']);
    expect(warns[0]![3]).toContain('leaves the copy only while this syncer runs');
    expect(d.rememberedKeys.get('HostedCluster/clusters/ex')?.annotations.has('rm-me')).toBe(true);
    // The copy as written (no record); upstream drops "rm-me": the patch removes it from the copy.
    const written = calls.find((c) => c[0] === 'down.patch')![3] as { metadata: { annotations: Record<string, string> } };
    const copy = { ...downCopy(), metadata: { ...downCopy().metadata, annotations: { ...written.metadata.annotations, 'operator-note': 'kept' } } };
    const { 'rm-me': _gone, ...rest } = up.metadata.annotations!;
    calls.length = 0;
    const d2 = deps({ HostedCluster: { ...up, metadata: { ...up.metadata, annotations: rest } } }, { HostedCluster: copy }, calls);
    d2.rememberedKeys = d.rememberedKeys;
    await reconcileDownsync(d2, downsyncSteps(d2), 'HostedCluster/clusters/ex');
    const patch = calls.find((c) => c[0] === 'down.patch')![3] as { metadata: { annotations: Record<string, string | null> } };
    expect(patch.metadata.annotations['rm-me']).toBeNull();
    expect(patch.metadata.annotations).not.toHaveProperty('operator-note');
    // With room, nothing is said and nothing is remembered.
    const small = await run({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'], annotations: { a: 'b' } }) }, { HostedCluster: downCopy() });
    expect(small.calls.filter((c) => c[0] === 'warn')).toEqual([]);
  });
});

describe('the copy of an earlier HostedCluster of the same name', () => {
  // The copy hcc made for uid "old" (clusterID c-old); the object was deleted while the syncer was away.
  const earlier = (): KubeObject => ({ ...downCopy({ annotations: { 'controlcenter.hcc.dev/upstream-uid': 'old' } }), spec: { release: { image: 'a' }, clusterID: 'c-old' } });

  it('is not given to a new HostedCluster that took the name: CopyBlocked, Available=Unknown, nothing written downstream', async () => {
    const calls: Call[] = [];
    const d = deps({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: earlier() }, calls);
    const marked: KubeObject[] = [];
    d.updateUpstreamStatus = async (_k, obj) => (marked.push(obj), obj);
    const res = await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls.map((c) => c[0])).toEqual(['warn']);
    expect(calls[0]!.slice(1, 3)).toEqual(['HostedCluster/ex', 'CopyBlocked']);
    expect(calls[0]![3]).toBe(
      'management cluster mgmt-1 has a copy of an earlier HostedCluster clusters/ex (upstream uid old, clusterID c-old), deleted while its syncer was away; hcc does not give it to this HostedCluster: delete it there (kubectl delete hostedcluster -n clusters ex) to have this one copied, or, restoring the control center, set spec.clusterID to c-old to take it over',
    );
    expect((marked[0]!.status as { conditions: { type: string; status: string; reason: string }[] }).conditions[0]).toMatchObject({ type: 'Available', status: 'Unknown', reason: 'CopyBlocked' });
    expect(res).toEqual({ requeueAfterMs: 60_000 });
    // A different clusterID is a different cluster too.
    const other = await run({ HostedCluster: { ...hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }), spec: { release: { image: 'a' }, clusterID: 'c-new' } } }, { HostedCluster: earlier() });
    expect(other.calls.filter((c) => c[0].startsWith('down.'))).toEqual([]);
  });

  it("is taken over by one with the copy's clusterID (a control center restored from an export)", async () => {
    const { calls } = await run({ HostedCluster: { ...hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }), spec: { release: { image: 'a' }, clusterID: 'c-old' } } }, { HostedCluster: earlier() });
    const patch = calls.find((c) => c[0] === 'down.patch');
    expect(patch?.[3]).toMatchObject({ metadata: { annotations: { 'controlcenter.hcc.dev/upstream-uid': 'u1' } } });
  });

  it('is not deleted when the new HostedCluster is', async () => {
    const { calls } = await run({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'], deletionTimestamp: '2026-12-02T00:00:00Z' }) }, { HostedCluster: earlier() });
    expect(calls.filter((c) => c[0] === 'down.delete')).toEqual([]);
    expect(calls.map((c) => c[0])).toContain('up.patch'); // its own finalizer goes: nothing of it is downstream
  });
});

describe('a copy whose object the informer does not show', () => {
  const placed = (uid: string, cluster = 'mgmt-1', extra: Partial<KubeObject['metadata']> = {}): KubeObject => hc({ uid, labels: { 'controlcenter.hcc.dev/management-cluster': cluster }, ...extra });
  it('is deleted only once a live read confirms no object of that name is placed here (as kube GC reads an owner first)', async () => {
    for (const [live, deleted] of [
      [undefined, true],
      [placed('u1'), false], // the informer lags behind a live object
      [placed('u2'), false], // a new object of that name placed here: its own pass judges the copy
      [placed('u1', 'mgmt-2'), true], // placed elsewhere
      [placed('u1', 'mgmt-1', { deletionTimestamp: '2026-12-02T00:00:00Z' }), true], // its own object, being deleted
    ] as const) {
      const calls: Call[] = [];
      const d = deps({}, { HostedCluster: downCopy() }, calls);
      d.upstream.get = async () => live;
      const res = await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
      expect(calls.some((c) => c[0] === 'down.delete'), JSON.stringify(live?.metadata)).toBe(deleted);
      if (!deleted) expect(res).toEqual({ requeueAfterMs: 1000 });
    }
  });
});

describe('objects of the same name that hcc did not create', () => {
  const foreignHC = (): KubeObject => ({ ...hc(), metadata: { name: 'ex', namespace: 'clusters', uid: 'theirs', labels: { team: 'x' } }, spec: { release: { image: 'theirs' } } });

  it('never takes over a HostedCluster: no write downstream, a CopyBlocked Warning Event, another look in a minute', async () => {
    const { calls, res } = await run({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: foreignHC() });
    expect(calls.map((c) => c[0])).toEqual(['warn']);
    expect(calls[0]!.slice(1, 3)).toEqual(['HostedCluster/ex', 'CopyBlocked']);
    expect(calls[0]![3]).toContain('management cluster mgmt-1 already has a HostedCluster clusters/ex that hcc did not create');
    expect(res).toEqual({ requeueAfterMs: 60_000 });
  });

  it('finds one it does not have cached after the create is refused with AlreadyExists, and leaves it too', async () => {
    const calls: Call[] = [];
    const d = deps({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, {}, calls);
    d.downstream.create = async () => {
      throw new ApiError(409, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 409, reason: 'AlreadyExists', message: 'exists' });
    };
    d.downstream.get = async () => foreignHC();
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls.map((c) => c[0])).toEqual(['ensureNamespace', 'warn']);
  });

  it('does not delete it when the control center object goes away', async () => {
    const { calls } = await run({ HostedCluster: hc({ deletionTimestamp: 'now', finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: foreignHC() });
    expect(calls.filter((c) => c[0] === 'down.delete')).toEqual([]);
  });

  const secretUp: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ps', namespace: 'clusters', uid: 's1', resourceVersion: '3' }, type: 'Opaque', data: { a: 'bmV3' } };
  const theirSecret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ps', namespace: 'clusters', labels: { team: 'x' } }, type: 'Opaque', data: { a: 'b2xk' } };
  /** The same, with the management cluster admin's consent to a take-over. */
  const adoptableSecret: KubeObject = { ...theirSecret, metadata: { ...theirSecret.metadata, annotations: { 'controlcenter.hcc.dev/adoptable': 'true' } } };
  const runSecret = async (up: KubeObject | undefined, down: KubeObject, stillReferenced?: boolean) => {
    const calls: Call[] = [];
    const d = deps(up ? { Secret: up } : {}, { Secret: down }, calls);
    if (stillReferenced !== undefined) d.stillReferenced = async () => stillReferenced;
    const res = await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    return { calls, res };
  };

  it("never overwrites a Secret it did not create without that cluster's consent: no write, a CopyBlocked Event, DependencyNotCopied on its users, another look in a minute", async () => {
    const calls: Call[] = [];
    const d = deps({ Secret: secretUp }, { Secret: theirSecret }, calls);
    d.usersHere = (kind, ns, name) => (kind === 'Secret' && ns === 'clusters' && name === 'ps' ? [hc()] : []);
    expect(await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps')).toEqual({ requeueAfterMs: 60_000 });
    expect(calls).toEqual([
      [
        'warn',
        'Secret/ps',
        'CopyBlocked',
        'management cluster mgmt-1 already has a Secret clusters/ps that hcc did not create; hcc does not overwrite it: rename this one, remove that one there, or annotate it there controlcenter.hcc.dev/adoptable=true to let hcc take it over',
      ],
      [
        'warn',
        'HostedCluster/ex',
        'DependencyNotCopied',
        "management cluster mgmt-1 has a Secret clusters/ps that hcc did not create (hcc does not overwrite it); the copy there uses that one's data, not the control center's: rename the reference, remove that Secret there, or annotate it there controlcenter.hcc.dev/adoptable=true",
      ],
    ]);
    // Annotated there: taken over.
    const consented: Call[] = [];
    const d2 = deps({ Secret: secretUp }, { Secret: adoptableSecret }, consented);
    await reconcileDownsync(d2, downsyncSteps(d2), 'Secret/clusters/ps');
    expect(consented.map((c) => c[0])).toEqual(['down.patch', 'warn']);
    expect(consented[1]![2]).toBe('Adopted');
  });

  it('takes over a Secret annotated adoptable, marking it adopted; releases it instead of deleting it when hcc no longer places it there', async () => {
    const { calls } = await runSecret(secretUp, adoptableSecret);
    expect(calls.map((c) => c[0])).toEqual(['down.patch', 'warn']);
    // Never silent: once it is taken over, a Warning Event on the control center's Secret says what was.
    expect(calls[1]!.slice(1)).toEqual([
      'Secret/ps',
      'Adopted',
      'management cluster mgmt-1 had a Secret clusters/ps that hcc did not create; its content is now this one\'s (marked controlcenter.hcc.dev/adopted; released, not deleted, when no HostedCluster placed there uses it, with this content)',
    ]);
    const patch = calls[0]![3] as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; data: unknown };
    expect(patch.metadata.labels['controlcenter.hcc.dev/synced-by']).toBe('mgmt-1');
    expect(patch.metadata.annotations['controlcenter.hcc.dev/adopted']).toBe('true');
    expect(patch.data).toEqual({ a: 'bmV3' });

    const adopted: KubeObject = { ...adoptableSecret, metadata: { ...adoptableSecret.metadata, labels: { ...adoptableSecret.metadata.labels, ...patch.metadata.labels }, annotations: { ...adoptableSecret.metadata.annotations, ...patch.metadata.annotations } }, data: { a: 'bmV3' } };
    // In sync afterwards: the adopted mark is kept, nothing to write.
    expect((await runSecret(secretUp, adopted)).calls).toEqual([]);
    const gone = await runSecret(undefined, adopted, false);
    expect(gone.calls).toEqual([
      ['down.patch', 'Secret', 'clusters/ps', { metadata: { labels: { 'controlcenter.hcc.dev/synced-by': null }, annotations: { 'controlcenter.hcc.dev/control-center-id': null, 'controlcenter.hcc.dev/control-center-seal': null, 'controlcenter.hcc.dev/upstream-uid': null, 'controlcenter.hcc.dev/upstream-generation': null, 'controlcenter.hcc.dev/synced-keys': null, 'controlcenter.hcc.dev/adopted': null } } }],
    ]);
  });

  it("leaves the copy another live name for this management cluster keeps (DuplicateCluster), without end of rewrites; takes over one whose name is gone", async () => {
    const siblingCopy: KubeObject = {
      ...secretUp,
      metadata: { name: 'ps', namespace: 'clusters', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1-again' }, annotations: { 'controlcenter.hcc.dev/upstream-uid': 's1' } },
      data: { a: 'b2xk' },
    };
    const calls: Call[] = [];
    const d = deps({ Secret: secretUp }, { Secret: siblingCopy }, calls);
    d.isSibling = (name) => name === 'mgmt-1-again';
    expect(await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps')).toEqual({ requeueAfterMs: 10_000 });
    expect(calls).toEqual([]);
    // The other name is gone (deleted, or lost): its copy is this syncer's to keep.
    d.isSibling = () => false;
    await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    expect(calls.map((c) => c[0])).toEqual(['down.patch']);
    expect((calls[0]![3] as { metadata: { labels: Record<string, string> } }).metadata.labels['controlcenter.hcc.dev/synced-by']).toBe('mgmt-1');
  });

  it('hands a copy it no longer needs over to another live name for this management cluster whose copies use it (no delete, no keeping it stale)', async () => {
    const ours: KubeObject = {
      ...secretUp,
      metadata: { name: 'ps', namespace: 'clusters', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }, annotations: { 'controlcenter.hcc.dev/upstream-uid': 's1' } },
    };
    const calls: Call[] = [];
    const d = deps({}, { Secret: ours }, calls);
    d.usedBySibling = (kind, ns, name) => kind === 'Secret' && ns === 'clusters' && name === 'ps';
    d.stillReferenced = async () => true; // would keep it, stale, without the hand-over
    expect(await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps')).toBeUndefined();
    expect(calls).toEqual([['down.patch', 'Secret', 'clusters/ps', { metadata: { labels: { 'controlcenter.hcc.dev/synced-by': null } } }]]);
    // Without the label but with its upstream uid, it is the other name's syncer's copy at its next look.
    const handedOver: KubeObject = { ...ours, metadata: { ...ours.metadata, labels: {} } };
    const theirs: Call[] = [];
    const other = deps({ Secret: secretUp }, { Secret: handedOver }, theirs);
    other.cluster = 'mgmt-1-again';
    other.isSibling = (n) => n === 'mgmt-1';
    await reconcileDownsync(other, downsyncSteps(other), 'Secret/clusters/ps');
    expect(theirs.map((c) => c[0])).toEqual(['down.patch']);
    const patch = theirs[0]![3] as { metadata: { labels: Record<string, string>; annotations: Record<string, string> } };
    expect(patch.metadata.labels['controlcenter.hcc.dev/synced-by']).toBe('mgmt-1-again');
    expect(patch.metadata.annotations['controlcenter.hcc.dev/adopted']).toBeUndefined();
  });

  it('takes over a Secret only once a HostedCluster placed here that references it is known (the state label can come first)', async () => {
    const calls: Call[] = [];
    const d = deps({ Secret: secretUp }, { Secret: adoptableSecret }, calls);
    let referenced = false;
    d.referencedHere = (kind, ns, name) => kind === 'Secret' && ns === 'clusters' && name === 'ps' && referenced;
    const early = await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    expect(calls).toEqual([]);
    expect(early).toEqual({ requeueAfterMs: 60_000 });
    referenced = true;
    await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    expect(calls.map((c) => c[0])).toEqual(['down.patch', 'warn']);
    expect((calls[0]![3] as { metadata: { annotations: Record<string, string> } }).metadata.annotations['controlcenter.hcc.dev/adopted']).toBe('true');
  });

  it('never takes over a Secret a HostedCluster hcc did not create uses there, even one annotated adoptable: no write, a CopyBlocked Event, another look in a minute', async () => {
    const calls: Call[] = [];
    const d = deps({ Secret: secretUp }, { Secret: adoptableSecret }, calls);
    let user: string | undefined = 'HostedCluster clusters/localhc';
    d.usedByForeign = (kind, ns, name) => (kind === 'Secret' && ns === 'clusters' && name === 'ps' ? user : undefined);
    const res = await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    expect(res).toEqual({ requeueAfterMs: 60_000 });
    expect(calls).toEqual([
      [
        'warn',
        'Secret/ps',
        'CopyBlocked',
        'management cluster mgmt-1 already has a Secret clusters/ps that hcc did not create and that HostedCluster clusters/localhc (not hcc\'s) uses; hcc does not take it over: rename this one',
      ],
    ]);
    // Once that cluster no longer uses it, it is taken over as any other.
    user = undefined;
    calls.length = 0;
    await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    expect(calls.map((c) => c[0])).toEqual(['down.patch', 'warn']);
  });

  it('never takes over a Secret something in the management cluster owns (ownerReferences): no write, a CopyBlocked Event', async () => {
    const owned: KubeObject = { ...theirSecret, metadata: { ...theirSecret.metadata, ownerReferences: [{ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', name: 'st1', uid: 'hcp-1' }] } };
    const calls: Call[] = [];
    const d = deps({ Secret: secretUp }, { Secret: owned }, calls);
    d.usersHere = (kind, ns, name) => (kind === 'Secret' && ns === 'clusters' && name === 'ps' ? [hc()] : []);
    const res = await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    expect(res).toEqual({ requeueAfterMs: 60_000 });
    expect(calls).toEqual([
      ['warn', 'Secret/ps', 'CopyBlocked', 'management cluster mgmt-1 already has a Secret clusters/ps that hcc did not create and that HostedControlPlane st1 owns there; hcc does not take it over: rename this one'],
      // The HostedCluster using it is told too: its copy runs with that cluster's Secret.
      [
        'warn',
        'HostedCluster/ex',
        'DependencyNotCopied',
        "management cluster mgmt-1 has a Secret clusters/ps that hcc did not create (HostedControlPlane st1 owns it); the copy there uses that one's data, not the control center's: rename the reference or remove that Secret there",
      ],
    ]);
  });

  it('writes nothing into the namespaces of Kubernetes, OpenShift, HyperShift or hcc itself', async () => {
    for (const ns of ['kube-system', 'openshift-config', 'hypershift', 'hcc-system']) {
      for (const kind of ['Secret', 'HostedCluster'] as const) {
        const calls: Call[] = [];
        const up: KubeObject = kind === 'Secret' ? { ...secretUp, metadata: { ...secretUp.metadata, namespace: ns } } : hc({ namespace: ns, finalizers: ['controlcenter.hcc.dev/syncer'] });
        const d = deps({ [kind]: up }, {}, calls);
        d.updateUpstreamStatus = async (_k, obj) => (calls.push(['up.status', (obj.status as { conditions: { reason: string }[] }).conditions[0]!.reason]), obj);
        const res = await reconcileDownsync(d, downsyncSteps(d), `${kind}/${ns}/${up.metadata.name}`);
        expect(res, `${kind} in ${ns}`).toEqual({ requeueAfterMs: 60_000 });
        expect(calls.filter((c) => c[0].startsWith('down.') || c[0] === 'ensureNamespace'), `${kind} in ${ns}`).toEqual([]);
        expect(calls.find((c) => c[0] === 'warn')?.[3]).toContain(`namespace ${ns} is one hcc never writes into`);
        if (kind === 'HostedCluster') expect(calls.find((c) => c[0] === 'up.status')).toEqual(['up.status', 'CopyBlocked']);
      }
    }
  });

  it('never copies a ServiceAccount token Secret: the management cluster would fill it with a token of its ServiceAccount', async () => {
    const calls: Call[] = [];
    const up: KubeObject = { ...secretUp, type: 'kubernetes.io/service-account-token', metadata: { ...secretUp.metadata, annotations: { 'kubernetes.io/service-account.name': 'default' } } };
    const d = deps({ Secret: up }, {}, calls);
    d.usersHere = (kind, ns, name) => (kind === 'Secret' && ns === up.metadata.namespace && name === up.metadata.name ? [hc()] : []);
    const res = await reconcileDownsync(d, downsyncSteps(d), `Secret/${up.metadata.namespace}/${up.metadata.name}`);
    expect(res).toEqual({ requeueAfterMs: 60_000 });
    expect(calls.filter((c) => c[0].startsWith('down.') || c[0] === 'ensureNamespace')).toEqual([]);
    // The HostedCluster that references it hears why its copy lacks it.
    expect(calls.find((c) => c[0] === 'warn' && c[2] === 'DependencyNotCopied')?.[1]).toBe('HostedCluster/ex');
    expect(calls.find((c) => c[0] === 'warn')).toEqual([
      'warn',
      `Secret/${up.metadata.name}`,
      'CopyBlocked',
      'management cluster mgmt-1: a Secret of type kubernetes.io/service-account-token would be filled there with a token of the management cluster\'s ServiceAccount "default" (kube\'s token controller does that); hcc never copies one there: use a Secret of another type',
    ]);
  });

  it('keeps a copy it made while something placed here still references it (a PUT dropped the state label), deletes it once nothing does', async () => {
    const ours: KubeObject = { ...theirSecret, metadata: { name: 'ps', namespace: 'clusters', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' } } };
    const kept = await runSecret(undefined, ours, true);
    expect(kept.calls).toEqual([]);
    expect(kept.res).toEqual({ requeueAfterMs: 5000 });
    const deleted = await runSecret(undefined, ours, false);
    expect(deleted.calls).toEqual([['down.delete', 'Secret', 'clusters/ps']]);
  });
});

describe('what belongs with a HostedCluster blocked by a foreign one', () => {
  const np: KubeObject = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'ex-np', namespace: 'clusters', uid: 'n1', resourceVersion: '4', finalizers: ['controlcenter.hcc.dev/syncer'] }, spec: { clusterName: 'ex', replicas: 2 } };
  const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ex-pull', namespace: 'clusters', uid: 's1', resourceVersion: '3' }, type: 'Opaque', data: { a: 'bmV3' } };
  const runBlocked = async (kind: SyncKind, up: KubeObject, down?: KubeObject) => {
    const calls: Call[] = [];
    const d = deps({ [kind]: up }, down ? { [kind]: down } : {}, calls);
    d.blockedByForeign = (k, o) => (k === kind && o === up ? 'its HostedCluster clusters/ex is blocked by one of the same name that hcc did not create' : undefined);
    const res = await reconcileDownsync(d, downsyncSteps(d), `${kind}/clusters/${up.metadata.name}`);
    return { calls, res };
  };

  it('does not copy its NodePool, and says so on the NodePool', async () => {
    const { calls, res } = await runBlocked('NodePool', np);
    expect(calls.map((c) => c[0])).toEqual(['warn']);
    expect(calls[0]!.slice(1, 3)).toEqual(['NodePool/ex-np', 'CopyBlocked']);
    expect(calls[0]![3]).toContain('its HostedCluster clusters/ex is blocked');
    expect(res).toEqual({ requeueAfterMs: 60_000 });
  });

  it('does not write its Secret over the one the management cluster has', async () => {
    const theirs: KubeObject = { ...secret, metadata: { name: 'ex-pull', namespace: 'clusters' }, data: { a: 'b2xk' } };
    const { calls, res } = await runBlocked('Secret', secret, theirs);
    expect(calls).toEqual([]);
    expect(res).toEqual({ requeueAfterMs: 60_000 });
  });
});

describe('the NodePools of a HostedCluster being torn down', () => {
  const np: KubeObject = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'ex-np', namespace: 'clusters', uid: 'n1', resourceVersion: '4', finalizers: ['controlcenter.hcc.dev/syncer'] }, spec: { clusterName: 'ex', replicas: 2 } };
  const npCopy: KubeObject = { ...np, metadata: { name: 'ex-np', namespace: 'clusters', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }, annotations: { 'controlcenter.hcc.dev/upstream-uid': 'n1' } }, spec: { clusterName: 'ex', replicas: 1 } };
  const runNP = async (upHC: KubeObject, downHC: KubeObject | undefined, down?: KubeObject) => {
    const calls: Call[] = [];
    const d = deps({ NodePool: np, HostedCluster: upHC }, { ...(down && { NodePool: down }), ...(downHC && { HostedCluster: downHC }) }, calls);
    const res = await reconcileDownsync(d, downsyncSteps(d), 'NodePool/clusters/ex-np');
    return { calls, res };
  };

  it('are not copied (again) while the HostedCluster is being deleted upstream or its copy is terminating; existing copies are left to the operator', async () => {
    for (const [upHC, downHC] of [
      [hc({ deletionTimestamp: 'now' }), downCopy()],
      [hc({ deletionTimestamp: 'now' }), undefined],
      [hc(), downCopy({ deletionTimestamp: 'now' })],
    ] as const) {
      for (const existing of [undefined, npCopy]) {
        const { calls, res } = await runNP(upHC, downHC, existing);
        expect(calls).toEqual([]);
        expect(res).toBeUndefined();
      }
    }
    // A live HostedCluster's NodePool is copied as before.
    const { calls } = await runNP(hc(), downCopy());
    expect(calls.map((c) => c[0])).toEqual(['ensureNamespace', 'down.create']);
  });

  it("are deleted upstream when the HostedCluster's teardown starts, as HyperShift deletes them then", async () => {
    const calls: Call[] = [];
    const d = deps({ HostedCluster: hc({ deletionTimestamp: 'now', finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: downCopy() }, calls);
    d.deleteUpstreamNodePools = async (ns, name, uid, from) => void calls.push(['deleteUpstreamNodePools', `${ns}/${name}`, uid, from]);
    const res = await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    // Each look at a teardown in progress deletes the ones the informer shows (no list of the namespace).
    expect(calls).toEqual([['deleteUpstreamNodePools', 'clusters/ex', 'u1', 'cache'], ['down.delete', 'HostedCluster', 'clusters/ex']]);
    expect(res).toEqual({ requeueAfterMs: 2000 });
  });

  it('are looked for live in the control center once more (also ones not placed yet) before the finalizer goes', async () => {
    const calls: Call[] = [];
    const d = deps({ HostedCluster: hc({ deletionTimestamp: 'now', finalizers: ['controlcenter.hcc.dev/syncer'] }) }, {}, calls);
    d.deleteUpstreamNodePools = async (ns, name, uid, from) => void calls.push(['deleteUpstreamNodePools', `${ns}/${name}`, uid, from]);
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls[0]).toEqual(['deleteUpstreamNodePools', 'clusters/ex', 'u1', 'live']);
    expect(calls.map((c) => c[0])).toContain('up.patch');
  });
});

describe("copies another control center's syncer made under the same ManagementCluster name", () => {
  const ours = { id: 'cc-ours' };
  const stamped = (id: string | undefined, extra: Partial<KubeObject['metadata']> = {}): KubeObject =>
    downCopy({ annotations: { 'controlcenter.hcc.dev/upstream-uid': 'other-uid', ...(id ? stampOf(id, 'other-uid') : {}) }, ...extra });
  const runWith = async (up: Partial<Record<SyncKind, KubeObject>>, down: Partial<Record<SyncKind, KubeObject>>, cc: DownsyncDeps['controlCenter'] = ours, key = 'HostedCluster/clusters/ex') => {
    const calls: Call[] = [];
    const d = deps(up, down, calls);
    d.controlCenter = cc;
    const marked: KubeObject[] = [];
    d.updateUpstreamStatus = async (_k, obj) => (marked.push(obj), obj);
    d.upstream.get = async () => undefined; // a live read finds nothing placed here
    const res = await reconcileDownsync(d, downsyncSteps(d), key);
    return { calls, res, marked };
  };

  it('stamps every copy it creates with its control center ID', async () => {
    const { calls } = await runWith({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, {});
    const created = calls.find((c) => c[0] === 'down.create')![2] as KubeObject;
    expect(created.metadata.annotations?.['controlcenter.hcc.dev/control-center-id']).toBe('cc-ours');
    expect(created.metadata.labels?.['controlcenter.hcc.dev/synced-by']).toBe('mgmt-1');
  });

  it('never deletes one whose object it does not hold; deletes its own and unstamped (older) copies', async () => {
    expect((await runWith({}, { HostedCluster: stamped('cc-other') })).calls).toEqual([]);
    for (const id of ['cc-ours', undefined]) {
      const { calls } = await runWith({}, { HostedCluster: stamped(id) });
      expect(calls.map((c) => c[0]), String(id)).toEqual(['down.delete']);
    }
  });

  it("never overwrites one for an object of the same name: CopyBlocked naming that control center and --take-over-from, Available=Unknown", async () => {
    const { calls, res, marked } = await runWith({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: stamped('cc-other') });
    expect(calls.map((c) => c[0])).toEqual(['warn']);
    expect(calls[0]!.slice(1, 3)).toEqual(['HostedCluster/ex', 'CopyBlocked']);
    expect(calls[0]![3]).toBe(
      'management cluster mgmt-1 already has a HostedCluster clusters/ex that the syncer of another control center (ID cc-other) made under the same ManagementCluster name; hcc leaves it: two control centers must not serve one management cluster under one name (give it another name in one of them), or, if this control center replaces that one, start this cluster\'s syncer with --take-over-from cc-other',
    );
    expect(res).toEqual({ requeueAfterMs: 60_000 });
    expect((marked[0]!.status as { conditions: { type: string; status: string; reason: string }[] }).conditions[0]).toMatchObject({ type: 'Available', status: 'Unknown', reason: 'CopyBlocked' });
  });

  it('nor takes over its Secret the way it takes over one nobody made (adopted)', async () => {
    const secretUp: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ps', namespace: 'clusters', uid: 's1', resourceVersion: '3' }, type: 'Opaque', data: { a: 'bmV3' } };
    const theirs: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ps', namespace: 'clusters', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }, annotations: { ...stampOf('cc-other', 'x'), 'controlcenter.hcc.dev/upstream-uid': 'x', 'controlcenter.hcc.dev/adopted': 'true' } },
      type: 'Opaque',
      data: { a: 'b2xk' },
    };
    const placed = await runWith({ Secret: secretUp }, { Secret: theirs }, ours, 'Secret/clusters/ps');
    expect(placed.calls.map((c) => c[0])).toEqual(['warn']);
    expect(placed.calls[0]![3]).toContain('a Secret clusters/ps that the syncer of another control center (ID cc-other) made');
    // Nor released (its label and annotations removed) when nothing here places it.
    expect((await runWith({}, { Secret: theirs }, ours, 'Secret/clusters/ps')).calls).toEqual([]);
  });

  it("lets the upstream object's deletion finish without touching that copy", async () => {
    const deleting = hc({ finalizers: ['controlcenter.hcc.dev/syncer'], deletionTimestamp: '2026-12-03T00:00:00Z' });
    const { calls } = await runWith({ HostedCluster: deleting }, { HostedCluster: stamped('cc-other') });
    expect(calls.map((c) => c[0])).toEqual(['up.patch']);
    expect(calls[0]![3]).toEqual({ metadata: { resourceVersion: '10', finalizers: [] } });
  });

  it('takes the copies of a control center named in takeOverFrom as its own: stamps them with its ID, deletes them when it does not hold their object', async () => {
    const takeOver = { id: 'cc-ours', takeOverFrom: new Set(['cc-other']) };
    const { calls } = await runWith({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: stamped('cc-other', { annotations: { 'controlcenter.hcc.dev/upstream-uid': 'u1', ...stampOf('cc-other', 'u1') } }) }, takeOver);
    expect(calls.map((c) => c[0])).toEqual(['down.patch']);
    expect((calls[0]![3] as { metadata: { annotations: Record<string, string> } }).metadata.annotations['controlcenter.hcc.dev/control-center-id']).toBe('cc-ours');
    expect((await runWith({}, { HostedCluster: stamped('cc-other') }, takeOver)).calls.map((c) => c[0])).toEqual(['down.delete']);
    // A third control center's copies stay that one's.
    expect((await runWith({}, { HostedCluster: stamped('cc-third') }, takeOver)).calls).toEqual([]);
  });

  it('gives an unstamped copy of its own the ID at its next write', async () => {
    const { calls } = await runWith({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: downCopy() });
    expect(calls.map((c) => c[0])).toEqual(['down.patch']);
    expect(calls[0]![3]).toEqual({ metadata: { annotations: { 'controlcenter.hcc.dev/control-center-id': 'cc-ours', 'controlcenter.hcc.dev/control-center-seal': controlCenterSeal('cc-ours', 'u1'), 'controlcenter.hcc.dev/upstream-generation': '1', 'controlcenter.hcc.dev/synced-keys': '{"labels":[],"annotations":[]}' } } });
  });
});

describe("a control center's copies beside another control center's", () => {
  const ours = { id: 'cc-ours' };
  const secretUp: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ps', namespace: 'clusters', uid: 's1', resourceVersion: '3' }, type: 'Opaque', data: { a: 'bmV3' } };
  const secretCopy = (labels: Record<string, string>, id: string, uid = 's1'): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'ps', namespace: 'clusters', uid: 'd1', labels, annotations: { ...stampOf(id, uid), 'controlcenter.hcc.dev/upstream-uid': uid } },
    type: 'Opaque',
    data: { a: 'bmV3' },
  });

  it('takes a copy of its own object back whatever ID was written on it by hand (the upstream uid is its own): stamps it again, no CopyBlocked', async () => {
    const calls: Call[] = [];
    const tampered = downCopy({ annotations: { 'controlcenter.hcc.dev/upstream-uid': 'u1', 'controlcenter.hcc.dev/control-center-id': 'garbage', 'controlcenter.hcc.dev/upstream-generation': '1' } });
    const d = deps({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: tampered }, calls);
    d.controlCenter = ours;
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls.map((c) => c[0])).toEqual(['down.patch']);
    expect((calls[0]![3] as { metadata: { annotations: Record<string, string> } }).metadata.annotations['controlcenter.hcc.dev/control-center-id']).toBe('cc-ours');
  });

  it("releases its Secret copy, instead of deleting it, while another control center's live HostedCluster copy uses it", async () => {
    for (const [user, want] of [
      ['HostedCluster clusters/hb of the control center cc-other', 'down.patch'],
      [undefined, 'down.delete'],
    ] as const) {
      const calls: Call[] = [];
      const d = deps({}, { Secret: secretCopy({ 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }, 'cc-ours') }, calls);
      d.controlCenter = ours;
      d.usedByOtherControlCenter = (k, ns, n) => (k === 'Secret' && ns === 'clusters' && n === 'ps' ? user : undefined);
      await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
      expect(calls.map((c) => c[0]), String(user)).toEqual([want]);
      if (want === 'down.patch') {
        const patch = calls[0]![3] as { metadata: { labels: Record<string, null>; annotations: Record<string, string | null> } };
        expect(patch.metadata.labels).toEqual({ 'controlcenter.hcc.dev/synced-by': null });
        expect(patch.metadata.annotations).toMatchObject({ 'controlcenter.hcc.dev/control-center-id': null, 'controlcenter.hcc.dev/handed-over-by': 'cc-ours' });
      }
    }
  });

  it("names the other control center's ManagementCluster when its copy is under another name, and tells the users here that they run on it (DependencyNotCopied)", async () => {
    const calls: Call[] = [];
    const d = deps({ Secret: secretUp }, { Secret: secretCopy({ 'controlcenter.hcc.dev/synced-by': 'm1' }, 'cc-other', 'x') }, calls);
    d.controlCenter = ours;
    d.usersHere = () => [hc()];
    await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    expect(calls.map((c) => c.slice(0, 3))).toEqual([['warn', 'Secret/ps', 'CopyBlocked'], ['warn', 'HostedCluster/ex', 'DependencyNotCopied']]);
    expect(calls[0]![3]).toBe('management cluster mgmt-1 already has a Secret clusters/ps that the syncer of another control center (ID cc-other) made for its ManagementCluster m1; hcc leaves it: rename this one, or delete that copy there once that control center no longer uses it');
    expect(calls[1]![3]).toBe("management cluster mgmt-1 has a Secret clusters/ps that is another control center's copy (made by the syncer of another control center (ID cc-other)); the copy there uses that one's data, not the control center's: rename the reference, or wait until that control center no longer uses it (then this one takes it over)");
  });

  it("never deletes, for want of its object, a copy whose ID was edited by hand: one of another control center's copies given this one's ID, or stripped of its ID but not of its seal", async () => {
    const edited = (annotations: Record<string, string>) => downCopy({ annotations: { 'controlcenter.hcc.dev/upstream-uid': 'theirs', ...annotations } });
    const theirs = stampOf('cc-other', 'theirs');
    for (const [what, annotations] of [
      ['their copy given our ID', { ...theirs, 'controlcenter.hcc.dev/control-center-id': 'cc-ours' }],
      ['their copy stripped of its ID', { 'controlcenter.hcc.dev/control-center-seal': theirs['controlcenter.hcc.dev/control-center-seal']! }],
      ['their copy given an ID we take over from', { ...theirs, 'controlcenter.hcc.dev/control-center-id': 'cc-old' }],
    ] as const) {
      const calls: Call[] = [];
      const d = deps({}, { HostedCluster: edited(annotations) }, calls);
      d.controlCenter = { id: 'cc-ours', takeOverFrom: new Set(['cc-old']) };
      d.upstream.get = async () => undefined;
      await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
      expect(calls, what).toEqual([]);
    }
    // Sealed by this control center (or by one it takes over from): its own, deleted.
    for (const id of ['cc-ours', 'cc-old']) {
      const calls: Call[] = [];
      const d = deps({}, { HostedCluster: edited(stampOf(id, 'theirs')) }, calls);
      d.controlCenter = { id: 'cc-ours', takeOverFrom: new Set(['cc-old']) };
      d.upstream.get = async () => undefined;
      await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
      expect(calls.map((c) => c[0]), id).toEqual(['down.delete']);
    }
  });

  it('takes a copy of its own object back when its upstream uid was removed or changed by hand (its ID and seal are this control center\'s for that object): writes the uid back, no CopyBlocked', async () => {
    for (const [what, uid] of [
      ['removed', undefined],
      ['changed', 'garbage'],
    ] as const) {
      const calls: Call[] = [];
      const annotations: Record<string, string> = { ...stampOf('cc-ours', 'u1'), 'controlcenter.hcc.dev/upstream-generation': '1' };
      if (uid) annotations['controlcenter.hcc.dev/upstream-uid'] = uid;
      const d = deps({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: downCopy({ annotations }) }, calls);
      d.controlCenter = ours;
      await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
      expect(calls.map((c) => c[0]), what).toEqual(['down.patch']);
      expect((calls[0]![3] as { metadata: { annotations: Record<string, string> } }).metadata.annotations['controlcenter.hcc.dev/upstream-uid'], what).toBe('u1');
    }
    // Sealed for another object (an earlier HostedCluster of that name), it is not this one's copy.
    const calls: Call[] = [];
    const d = deps({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: downCopy({ annotations: stampOf('cc-ours', 'u0') }) }, calls);
    d.controlCenter = ours;
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls.map((c) => c.slice(0, 3))).toEqual([['warn', 'HostedCluster/ex', 'CopyBlocked']]);
  });

  it('says an edited ID is one, without take-over advice, when it blocks a copy', async () => {
    const calls: Call[] = [];
    const d = deps({ HostedCluster: hc({ finalizers: ['controlcenter.hcc.dev/syncer'] }) }, { HostedCluster: downCopy({ annotations: { 'controlcenter.hcc.dev/upstream-uid': 'theirs', 'controlcenter.hcc.dev/control-center-id': 'cc-ours' } }) }, calls);
    d.controlCenter = { id: 'cc-ours' };
    await reconcileDownsync(d, downsyncSteps(d), 'HostedCluster/clusters/ex');
    expect(calls.map((c) => c[0])).toEqual(['warn']);
    expect(calls[0]![3]).toBe('management cluster mgmt-1 already has a HostedCluster clusters/ex that an hcc syncer (its control center ID, seal or upstream uid was edited by hand there: its ID reads cc-ours) made under the same ManagementCluster name; hcc leaves it: put back what was edited there, or rename this one');
    // Its users are told the same, not to wait for another control center.
    const users: Call[] = [];
    const editedSecret = secretCopy({ 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }, 'cc-other', 'x');
    editedSecret.metadata.annotations!['controlcenter.hcc.dev/control-center-id'] = 'cc-ours';
    const s = deps({ Secret: secretUp }, { Secret: editedSecret }, users);
    s.controlCenter = { id: 'cc-ours' };
    s.usersHere = () => [hc()];
    await reconcileDownsync(s, downsyncSteps(s), 'Secret/clusters/ps');
    expect(users.map((c) => c.slice(0, 3))).toEqual([['warn', 'Secret/ps', 'CopyBlocked'], ['warn', 'HostedCluster/ex', 'DependencyNotCopied']]);
    expect(users[1]![3]).toBe(
      'management cluster mgmt-1 has a Secret clusters/ps that hcc cannot tell for its own (made by an hcc syncer (its control center ID, seal or upstream uid was edited by hand there: its ID reads cc-ours)); the copy there uses that one\'s data, not the control center\'s: put back what was edited there, or rename the reference',
    );
  });

  it("takes a Secret another control center's syncer handed over as its own copy: not marked adopted (so deleted, not released, when no longer needed), no Adopted Event", async () => {
    const handedOver: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ps', namespace: 'clusters', uid: 'd1', annotations: { 'controlcenter.hcc.dev/handed-over-by': 'cc-other' } }, type: 'Opaque', data: { a: 'b2xk' } };
    const calls: Call[] = [];
    const d = deps({ Secret: secretUp }, { Secret: handedOver }, calls);
    d.controlCenter = ours;
    d.referencedHere = () => true;
    await reconcileDownsync(d, downsyncSteps(d), 'Secret/clusters/ps');
    expect(calls.map((c) => c[0])).toEqual(['down.patch']);
    const patch = calls[0]![3] as { metadata: { labels: Record<string, string>; annotations: Record<string, string | null> }; data: unknown };
    expect(patch.metadata.labels['controlcenter.hcc.dev/synced-by']).toBe('mgmt-1');
    expect(patch.metadata.annotations['controlcenter.hcc.dev/handed-over-by']).toBeNull();
    expect(patch.metadata.annotations['controlcenter.hcc.dev/adopted']).toBeUndefined();
    expect(patch.metadata.annotations['controlcenter.hcc.dev/control-center-id']).toBe('cc-ours');
    expect(patch.data).toEqual({ a: 'bmV3' });
  });
});
