/**
 * Empty maps and lists Go's encoder omits (`omitempty`) are never stored or served: ObjectMeta's
 * labels, annotations, finalizers and ownerReferences of every kind, a ConfigMap's data and
 * binaryData, a Secret's data. So `kubectl diff` of an exported object shows no drift and a merge
 * patch that only empties an absent map changes nothing, as against kube-apiserver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from './control-center.js';
import { startTestControlCenter } from './testing/in-process.js';
import { hostedClusterBody } from './testing/fixtures.js';

const CMS = '/api/v1/namespaces/clusters/configmaps';
const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters';
const empties = { labels: {}, annotations: {}, finalizers: [], ownerReferences: [] };

describe('empty omitempty fields', () => {
  let cc: RunningControlCenter;
  const req = async (method: string, url: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(cc.url + url, { method, headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': contentType }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { code: res.status, body: (await res.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('are dropped from a created ConfigMap, Secret and HostedCluster (whose spec keeps its own empty maps)', async () => {
    const cm = await req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain', ...empties }, data: {}, binaryData: {} });
    expect(cm.code).toBe(201);
    for (const f of Object.keys(empties)) expect(f in cm.body.metadata, f).toBe(false);
    expect('data' in cm.body || 'binaryData' in cm.body).toBe(false);
    const secret = await req('POST', '/api/v1/namespaces/clusters/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', labels: {} }, data: {} });
    expect(secret.code).toBe(201);
    expect('labels' in secret.body.metadata || 'data' in secret.body).toBe(false);
    const hc = await req('POST', HCS, hostedClusterBody('hc1', 'clusters', { autoNode: {} }, empties));
    expect(hc.code).toBe(201);
    for (const f of Object.keys(empties)) expect(f in hc.body.metadata, f).toBe(false);
    expect(hc.body.spec.autoNode).toEqual({});
  });

  it('a merge patch that only empties an absent map changes nothing (no new resourceVersion); emptying a real one removes it', async () => {
    const before = (await req('GET', `${CMS}/plain`)).body.metadata.resourceVersion;
    const noop = await req('PATCH', `${CMS}/plain`, { metadata: { labels: {}, annotations: {} }, data: {} }, 'application/merge-patch+json');
    expect(noop.code).toBe(200);
    expect(noop.body.metadata.resourceVersion).toBe(before);
    expect((await req('PATCH', `${CMS}/plain`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json')).body.metadata.labels).toEqual({ a: 'b' });
    const emptied = await req('PATCH', `${CMS}/plain`, { metadata: { labels: { a: null } } }, 'application/merge-patch+json');
    expect('labels' in emptied.body.metadata).toBe(false);
  });

  it('a PUT of the object as read back, with the empty maps kubectl diff adds, is no change', async () => {
    const cur = (await req('GET', `${HCS}/hc1`)).body;
    const put = await req('PUT', `${HCS}/hc1`, { ...cur, metadata: { ...cur.metadata, annotations: {} } });
    expect(put.code, JSON.stringify(put.body).slice(0, 300)).toBe(200);
    expect(put.body.metadata.resourceVersion).toBe(cur.metadata.resourceVersion);
  });
});
