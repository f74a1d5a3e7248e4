/**
 * The sim against a real embedded management cluster: a control center started in-process with
 * only the HyperShift CRDs, and a RestClient to it. Drives a HostedCluster and a NodePool through
 * creation, a missing pull secret, availability, an upgrade, a scale-up and deletion.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { isNotFound, RestClient, type KubeObject } from '@hcc/client';
import { FinalizerHyperShift, hyperShiftCRDs, type HostedCluster, type NodePool } from '@hcc/crds';
import { startControlCenter, type RunningControlCenter } from '@hcc/control-center';
import { DefaultSupportedVersions } from './names.js';
import { findCondition } from './conditions.js';
import { configMapsRef, hostedClustersRef, namespacesRef, nodePoolsRef, secretsRef } from './resources.js';
import { startHyperShiftSim, type HyperShiftSim } from './sim.js';
import type { HostedClusterStatus, NodePoolStatus } from './types.js';
import { eventually, servedHostedCluster as hostedCluster, servedNodePool as nodePool } from './testing/fixtures.js';

const ns = 'clusters';
const image414 = 'quay.io/openshift-release-dev/ocp-release:4.14.0-x86_64';
const image415 = 'quay.io/openshift-release-dev/ocp-release:4.15.2-x86_64';
const silent = pino({ level: process.env.HCC_TEST_LOG_LEVEL ?? 'silent' });

const pullSecret = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: ns },
  type: 'kubernetes.io/dockerconfigjson',
  stringData: { '.dockerconfigjson': '{"auths":{"quay.io":{"auth":"ZmFrZTpmYWtl"}}}' },
});

describe('hypershift-sim on an embedded management cluster', () => {
  let dir: string;
  let cc: RunningControlCenter;
  let client: RestClient;
  let sim: HyperShiftSim;

  const getHC = (name: string) => client.get<HostedCluster>(hostedClustersRef, ns, name);
  const getNP = (name: string) => client.get<NodePool>(nodePoolsRef, ns, name);
  const hcStatus = async (name: string) => ((await getHC(name)).status ?? {}) as HostedClusterStatus;
  const gone = async (p: Promise<unknown>) => p.then(() => false, (e) => (isNotFound(e) ? true : Promise.reject(e)));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcc-sim-'));
    cc = await startControlCenter({ dataDir: dir, port: 0, crds: hyperShiftCRDs, logger: silent, tls: false });
    client = new RestClient({ server: cc.url, token: cc.adminToken });
    sim = await startHyperShiftSim({ client, logger: silent, availableDelayMs: 400, deleteDelayMs: 300 });
    await client.create(namespacesRef, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });

  afterAll(async () => {
    await sim?.stop();
    client?.close();
    await cc?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the supported-versions ConfigMap', async () => {
    const cm = await client.get<KubeObject>(configMapsRef, 'hypershift', 'supported-versions');
    expect(cm.metadata.labels).toMatchObject({ 'hypershift.openshift.io/supported-versions': 'true' });
    expect(JSON.parse((cm.data as Record<string, string>)['supported-versions']!)).toEqual({ versions: [...DefaultSupportedVersions] });
  });

  it('reports a missing pull secret and becomes Available once it exists', async () => {
    await client.create(hostedClustersRef, ns, hostedCluster('example', 'example-pull-secret'));

    const blocked = await eventually('ValidReleaseImage=False', async () => {
      const s = await hcStatus('example');
      return findCondition(s.conditions, 'ValidReleaseImage')?.status === 'False' ? s : undefined;
    });
    expect(findCondition(blocked.conditions, 'ValidReleaseImage')).toMatchObject({
      reason: 'SecretNotFound',
      message: 'failed to get pull secret: secrets "example-pull-secret" not found',
    });
    expect(findCondition(blocked.conditions, 'ReconciliationSucceeded')).toMatchObject({ status: 'False', reason: 'ReconciliationError' });
    expect(findCondition(blocked.conditions, 'Available')).toMatchObject({ status: 'False', reason: 'WaitingForAvailable' });
    expect(findCondition(blocked.conditions, 'Progressing')).toMatchObject({ status: 'False', reason: 'Blocked' });
    const hc = await getHC('example');
    expect(hc.metadata.finalizers).toContain(FinalizerHyperShift);
    expect(hc.spec.clusterID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(hc.spec.infraID).toMatch(/^example-[a-z0-9]{5}$/);
    expect(await gone(client.get(namespacesRef, undefined, 'clusters-example'))).toBe(true);

    await client.create(secretsRef, ns, pullSecret('example-pull-secret'));
    const available = await eventually('Available=True', async () => {
      const s = await hcStatus('example');
      return findCondition(s.conditions, 'Available')?.status === 'True' ? s : undefined;
    });
    const gen = (await getHC('example')).metadata.generation;
    expect(findCondition(available.conditions, 'Available')).toMatchObject({ reason: 'AsExpected', message: 'The hosted control plane is available' });
    expect(findCondition(available.conditions, 'Progressing')).toMatchObject({ status: 'False', reason: 'AsExpected' });
    expect(findCondition(available.conditions, 'ReconciliationSucceeded')).toMatchObject({ status: 'True' });
    expect(findCondition(available.conditions, 'Degraded')).toMatchObject({ status: 'False' });
    for (const c of available.conditions ?? []) expect(c.observedGeneration, c.type).toBe(gen);
    expect(available.version?.desired.image).toBe(image414);
    expect(available.version?.history).toEqual([expect.objectContaining({ state: 'Completed', image: image414, version: '4.14.0' })]);
    expect(available.kubeconfig).toEqual({ name: 'example-admin-kubeconfig' });
    expect(available.kubeadminPassword).toEqual({ name: 'example-kubeadmin-password' });
    expect(available.controlPlaneEndpoint).toEqual({ host: 'api.example.hcc.example.com', port: 6443 });

    const cpNamespace = await client.get<KubeObject>(namespacesRef, undefined, 'clusters-example');
    expect(cpNamespace.metadata.labels).toMatchObject({ 'hypershift.openshift.io/hosted-control-plane': 'true' });
    expect(cpNamespace.metadata.annotations).toMatchObject({ 'hypershift.openshift.io/cluster': 'clusters/example' });
    const kubeconfig = await client.get<KubeObject>(secretsRef, ns, 'example-admin-kubeconfig');
    const text = Buffer.from((kubeconfig.data as Record<string, string>).kubeconfig!, 'base64').toString();
    expect(text).toContain('server: https://api.example.hcc.example.com:6443');
    expect(kubeconfig.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'HostedCluster', name: 'example', uid: hc.metadata.uid, controller: true }),
    ]);
    const password = await client.get<KubeObject>(secretsRef, ns, 'example-kubeadmin-password');
    expect(Buffer.from((password.data as Record<string, string>).password!, 'base64').toString()).toMatch(/^[a-z0-9]{5}(-[a-z0-9]{5}){3}$/);
  });

  it('settles: no further writes once Available', async () => {
    const rv = (await getHC('example')).metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, 1000));
    expect((await getHC('example')).metadata.resourceVersion).toBe(rv);
  });

  it('brings a NodePool to Ready with its replicas, owned by the HostedCluster', async () => {
    await client.create(nodePoolsRef, ns, nodePool('example-workers', 'example', 2));
    const np = await eventually('NodePool Ready', async () => {
      const n = await getNP('example-workers');
      return findCondition((n.status as NodePoolStatus | undefined)?.conditions, 'Ready')?.status === 'True' ? n : undefined;
    });
    const status = np.status as NodePoolStatus;
    expect(status.replicas).toBe(2);
    expect(status.version).toBe('4.14.0');
    expect(findCondition(status.conditions, 'UpdatingVersion')).toMatchObject({ status: 'False' });
    expect(findCondition(status.conditions, 'UpdatingConfig')).toMatchObject({ status: 'False' });
    expect(findCondition(status.conditions, 'AutoscalingEnabled')).toMatchObject({ status: 'False' });
    expect(findCondition(status.conditions, 'AutorepairEnabled')).toMatchObject({ status: 'False' });
    expect(np.metadata.finalizers).toContain(FinalizerHyperShift);
    const hc = await getHC('example');
    expect(np.metadata.ownerReferences).toEqual([{ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', name: 'example', uid: hc.metadata.uid }]);
    for (const c of status.conditions ?? []) expect(c.observedGeneration, c.type).toBe(np.metadata.generation);
  });

  it('scales a NodePool after the delay', async () => {
    const np = await getNP('example-workers');
    np.spec.replicas = 3;
    await client.update(nodePoolsRef, ns, np);
    await eventually('3 replicas', async () => {
      const n = await getNP('example-workers');
      const s = n.status as NodePoolStatus;
      return s.replicas === 3 && findCondition(s.conditions, 'Ready')?.status === 'True' && findCondition(s.conditions, 'Ready')?.observedGeneration === n.metadata.generation;
    });
  });

  it('holds a NodePool whose spec.config ConfigMap is missing (ValidMachineConfig=False), and scales once it exists (its event requeues the pool)', async () => {
    const np = await getNP('example-workers');
    np.spec.config = [{ name: 'late-config' }];
    np.spec.replicas = 4;
    await client.update(nodePoolsRef, ns, np);
    const condition = async (status: string) =>
      eventually(`ValidMachineConfig=${status}`, async () => {
        const n = await getNP('example-workers');
        const c = findCondition((n.status as NodePoolStatus | undefined)?.conditions, 'ValidMachineConfig');
        return c?.status === status && c.observedGeneration === n.metadata.generation ? { n, c } : undefined;
      });
    const held = await condition('False');
    expect(held.c).toMatchObject({ reason: 'ValidationFailed', message: 'configmaps "late-config" not found' });
    await new Promise((r) => setTimeout(r, 800)); // twice availableDelayMs
    expect((await getNP('example-workers')).status?.replicas).toBe(3);
    await client.create(configMapsRef, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late-config', namespace: ns }, data: { config: 'x' } });
    await condition('True');
    await eventually('4 replicas', async () => (await getNP('example-workers')).status?.replicas === 4);
  });

  it('upgrades: a new history entry rolls out while Available stays True', async () => {
    const hc = await getHC('example');
    hc.spec.release = { image: image415 };
    await client.update(hostedClustersRef, ns, hc);

    const rolling = await eventually('upgrade started', async () => {
      const s = await hcStatus('example');
      return s.version?.history.length === 2 ? s : undefined;
    });
    expect(rolling.version?.desired.image).toBe(image415);
    expect(findCondition(rolling.conditions, 'Available')?.status).toBe('True');

    const done = await eventually('upgrade completed', async () => {
      const s = await hcStatus('example');
      return s.version?.history[0]?.state === 'Completed' && findCondition(s.conditions, 'Progressing')?.status === 'False' ? s : undefined;
    });
    expect(done.version?.history.map((h) => [h.state, h.version, h.image])).toEqual([
      ['Completed', '4.15.2', image415],
      ['Completed', '4.14.0', image414],
    ]);
    expect(findCondition(done.conditions, 'Available')?.status).toBe('True');
  });

  it('deletes: the NodePool, Secrets and control-plane namespace go, then the HostedCluster', async () => {
    await client.delete(hostedClustersRef, ns, 'example');
    await eventually('HostedCluster gone', () => gone(getHC('example')));
    expect(await gone(getNP('example-workers'))).toBe(true);
    expect(await gone(client.get(namespacesRef, undefined, 'clusters-example'))).toBe(true);
    expect(await gone(client.get(secretsRef, ns, 'example-admin-kubeconfig'))).toBe(true);
    expect(await gone(client.get(secretsRef, ns, 'example-kubeadmin-password'))).toBe(true);
  });

  it('leaves a NodePool whose HostedCluster does not exist untouched', async () => {
    await client.create(nodePoolsRef, ns, nodePool('orphan', 'nope', 1));
    await new Promise((r) => setTimeout(r, 500));
    const np = await getNP('orphan');
    expect(np.metadata.finalizers ?? []).toEqual([]);
    expect(np.status ?? {}).toEqual({});
    await client.delete(nodePoolsRef, ns, 'orphan');
  });

  it('reports a missing SSH key Secret, then a missing trust bundle ConfigMap, and comes up once both exist (their events requeue it)', async () => {
    const hc = hostedCluster('refs', 'refs-pull-secret');
    hc.spec.sshKey = { name: 'refs-ssh-key' };
    hc.spec.additionalTrustBundle = { name: 'refs-ca' };
    await client.create(secretsRef, ns, pullSecret('refs-pull-secret'));
    await client.create(hostedClustersRef, ns, hc);
    const reconcileMessage = async (want: string) =>
      eventually(`ReconciliationSucceeded=False: ${want}`, async () => {
        const s = await hcStatus('refs');
        const c = findCondition(s.conditions, 'ReconciliationSucceeded');
        return c?.status === 'False' && c.reason === 'ReconciliationError' && c.message === want ? s : undefined;
      });
    await reconcileMessage('failed to get SSH key secret refs-ssh-key: secrets "refs-ssh-key" not found');
    await new Promise((r) => setTimeout(r, 800)); // twice availableDelayMs
    expect(findCondition((await hcStatus('refs')).conditions, 'Available')?.status).toBe('False');

    await client.create(secretsRef, ns, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'refs-ssh-key', namespace: ns }, stringData: { 'id_rsa.pub': 'ssh-rsa AAAA' } });
    const waiting = await reconcileMessage(`failed to get configmap ${ns}/refs-ca: configmaps "refs-ca" not found`);
    expect(findCondition(waiting.conditions, 'Available')?.status).toBe('False');

    await client.create(configMapsRef, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'refs-ca', namespace: ns }, data: { 'ca-bundle.crt': 'PEM' } });
    const available = await eventually('Available=True', async () => {
      const s = await hcStatus('refs');
      return findCondition(s.conditions, 'Available')?.status === 'True' ? s : undefined;
    });
    expect(findCondition(available.conditions, 'ReconciliationSucceeded')).toMatchObject({ status: 'True' });
  });
});
