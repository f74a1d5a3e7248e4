/**
 * A syncer identity (`hcc:syncer:X` in `hcc:syncers`) touches only what belongs to management
 * cluster X, over HTTP against a real control center: the ManagementClusterRestriction admission
 * (writes) and the ManagementCluster authorizer (Secret and ConfigMap reads), after kube's
 * NodeRestriction and Node authorizer. The requests impersonate the syncer with the admin's token,
 * so no policy is loaded: the restriction holds without one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs, ControlCenterAPIVersion, LabelUpsyncedFrom, stateLabelKey, type KubeObject } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';
import { hostedClusterBody } from '../testing/fixtures.js';
import { managementClusterOf } from './syncer-identity.js';

const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters';
const NPS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/nodepools';
const MCS = '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters';
const SECRETS = '/api/v1/namespaces/clusters/secrets';
const CONFIGMAPS = '/api/v1/namespaces/clusters/configmaps';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/hcc-system/leases';

interface Answer {
  code: number;
  body: KubeObject & { reason?: string; message?: string; items?: KubeObject[] };
}

describe('ManagementClusterRestriction: a syncer writes and reads only its own cluster', () => {
  let cc: RunningControlCenter;
  const scheduler = 'scheduler-token';
  /** One request; `as` impersonates a user (with the group `hcc:syncers`, unless `groups` say otherwise). */
  const call = async (method: string, url: string, body?: unknown, as?: { user: string; groups?: string[] }, contentType = 'application/json'): Promise<Answer> => {
    const headers: Record<string, string> = { authorization: `Bearer ${as?.user === 'scheduler' ? scheduler : cc.adminToken}`, 'content-type': contentType };
    const h = new Headers(headers);
    if (as && as.user !== 'scheduler') {
      h.set('impersonate-user', as.user);
      for (const g of as.groups ?? ['hcc:syncers']) h.append('impersonate-group', g);
    }
    const res = await fetch(cc.url + url, { method, headers: h, ...(body ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
    const text = await res.text();
    return { code: res.status, body: text ? JSON.parse(text) : {} };
  };
  const m1 = { user: 'hcc:syncer:mgmt-1' };
  const merge = (url: string, patch: unknown, as = m1) => call('PATCH', url, patch, as, 'application/merge-patch+json');
  const expectForbidden = (r: Answer, message: string) => {
    expect(r.code, JSON.stringify(r.body)).toBe(403);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect(r.body.message).toContain(message);
  };
  const secret = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'clusters', labels }, data: { k: 'dg==' } });
  const nodePool = (name: string, clusterName: string): KubeObject => ({
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'NodePool',
    metadata: { name, namespace: 'clusters' },
    spec: { clusterName, replicas: 1, management: { upgradeType: 'Replace' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64' }, platform: { type: 'None' } },
  });

  beforeAll(async () => {
    const tokens = path.join(mkdtempSync(path.join(tmpdir(), 'hcc-restriction-')), 'tokens.csv');
    writeFileSync(tokens, 'syncer-1-token,hcc:syncer:mgmt-1,u1,"hcc:syncers"\n');
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['clusters', 'hcc-system'], schedulerToken: scheduler, tokenFile: tokens });
    rmSync(path.dirname(tokens), { recursive: true, force: true });
    for (const name of ['mgmt-1', 'mgmt-2']) {
      expect((await call('POST', MCS, { apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster', metadata: { name }, spec: {} })).code).toBe(201);
    }
    // hc-1 on mgmt-1, hc-2 on mgmt-2, hc-3 unplaced; each with a NodePool the scheduler has not labelled yet.
    // hc-1 sets spec.kubeAPIServerDNSName: HyperShift writes its custom kubeconfig too.
    for (const [name, target] of [['hc-1', 'mgmt-1'], ['hc-2', 'mgmt-2'], ['hc-3', '']] as const) {
      const created = await call('POST', HCS, hostedClusterBody(name, 'clusters', name === 'hc-1' ? { kubeAPIServerDNSName: 'api.hc-1.example.com' } : {}));
      expect(created.code).toBe(201);
      if (target) {
        const bound = await call('POST', `${HCS}/${name}/binding`, { apiVersion: ControlCenterAPIVersion, kind: 'Binding', metadata: { name, resourceVersion: created.body.metadata.resourceVersion }, target: { name: target } }, { user: 'scheduler' });
        expect(bound.code, JSON.stringify(bound.body)).toBe(201);
      }
      expect((await call('POST', NPS, nodePool(`${name}-np`, name))).code).toBe(201);
    }
    expect((await call('POST', SECRETS, secret('pull-1', { [stateLabelKey('mgmt-1')]: 'Sync' }))).code).toBe(201);
    expect((await call('POST', SECRETS, secret('pull-2', { [stateLabelKey('mgmt-2')]: 'Sync' }))).code).toBe(201);
    expect((await call('POST', SECRETS, secret('hc-1-kubeadmin-password'))).code).toBe(201); // a user's own, under a HyperShift name
    expect((await call('POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-2', labels: { [stateLabelKey('mgmt-2')]: 'Sync' } }, data: {} })).code).toBe(201);
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('knows a syncer by its user name and group, as kube knows a kubelet', () => {
    expect(managementClusterOf({ name: 'hcc:syncer:mgmt-1', groups: ['hcc:syncers', 'system:authenticated'] })).toBe('mgmt-1');
    expect(managementClusterOf({ name: 'hcc:syncer:mgmt-1', groups: ['system:authenticated'] })).toBeUndefined();
    expect(managementClusterOf({ name: 'hcc-syncer-mgmt-1', groups: ['hcc:syncers'] })).toBeUndefined();
    expect(managementClusterOf({ name: 'hcc:syncer:', groups: ['hcc:syncers'] })).toBeUndefined();
  });

  it('changes HostedClusters and NodePools placed on its cluster only, and creates none', async () => {
    const fin = { metadata: { finalizers: ['controlcenter.hcc.dev/syncer'] } };
    expect((await merge(`${HCS}/hc-1`, fin)).code).toBe(200);
    expect((await merge(`${HCS}/hc-1/status`, { status: { version: { desired: { image: 'x' } } } })).code).toBe(200);
    // Refused by the authorizer already (the request alone decides it), so `kubectl auth can-i` says so too.
    expectForbidden(
      await merge(`${HCS}/hc-2`, fin),
      'hostedclusters.hypershift.openshift.io "hc-2" is forbidden: User "hcc:syncer:mgmt-1" cannot patch resource "hostedclusters" in API group "hypershift.openshift.io" in the namespace "clusters": the syncer of management cluster "mgmt-1" may only change or delete HostedClusters placed on it (this one is placed on "mgmt-2")',
    );
    expectForbidden(await merge(`${HCS}/hc-2/status`, { status: {} }), 'placed on "mgmt-2"');
    expectForbidden(await merge(`${HCS}/hc-3`, fin), 'this one is not placed');
    expectForbidden(await call('DELETE', `${HCS}/hc-2`, undefined, m1), 'may only change or delete HostedClusters placed on it');
    expectForbidden(await call('POST', HCS, hostedClusterBody('hc-new'), m1), 'may not create HostedClusters');
    expectForbidden(await call('POST', NPS, nodePool('np-new', 'hc-1'), m1), 'may not create NodePools');
    // Of its own, it changes the status, its finalizer and empty operator-generated fields only:
    // a spec reference it chose would be labelled for it, and its Secret readable.
    expectForbidden(await merge(`${HCS}/hc-1`, { spec: { pullSecret: { name: 'pull-2' } } }), 'may not change the spec of HostedClusters (only fill in clusterID and infraID)');
    expect((await merge(`${HCS}/hc-1`, { spec: { clusterID: 'c0ffee00-0000-4000-8000-000000000001' } })).code).toBe(200);
    expectForbidden(await merge(`${HCS}/hc-1`, { spec: { clusterID: 'c0ffee00-0000-4000-8000-000000000002' } }), 'may not change the spec');
    expectForbidden(await merge(`${HCS}/hc-1`, { metadata: { labels: { x: 'y' } } }), 'may not change the labels, annotations or owner references of HostedClusters');
    expectForbidden(await merge(`${HCS}/hc-1`, { metadata: { finalizers: ['controlcenter.hcc.dev/syncer', 'example.com/other'] } }), 'may only add its own finalizer');
    // The hostedcluster it may not touch is as it was.
    expect((await call('GET', `${HCS}/hc-2`)).body.metadata.finalizers).toBeUndefined();
    // A NodePool not labelled yet goes with its HostedCluster's placement.
    expectForbidden(await call('DELETE', `${NPS}/hc-2-np`, undefined, m1), 'may only change or delete NodePools placed on it');
    const scaled = await merge(`${NPS}/hc-1-np`, { spec: { replicas: 9 } });
    expectForbidden(scaled, 'may not change the spec of NodePools');
    expect(scaled.body.message).not.toContain('clusterID'); // a NodePool has no operator-generated fields
    expect((await call('DELETE', `${NPS}/hc-1-np`, undefined, m1)).code).toBe(200);
    // Another user in hcc:syncers, not named hcc:syncer:<cluster>, is not restricted (a fleet credential).
    expect((await merge(`${HCS}/hc-2`, { metadata: { annotations: { a: 'b' } } }, { user: 'hcc-syncer-mgmt-1' })).code).toBe(200);
  });

  it('registers and updates its own ManagementCluster only, and deletes none', async () => {
    expect((await merge(`${MCS}/mgmt-1/status`, { status: { conditions: [] } })).code).toBe(200);
    // Its cluster ID: filled in once; changed (another cluster's, say), refused until an admin clears it.
    expect((await merge(`${MCS}/mgmt-1/status`, { status: { clusterID: 'id-1' } })).code).toBe(200);
    expect((await merge(`${MCS}/mgmt-1/status`, { status: { clusterID: 'id-1', conditions: [] } })).code).toBe(200);
    expectForbidden(await merge(`${MCS}/mgmt-1/status`, { status: { clusterID: 'id-2' } }), "may not change status.clusterID once set (id-1); if the management cluster behind mgmt-1 really changed, an admin clears it: kubectl patch managementcluster mgmt-1 --subresource=status --type=merge -p '{\"status\":{\"clusterID\":null}}'");
    expectForbidden(await merge(`${MCS}/mgmt-1/status`, { status: { clusterID: null } }), 'may not change status.clusterID once set');
    expect((await call('PATCH', `${MCS}/mgmt-1/status`, { status: { clusterID: null } }, undefined, 'application/merge-patch+json')).code).toBe(200);
    expect((await merge(`${MCS}/mgmt-1/status`, { status: { clusterID: 'id-2' } })).code).toBe(200);
    // Its spec, labels and annotations are the admin's (capacity, taints, cordon would draw placements).
    expectForbidden(await merge(`${MCS}/mgmt-1`, { metadata: { labels: { region: 'eu' } } }), 'may only write the status of its ManagementCluster (and a spec.mode it lacks)');
    expectForbidden(await merge(`${MCS}/mgmt-1`, { spec: { capacity: 100000 } }), 'spec, labels, annotations and finalizers are the admin');
    expect((await merge(`${MCS}/mgmt-1`, { spec: { mode: 'Pull' } })).code).toBe(200);
    expectForbidden(await merge(`${MCS}/mgmt-1`, { spec: { mode: 'Push' } }), 'registers its cluster in Pull mode');
    expectForbidden(await merge(`${MCS}/mgmt-1`, { metadata: { finalizers: ['example.com/block'] } }), 'finalizers are the admin');
    expectForbidden(await merge(`${MCS}/mgmt-2`, { metadata: { labels: { region: 'eu' } } }), 'may only register and update its own ManagementCluster');
    expectForbidden(await merge(`${MCS}/mgmt-2/status`, { status: { conditions: [] } }), 'its own ManagementCluster');
    expectForbidden(await call('POST', MCS, { apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster', metadata: { name: 'mgmt-3' }, spec: {} }, m1), 'its own ManagementCluster');
    expectForbidden(await call('DELETE', `${MCS}/mgmt-1`, undefined, m1), 'may not delete ManagementClusters');
    expect((await call('GET', `${MCS}/mgmt-1`)).body.metadata.deletionTimestamp).toBeUndefined();
    // Not in Push mode, nor naming a kubeconfig Secret: the push syncer would read that Secret with
    // the control center's rights (a tenant's admin kubeconfig, say).
    const m8 = { user: 'hcc:syncer:mgmt-8' };
    const push = (spec: Record<string, unknown>) => ({ apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster', metadata: { name: 'mgmt-8' }, spec });
    expectForbidden(await call('POST', MCS, push({ mode: 'Push', kubeconfigSecretRef: { namespace: 'tenant-b', name: 'b1-admin-kubeconfig' } }), m8), 'registers its cluster in Pull mode');
    expectForbidden(await call('POST', MCS, push({ kubeconfigSecretRef: { name: 'x' } }), m8), 'spec.kubeconfigSecretRef are the admin');
    expect((await call('POST', MCS, push({}), m8)).code).toBe(201);
    expectForbidden(await merge(`${MCS}/mgmt-8`, { spec: { mode: 'Push' } }, m8), 'registers its cluster in Pull mode');
    expect((await merge(`${MCS}/mgmt-8`, { spec: { mode: 'Pull' } }, m8)).code).toBe(200);
    // A syncer whose cluster is not registered yet registers it.
    expect((await call('POST', MCS, { apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster', metadata: { name: 'mgmt-9' }, spec: {} }, { user: 'hcc:syncer:mgmt-9' })).code).toBe(201);

    // Nor does it fill in the cluster ID a live ManagementCluster registered after it reports
    // (mgmt-2: created in the same second, after it by name): mgmt-2 would become the duplicate.
    const ready = { type: 'Ready', status: 'True', reason: 'HeartbeatOK', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const admin = (url: string, patch: unknown) => call('PATCH', url, patch, undefined, 'application/merge-patch+json');
    expect((await admin(`${MCS}/mgmt-2/status`, { status: { clusterID: 'id-x', conditions: [ready] } })).code).toBe(200);
    expect((await admin(`${MCS}/mgmt-1/status`, { status: { clusterID: null } })).code).toBe(200);
    expectForbidden(await merge(`${MCS}/mgmt-1/status`, { status: { clusterID: 'id-x' } }), 'may not report cluster ID id-x: ManagementCluster mgmt-2, registered after mgmt-1, reports it and takes placements');
    // One registered after mgmt-2 may: it is the duplicate then.
    expect((await merge(`${MCS}/mgmt-8/status`, { status: { clusterID: 'id-x' } }, m8)).code).toBe(200);
    // Once mgmt-2 is not live (not Ready), mgmt-1 may report the ID.
    expect((await admin(`${MCS}/mgmt-2/status`, { status: { conditions: [{ ...ready, status: 'False', reason: 'HeartbeatExpired' }] } })).code).toBe(200);
    expect((await merge(`${MCS}/mgmt-1/status`, { status: { clusterID: 'id-x' } })).code).toBe(200);
    expect((await admin(`${MCS}/mgmt-2/status`, { status: { clusterID: null, conditions: [] } })).code).toBe(200);
  });

  it('copies up only the status Secrets of its HostedClusters, never over a user\'s own', async () => {
    const up = (name: string, extra: Record<string, string> = {}) => secret(name, { [LabelUpsyncedFrom]: 'mgmt-1', ...extra });
    const created = await call('POST', SECRETS, up('hc-1-admin-kubeconfig'), m1);
    expect(created.code, JSON.stringify(created.body)).toBe(201);
    expect((await call('PUT', `${SECRETS}/hc-1-admin-kubeconfig`, { ...up('hc-1-admin-kubeconfig'), metadata: { ...up('hc-1-admin-kubeconfig').metadata, resourceVersion: created.body.metadata.resourceVersion } }, m1)).code).toBe(200);
    // The kubeconfig for spec.kubeAPIServerDNSName (status.customKubeconfig) too.
    expect((await call('POST', SECRETS, up('hc-1-custom-admin-kubeconfig'), m1)).code).toBe(201);
    expectForbidden(await call('POST', SECRETS, up('hc-2-custom-admin-kubeconfig'), m1), 'HostedClusters placed on it');
    expectForbidden(await call('POST', SECRETS, up('hc-2-admin-kubeconfig'), m1), 'may only write the admin-kubeconfig, custom-admin-kubeconfig and kubeadmin-password Secrets of HostedClusters placed on it');
    expectForbidden(await call('POST', SECRETS, up('hc-3-admin-kubeconfig'), m1), 'HostedClusters placed on it');
    expectForbidden(await call('POST', SECRETS, up('anything'), m1), 'HostedClusters placed on it');
    expectForbidden(await call('POST', SECRETS, secret('hc-1-admin-kubeconfig-x'), m1), 'HostedClusters placed on it');
    expectForbidden(await merge(`${SECRETS}/hc-1-kubeadmin-password`, { metadata: { labels: { [LabelUpsyncedFrom]: 'mgmt-1' } }, data: { k: 'eA==' } }), "may not overwrite a Secret hcc did not copy up");
    expectForbidden(await merge(`${SECRETS}/hc-1-admin-kubeconfig`, { metadata: { labels: { [LabelUpsyncedFrom]: null } } }), `may only write Secrets labelled ${LabelUpsyncedFrom}=mgmt-1`);
    expectForbidden(await merge(`${SECRETS}/hc-1-admin-kubeconfig`, { metadata: { labels: { [stateLabelKey('mgmt-2')]: 'Sync' } } }), `may not set the label ${stateLabelKey('mgmt-2')} of another management cluster`);
    // It deletes only a status Secret it copied up (the status no longer names it), of a HostedCluster placed on it.
    expectForbidden(await call('DELETE', `${SECRETS}/hc-1-kubeadmin-password`, undefined, m1), `may only delete Secrets it copied up (labelled ${LabelUpsyncedFrom}=mgmt-1)`);
    expectForbidden(await call('DELETE', `${SECRETS}/anything`, undefined, m1), 'may not delete Secrets');
    expect((await call('DELETE', `${SECRETS}/hc-1-custom-admin-kubeconfig`, undefined, m1)).code).toBe(200);
    expect((await call('GET', `${SECRETS}/hc-1-kubeadmin-password`)).body.data).toEqual({ k: 'dg==' });
  });

  it('never reaches a status Secret whose name is also another cluster\'s HostedCluster\'s', async () => {
    // `a-custom-admin-kubeconfig`: the admin kubeconfig of a-custom (on mgmt-2), and the custom
    // kubeconfig of a (on mgmt-1) only while a sets spec.kubeAPIServerDNSName.
    for (const [name, target, spec] of [['a', 'mgmt-1', {}], ['a-custom', 'mgmt-2', {}], ['b', 'mgmt-1', { kubeAPIServerDNSName: 'api.b.example.com' }], ['b-custom', 'mgmt-2', {}]] as const) {
      const created = await call('POST', HCS, hostedClusterBody(name, 'clusters', spec));
      expect(created.code).toBe(201);
      const bound = await call('POST', `${HCS}/${name}/binding`, { apiVersion: ControlCenterAPIVersion, kind: 'Binding', metadata: { name, resourceVersion: created.body.metadata.resourceVersion }, target: { name: target } }, { user: 'scheduler' });
      expect(bound.code, JSON.stringify(bound.body)).toBe(201);
    }
    const m2 = { user: 'hcc:syncer:mgmt-2' };
    const up = (name: string, from: string) => secret(name, { [LabelUpsyncedFrom]: from });
    expect((await call('POST', SECRETS, up('a-custom-admin-kubeconfig', 'mgmt-2'), m2)).code).toBe(201);
    const theirs = 'a-custom-admin-kubeconfig';
    expectForbidden(await call('GET', `${SECRETS}/${theirs}`, undefined, m1), 'may only read Secrets');
    expectForbidden(await merge(`${SECRETS}/${theirs}`, { metadata: { labels: { [LabelUpsyncedFrom]: 'mgmt-1' } }, data: { kubeconfig: 'ZXZpbA==' } }), 'may only write the admin-kubeconfig');
    expectForbidden(await call('DELETE', `${SECRETS}/${theirs}`, undefined, m1), 'may not delete Secrets');
    expect((await call('GET', `${SECRETS}/${theirs}`)).body.data).toEqual({ k: 'dg==' });
    // Where both would have it written (b has a DNS name, b-custom exists elsewhere), neither may.
    expectForbidden(await call('POST', SECRETS, up('b-custom-admin-kubeconfig', 'mgmt-1'), m1), 'may only write the admin-kubeconfig');
    expectForbidden(await call('POST', SECRETS, up('b-custom-admin-kubeconfig', 'mgmt-2'), m2), 'may only write the admin-kubeconfig');
    // Its own: still.
    expect((await call('POST', SECRETS, up('a-admin-kubeconfig', 'mgmt-1'), m1)).code).toBe(201);
    expect((await call('GET', `${SECRETS}/a-admin-kubeconfig`, undefined, m1)).code).toBe(200);
    // The custom kubeconfig of a HostedCluster that dropped its DNS name: its syncer still reads and deletes its copy.
    expect((await call('DELETE', `${HCS}/b-custom`)).code).toBe(200);
    expect((await call('POST', SECRETS, up('b-custom-admin-kubeconfig', 'mgmt-1'), m1)).code).toBe(201);
    const admin = await call('PATCH', `${HCS}/b`, { spec: { kubeAPIServerDNSName: null } }, undefined, 'application/merge-patch+json');
    expect(admin.code, JSON.stringify(admin.body)).toBe(200);
    expect((await call('GET', `${SECRETS}/b-custom-admin-kubeconfig`, undefined, m1)).code).toBe(200);
    expectForbidden(await merge(`${SECRETS}/b-custom-admin-kubeconfig`, { data: { k: 'eA==' } }), 'may only write the admin-kubeconfig');
    expect((await call('DELETE', `${SECRETS}/b-custom-admin-kubeconfig`, undefined, m1)).code).toBe(200);
  });

  it('writes its own Lease and Events, and nothing else', async () => {
    const lease = (name: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'hcc-system' }, spec: { holderIdentity: 'x' } });
    expect((await call('POST', LEASES, lease('mgmt-1'), m1)).code).toBe(201);
    expectForbidden(await call('POST', LEASES, lease('mgmt-2'), m1), 'may only write its own Lease hcc-system/mgmt-1');
    const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'clusters' }, involvedObject: { kind: 'HostedCluster', namespace: 'clusters', name: 'hc-1' }, reason: 'Copied', message: 'x', type: 'Normal' };
    expect((await call('POST', '/api/v1/namespaces/clusters/events', event, m1)).code).toBe(201);
    expectForbidden(await call('POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mine' }, data: {} }, m1), 'may not write ConfigMaps');
    expectForbidden(await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'mine' } }, m1), 'may not write namespaces');
    expectForbidden(await call('DELETE', '/api/v1/namespaces/clusters/events/e1', undefined, m1), 'may not delete Events');
  });

  it('updates only the HostedCluster and NodePool CRDs (--pull-crds), saying where from', async () => {
    const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const hcCRD = (await call('GET', `${CRDS}/hostedclusters.hypershift.openshift.io`)).body;
    const pulled = { ...hcCRD, metadata: { ...hcCRD.metadata, annotations: { ...hcCRD.metadata.annotations, 'controlcenter.hcc.dev/pulled-from': 'mgmt-1' } } };
    // Only once an admin trusts its cluster's CRDs for the fleet (spec.pullCRDs), which it may not set itself.
    expectForbidden(await call('PUT', `${CRDS}/hostedclusters.hypershift.openshift.io`, pulled, m1), "only when an admin sets spec.pullCRDs on its ManagementCluster (kubectl patch managementcluster mgmt-1 --type=merge -p '{\"spec\":{\"pullCRDs\":true}}')");
    expectForbidden(await merge(`${MCS}/mgmt-1`, { spec: { pullCRDs: true } }), 'spec, labels, annotations and finalizers are the admin');
    const m7 = { user: 'hcc:syncer:mgmt-7' };
    expectForbidden(await call('POST', MCS, { apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster', metadata: { name: 'mgmt-7' }, spec: { pullCRDs: true } }, m7), 'may not set spec.pullCRDs');
    expect((await call('PATCH', `${MCS}/mgmt-1`, { spec: { pullCRDs: true } }, undefined, 'application/merge-patch+json')).code).toBe(200);
    const updated = await call('PUT', `${CRDS}/hostedclusters.hypershift.openshift.io`, pulled, m1);
    expect(updated.code, JSON.stringify(updated.body)).toBe(200);
    const unmarked = await call('PUT', `${CRDS}/hostedclusters.hypershift.openshift.io`, { ...updated.body, metadata: { ...updated.body.metadata, annotations: {} } }, m1);
    expectForbidden(unmarked, 'may only update a CustomResourceDefinition annotated controlcenter.hcc.dev/pulled-from=mgmt-1');
    const mcCRD = (await call('GET', `${CRDS}/managementclusters.controlcenter.hcc.dev`)).body;
    expectForbidden(await call('PUT', `${CRDS}/managementclusters.controlcenter.hcc.dev`, { ...mcCRD, metadata: { ...mcCRD.metadata, annotations: { 'controlcenter.hcc.dev/pulled-from': 'mgmt-1' } } }, m1), 'may only update the CustomResourceDefinitions hostedclusters.hypershift.openshift.io and nodepools.hypershift.openshift.io');
    const widget = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, spec: { group: 'example.com', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] } };
    expectForbidden(await call('POST', CRDS, widget, m1), 'may only update the CustomResourceDefinitions');
    expectForbidden(await call('DELETE', `${CRDS}/hostedclusters.hypershift.openshift.io`, undefined, m1), 'may only update the CustomResourceDefinitions');
    // Another cluster's syncer, not trusted so, takes it over by naming itself: refused.
    const m2 = { user: 'hcc:syncer:mgmt-2' };
    const current = (await call('GET', `${CRDS}/hostedclusters.hypershift.openshift.io`)).body;
    expectForbidden(await call('PUT', `${CRDS}/hostedclusters.hypershift.openshift.io`, { ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, 'controlcenter.hcc.dev/pulled-from': 'mgmt-2' } } }, m2), 'only when an admin sets spec.pullCRDs');
  });

  it('reads and watches only the Secrets and ConfigMaps of what is placed on it', async () => {
    const sel = encodeURIComponent(`${stateLabelKey('mgmt-1')}=Sync`);
    expect((await call('GET', `${SECRETS}/pull-1`, undefined, m1)).code).toBe(200);
    expectForbidden(await call('GET', `${SECRETS}/pull-2`, undefined, m1), 'the syncer of management cluster "mgmt-1" may only read Secrets that HostedClusters placed on it reference');
    expectForbidden(await call('GET', `${CONFIGMAPS}/cm-2`, undefined, m1), 'may only read ConfigMaps');
    // A subresource URL is refused too, never let through to a handler (a legacy watch of
    // `NAME/status` streamed the whole Secret).
    expectForbidden(await call('GET', `/api/v1/watch/namespaces/clusters/secrets/pull-2/status`, undefined, m1), 'the syncer of management cluster "mgmt-1" may not use the "status" subresource of Secrets');
    expectForbidden(await call('GET', `${SECRETS}/pull-2%2Fstatus`, undefined, m1), 'may not use the "status" subresource of Secrets');
    expectForbidden(await call('DELETE', `${CONFIGMAPS}/cm-2/status`, undefined, m1), 'may not use the "status" subresource of ConfigMaps');
    // The status Secrets of its HostedClusters: 404 while absent (it copies them up), not 403.
    expect((await call('GET', `${SECRETS}/hc-1-admin-kubeconfig`, undefined, m1)).code).toBe(200);
    expect((await call('GET', `${SECRETS}/hc-1-nothing`, undefined, m1)).code).toBe(403);
    // A Secret a HostedCluster placed on it references: 404 while it does not exist (the syncer
    // learns it is gone), as the Node authorizer answers from its graph, not from the Secret.
    expect((await call('GET', `${SECRETS}/pull-secret`, undefined, m1)).code).toBe(404);
    expectForbidden(await call('GET', `${SECRETS}/pull-secret`, undefined, { user: 'hcc:syncer:mgmt-9' }), 'the syncer of management cluster "mgmt-9" may only read Secrets');
    expect((await call('GET', `${SECRETS}/hc-2-admin-kubeconfig`, undefined, m1)).code).toBe(403);
    expectForbidden(await call('GET', SECRETS, undefined, m1), `may only list and watch Secrets with the label selector ${stateLabelKey('mgmt-1')}=Sync`);
    expectForbidden(await call('GET', `/api/v1/secrets?labelSelector=${encodeURIComponent(`${stateLabelKey('mgmt-2')}=Sync`)}`, undefined, m1), 'with the label selector');
    expectForbidden(await call('GET', `${CONFIGMAPS}?watch=true`, undefined, m1), 'may only list and watch ConfigMaps');
    // Its own copies of status Secrets (label upsynced-from=<it>), across namespaces; not another's.
    expect((await call('GET', `/api/v1/secrets?labelSelector=${encodeURIComponent('controlcenter.hcc.dev/upsynced-from=mgmt-1')}`, undefined, m1)).code).toBe(200);
    expectForbidden(await call('GET', `/api/v1/secrets?labelSelector=${encodeURIComponent('controlcenter.hcc.dev/upsynced-from=mgmt-2')}`, undefined, m1), 'or controlcenter.hcc.dev/upsynced-from=mgmt-1, its copies of status Secrets');
    expectForbidden(await call('GET', `${CONFIGMAPS}?labelSelector=${encodeURIComponent('controlcenter.hcc.dev/upsynced-from=mgmt-1')}`, undefined, m1), 'may only list and watch ConfigMaps');
    expectForbidden(await call('DELETE', `${SECRETS}?dryRun=All`, undefined, m1), 'may not delete collections of Secrets');
    // A write to what it may not read is refused before a patch is applied (its errors would quote
    // the data) and whether or not the name exists.
    const jsonPatch = (name: string) => call('PATCH', `${SECRETS}/${name}`, [{ op: 'copy', from: '/data/k', path: '/apiVersion' }], m1, 'application/json-patch+json');
    const leak = await jsonPatch('pull-2');
    expectForbidden(leak, 'may only write the admin-kubeconfig, custom-admin-kubeconfig and kubeadmin-password Secrets of HostedClusters placed on it');
    expect(leak.body.message).not.toContain('dg==');
    expect((await jsonPatch('no-such-secret')).code).toBe(403);
    expect((await call('DELETE', `${SECRETS}/no-such-secret`, undefined, m1)).code).toBe(403);
    expectForbidden(await call('PATCH', `${CONFIGMAPS}/cm-2`, [{ op: 'copy', from: '/data', path: '/kind' }], m1, 'application/json-patch+json'), 'may only write the admin-kubeconfig');
    expect((await call('GET', `/api/v1/secrets?labelSelector=${encodeURIComponent(`${stateLabelKey('mgmt-1')} notin (x),${stateLabelKey('mgmt-1')}=Sync`)}`, undefined, m1)).code).toBe(200);
    // A syncer impersonates nobody, even without a policy (its own token here).
    const asOther = await fetch(`${cc.url}${SECRETS}/pull-2`, { headers: { authorization: 'Bearer syncer-1-token', 'impersonate-user': 'someone' } });
    expect(asOther.status).toBe(403);
    expect(((await asOther.json()) as { message: string }).message).toContain('the syncer of management cluster "mgmt-1" may not impersonate');
    expect((await fetch(`${cc.url}${SECRETS}/pull-1`, { headers: { authorization: 'Bearer syncer-1-token' } })).status).toBe(200);
    const listed = await call('GET', `/api/v1/secrets?labelSelector=${sel}`, undefined, m1);
    expect(listed.code).toBe(200);
    expect(listed.body.items!.map((s) => s.metadata.name)).toEqual(['pull-1']);
    const watch = await fetch(`${cc.url}${SECRETS}?watch=true&timeoutSeconds=1&labelSelector=${sel}`, { headers: { authorization: `Bearer ${cc.adminToken}`, 'impersonate-user': m1.user, 'impersonate-group': 'hcc:syncers' } });
    expect(watch.status).toBe(200);
    expect((await watch.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l).object.metadata.name)).toEqual(['pull-1']);
    // Everything else it reads as before; the admin reads everything.
    expect((await call('GET', HCS, undefined, m1)).code).toBe(200);
    expect((await call('GET', SECRETS)).body.items!.length).toBeGreaterThan(2);
    // `kubectl auth can-i` agrees.
    const review = (resource: string, verb: string, name = '') =>
      call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 'clusters', resource, verb, name } } }, m1);
    expect((await review('secrets', 'get', 'pull-1')).body.status).toMatchObject({ allowed: true });
    expect((await review('secrets', 'get', 'pull-2')).body.status).toMatchObject({ allowed: false });
    expect((await review('secrets', 'list')).body.status).toMatchObject({ allowed: false });
    // ... and for the writes the request alone refuses, as the write itself would be.
    const reviewIn = (group: string, resource: string, verb: string, name = '', namespace = 'clusters') =>
      call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { group, namespace, resource, verb, name } } }, m1);
    const hs = 'hypershift.openshift.io';
    expect((await reviewIn(hs, 'hostedclusters', 'create')).body.status).toMatchObject({ allowed: false, reason: expect.stringContaining('may not create HostedClusters') });
    expect((await reviewIn(hs, 'hostedclusters', 'patch', 'hc-1')).body.status).toMatchObject({ allowed: true });
    expect((await reviewIn(hs, 'hostedclusters', 'delete', 'hc-2')).body.status).toMatchObject({ allowed: false, reason: expect.stringContaining('placed on "mgmt-2"') });
    expect((await reviewIn('controlcenter.hcc.dev', 'managementclusters', 'delete', 'mgmt-1', '')).body.status).toMatchObject({ allowed: false, reason: expect.stringContaining('may not delete ManagementClusters') });
    expect((await reviewIn('controlcenter.hcc.dev', 'managementclusters', 'patch', 'mgmt-2', '')).body.status).toMatchObject({ allowed: false, reason: expect.stringContaining('its own ManagementCluster') });
    expect((await reviewIn('controlcenter.hcc.dev', 'managementclusters', 'patch', 'mgmt-1', '')).body.status).toMatchObject({ allowed: true });
    expect((await reviewIn('', 'events', 'delete', 'e1')).body.status).toMatchObject({ allowed: false, reason: expect.stringContaining('may not delete Events') });
    // The status of what is not its own, too.
    const statusReview = (group: string, resource: string, name: string, namespace: string) =>
      call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { group, namespace, resource, subresource: 'status', verb: 'patch', name } } }, m1);
    expect((await statusReview('controlcenter.hcc.dev', 'managementclusters', 'mgmt-2', '')).body.status).toMatchObject({ allowed: false, reason: expect.stringContaining('its own ManagementCluster') });
    expect((await statusReview('controlcenter.hcc.dev', 'managementclusters', 'mgmt-1', '')).body.status).toMatchObject({ allowed: true });
    expect((await statusReview(hs, 'hostedclusters', 'hc-2', 'clusters')).body.status).toMatchObject({ allowed: false, reason: expect.stringContaining('placed on "mgmt-2"') });
    expect((await statusReview(hs, 'hostedclusters', 'hc-1', 'clusters')).body.status).toMatchObject({ allowed: true });
    expect((await reviewIn('', 'events', 'create')).body.status).toMatchObject({ allowed: true });
  });
});
