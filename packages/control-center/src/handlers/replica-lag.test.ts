/**
 * Two control centers on one etcd (Debian's 3.4.23 here: no progress notifications), the second
 * with its etcd watch held back (a replica paused or overloaded): what a client going through a
 * load balancer relies on. A GET without resourceVersion of an object created through the first
 * waits for the watch instead of answering 404, a create into a namespace created through the
 * first waits too instead of answering "namespaces not found", as kube-apiserver's
 * NamespaceLifecycle admission looks a namespace up when its informer has not seen it, and a
 * server-side apply of an object created through the first is an update (no `create` asked).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdWatch as holdStoreWatch, settledWithin, startTestEtcd, type TestEtcd } from '../storage/etcd/testing-etcd.js';
import { request, startTestControlCenter } from '../testing/in-process.js';
import type { RunningControlCenter } from '../control-center.js';
import type { ReadTransformStore } from '../storage/read-transform.js';
import type { Authorizer } from '../pipeline/authorize.js';

/** Holds back the etcd watch of control center `cc` (see testing-etcd's holdWatch). */
const holdWatch = (cc: RunningControlCenter) => holdStoreWatch((cc.store as ReadTransformStore).inner);

describe('a control center whose etcd watch lags behind another on the same etcd', () => {
  let etcd: TestEtcd;
  let a: RunningControlCenter;
  let b: RunningControlCenter;
  let tokenDir: string;
  // patcher may do everything on B but create.
  const patcher = { token: 'patcher-token' };
  const authorizer: Authorizer = (user, ri) => (user.name === 'patcher' && ri.verb === 'create' ? { allowed: false, reason: 'not for patcher' } : { allowed: true });

  beforeAll(async () => {
    etcd = await startTestEtcd();
    tokenDir = mkdtempSync(path.join(tmpdir(), 'hcc-lag-tokens-'));
    writeFileSync(path.join(tokenDir, 'tokens.csv'), 'patcher-token,patcher,u-patcher\n');
    const etcdOpts = { endpoints: [etcd.endpoint], prefix: '/hcc-lag' };
    a = await startTestControlCenter({ etcd: etcdOpts });
    b = await startTestControlCenter({ etcd: etcdOpts, tokenFile: path.join(tokenDir, 'tokens.csv'), authorizer });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await etcd?.stop();
    if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
  });

  const cm = (name: string, namespace: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { k: 'v' } });

  it('answers a GET of an object created through the other once it has caught up, never 404', async () => {
    const lag = holdWatch(b);
    expect((await request(a, 'POST', '/api/v1/namespaces/default/configmaps', cm('fresh', 'default'))).code).toBe(201);
    const get = request(b, 'GET', '/api/v1/namespaces/default/configmaps/fresh');
    expect(await settledWithin(get, 700)).toBe(false);
    lag.release();
    const res = await get;
    expect(res.code).toBe(200);
    expect(res.body.data).toEqual({ k: 'v' });
  });

  it('creates into a namespace created through the other (POST and server-side apply), never "namespaces not found"', async () => {
    const lag = holdWatch(b);
    expect((await request(a, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } })).code).toBe(201);
    const create = request(b, 'POST', '/api/v1/namespaces/team-a/configmaps', cm('one', 'team-a'));
    const apply = request(b, 'PATCH', '/api/v1/namespaces/team-a/configmaps/two?fieldManager=test', cm('two', 'team-a'), { contentType: 'application/apply-patch+yaml' });
    expect(await settledWithin(Promise.all([create, apply]), 700)).toBe(false);
    lag.release();
    const [created, applied] = await Promise.all([create, apply]);
    expect(created.code, JSON.stringify(created.body)).toBe(201);
    expect(applied.code, JSON.stringify(applied.body)).toBe(201);
    // A namespace that exists nowhere is still a 404.
    const missing = await request(b, 'POST', '/api/v1/namespaces/nowhere/configmaps', cm('x', 'nowhere'));
    expect(missing.code).toBe(404);
    expect(missing.body.message).toBe('namespaces "nowhere" not found');
  });

  it('takes a server-side apply of an object created through the other for an update: no create permission asked', async () => {
    const lag = holdWatch(b);
    expect((await request(a, 'POST', '/api/v1/namespaces/default/configmaps', cm('applied', 'default'))).code).toBe(201);
    const apply = request(b, 'PATCH', '/api/v1/namespaces/default/configmaps/applied?fieldManager=patcher&force=true', { ...cm('applied', 'default'), data: { k: 'v2' } }, { contentType: 'application/apply-patch+yaml', token: patcher.token });
    expect(await settledWithin(apply, 700)).toBe(false);
    lag.release();
    const res = await apply;
    expect(res.code, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({ k: 'v2' });
    // An apply that does create still needs create.
    const create = await request(b, 'PATCH', '/api/v1/namespaces/default/configmaps/brand-new?fieldManager=patcher', cm('brand-new', 'default'), { contentType: 'application/apply-patch+yaml', token: patcher.token });
    expect(create.code).toBe(403);
    expect(create.body.message).toContain('cannot create resource "configmaps"');
  });

  it('deletes with a collection DELETE the objects created through the other just before', async () => {
    expect((await request(a, 'POST', '/api/v1/namespaces/default/configmaps', { ...cm('dc-old', 'default'), metadata: { name: 'dc-old', namespace: 'default', labels: { app: 'dc' } } })).code).toBe(201);
    const lag = holdWatch(b);
    expect((await request(a, 'POST', '/api/v1/namespaces/default/configmaps', { ...cm('dc-new', 'default'), metadata: { name: 'dc-new', namespace: 'default', labels: { app: 'dc' } } })).code).toBe(201);
    const del = request(b, 'DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=app%3Ddc');
    expect(await settledWithin(del, 700)).toBe(false);
    lag.release();
    const res = await del;
    expect(res.code).toBe(200);
    expect(res.body.items.map((o: { metadata: { name: string } }) => o.metadata.name).sort()).toEqual(['dc-new', 'dc-old']);
    expect((await request(a, 'GET', '/api/v1/namespaces/default/configmaps?labelSelector=app%3Ddc')).body.items).toEqual([]);
  });

  it('removes with ignoreStoreReadErrorWithClusterBreakingPotential a corrupt value it has not seen yet', async () => {
    const raw = new Etcd3({ hosts: etcd.endpoint });
    try {
      const lag = holdWatch(b);
      await raw.put('/hcc-lag/core/configmaps/default/broken').value('{broken');
      const del = request(b, 'DELETE', '/api/v1/namespaces/default/configmaps/broken', { kind: 'DeleteOptions', apiVersion: 'v1', ignoreStoreReadErrorWithClusterBreakingPotential: true });
      expect(await settledWithin(del, 700)).toBe(false);
      lag.release();
      const res = await del;
      expect(res.code, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ kind: 'Status', status: 'Success' });
      expect(await raw.get('/hcc-lag/core/configmaps/default/broken').string()).toBeNull();
    } finally {
      raw.close();
    }
  });
});
