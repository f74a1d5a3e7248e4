/**
 * A CRD whose schema changes: objects stored before show the new schema's defaults and lose the
 * fields it dropped on every read (GET, LIST, WATCH), as kube-apiserver's storage decoder applies
 * the current schema to what it reads from etcd; their next write stores that, without counting a
 * default added meanwhile as a spec change (no generation bump); an exported object can be
 * replaced as it is; and it holds after a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startControlCenter, type RunningControlCenter } from '../control-center.js';
import { request } from '../testing/in-process.js';
import type { ReadTransformStore } from '../storage/read-transform.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/ex.hcc.dev/v1/namespaces/default/widgets';

const crd = (spec: Record<string, unknown>) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.ex.hcc.dev' },
  spec: {
    group: 'ex.hcc.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } } }],
  },
});
const v1 = crd({ size: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } });
// The next version of the schema: `color` defaults to red, `tags` is gone.
const v2 = crd({ size: { type: 'integer' }, color: { type: 'string', default: 'red' } });

describe('a CRD schema change and the objects stored before it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hcc-crd-change-'));
  let cc: RunningControlCenter | undefined;
  const start = async () => (cc = await startControlCenter({ tls: false, logger: pino({ enabled: false }), dataDir: dir }));
  afterAll(async () => {
    await cc?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const specOf = async (name: string) => (await request(cc!, 'GET', `${WIDGETS}/${name}`)).body.spec;
  const waitServed = async (want: (spec: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 100; i++) {
      if (want((await specOf('old')) ?? {})) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the new schema was not served');
  };

  it('reads show the new defaults and no dropped field; a label write keeps the generation; an export replaces as it is', async () => {
    await start();
    expect((await request(cc!, 'POST', CRDS, v1)).code).toBe(201);
    let created = { code: 0 };
    for (let i = 0; i < 100 && created.code !== 201; i++) {
      created = await request(cc!, 'POST', WIDGETS, { apiVersion: 'ex.hcc.dev/v1', kind: 'Widget', metadata: { name: 'old' }, spec: { size: 1, tags: ['a'] } });
      if (created.code !== 201) await new Promise((r) => setTimeout(r, 20));
    }
    expect(created.code).toBe(201);
    const before = (await request(cc!, 'GET', `${WIDGETS}/old`)).body;

    const current = (await request(cc!, 'GET', `${CRDS}/widgets.ex.hcc.dev`)).body;
    expect((await request(cc!, 'PUT', `${CRDS}/widgets.ex.hcc.dev`, { ...v2, metadata: current.metadata })).code).toBe(200);
    await waitServed((s) => s.color === 'red');

    // GET, LIST, a list-watch's initial events: the default, no tags; the resourceVersion did not move.
    const got = (await request(cc!, 'GET', `${WIDGETS}/old`)).body;
    expect(got.spec).toEqual({ size: 1, color: 'red' });
    expect(got.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect((await request(cc!, 'GET', WIDGETS)).body.items.map((i: { spec: unknown }) => i.spec)).toEqual([{ size: 1, color: 'red' }]);
    const res = await fetch(`${cc!.url}${WIDGETS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`, { headers: { authorization: `Bearer ${cc!.adminToken}` } });
    const events = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { spec?: unknown } });
    expect(events.filter((e) => e.type === 'ADDED').map((e) => e.object.spec)).toEqual([{ size: 1, color: 'red' }]);

    // A label change is no spec change: generation stays; the stored object now has the default.
    const labelled = await request(cc!, 'PATCH', `${WIDGETS}/old`, { metadata: { labels: { z: '1' } } }, { contentType: 'application/merge-patch+json' });
    expect(labelled.code).toBe(200);
    expect(labelled.body.metadata.generation).toBe(1);
    expect(labelled.body.spec).toEqual({ size: 1, color: 'red' });

    // An object created through the API now was prepared with this schema: handed out as stored.
    expect((await request(cc!, 'POST', WIDGETS, { apiVersion: 'ex.hcc.dev/v1', kind: 'Widget', metadata: { name: 'new' }, spec: { size: 3 } })).body.spec).toEqual({ size: 3, color: 'red' });
    const store = cc!.store as ReadTransformStore;
    expect(store.get('/ex.hcc.dev/widgets/default/new')!.object).toBe(store.inner.get('/ex.hcc.dev/widgets/default/new')!.object);

    // What `kubectl get -o yaml > f; kubectl replace -f f` sends, with fieldValidation=Strict.
    const exported = (await request(cc!, 'GET', `${WIDGETS}/old`)).body;
    const replaced = await request(cc!, 'PUT', `${WIDGETS}/old?fieldValidation=Strict`, exported);
    expect(replaced.code, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.metadata.generation).toBe(1);
  });

  it('objects stored in a version no longer served read with that version\'s schema (kube decodes in the storage version)', async () => {
    const gadgets = (v1Spec: Record<string, unknown>, v1Served: boolean) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.ex.hcc.dev' },
      spec: {
        group: 'ex.hcc.dev',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          { name: 'v1', served: v1Served, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: v1Spec } } } } },
          { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, d: { type: 'string' } } } } } } },
        ],
      },
    });
    expect((await request(cc!, 'POST', CRDS, gadgets({ size: { type: 'integer' } }, true))).code).toBe(201);
    let created = { code: 0 };
    for (let i = 0; i < 100 && created.code !== 201; i++) {
      created = await request(cc!, 'POST', '/apis/ex.hcc.dev/v1/namespaces/default/gadgets', { apiVersion: 'ex.hcc.dev/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 1 } });
      if (created.code !== 201) await new Promise((r) => setTimeout(r, 20));
    }
    expect(created.code).toBe(201);
    const current = (await request(cc!, 'GET', `${CRDS}/gadgets.ex.hcc.dev`)).body;
    const next = gadgets({ size: { type: 'integer' }, d: { type: 'string', default: 'dd' } }, false);
    expect((await request(cc!, 'PUT', `${CRDS}/gadgets.ex.hcc.dev`, { ...next, metadata: current.metadata })).code).toBe(200);
    let spec: unknown;
    for (let i = 0; i < 100; i++) {
      spec = (await request(cc!, 'GET', '/apis/ex.hcc.dev/v2/namespaces/default/gadgets/g1')).body.spec;
      if ((spec as { d?: string } | undefined)?.d === 'dd') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(spec).toEqual({ size: 1, d: 'dd' });
  });

  it('a stored object written under the old schema still reads with the new one after a restart', async () => {
    // Another object, written with the old schema's fields by putting the old CRD back, then the new.
    const put = async (body: ReturnType<typeof crd>) => {
      const current = (await request(cc!, 'GET', `${CRDS}/widgets.ex.hcc.dev`)).body;
      expect((await request(cc!, 'PUT', `${CRDS}/widgets.ex.hcc.dev`, { ...body, metadata: current.metadata })).code).toBe(200);
    };
    await put(v1);
    await waitServed((s) => s.color === undefined);
    expect((await request(cc!, 'POST', WIDGETS, { apiVersion: 'ex.hcc.dev/v1', kind: 'Widget', metadata: { name: 'older' }, spec: { size: 2, tags: ['b'] } })).code).toBe(201);
    await put(v2);
    await waitServed((s) => s.color === 'red');
    await cc!.close();
    cc = undefined;
    await start();
    expect((await request(cc!, 'GET', `${WIDGETS}/older`)).body.spec).toEqual({ size: 2, color: 'red' });
    // Its DELETED event shows it as reads did.
    const res = await fetch(`${cc!.url}${WIDGETS}?watch=true&fieldSelector=metadata.name%3Dolder&timeoutSeconds=2`, { headers: { authorization: `Bearer ${cc!.adminToken}` } });
    const text = res.text();
    await new Promise((r) => setTimeout(r, 300));
    expect((await request(cc!, 'DELETE', `${WIDGETS}/older`)).code).toBe(200);
    const events = (await text).trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { spec?: unknown } });
    expect(events.map((e) => [e.type, e.object.spec])).toEqual([
      ['ADDED', { size: 2, color: 'red' }],
      ['DELETED', { size: 2, color: 'red' }],
    ]);
  });
});
