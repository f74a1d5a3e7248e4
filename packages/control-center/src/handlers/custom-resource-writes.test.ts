/**
 * Writes of custom resources the control center refuses with kube-apiserver's words:
 * ManagementCluster names are RFC 1123 labels (at most 63 characters: the name becomes the
 * placement label's value and part of the `state.controlcenter.hcc.dev/<name>` label key, so a
 * longer one could be registered but never bound to), and a PUT without a resourceVersion; and
 * the delete of an unplaced HostedCluster that came with HyperShift's finalizer, and its NodePools.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { request, startTestControlCenter } from '../testing/in-process.js';
import { hostedClusterBody } from '../testing/fixtures.js';

const MCS = '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters';

describe('custom resource writes', () => {
  let cc: RunningControlCenter;
  const create = async (name: string) => {
    const res = await fetch(cc.url + MCS, {
      method: 'POST',
      headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name }, spec: { capacity: 3 } }),
    });
    return { code: res.status, body: (await res.json()) as { reason?: string; message?: string; details?: { causes?: { field?: string }[] } } };
  };

  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['clusters'], virtualHostedClusters: true });
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('accepts a 63-character DNS label', async () => {
    expect((await create('m'.repeat(63))).code).toBe(201);
  });

  it.each([
    { name: 'm'.repeat(64), msg: 'must be no more than 63 characters' },
    { name: 'eu.west-1', msg: 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters' },
    { name: 'Bad_Name', msg: 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters' },
  ])('refuses $name with 422 on metadata.name', async ({ name, msg }) => {
    const r = await create(name);
    expect(r.code).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.message).toContain(`ManagementCluster.controlcenter.hcc.dev "${name}" is invalid: metadata.name: Invalid value: "${name}": ${msg}`);
    expect(r.body.details!.causes![0]!.field).toBe('metadata.name');
  });

  it('refuses a Namespace name that is not a DNS label once, in upstream words', async () => {
    const res = await fetch(cc.url + '/api/v1/namespaces', {
      method: 'POST',
      headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'Foo' } }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { message: string; details: { causes: unknown[] } };
    expect(body.message).toBe(
      `Namespace "Foo" is invalid: metadata.name: Invalid value: "Foo": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    );
    expect(body.details.causes).toHaveLength(1);
  });

  it('refuses a PUT without a resourceVersion as upstream words it (0x0 unquoted: a uint64)', async () => {
    expect((await create('put-me')).code).toBe(201);
    const res = await fetch(`${cc.url}${MCS}/put-me`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name: 'put-me' }, spec: { capacity: 4 } }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { message: string };
    expect(body.message).toBe('managementclusters.controlcenter.hcc.dev "put-me" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
  });

  it('drops HyperShift\'s finalizer when an unplaced HostedCluster is deleted (no operator would remove it), and keeps the others', async () => {
    const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters';
    const hc = (name: string, finalizers: string[]) => hostedClusterBody(name, 'clusters', {}, { finalizers });
    expect((await request(cc, 'POST', HCS, hc('exported', ['hypershift.openshift.io/finalizer']))).code).toBe(201);
    expect((await request(cc, 'DELETE', `${HCS}/exported`)).code).toBe(200);
    expect((await request(cc, 'GET', `${HCS}/exported`)).code).toBe(404);
    expect((await request(cc, 'POST', HCS, hc('held', ['hypershift.openshift.io/finalizer', 'example.com/keep']))).code).toBe(201);
    await request(cc, 'DELETE', `${HCS}/held`);
    const held = await request(cc, 'GET', `${HCS}/held`);
    expect(held.body.metadata.deletionTimestamp).toBeDefined();
    expect(held.body.metadata.finalizers).toEqual(['example.com/keep']);
  });

  it('deletes the NodePools of a HostedCluster that was never placed when it goes, as the operator would', async () => {
    const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters';
    const NPS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/nodepools';
    const np = (name: string, clusterName: string) => ({
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'NodePool',
      metadata: { name },
      spec: { clusterName, replicas: 1, management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' } },
    });
    expect((await request(cc, 'POST', HCS, hostedClusterBody('lonely', 'clusters', {}, { finalizers: ['hypershift.openshift.io/finalizer'] }))).code).toBe(201);
    for (const [n, c] of [['lonely-a', 'lonely'], ['lonely-b', 'lonely'], ['other-a', 'other']]) {
      const r = await request(cc, 'POST', NPS, np(n!, c!));
      expect(r.code, JSON.stringify(r.body)).toBe(201);
    }
    // The delete starts with the NodePools' finalizer (HyperShift's, which no operator would
    // remove, is dropped); the HostedCluster goes once they are deleted.
    const del = await request(cc, 'DELETE', `${HCS}/lonely`);
    expect(del.code).toBe(200);
    expect(del.body.metadata.finalizers).toEqual(['controlcenter.hcc.dev/nodepools']);
    expect(del.body.metadata.deletionTimestamp).toBeDefined();
    // `kubectl delete -f` deletes the NodePools next, in file order: they are still there to be
    // deleted (the cleanup waits about an operator's reaction time), so kubectl gets no 404, even
    // half a second later (a slow client, a long file).
    await new Promise((r) => setTimeout(r, 500));
    expect((await request(cc, 'DELETE', `${NPS}/lonely-b`)).code).toBe(200);
    for (let i = 0; i < 100 && (await request(cc, 'GET', `${HCS}/lonely`)).code !== 404; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await request(cc, 'GET', `${HCS}/lonely`)).code).toBe(404);
    expect((await request(cc, 'GET', `${NPS}/lonely-a`)).code).toBe(404);
    expect((await request(cc, 'GET', `${NPS}/lonely-b`)).code).toBe(404);
    expect((await request(cc, 'GET', `${NPS}/other-a`)).code).toBe(200);
    // Without NodePools naming it, a never-placed HostedCluster goes at once.
    expect((await request(cc, 'POST', HCS, hostedClusterBody('alone', 'clusters'))).code).toBe(201);
    expect((await request(cc, 'DELETE', `${HCS}/alone`)).code).toBe(200);
    expect((await request(cc, 'GET', `${HCS}/alone`)).code).toBe(404);
  });

  it('takes null metadata fields as absent (an empty `labels:` in a template), on create, update and server-side apply, as kube-apiserver', async () => {
    const hc = hostedClusterBody('nulls', 'clusters') as { metadata: Record<string, unknown> };
    hc.metadata = { ...hc.metadata, labels: null, annotations: null, finalizers: null, ownerReferences: null };
    const created = await request(cc, 'POST', '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters', hc);
    expect(created.code, JSON.stringify(created.body)).toBe(201);
    for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences']) expect(created.body.metadata).not.toHaveProperty(k);
    const mc = await request(cc, 'POST', MCS, { apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name: 'null-labels', labels: null }, spec: { capacity: 3 } });
    expect(mc.code, JSON.stringify(mc.body)).toBe(201);
    const put = await request(cc, 'PUT', `${MCS}/null-labels`, { ...mc.body, metadata: { ...mc.body.metadata, annotations: null } });
    expect(put.code, JSON.stringify(put.body)).toBe(200);
    const apply = await request(
      cc,
      'PATCH',
      `${MCS}/null-applied?fieldManager=test`,
      { apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name: 'null-applied', labels: null }, spec: { capacity: 2 } },
      { contentType: 'application/apply-patch+yaml' },
    );
    expect(apply.code, JSON.stringify(apply.body)).toBe(201);
    // A wrong type is still refused: metadata is decoded as ObjectMeta (400, as a body that cannot be decoded).
    const bad = await request(cc, 'POST', MCS, { apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name: 'list-labels', labels: ['a'] }, spec: { capacity: 3 } });
    expect(bad.code).toBe(400);
    expect(bad.body.message).toContain('ManagementCluster.metadata.labels');
  });
});
