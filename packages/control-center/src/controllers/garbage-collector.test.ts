import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';
import { createObject, deleteObject, deletionFinalizers } from '../handlers/object-ops.js';
import type { KubeObject } from '@hcc/crds';
import { configmaps } from '../registry/builtin/configmaps.js';
import { secrets } from '../registry/builtin/secrets.js';
import { namespaces } from '../registry/builtin/namespaces.js';
import { storageKey } from '../registry/types.js';

const ctx = () => ({ fieldValidation: 'Ignore' as const, warnings: [], now: new Date() });
const waitUntil = async (fn: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('garbage collector', () => {
  let cc: RunningControlCenter;
  beforeAll(async () => {
    cc = await startTestControlCenter();
  });
  afterAll(async () => {
    await cc.close();
  });

  it('deletes dependents once every owner is gone, and keeps the rest', async () => {
    const owner1 = await createObject(cc.store, configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner-1' } }, ctx(), { dryRun: false });
    const owner2 = await createObject(cc.store, configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner-2' } }, ctx(), { dryRun: false });
    const ref = (o: typeof owner1) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name!, uid: o.metadata.uid! });
    for (const [name, owners] of [['only-1', [ref(owner1)]], ['both', [ref(owner1), ref(owner2)]], ['free', []]] as const) {
      await createObject(cc.store, secrets, 'default', { apiVersion: 'v1', kind: 'Secret', metadata: { name, ownerReferences: [...owners] } }, ctx(), { dryRun: false });
    }
    const exists = (n: string) => !!cc.store.get(storageKey(secrets, 'default', n));
    await deleteObject(cc.store, configmaps, 'default', 'owner-1', ctx(), { dryRun: false });
    await waitUntil(() => !exists('only-1'));
    expect(exists('both')).toBe(true);
    expect(exists('free')).toBe(true);
    await deleteObject(cc.store, configmaps, 'default', 'owner-2', ctx(), { dryRun: false });
    await waitUntil(() => !exists('both'));
    expect(exists('free')).toBe(true);
  });

  const cm = (name: string, owners: { o: KubeObject; block?: boolean }[] = [], finalizers?: string[]) =>
    createObject(
      cc.store,
      configmaps,
      'default',
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          ...(finalizers && { finalizers }),
          ...(owners.length && { ownerReferences: owners.map(({ o, block }) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name!, uid: o.metadata.uid!, ...(block && { blockOwnerDeletion: true }) })) }),
        },
      },
      ctx(),
      { dryRun: false },
    );
  const get = (n: string) => cc.store.get(storageKey(configmaps, 'default', n))?.object;

  it('tries a collection that failed (a storage error) again, without another event', async () => {
    const owner = await createObject(cc.store, configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner-flaky' } }, ctx(), { dryRun: false });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner-flaky', uid: owner.metadata.uid! };
    await createObject(cc.store, secrets, 'default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'flaky', ownerReferences: [ref] } }, ctx(), { dryRun: false });
    const key = storageKey(secrets, 'default', 'flaky');
    const transact = cc.store.transact.bind(cc.store);
    let failures = 0;
    const spy = vi.spyOn(cc.store, 'transact').mockImplementation((k, fn, opts) => {
      if (k === key && failures < 3) {
        failures++;
        return Promise.reject(new Error('injected storage failure'));
      }
      return transact(k, fn, opts);
    });
    try {
      await deleteObject(cc.store, configmaps, 'default', 'owner-flaky', ctx(), { dryRun: false });
      await waitUntil(() => !cc.store.get(key));
      expect(failures).toBe(3);
    } finally {
      spy.mockRestore();
    }
  });

  it('background: a dependent still owned by another loses the gone owner; one naming only absent owners is collected', async () => {
    const a = await cm('b-a');
    const b = await cm('b-b');
    await cm('b-shared', [{ o: a }, { o: b }]);
    await deleteObject(cc.store, configmaps, 'default', 'b-a', ctx(), { dryRun: false });
    await waitUntil(() => get('b-shared')?.metadata.ownerReferences?.length === 1);
    expect(get('b-shared')?.metadata.ownerReferences?.[0]?.uid).toBe(b.metadata.uid);
    // A uid no object has (the name of a live one does not count).
    const ghost = { ...b, metadata: { ...b.metadata, uid: '11111111-2222-3333-4444-555555555555' } };
    await cm('b-dangling', [{ o: ghost }]);
    await cm('b-half', [{ o: ghost }, { o: b }]);
    await waitUntil(() => !get('b-dangling'));
    await waitUntil(() => get('b-half')?.metadata.ownerReferences?.length === 1);
    expect(get('b-half')?.metadata.ownerReferences?.[0]?.uid).toBe(b.metadata.uid);
  });

  it('looks owners up by kind and name in the dependent namespace, and never deletes for kinds it does not serve', async () => {
    const owner = await cm('k-owner');
    const raw = (name: string, namespace: string, refs: Record<string, unknown>[]) =>
      createObject(cc.store, configmaps, namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: refs as never } }, ctx(), { dryRun: false });
    const uid = owner.metadata.uid!;
    await raw('k-wrong-kind', 'default', [{ apiVersion: 'v1', kind: 'Secret', name: 'k-owner', uid }]);
    await raw('k-wrong-name', 'default', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid }]);
    await createObject(cc.store, namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'elsewhere' } }, ctx(), { dryRun: false });
    await raw('k-other-ns', 'elsewhere', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'k-owner', uid }]);
    await raw('k-unserved', 'default', [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: '44444444-4444-4444-4444-444444444444' }]);
    await raw('k-right', 'default', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'k-owner', uid }]);
    await waitUntil(() => !get('k-wrong-kind') && !get('k-wrong-name') && !cc.store.get(storageKey(configmaps, 'elsewhere', 'k-other-ns')));
    await new Promise((r) => setTimeout(r, 200));
    expect(get('k-unserved')).toBeTruthy();
    expect(get('k-right')).toBeTruthy();
    // A namespaced owner of a cluster-scoped object is an invalid reference: deleting the owner leaves it.
    await createObject(cc.store, namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'owned-ns', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'k-owner', uid }] } }, ctx(), { dryRun: false });
    await deleteObject(cc.store, configmaps, 'default', 'k-owner', ctx(), { dryRun: false });
    await waitUntil(() => !get('k-right'));
    expect(cc.store.get(storageKey(namespaces, '', 'owned-ns'))?.object.metadata.deletionTimestamp).toBeUndefined();
  });

  it('orphans: the owner goes, its dependents stay without the reference (other owners kept)', async () => {
    const owner = await cm('o-owner');
    const other = await cm('o-other');
    await cm('o-dep', [{ o: owner }, { o: other }]);
    await cm('o-dep2', [{ o: owner, block: true }]);
    const res = await deleteObject(cc.store, configmaps, 'default', 'o-owner', ctx(), { dryRun: false, propagationPolicy: 'Orphan' });
    expect(res.deleted).toBe(false);
    expect(res.object.metadata.finalizers).toEqual(['orphan']);
    await waitUntil(() => !get('o-owner'));
    expect(get('o-dep')?.metadata.ownerReferences?.map((r) => r.name)).toEqual(['o-other']);
    expect(get('o-dep2')?.metadata.ownerReferences).toBeUndefined();
  });

  it('deletes in foreground down a chain, keeping a dependent another owner still holds', async () => {
    const a = await cm('f-a');
    const keeper = await cm('f-keeper');
    const b = await cm('f-b', [{ o: a, block: true }]);
    await cm('f-c', [{ o: b, block: true }], ['example.com/hold']);
    await cm('f-shared', [{ o: a, block: true }, { o: keeper }]);
    await deleteObject(cc.store, configmaps, 'default', 'f-a', ctx(), { dryRun: false, propagationPolicy: 'Foreground' });
    // c holds b, b holds a: all three wait, b in foreground too.
    await waitUntil(() => !!get('f-c')?.metadata.deletionTimestamp);
    expect(get('f-a')?.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(get('f-b')?.metadata.deletionTimestamp).toBeTruthy();
    expect(get('f-b')?.metadata.finalizers).toEqual(['foregroundDeletion']);
    await waitUntil(() => get('f-shared')?.metadata.ownerReferences?.length === 1);
    expect(get('f-shared')?.metadata.ownerReferences?.[0]?.name).toBe('f-keeper');
    expect(get('f-shared')?.metadata.deletionTimestamp).toBeUndefined();
    // Releasing c lets the chain finish bottom-up.
    const { updateObject } = await import('../handlers/object-ops.js');
    await updateObject(cc.store, configmaps, 'default', 'f-c', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }), ctx(), { dryRun: false, subresource: '' });
    await waitUntil(() => !get('f-a') && !get('f-b') && !get('f-c'));
    expect(get('f-shared')).toBeTruthy();
    expect(get('f-keeper')).toBeTruthy();
  });

  it('finishes a foreground delete through an ownership cycle and past self-ownership', async () => {
    const a = await cm('cy-a');
    const b = await cm('cy-b', [{ o: a, block: true }]);
    const { updateObject } = await import('../handlers/object-ops.js');
    const ref = (o: KubeObject) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name!, uid: o.metadata.uid!, blockOwnerDeletion: true });
    // a owns b, b owns a, and a owns itself.
    await updateObject(cc.store, configmaps, 'default', 'cy-a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, ownerReferences: [ref(b), ref(a)] } }), ctx(), { dryRun: false, subresource: '' });
    await deleteObject(cc.store, configmaps, 'default', 'cy-a', ctx(), { dryRun: false, propagationPolicy: 'Foreground' });
    await waitUntil(() => !get('cy-a') && !get('cy-b'), 5000);
  });

  it('rejects orphanDependents together with propagationPolicy, and unknown policies, changing nothing', async () => {
    await cm('opts');
    await expect(deleteObject(cc.store, configmaps, 'default', 'opts', ctx(), { dryRun: false, propagationPolicy: 'Orphan', orphanDependents: true })).rejects.toMatchObject({
      status: { code: 422, details: { causes: [{ field: 'propagationPolicy' }] } },
    });
    await expect(deleteObject(cc.store, configmaps, 'default', 'opts', ctx(), { dryRun: false, propagationPolicy: 'Later' })).rejects.toMatchObject({
      status: { code: 422, message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Later": supported values: "Foreground", "Background", "Orphan", "nil"' },
    });
    expect(get('opts')?.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('deletionFinalizers', () => {
  it.each([
    { cur: undefined, opts: {}, want: [], changed: false },
    { cur: undefined, opts: { propagationPolicy: 'Orphan' }, want: ['orphan'], changed: true },
    { cur: undefined, opts: { orphanDependents: true }, want: ['orphan'], changed: true },
    { cur: ['x.io/f'], opts: { propagationPolicy: 'Foreground' }, want: ['x.io/f', 'foregroundDeletion'], changed: true },
    { cur: ['orphan'], opts: {}, want: ['orphan'], changed: false },
    { cur: ['orphan'], opts: { propagationPolicy: 'Foreground' }, want: ['foregroundDeletion'], changed: true },
    { cur: ['foregroundDeletion', 'x.io/f'], opts: { propagationPolicy: 'Background' }, want: ['x.io/f'], changed: true },
    { cur: ['foregroundDeletion'], opts: { orphanDependents: false }, want: [], changed: true },
  ])('$cur with $opts → $want', ({ cur, opts, want, changed }) => {
    expect(deletionFinalizers(cur, opts)).toEqual({ changed, finalizers: want });
  });
});
