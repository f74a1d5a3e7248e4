import { describe, expect, it } from 'vitest';
import { AnnotationUpstreamUID, LabelSyncedBy, type KubeObject } from '@hcc/crds';
import { ApiError } from '@hcc/client';
import { reconcileUpsync, SecretsDueNow, type UpsyncDeps } from './upsync-reconcile.js';
import { OwnWrites } from '@hcc/client';
import pino from 'pino';

const key = 'HostedCluster/clusters/ex';

function fixture(kubeconfigName = 'ex-admin-kubeconfig') {
  const up: KubeObject = {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'HostedCluster',
    metadata: { name: 'ex', namespace: 'clusters', uid: 'u1', generation: 1, resourceVersion: '5' },
    spec: {},
  };
  const down: KubeObject = {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'HostedCluster',
    metadata: { name: 'ex', namespace: 'clusters', generation: 1, labels: { [LabelSyncedBy]: 'mgmt-1' }, annotations: { [AnnotationUpstreamUID]: 'u1' } },
    status: { kubeconfig: { name: kubeconfigName }, conditions: [] },
  };
  const secrets = new Map<string, KubeObject>([[kubeconfigName, { apiVersion: 'v1', kind: 'Secret', metadata: { name: kubeconfigName, namespace: 'clusters' }, data: { kubeconfig: 'djE=' } }]]);
  const upSecrets = new Map<string, KubeObject>();
  let now = 1_000_000;
  // What the control center holds; the informer's copy (up) follows it unless told to lag.
  let server: KubeObject = { ...up, metadata: { ...up.metadata } };
  let informerFollows = true;
  const calls = { downGets: 0, upGets: 0, upWrites: 0, statusWrites: 0 };
  const patches: { rv: string | undefined; patch: unknown }[] = [];
  const deps: UpsyncDeps = {
    cluster: 'mgmt-1',
    getUpstream: () => up,
    getDownstream: () => down,
    updateUpstreamStatus: async (_k, obj) => {
      calls.statusWrites++;
      if (obj.metadata.resourceVersion !== server.metadata.resourceVersion) throw Object.assign(new Error('409 Conflict'), { code: 409 });
      server = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(Number(obj.metadata.resourceVersion) + 1) } };
      if (informerFollows) Object.assign(up, server);
      return server;
    },
    getDownstreamSecret: async (_ns, name) => {
      calls.downGets++;
      return secrets.get(name);
    },
    getUpstreamSecret: async (_ns, name) => {
      calls.upGets++;
      return upSecrets.get(name);
    },
    createUpstreamSecret: async (obj) => {
      if (upSecrets.has(obj.metadata.name!)) {
        const message = `secrets "${obj.metadata.name}" already exists`;
        throw new ApiError(409, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 409, reason: 'AlreadyExists', message });
      }
      calls.upWrites++;
      upSecrets.set(obj.metadata.name!, { ...obj, metadata: { ...obj.metadata, resourceVersion: '1' } });
    },
    updateUpstreamSecret: async (obj) => {
      calls.upWrites++;
      upSecrets.set(obj.metadata.name!, obj);
    },
    deleteUpstreamSecret: async (_ns, name, pre) => {
      const cur = upSecrets.get(name);
      if (cur && ((pre?.uid !== undefined && pre.uid !== cur.metadata.uid) || (pre?.resourceVersion !== undefined && pre.resourceVersion !== cur.metadata.resourceVersion))) {
        throw new ApiError(409, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 409, reason: 'Conflict', message: 'Precondition failed' });
      }
      calls.upWrites++;
      upSecrets.delete(name);
    },
    patchUpstream: async (_k, _ns, _n, patch) => {
      // An unguarded merge patch of spec on whatever the server holds.
      patches.push({ rv: server.metadata.resourceVersion, patch });
      const spec = { ...(server.spec as object), ...(patch as { spec: object }).spec };
      server = { ...server, metadata: { ...server.metadata, resourceVersion: String(Number(server.metadata.resourceVersion) + 1) }, spec };
      if (informerFollows) Object.assign(up, server);
      return server;
    },
    log: pino({ enabled: false }),
    secretsCheckedAt: new Map(),
    ownWrites: new OwnWrites(),
    secretRecheckMs: 60_000,
    now: () => now,
    random: () => 0,
  };
  return {
    up,
    down,
    secrets,
    upSecrets,
    calls,
    deps,
    advance: (ms: number) => (now += ms),
    lagInformer: () => (informerFollows = false),
    catchUp: () => {
      Object.assign(up, server);
      informerFollows = true;
    },
    server: () => server,
    patches,
  };
}

describe('reconcileUpsync: Secrets the status points to', () => {
  it('copies them before the status (created without reading first), then re-reads them only when due', async () => {
    const f = fixture();
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 60_000 });
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.data).toEqual({ kubeconfig: 'djE=' });
    expect(f.calls).toEqual({ downGets: 1, upGets: 0, upWrites: 1, statusWrites: 1 });

    // Another status change within the interval: status copied, Secrets not read again.
    f.down.status = { ...f.down.status, conditions: [{ type: 'Available', status: 'True' }] };
    f.advance(10_000);
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 50_000 });
    expect(f.calls).toEqual({ downGets: 1, upGets: 0, upWrites: 1, statusWrites: 2 });

    // A rotated kubeconfig reaches the control center at the re-check.
    f.secrets.get('ex-admin-kubeconfig')!.data = { kubeconfig: 'djI=' };
    f.advance(50_000);
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 60_000 });
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.data).toEqual({ kubeconfig: 'djI=' });
    expect(f.calls).toEqual({ downGets: 2, upGets: 1, upWrites: 2, statusWrites: 2 });

    // A syncer restarted (nothing remembered) while the status already points to the copy: it
    // reads the copy (the name is taken) instead of trying a create that would fail.
    f.deps.secretsCheckedAt.clear();
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 60_000 });
    expect(f.calls).toEqual({ downGets: 3, upGets: 2, upWrites: 2, statusWrites: 2 });
  });

  it('copies at once when the status points to another Secret (the kubeadmin password, once the operator writes it)', async () => {
    const f = fixture();
    await reconcileUpsync(f.deps, key);
    f.secrets.set('ex-kubeadmin-password', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ex-kubeadmin-password', namespace: 'clusters' }, data: { password: 'bmV3' } });
    f.down.status = { ...f.down.status, kubeadminPassword: { name: 'ex-kubeadmin-password' } };
    f.advance(1_000);
    // The kubeconfig, copied a second ago, is not read again: it keeps its re-check time.
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 59_000 });
    expect(f.upSecrets.get('ex-kubeadmin-password')?.data).toEqual({ password: 'bmV3' });
    expect((f.up.status as { kubeadminPassword: { name: string } }).kubeadminPassword.name).toBe('ex-kubeadmin-password');
    expect(f.calls.downGets).toBe(2);
    // At that time both are re-checked (read in the management cluster, the copies as wanted).
    f.advance(59_000);
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 60_000 });
    expect(f.calls.downGets).toBe(4);
  });

  it('copies up the custom kubeconfig status.customKubeconfig points to (spec.kubeAPIServerDNSName), like the admin kubeconfig', async () => {
    const f = fixture();
    f.secrets.set('ex-custom-admin-kubeconfig', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ex-custom-admin-kubeconfig', namespace: 'clusters' }, data: { kubeconfig: 'Y3VzdG9t' } });
    f.down.status = { ...f.down.status, customKubeconfig: { name: 'ex-custom-admin-kubeconfig' } };
    await reconcileUpsync(f.deps, key);
    const copy = f.upSecrets.get('ex-custom-admin-kubeconfig');
    expect([copy?.data, copy?.metadata.labels, copy?.metadata.ownerReferences?.map((o) => o.uid)]).toEqual([{ kubeconfig: 'Y3VzdG9t' }, { 'controlcenter.hcc.dev/upsynced-from': 'mgmt-1' }, ['u1']]);
    expect((f.up.status as { customKubeconfig: { name: string } }).customKubeconfig.name).toBe('ex-custom-admin-kubeconfig');
  });

  it('deletes the copy of a Secret the status stops naming (the kubeadmin password once an identity provider is configured); never one it did not copy up for this HostedCluster', async () => {
    const f = fixture();
    f.secrets.set('ex-kubeadmin-password', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ex-kubeadmin-password', namespace: 'clusters' }, data: { password: 'b2xk' } });
    f.down.status = { ...f.down.status, kubeadminPassword: { name: 'ex-kubeadmin-password' } };
    await reconcileUpsync(f.deps, key);
    expect(f.upSecrets.has('ex-kubeadmin-password')).toBe(true);
    // The operator drops it: status.kubeadminPassword goes, and so does the Secret downstream.
    f.secrets.delete('ex-kubeadmin-password');
    f.down.status = { kubeconfig: { name: 'ex-admin-kubeconfig' }, conditions: [] };
    f.advance(1_000);
    await reconcileUpsync(f.deps, key);
    expect(f.upSecrets.has('ex-kubeadmin-password')).toBe(false);
    expect(f.upSecrets.has('ex-admin-kubeconfig')).toBe(true);
    expect(f.up.status).not.toHaveProperty('kubeadminPassword');

    // One another cluster copied up, or another HostedCluster owns, or a user's own, stays.
    for (const labels of [{ 'controlcenter.hcc.dev/upsynced-from': 'mgmt-2' }, undefined]) {
      for (const uid of ['u1', 'u-other']) {
        const g = fixture();
        g.upSecrets.set('ex-kubeadmin-password', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ex-kubeadmin-password', namespace: 'clusters', ...(labels && { labels }), ownerReferences: [{ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', name: 'ex', uid }] } });
        g.up.status = { kubeconfig: { name: 'ex-admin-kubeconfig' }, kubeadminPassword: { name: 'ex-kubeadmin-password' } };
        await reconcileUpsync(g.deps, key);
        expect(g.upSecrets.has('ex-kubeadmin-password')).toBe(true);
      }
    }
    // Replaced between the read and the delete (deleted, then a user's own of the same name):
    // the delete is refused (409, retried), and the user's Secret stays.
    const r = fixture();
    const copy = (uid: string, rv: string, labels?: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ex-kubeadmin-password', namespace: 'clusters', uid, resourceVersion: rv, ...(labels && { labels, ownerReferences: [{ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', name: 'ex', uid: 'u1' }] }) },
    });
    r.upSecrets.set('ex-kubeadmin-password', copy('s1', '3', { 'controlcenter.hcc.dev/upsynced-from': 'mgmt-1' }));
    r.up.status = { kubeconfig: { name: 'ex-admin-kubeconfig' }, kubeadminPassword: { name: 'ex-kubeadmin-password' } };
    const get = r.deps.getUpstreamSecret;
    r.deps.getUpstreamSecret = async (ns, name) => {
      const read = await get(ns, name);
      if (name === 'ex-kubeadmin-password') r.upSecrets.set(name, copy('s2', '9'));
      return read;
    };
    await expect(reconcileUpsync(r.deps, key)).rejects.toMatchObject({ code: 409 });
    expect(r.upSecrets.get('ex-kubeadmin-password')?.metadata.uid).toBe('s2');
    expect(r.up.status).toHaveProperty('kubeadminPassword'); // the status still names it until the copy went

    const h = fixture();
    h.upSecrets.set('ex-kubeadmin-password', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ex-kubeadmin-password', namespace: 'clusters', labels: { 'controlcenter.hcc.dev/upsynced-from': 'mgmt-1' }, ownerReferences: [{ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', name: 'ex', uid: 'u-other' }] } });
    h.up.status = { kubeconfig: { name: 'ex-admin-kubeconfig' }, kubeadminPassword: { name: 'ex-kubeadmin-password' } };
    await reconcileUpsync(h.deps, key);
    expect(h.upSecrets.has('ex-kubeadmin-password')).toBe(true);
  });

  it('takes over its copy left ownerless by an orphan delete, from this or another cluster; leaves a user\'s and another HostedCluster\'s', async () => {
    const orphaned = (from: string, data: string, owners?: { uid: string }[]): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ex-admin-kubeconfig', namespace: 'clusters', resourceVersion: '7', labels: { 'controlcenter.hcc.dev/upsynced-from': from }, ...(owners && { ownerReferences: owners.map((o) => ({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', name: 'ex', ...o })) }) },
      data: { kubeconfig: data },
    });
    // Same data, same cluster, no owner: the owner is added (garbage collection works again).
    let f = fixture();
    f.upSecrets.set('ex-admin-kubeconfig', orphaned('mgmt-1', 'djE='));
    await reconcileUpsync(f.deps, key);
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.metadata.ownerReferences?.map((o) => o.uid)).toEqual(['u1']);
    // Copied from another cluster, now ownerless: replaced by this cluster's data and owner.
    f = fixture();
    f.upSecrets.set('ex-admin-kubeconfig', orphaned('mgmt-9', 'b2xk'));
    await reconcileUpsync(f.deps, key);
    const taken = f.upSecrets.get('ex-admin-kubeconfig')!;
    expect([taken.data, taken.metadata.labels, taken.metadata.ownerReferences?.map((o) => o.uid)]).toEqual([{ kubeconfig: 'djE=' }, { 'controlcenter.hcc.dev/upsynced-from': 'mgmt-1' }, ['u1']]);
    // Another HostedCluster's copy from another cluster, and a user's Secret: untouched, and a
    // Warning Event on the HostedCluster says its status names a Secret that is not its kubeconfig.
    for (const [theirs, whose] of [
      [orphaned('mgmt-9', 'b2xk', [{ uid: 'u-other' }]), 'another HostedCluster owns'],
      [{ ...orphaned('x', 'b2xk'), metadata: { name: 'ex-admin-kubeconfig', namespace: 'clusters', resourceVersion: '7' } }, "hcc did not copy up (a user's own)"],
    ] as const) {
      f = fixture();
      const events: string[] = [];
      f.deps.warn = (obj, reason, message) => events.push(`${obj.metadata.name} ${reason} ${message}`);
      f.upSecrets.set('ex-admin-kubeconfig', theirs);
      await reconcileUpsync(f.deps, key);
      expect(f.upSecrets.get('ex-admin-kubeconfig')).toBe(theirs);
      expect(f.calls.upWrites).toBe(0);
      expect(f.calls.upGets).toBe(1); // the create-first answered AlreadyExists; the read decided
      expect(events).toEqual([
        `ex CopyBlocked the control center already has a Secret clusters/ex-admin-kubeconfig that ${whose}; the status names it, but it does not hold this HostedCluster's kubeconfig from management cluster mgmt-1: delete or rename that Secret to have it copied up`,
      ]);
    }
  });

  it('copies up only the Secrets HyperShift names after its HostedCluster, whatever the status names', async () => {
    // Another Secret of that namespace, and one of another HostedCluster "ex-prod" there.
    for (const name of ['mgmt-only', 'ex-prod-admin-kubeconfig']) {
      const f = fixture(name);
      await reconcileUpsync(f.deps, key);
      expect(f.upSecrets.size, name).toBe(0);
      expect(f.calls.downGets, name).toBe(0);
    }
  });

  it('fails the pass on a create error other than AlreadyExists or a refusal, and writes no status pointing to a missing copy', async () => {
    const f = fixture();
    f.deps.createUpstreamSecret = async () => {
      throw new ApiError(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, reason: 'InternalError', message: 'etcdserver: request timed out' });
    };
    await expect(reconcileUpsync(f.deps, key)).rejects.toThrow(/timed out/);
    expect(f.calls.statusWrites).toBe(0);
    expect(f.deps.secretsCheckedAt.has(key)).toBe(false);
  });

  it('a Secret the control center refuses this syncer (a name another cluster\'s HostedCluster has too) is skipped with CopyBlocked; the status still goes up', async () => {
    // ex's custom kubeconfig `ex-custom-admin-kubeconfig` is also the admin kubeconfig of a HostedCluster ex-custom placed elsewhere.
    const f = fixture();
    f.down.status = { ...f.down.status, customKubeconfig: { name: 'ex-custom-admin-kubeconfig' }, conditions: [{ type: 'Available', status: 'True' }] };
    f.secrets.set('ex-custom-admin-kubeconfig', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ex-custom-admin-kubeconfig', namespace: 'clusters' }, data: { kubeconfig: 'Yw==' } });
    const refused = new ApiError(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, reason: 'Forbidden', message: 'secrets "ex-custom-admin-kubeconfig" is forbidden: the syncer of management cluster "mgmt-1" may only write the admin-kubeconfig, custom-admin-kubeconfig and kubeadmin-password Secrets of HostedClusters placed on it' });
    const create = f.deps.createUpstreamSecret;
    let clash = true;
    f.deps.createUpstreamSecret = async (obj) => {
      if (clash && obj.metadata.name === 'ex-custom-admin-kubeconfig') throw refused;
      return create(obj);
    };
    const events: string[] = [];
    f.deps.warn = (obj, reason, message) => events.push(`${obj.metadata.name} ${reason} ${message}`);
    // Looked at again in 30 s rather than the 60 s recheck: the clash may go with no event here.
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 30_000 });
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.data).toEqual({ kubeconfig: 'djE=' });
    expect(f.upSecrets.has('ex-custom-admin-kubeconfig')).toBe(false);
    expect(f.calls.statusWrites).toBe(1);
    expect((f.server().status as { conditions: unknown }).conditions).toEqual([{ type: 'Available', status: 'True' }]);
    expect(events).toEqual([
      "ex CopyBlocked the control center refuses this syncer the Secret clusters/ex-custom-admin-kubeconfig (HostedCluster ex-custom would have a Secret of that name written too: HyperShift names them after the HostedCluster, so one of the two must be deleted and created under another name); the status names it, but it is not copied up, and a Secret of that name in the control center, if any, is not this HostedCluster's",
    ]);
    // Not due before the 30 s; then the clash is gone: copied.
    f.advance(10_000);
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 20_000 });
    clash = false;
    f.advance(20_000);
    f.deps.getUpstreamSecret = async (_ns, name) => f.upSecrets.get(name);
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 60_000 });
    expect(f.upSecrets.get('ex-custom-admin-kubeconfig')?.data).toEqual({ kubeconfig: 'Yw==' });
    clash = true;

    // The DNS name removed: the status stops naming it; the copy's read is refused too. Skipped, the status goes up.
    f.deps.getUpstreamSecret = async (_ns, name) => {
      if (name === 'ex-custom-admin-kubeconfig') throw refused;
      return f.upSecrets.get(name);
    };
    f.down.status = { kubeconfig: { name: 'ex-admin-kubeconfig' }, conditions: [{ type: 'Available', status: 'False' }] };
    await reconcileUpsync(f.deps, key);
    expect(f.calls.statusWrites).toBe(2);
    expect((f.server().status as { customKubeconfig?: unknown }).customKubeconfig).toBeUndefined();
  });

  it('copies nothing and fails nothing while the namespace is being deleted (403 NamespaceTerminating): no retry loop', async () => {
    const f = fixture();
    let tries = 0;
    f.deps.createUpstreamSecret = async () => {
      tries++;
      throw new ApiError(403, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 403,
        reason: 'Forbidden',
        message: 'secrets "ex-admin-kubeconfig" is forbidden: unable to create new content in namespace clusters because it is being terminated',
        details: { causes: [{ reason: 'NamespaceTerminating', message: 'namespace clusters is being terminated', field: 'metadata.namespace' }] },
      });
    };
    await reconcileUpsync(f.deps, key); // resolves: no failed pass, no rate-limited retry
    expect(tries).toBe(1);
    expect(f.upSecrets.size).toBe(0);
  });

  it('replaces a copy whose type was changed in the control center (a type is immutable: an update would fail with 422 at every pass and hold up the status)', async () => {
    const f = fixture();
    f.secrets.get('ex-admin-kubeconfig')!.type = 'Opaque';
    await reconcileUpsync(f.deps, key);
    const update = f.deps.updateUpstreamSecret;
    f.deps.updateUpstreamSecret = async (obj) => {
      if (obj.type !== f.upSecrets.get(obj.metadata.name!)?.type) {
        throw new ApiError(422, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 422, reason: 'Invalid', message: 'Secret "ex-admin-kubeconfig" is invalid: type: Invalid value: "Opaque": field is immutable' });
      }
      await update(obj);
    };
    // Replaced by hand (`kubectl replace --force`) with another type: a new uid, label and owner kept.
    const copy = f.upSecrets.get('ex-admin-kubeconfig')!;
    f.upSecrets.set('ex-admin-kubeconfig', { ...copy, type: 'example.com/custom', metadata: { ...copy.metadata, uid: 's2', resourceVersion: '7' } });
    f.down.status = { ...f.down.status, conditions: [{ type: 'Available', status: 'True' }] };
    f.advance(60_000);
    await reconcileUpsync(f.deps, key);
    expect(f.upSecrets.get('ex-admin-kubeconfig')).toMatchObject({ type: 'Opaque', data: { kubeconfig: 'djE=' } });
    expect(f.server().status).toMatchObject({ conditions: [{ type: 'Available', status: 'True' }] });
  });

  it('forgets a key whose copy is gone', async () => {
    const f = fixture();
    await reconcileUpsync(f.deps, key);
    expect(f.deps.secretsCheckedAt.has(key)).toBe(true);
    f.deps.getDownstream = () => undefined;
    expect(await reconcileUpsync(f.deps, key)).toBeUndefined();
    expect(f.deps.secretsCheckedAt.has(key)).toBe(false);
  });
});

describe('reconcileUpsync: re-checks from the cache of copies, spread out', () => {
  /** The fixture with a cache of the control center's copies that follows its writes unless told otherwise. */
  function cached() {
    const f = fixture();
    const cache = new Map<string, KubeObject>();
    let follows = true;
    const { createUpstreamSecret, updateUpstreamSecret } = f.deps;
    f.deps.createUpstreamSecret = async (obj) => {
      await createUpstreamSecret(obj);
      if (follows) cache.set(obj.metadata.name!, f.upSecrets.get(obj.metadata.name!)!);
    };
    f.deps.updateUpstreamSecret = async (obj) => {
      await updateUpstreamSecret(obj);
      if (follows) cache.set(obj.metadata.name!, obj);
    };
    f.deps.getUpstreamSecretCopy = (_ns, name) => cache.get(name);
    return { ...f, cache, stopFollowing: () => (follows = false) };
  }

  it('reads only the management cluster\'s side at a re-check when the cached copy is as wanted; reads and writes the control center\'s when not', async () => {
    const f = cached();
    await reconcileUpsync(f.deps, key);
    expect(f.calls).toEqual({ downGets: 1, upGets: 0, upWrites: 1, statusWrites: 1 });
    f.advance(60_000);
    await reconcileUpsync(f.deps, key);
    expect(f.calls).toEqual({ downGets: 2, upGets: 0, upWrites: 1, statusWrites: 1 });

    // Rotated in the management cluster: the cached copy differs, so the live copy is read and updated.
    f.secrets.get('ex-admin-kubeconfig')!.data = { kubeconfig: 'djI=' };
    f.advance(60_000);
    await reconcileUpsync(f.deps, key);
    expect(f.calls).toEqual({ downGets: 3, upGets: 1, upWrites: 2, statusWrites: 1 });
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.data).toEqual({ kubeconfig: 'djI=' });

    // A cached copy that is not this cluster's or not this HostedCluster's alone is never taken as
    // done: the live Secret decides (here a user's own, left alone with CopyBlocked).
    const warnings: string[] = [];
    f.deps.warn = (_o, reason) => warnings.push(reason);
    f.stopFollowing();
    const users: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ex-admin-kubeconfig', namespace: 'clusters', resourceVersion: '9' }, data: { kubeconfig: 'djI=' } };
    f.upSecrets.set('ex-admin-kubeconfig', users);
    f.cache.set('ex-admin-kubeconfig', { ...users, metadata: { ...users.metadata, labels: { 'controlcenter.hcc.dev/upsynced-from': 'mgmt-2' }, ownerReferences: [{ apiVersion: 'v1beta1', kind: 'HostedCluster', name: 'ex', uid: 'u1' }] } });
    f.advance(60_000);
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 30_000 });
    expect(f.calls).toEqual({ downGets: 4, upGets: 2, upWrites: 2, statusWrites: 1 });
    expect(warnings).toEqual(['CopyBlocked']);
  });

  it('after a restart, puts off the first re-check to a random point of the interval when the cache shows the copies; checks at once when one is missing', async () => {
    const f = cached();
    await reconcileUpsync(f.deps, key);
    const reads = { ...f.calls };

    // Restarted: nothing remembered, the copy in the cache. A status change still goes up at once;
    // the Secrets wait until 0.25 of the interval has passed since the (made up) last check.
    f.deps.secretsCheckedAt.clear();
    f.deps.random = () => 0.25;
    f.down.status = { ...f.down.status, conditions: [{ type: 'Available', status: 'True' }] };
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 45_000 });
    expect(f.calls).toEqual({ ...reads, statusWrites: reads.statusWrites + 1 });
    f.advance(45_000);
    await reconcileUpsync(f.deps, key);
    expect(f.calls.downGets).toBe(reads.downGets + 1);

    // Restarted with the copy edited in the control center while no syncer watched it: its content
    // no longer matches the digest written with it, so it is set back at once.
    f.deps.secretsCheckedAt.clear();
    const edited = { ...f.upSecrets.get('ex-admin-kubeconfig')!, data: { kubeconfig: 'aGFja2Vk' } };
    f.upSecrets.set('ex-admin-kubeconfig', edited);
    f.cache.set('ex-admin-kubeconfig', edited);
    await reconcileUpsync(f.deps, key);
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.data).toEqual({ kubeconfig: 'djE=' });
    reads.downGets++;

    // Restarted with the copy gone from the control center (deleted while the syncer was down, so
    // no informer event will come): copied again at once.
    f.deps.secretsCheckedAt.clear();
    f.cache.clear();
    f.upSecrets.clear();
    await reconcileUpsync(f.deps, key);
    expect(f.calls.downGets).toBe(reads.downGets + 2);
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.data).toEqual({ kubeconfig: 'djE=' });
  });

  it('restores at its next pass a copy edited in the control center (its data, or its ownerReference removed), though the cache shows a copy: the informer event marks it due now', async () => {
    const f = cached();
    await reconcileUpsync(f.deps, key);
    f.deps.random = () => 0.99; // were it taken for a first look after a start, it would wait ~59 s
    const tampered = (edit: (s: KubeObject) => KubeObject) => {
      const edited = edit(f.upSecrets.get('ex-admin-kubeconfig')!);
      f.upSecrets.set('ex-admin-kubeconfig', edited);
      f.cache.set('ex-admin-kubeconfig', edited);
      f.deps.secretsCheckedAt.set(key, SecretsDueNow); // what the syncer's informer handler does
    };
    tampered((s) => ({ ...s, data: { kubeconfig: 'aGFja2Vk' } }));
    f.advance(1_000);
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 65_940 });
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.data).toEqual({ kubeconfig: 'djE=' });

    tampered((s) => ({ ...s, metadata: { ...s.metadata, ownerReferences: undefined } }));
    f.advance(1_000);
    await reconcileUpsync(f.deps, key);
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.metadata.ownerReferences).toEqual([{ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', name: 'ex', uid: 'u1' }]);
  });

  it('stretches each interval by up to a tenth at random (client-go wait.Jitter), so a burst of creates does not come back as one wave', async () => {
    const f = cached();
    f.deps.random = () => 0.5;
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 63_000 });
    f.advance(62_000);
    await reconcileUpsync(f.deps, key);
    expect(f.calls.downGets).toBe(1); // not due yet
    f.advance(1_000);
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 63_000 });
    expect(f.calls.downGets).toBe(2);
  });
});

describe('reconcileUpsync: status writes while the informer lags', () => {
  it('builds on its own last write instead of the older cached object, and drops it once the cache catches up', async () => {
    const f = fixture();
    f.lagInformer();
    await reconcileUpsync(f.deps, key); // rv 5 → 6; the informer still shows 5
    f.down.status = { ...f.down.status, conditions: [{ type: 'Available', status: 'True' }] };
    await reconcileUpsync(f.deps, key); // built on 6 (not 5): no conflict → 7
    f.down.status = { ...f.down.status, conditions: [{ type: 'Available', status: 'True' }, { type: 'Degraded', status: 'False' }] };
    await reconcileUpsync(f.deps, key); // → 8
    expect(f.calls.statusWrites).toBe(3);
    expect(f.server().metadata.resourceVersion).toBe('8');
    expect((f.server().status as { conditions: unknown[] }).conditions).toHaveLength(2);

    f.catchUp();
    expect(f.up.metadata.resourceVersion).toBe('8');
    await reconcileUpsync(f.deps, key); // nothing changed: no write, and the remembered write is dropped
    expect(f.calls.statusWrites).toBe(3);
    expect(f.deps.ownWrites.has(key)).toBe(false);
  });

  it('uses the cached object when someone else wrote since', async () => {
    const f = fixture();
    f.lagInformer();
    await reconcileUpsync(f.deps, key); // 5 → 6, remembered
    // Another writer moves the object to 7 and the informer shows it.
    f.catchUp();
    Object.assign(f.up, { metadata: { ...f.up.metadata, resourceVersion: '7' } });
    Object.assign(f.server(), { metadata: { ...f.server().metadata, resourceVersion: '7' } });
    f.down.status = { ...f.down.status, conditions: [{ type: 'Available', status: 'True' }] };
    await reconcileUpsync(f.deps, key);
    expect(f.server().metadata.resourceVersion).toBe('8');
    expect(f.calls.statusWrites).toBe(2);
  });

  it('takes a 404 on the status write (deleted upstream meanwhile) as nothing left to do, and still fails on other errors', async () => {
    const f = fixture();
    f.deps.updateUpstreamStatus = async () => {
      throw new ApiError(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'hostedclusters.hypershift.openshift.io "ex" not found' });
    };
    await expect(reconcileUpsync(f.deps, key)).resolves.toBeUndefined();
    expect(f.deps.ownWrites.has(key)).toBe(false);
    f.deps.updateUpstreamStatus = async () => {
      throw new ApiError(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, reason: 'InternalError', message: 'boom' });
    };
    await expect(reconcileUpsync(f.deps, key)).rejects.toThrow('boom');
  });
});

describe('reconcileUpsync: spec fields the operator generated', () => {
  it('adopts clusterID and infraID after the status write, in the same pass, without racing it', async () => {
    const f = fixture();
    f.lagInformer();
    f.down.spec = { clusterID: '6d1c6d7e-6b8e-4f4e-9d8e-0a1b2c3d4e5f', infraID: 'ex-abc12' };
    await reconcileUpsync(f.deps, key);
    expect(f.calls.statusWrites).toBe(1);
    // The patch came after the status write (on resourceVersion 6) and carries only the two fields.
    expect(f.patches).toEqual([{ rv: '6', patch: { spec: { clusterID: '6d1c6d7e-6b8e-4f4e-9d8e-0a1b2c3d4e5f', infraID: 'ex-abc12' } } }]);
    expect(f.server().metadata.resourceVersion).toBe('7');
    // The informer still shows 5: the next pass builds on 7, writes its status without a 409 and adopts nothing again.
    f.down.status = { ...f.down.status, conditions: [{ type: 'Available', status: 'True' }] };
    await reconcileUpsync(f.deps, key);
    expect(f.calls.statusWrites).toBe(2);
    expect(f.server().metadata.resourceVersion).toBe('8');
    expect(f.patches).toHaveLength(1);
  });

  it('leaves a value someone set upstream meanwhile (422 from the immutability rule) and finishes the pass', async () => {
    const f = fixture();
    f.down.spec = { clusterID: '6d1c6d7e-6b8e-4f4e-9d8e-0a1b2c3d4e5f' };
    f.deps.patchUpstream = async () => {
      throw new ApiError(422, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 422, reason: 'Invalid', message: 'spec.clusterID: Invalid value: "string": clusterID is immutable' });
    };
    await expect(reconcileUpsync(f.deps, key)).resolves.toEqual({ requeueAfterMs: 60_000 });
    f.deps.patchUpstream = async () => {
      throw new ApiError(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, reason: 'InternalError', message: 'boom' });
    };
    await expect(reconcileUpsync(f.deps, key)).rejects.toThrow('boom');
  });
});

describe('reconcileUpsync: a management cluster that cannot be reached', () => {
  it('copies nothing up while the last heartbeat could not reach it, then puts the status back over the scheduler\'s mark', async () => {
    const f = fixture();
    const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    f.down.status = { conditions: [{ type: 'Available', status: 'True', reason: 'AsExpected', lastTransitionTime: at(500_000) }] };
    // The scheduler marked the upstream status unknown while the cluster was not Ready.
    const mark = { type: 'Available', status: 'Unknown', reason: 'ManagementClusterNotReady', lastTransitionTime: at(800_000) };
    f.up.status = { conditions: [mark] };
    Object.assign(f.server(), { status: f.up.status });
    let reachable = false;
    f.deps.downstreamReachable = () => reachable;
    f.deps.unreachableRecheckMs = 2_000;
    // The cached copy is stale: it is not written over the mark, nor are Secrets read.
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 2_000 });
    expect(f.calls).toEqual({ downGets: 0, upGets: 0, upWrites: 0, statusWrites: 0 });
    expect(f.server().status).toEqual({ conditions: [mark] });
    // Reached again: the copy's status goes back up.
    reachable = true;
    await reconcileUpsync(f.deps, key);
    expect(f.calls.statusWrites).toBe(1);
    // Available again upstream now, not at the copy's older time (which would date it before the outage).
    expect(f.server().status).toEqual({ conditions: [{ type: 'Available', status: 'True', reason: 'AsExpected', lastTransitionTime: at(1_000_000) }] });
    // And that sticks: the next pass changes nothing.
    await reconcileUpsync(f.deps, key);
    expect(f.calls.statusWrites).toBe(1);
  });
});
