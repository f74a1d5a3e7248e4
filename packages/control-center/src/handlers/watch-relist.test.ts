/**
 * When etcd compacts past a replica's broken watch, the replica lists etcd again and its copy
 * jumps from one state to the next. What changed in between is not history: several changes
 * share the list's revision, and a client resuming from one of them would skip the rest. So an
 * API watch open on that replica ends with `410 Expired` (the client lists again), as
 * kube-apiserver's cacher ends every watcher when its reflector re-lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3 } from 'etcd3';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startProxy, startTestEtcd, type TestEtcd } from '../storage/etcd/testing-etcd.js';
import { request, startTestControlCenter } from '../testing/in-process.js';

const CMS = '/api/v1/namespaces/default/configmaps';

describe('an API watch on a replica that re-listed etcd', () => {
  let etcd: TestEtcd;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let raw: Etcd3;
  let a: RunningControlCenter; // behind the proxy: cut off, then back after a compaction
  let b: RunningControlCenter;
  const prefix = '/hcc-relist';

  beforeAll(async () => {
    etcd = await startTestEtcd();
    raw = new Etcd3({ hosts: etcd.endpoint });
    proxy = await startProxy(etcd.endpoint);
    b = await startTestControlCenter({ crds: allCRDs, etcd: { endpoints: [etcd.endpoint], prefix } });
    a = await startTestControlCenter({ crds: allCRDs, etcd: { endpoints: [proxy.endpoint], prefix } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await proxy?.close();
    raw?.close();
    await etcd?.stop();
  });

  const cm = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } });

  it('ends with 410 Expired instead of made-up events, and a new list shows the current state', async () => {
    expect((await request(b, 'POST', CMS, cm('k1', 'first'))).code).toBe(201);
    let rv = '';
    for (let i = 0; i < 200; i++) {
      const got = await request(a, 'GET', `${CMS}/k1`);
      if (got.code === 200) {
        rv = got.body.metadata.resourceVersion;
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(rv).not.toBe('');

    const res = await fetch(`${a.url}${CMS}?watch=1&resourceVersion=${rv}&timeoutSeconds=60`, { headers: { authorization: `Bearer ${a.adminToken}` } });
    expect(res.status).toBe(200);
    const text = res.text(); // resolves when the stream ends

    proxy.cut();
    expect((await request(b, 'DELETE', `${CMS}/k1`)).code).toBe(200);
    expect((await request(b, 'POST', CMS, cm('k1', 'second'))).code).toBe(201);
    expect((await request(b, 'POST', CMS, cm('k2', 'new'))).code).toBe(201);
    const { header } = await raw.kv.range({ key: Buffer.from(prefix) });
    await raw.kv.compact({ revision: header.revision, physical: true });
    proxy.heal();

    const lines = (await text).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: Record<string, any> });
    expect(lines.map((l) => l.type)).toEqual(['ERROR']);
    expect(lines[0]!.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(lines[0]!.object.message).toContain('too old resource version');

    // The client lists again: the state after the compaction, at one resourceVersion.
    const list = await request(a, 'GET', CMS);
    expect(list.code).toBe(200);
    expect(list.body.items.map((i: { metadata: { name: string }; data: { v: string } }) => `${i.metadata.name}=${i.data.v}`)).toEqual(['k1=second', 'k2=new']);
    // Resuming from before the re-list is refused too.
    const again = await fetch(`${a.url}${CMS}?watch=1&resourceVersion=${rv}&timeoutSeconds=5`, { headers: { authorization: `Bearer ${a.adminToken}` } });
    expect(JSON.parse((await again.text()).split('\n')[0]!)).toMatchObject({ type: 'ERROR', object: { code: 410 } });
  });
});
