import { describe, expect, it } from 'vitest';
import type { HostedCluster } from '@hcc/crds';
import { findCondition } from '../../conditions.js';
import { FakeWorld, at, configMap, hostedCluster, namespace, pullSecret, secret } from '../../testing/fixtures.js';
import { missingReferenceError, observeFacts, updateStatus } from './hostedcluster-reconcile-status.js';

describe('observeFacts', () => {
  it.each([
    { name: 'nothing there', input: [], want: { pullSecret: 'missing', controlPlaneNamespace: false, kubeconfigSecret: false, kubeadminPasswordSecret: false } },
    {
      name: 'everything there',
      input: [pullSecret(), namespace('clusters-example'), secret('clusters', 'example-admin-kubeconfig'), secret('clusters', 'example-kubeadmin-password')],
      want: { pullSecret: 'found', controlPlaneNamespace: true, kubeconfigSecret: true, kubeadminPasswordSecret: true },
    },
    {
      name: 'pull secret without .dockerconfigjson, terminating namespace',
      input: [secret('clusters', 'pull-secret', { other: 'eA==' }), namespace('clusters-example', { deletionTimestamp: at() })],
      want: { pullSecret: 'invalid', controlPlaneNamespace: false, kubeconfigSecret: false, kubeadminPasswordSecret: false },
    },
    { name: 'pull secret in another namespace does not count', input: [secret('other', 'pull-secret', { '.dockerconfigjson': 'e30=' })], want: { pullSecret: 'missing', controlPlaneNamespace: false, kubeconfigSecret: false, kubeadminPasswordSecret: false } },
  ])('$name', ({ input, want }) => {
    expect(observeFacts(hostedCluster(), new FakeWorld(input).hostedClusterDeps())).toEqual(want);
  });
});

describe('updateStatus (step)', () => {
  it('writes a changed status through the status subresource and stops', async () => {
    const world = new FakeWorld([hostedCluster(), pullSecret()]);
    const result = await updateStatus(world.hostedClusterDeps()).run(hostedCluster());
    expect(result).toBe('stop');
    expect(world.calls).toEqual(['updateStatus hostedclusters clusters/example']);
    expect(world.hostedClusters.get('clusters/example')!.status?.version?.history?.[0]?.state).toBe('Partial');
  });

  it('skips the write when nothing changed, asking for a requeue while a rollout waits', async () => {
    const world = new FakeWorld([hostedCluster(), pullSecret(), namespace('clusters-example'), secret('clusters', 'example-admin-kubeconfig'), secret('clusters', 'example-kubeadmin-password')]);
    const step = updateStatus(world.hostedClusterDeps());
    expect(await step.run(structuredClone(world.hostedClusters.get('clusters/example')!))).toEqual({ requeueAfterMs: 2999, then: 'stop' });
    world.clock.step(1000);
    expect(await step.run(structuredClone(world.hostedClusters.get('clusters/example')!))).toEqual({ requeueAfterMs: 1999, then: 'continue' });
    expect(world.calls).toHaveLength(1);
    world.clock.step(2000);
    expect(await step.run(structuredClone(world.hostedClusters.get('clusters/example')!))).toBe('stop');
    expect(await step.run(structuredClone(world.hostedClusters.get('clusters/example')!))).toBe('continue');
    expect(world.calls).toHaveLength(2);
  });
});

describe('missingReferenceError', () => {
  const withRefs = hostedCluster({
    spec: {
      sshKey: { name: 'my-key' },
      additionalTrustBundle: { name: 'user-ca-bundle' },
      secretEncryption: { type: 'aescbc', aescbc: { activeKey: { name: 'etcd-key' } } },
      platform: { type: 'KubeVirt', kubevirt: { credentials: { infraKubeConfigSecret: { name: 'infra-kubeconfig', key: 'kubeconfig' } } } },
    },
  });
  const all = [pullSecret(), secret('clusters', 'my-key'), configMap('clusters', 'user-ca-bundle'), secret('clusters', 'etcd-key'), secret('clusters', 'infra-kubeconfig')];
  const without = (...names: string[]) => all.filter((o) => !names.includes(o.metadata.name!));

  it.each([
    { name: 'everything there', input: all, want: undefined },
    { name: 'no SSH key (upstream wording)', input: without('my-key'), want: 'failed to get SSH key secret my-key: secrets "my-key" not found' },
    { name: 'no etcd encryption key', input: without('etcd-key'), want: 'failed to get secret clusters/etcd-key: secrets "etcd-key" not found' },
    { name: 'no platform credentials', input: without('infra-kubeconfig'), want: 'failed to get secret clusters/infra-kubeconfig: secrets "infra-kubeconfig" not found' },
    { name: 'no trust bundle ConfigMap', input: without('user-ca-bundle'), want: 'failed to get configmap clusters/user-ca-bundle: configmaps "user-ca-bundle" not found' },
    { name: 'the SSH key comes first, then Secrets by name, then ConfigMaps', input: [pullSecret()], want: 'failed to get SSH key secret my-key: secrets "my-key" not found' },
    { name: 'Secrets before ConfigMaps, by name', input: without('etcd-key', 'infra-kubeconfig', 'user-ca-bundle'), want: 'failed to get secret clusters/etcd-key: secrets "etcd-key" not found' },
    { name: 'the pull secret is not its business', input: without('pull-secret'), want: undefined },
    { name: 'a Secret of that name is no ConfigMap', input: [...without('user-ca-bundle'), secret('clusters', 'user-ca-bundle')], want: 'failed to get configmap clusters/user-ca-bundle: configmaps "user-ca-bundle" not found' },
  ])('$name', ({ input, want }) => {
    expect(missingReferenceError(withRefs, new FakeWorld(input).hostedClusterDeps())).toBe(want);
  });

  it('reads arn-from-secret:: names, in the HostedCluster namespace only', () => {
    const hc = hostedCluster({ spec: { platform: { type: 'AWS', aws: { rolesRef: { ingressARN: 'arn-from-secret::ingress-role' } } } } });
    expect(missingReferenceError(hc, new FakeWorld([pullSecret(), secret('other', 'ingress-role')]).hostedClusterDeps())).toBe(
      'failed to get secret clusters/ingress-role: secrets "ingress-role" not found',
    );
    expect(missingReferenceError(hc, new FakeWorld([pullSecret(), secret('clusters', 'ingress-role')]).hostedClusterDeps())).toBeUndefined();
  });

  it('observeFacts carries it only when something is missing', () => {
    expect(observeFacts(withRefs, new FakeWorld(all).hostedClusterDeps())).not.toHaveProperty('missingReference');
    expect(observeFacts(withRefs, new FakeWorld(without('my-key')).hostedClusterDeps()).missingReference).toBe('failed to get SSH key secret my-key: secrets "my-key" not found');
  });
});

describe('updateStatus (step) with a missing referenced Secret or ConfigMap', () => {
  const cpObjects = () => [pullSecret(), namespace('clusters-example'), secret('clusters', 'example-admin-kubeconfig'), secret('clusters', 'example-kubeadmin-password')];
  /** Runs the step on the stored object until it neither writes nor stops; returns the stored object. */
  const pass = async (world: FakeWorld) => {
    const step = updateStatus(world.hostedClusterDeps());
    for (let i = 0; i < 5; i++) if ((await step.run(structuredClone(world.hostedClusters.get('clusters/example')!))) !== 'stop') break;
    return world.hostedClusters.get('clusters/example')!;
  };
  const pick = (hc: HostedCluster, type: string) => {
    const c = findCondition(hc.status?.conditions, type);
    return c && { status: c.status, reason: c.reason, message: c.message };
  };
  const sshError = 'failed to get SSH key secret my-key: secrets "my-key" not found';

  it('a missing SSH key: ReconciliationSucceeded=False with the lookup error, not Available after the delay; the Secret created: Available after the delay', async () => {
    const world = new FakeWorld([hostedCluster({ spec: { sshKey: { name: 'my-key' } } }), ...cpObjects()]);
    let hc = await pass(world);
    expect(pick(hc, 'ReconciliationSucceeded')).toEqual({ status: 'False', reason: 'ReconciliationError', message: sshError });
    world.clock.step(10_000);
    hc = await pass(world);
    expect(pick(hc, 'Available')?.status).toBe('False');
    expect(pick(hc, 'ReconciliationSucceeded')?.message).toBe(sshError);

    world.put(secret('clusters', 'my-key', { 'id_rsa.pub': 'c3NoLXJzYSBBQUFB' }));
    hc = await pass(world);
    expect(pick(hc, 'ReconciliationSucceeded')?.status).toBe('True');
    expect(pick(hc, 'Available')?.status).toBe('False');
    world.clock.step(3000);
    hc = await pass(world);
    expect(pick(hc, 'Available')).toEqual({ status: 'True', reason: 'AsExpected', message: 'The hosted control plane is available' });
  });

  it('a missing ConfigMap likewise', async () => {
    const world = new FakeWorld([hostedCluster({ spec: { additionalTrustBundle: { name: 'user-ca-bundle' } } }), ...cpObjects()]);
    await pass(world);
    world.clock.step(10_000);
    let hc = await pass(world);
    expect(pick(hc, 'ReconciliationSucceeded')).toEqual({ status: 'False', reason: 'ReconciliationError', message: 'failed to get configmap clusters/user-ca-bundle: configmaps "user-ca-bundle" not found' });
    expect(pick(hc, 'Available')?.status).toBe('False');
    world.put(configMap('clusters', 'user-ca-bundle', { 'ca-bundle.crt': 'PEM' }));
    await pass(world);
    world.clock.step(3000);
    hc = await pass(world);
    expect(pick(hc, 'ReconciliationSucceeded')?.status).toBe('True');
    expect(pick(hc, 'Available')?.status).toBe('True');
  });

  it('a missing pull secret wins over a missing SSH key', async () => {
    const world = new FakeWorld([hostedCluster({ spec: { sshKey: { name: 'my-key' } } }), ...cpObjects().slice(1)]);
    const hc = await pass(world);
    expect(pick(hc, 'ReconciliationSucceeded')?.message).toBe('failed to lookup release image: failed to get pull secret: secrets "pull-secret" not found');
    expect(pick(hc, 'ValidReleaseImage')?.reason).toBe('SecretNotFound');
  });

  it('an Available cluster that loses its SSH key stays Available and reports the error', async () => {
    const world = new FakeWorld([hostedCluster({ spec: { sshKey: { name: 'my-key' } } }), ...cpObjects(), secret('clusters', 'my-key')]);
    await pass(world);
    world.clock.step(3000);
    expect(pick(await pass(world), 'Available')?.status).toBe('True');
    world.secrets.delete('clusters/my-key');
    world.clock.step(10_000);
    const hc = await pass(world);
    expect(pick(hc, 'Available')).toEqual({ status: 'True', reason: 'AsExpected', message: 'The hosted control plane is available' });
    expect(pick(hc, 'ReconciliationSucceeded')).toEqual({ status: 'False', reason: 'ReconciliationError', message: sshError });
  });
});
