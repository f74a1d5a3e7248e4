import { describe, expect, it } from 'vitest';
import { AnnotationUpstreamUID, LabelSyncedBy, type KubeObject } from '@hcc/crds';
import { reconcileUpsync, type UpsyncDeps } from './upsync-reconcile.js';

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
  const calls = { downGets: 0, upWrites: 0, statusWrites: 0 };
  const deps: UpsyncDeps = {
    cluster: 'mgmt-1',
    getUpstream: () => up,
    getDownstream: () => down,
    updateUpstreamStatus: async (_k, obj) => {
      calls.statusWrites++;
      up.status = obj.status;
    },
    getDownstreamSecret: async (_ns, name) => {
      calls.downGets++;
      return secrets.get(name);
    },
    getUpstreamSecret: async (_ns, name) => upSecrets.get(name),
    createUpstreamSecret: async (obj) => {
      calls.upWrites++;
      upSecrets.set(obj.metadata.name!, { ...obj, metadata: { ...obj.metadata, resourceVersion: '1' } });
    },
    updateUpstreamSecret: async (obj) => {
      calls.upWrites++;
      upSecrets.set(obj.metadata.name!, obj);
    },
    secretsCheckedAt: new Map(),
    secretRecheckMs: 60_000,
    now: () => now,
  };
  return { up, down, secrets, upSecrets, calls, deps, advance: (ms: number) => (now += ms) };
}

describe('reconcileUpsync: Secrets the status points to', () => {
  it('copies them before the status, then re-reads them only when due', async () => {
    const f = fixture();
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 60_000 });
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.data).toEqual({ kubeconfig: 'djE=' });
    expect(f.calls).toEqual({ downGets: 1, upWrites: 1, statusWrites: 1 });

    // Another status change within the interval: status copied, Secrets not read again.
    f.down.status = { ...f.down.status, conditions: [{ type: 'Available', status: 'True' }] };
    f.advance(10_000);
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 50_000 });
    expect(f.calls).toEqual({ downGets: 1, upWrites: 1, statusWrites: 2 });

    // A rotated kubeconfig reaches the control center at the re-check.
    f.secrets.get('ex-admin-kubeconfig')!.data = { kubeconfig: 'djI=' };
    f.advance(50_000);
    expect(await reconcileUpsync(f.deps, key)).toEqual({ requeueAfterMs: 60_000 });
    expect(f.upSecrets.get('ex-admin-kubeconfig')?.data).toEqual({ kubeconfig: 'djI=' });
    expect(f.calls).toEqual({ downGets: 2, upWrites: 2, statusWrites: 2 });
  });

  it('copies at once when the status points to another Secret', async () => {
    const f = fixture();
    await reconcileUpsync(f.deps, key);
    f.secrets.set('ex-new-kubeconfig', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ex-new-kubeconfig', namespace: 'clusters' }, data: { kubeconfig: 'bmV3' } });
    f.down.status = { ...f.down.status, kubeconfig: { name: 'ex-new-kubeconfig' } };
    f.advance(1_000);
    await reconcileUpsync(f.deps, key);
    expect(f.upSecrets.get('ex-new-kubeconfig')?.data).toEqual({ kubeconfig: 'bmV3' });
    expect((f.up.status as { kubeconfig: { name: string } }).kubeconfig.name).toBe('ex-new-kubeconfig');
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
