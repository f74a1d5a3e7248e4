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

/** A namespaced CRD of group ex.hcc.dev whose versions each declare the properties of `spec`. */
const crdOf = (plural: string, kind: string, versions: { name: string; served: boolean; storage: boolean; spec: Record<string, unknown> }[]) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.ex.hcc.dev` },
  spec: {
    group: 'ex.hcc.dev',
    scope: 'Namespaced',
    names: { plural, singular: kind.toLowerCase(), kind },
    versions: versions.map(({ spec, ...v }) => ({ ...v, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } } })),
  },
});
const crd = (spec: Record<string, unknown>) => crdOf('widgets', 'Widget', [{ name: 'v1', served: true, storage: true, spec }]);
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
  /** What `read` gives once `ok` takes it (polled every 20 ms, 100 times at most). */
  const eventually = async <T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> => {
    for (let i = 0; i < 100; i++) {
      const v = await read();
      if (ok(v)) return v;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`never: ${what}`);
  };
  const waitServed = (want: (spec: Record<string, unknown>) => boolean) =>
    eventually(async () => ((await request(cc!, 'GET', `${WIDGETS}/old`)).body.spec ?? {}) as Record<string, unknown>, want, 'the new schema served');
  /** Creates an object once its CRD serves the resource (the registry follows the CRD's write). */
  const createWhenServed = (url: string, body: unknown) => eventually(() => request(cc!, 'POST', url, body), (r) => r.code === 201, `${url} served`);
  /** Replaces a CRD with `body` (its metadata read back first). */
  const replaceCRD = async (body: { metadata: { name: string } }) => {
    const current = (await request(cc!, 'GET', `${CRDS}/${body.metadata.name}`)).body;
    expect((await request(cc!, 'PUT', `${CRDS}/${body.metadata.name}`, { ...body, metadata: current.metadata })).code).toBe(200);
  };

  it('reads show the new defaults and no dropped field; a label write keeps the generation; an export replaces as it is', async () => {
    await start();
    expect((await request(cc!, 'POST', CRDS, v1)).code).toBe(201);
    await createWhenServed(WIDGETS, { apiVersion: 'ex.hcc.dev/v1', kind: 'Widget', metadata: { name: 'old' }, spec: { size: 1, tags: ['a'] } });
    const before = (await request(cc!, 'GET', `${WIDGETS}/old`)).body;

    await replaceCRD(v2);
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
    const gadgets = (v1Spec: Record<string, unknown>, v1Served: boolean) =>
      crdOf('gadgets', 'Gadget', [
        { name: 'v1', served: v1Served, storage: true, spec: v1Spec },
        { name: 'v2', served: true, storage: false, spec: { size: { type: 'integer' }, d: { type: 'string' } } },
      ]);
    expect((await request(cc!, 'POST', CRDS, gadgets({ size: { type: 'integer' } }, true))).code).toBe(201);
    await createWhenServed('/apis/ex.hcc.dev/v1/namespaces/default/gadgets', { apiVersion: 'ex.hcc.dev/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 1 } });
    await replaceCRD(gadgets({ size: { type: 'integer' }, d: { type: 'string', default: 'dd' } }, false));
    const read = async () => (await request(cc!, 'GET', '/apis/ex.hcc.dev/v2/namespaces/default/gadgets/g1')).body.spec as { d?: string } | undefined;
    expect(await eventually(read, (spec) => spec?.d === 'dd', "v1's default read at v2")).toEqual({ size: 1, d: 'dd' });
  });

  it('read through a version without a field, an object does not show it; the version that has it still does', async () => {
    // As kube-apiserver's converter prunes with the target version's schema (conversion None).
    const gizmos = crdOf('gizmos', 'Gizmo', [
      { name: 'v1', served: true, storage: true, spec: { size: { type: 'integer' }, secret: { type: 'string' } } },
      { name: 'v2', served: true, storage: false, spec: { size: { type: 'integer' } } },
    ]);
    expect((await request(cc!, 'POST', CRDS, gizmos)).code).toBe(201);
    const V1 = '/apis/ex.hcc.dev/v1/namespaces/default/gizmos';
    const V2 = '/apis/ex.hcc.dev/v2/namespaces/default/gizmos';
    await createWhenServed(V1, { apiVersion: 'ex.hcc.dev/v1', kind: 'Gizmo', metadata: { name: 'z1' }, spec: { size: 1, secret: 's' } });
    await eventually(() => request(cc!, 'GET', `${V2}/z1`), (r) => r.code === 200, 'v2 served');
    const got = (await request(cc!, 'GET', `${V2}/z1`)).body;
    expect([got.apiVersion, got.spec]).toEqual(['ex.hcc.dev/v2', { size: 1 }]);
    expect((await request(cc!, 'GET', V2)).body.items.map((i: { spec: unknown }) => i.spec)).toEqual([{ size: 1 }]);
    const res = await fetch(`${cc!.url}${V2}?watch=true&resourceVersion=0&timeoutSeconds=1`, { headers: { authorization: `Bearer ${cc!.adminToken}` } });
    const events = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { spec?: unknown } });
    expect(events.map((e) => [e.type, e.object.spec])).toEqual([['ADDED', { size: 1 }]]);
    // Stored as written: the version that declares the field shows it.
    expect((await request(cc!, 'GET', `${V1}/z1`)).body.spec).toEqual({ size: 1, secret: 's' });
    // A write through v2 stores what v2 shows, as upstream: the field is gone.
    expect((await request(cc!, 'PATCH', `${V2}/z1`, { metadata: { labels: { a: 'b' } } }, { contentType: 'application/merge-patch+json' })).code).toBe(200);
    expect((await request(cc!, 'GET', `${V1}/z1`)).body.spec).toEqual({ size: 1 });
  });

  it('a stored object written under the old schema still reads with the new one after a restart', async () => {
    // Another object, written with the old schema's fields by putting the old CRD back, then the new.
    await replaceCRD(v1);
    await waitServed((s) => s.color === undefined);
    expect((await request(cc!, 'POST', WIDGETS, { apiVersion: 'ex.hcc.dev/v1', kind: 'Widget', metadata: { name: 'older' }, spec: { size: 2, tags: ['b'] } })).code).toBe(201);
    await replaceCRD(v2);
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
