/**
 * A watch of a custom resource ends when its CRD is gone, stops serving the watched version, or
 * changes its spec, as kube-apiserver's apiextensions handler destroys a CRD's storage (ending its
 * watches) then: the client lists again and meets the 404 or the new schema, instead of being fed
 * objects of a version no longer served. A CRD write that leaves the spec alone (its status, a
 * label, its deletion, which bumps its generation) keeps the watch: while a deleted CRD's objects
 * are cleaned up, its watchers see them deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from '../control-center.js';
import { request, startTestControlCenter } from '../testing/in-process.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GROUP = 'probe.example.com';

function crd(plural: string, versions: { name: string; served: boolean; storage: boolean }[]) {
  const kind = plural[0]!.toUpperCase() + plural.slice(1, -1);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      versions: versions.map((v) => ({ ...v, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } })),
    },
  };
}

describe('a watch of a custom resource whose CRD changes', () => {
  let cc: RunningControlCenter;
  beforeAll(async () => {
    cc = await startTestControlCenter({});
  });
  afterAll(async () => {
    await cc?.close();
  });

  const path = (plural: string, version: string) => `/apis/${GROUP}/${version}/namespaces/default/${plural}`;
  const until = async (what: string, fn: () => Promise<boolean>) => {
    for (let i = 0; i < 200; i++) {
      if (await fn()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  /** Opens a watch; `ended` resolves with the stream's text once the server ends it (60 s timeout). */
  const watch = async (url: string) => {
    const res = await fetch(`${cc.url}${url}?watch=1&timeoutSeconds=60`, { headers: { authorization: `Bearer ${cc.adminToken}` } });
    expect(res.status).toBe(200);
    let ended = false;
    const text = res.text().then((t) => {
      ended = true;
      return t;
    });
    return { text, ended: () => ended };
  };
  const object = (plural: string, version: string, name: string) => ({ apiVersion: `${GROUP}/${version}`, kind: plural[0]!.toUpperCase() + plural.slice(1, -1), metadata: { name }, spec: {} });
  const served = async (plural: string, version: string) => (await request(cc, 'GET', path(plural, version))).code === 200;

  it('sees its objects deleted while the CRD is being deleted, ends when the CRD is gone; a CRD created again in another version does not feed it', async () => {
    expect((await request(cc, 'POST', CRDS, crd('gadgets', [{ name: 'v1', served: true, storage: true }]))).code).toBe(201);
    await until('v1 served', () => served('gadgets', 'v1'));
    const w = await watch(path('gadgets', 'v1'));
    const held = { ...object('gadgets', 'v1', 'g1'), metadata: { name: 'g1', finalizers: [`${GROUP}/hold`] } };
    expect((await request(cc, 'POST', path('gadgets', 'v1'), held)).code).toBe(201);
    expect((await request(cc, 'DELETE', `${CRDS}/gadgets.${GROUP}`)).code).toBe(200);
    // The cleanup deletes g1, which its finalizer holds: the CRD stays Terminating, and so does the watch.
    await until('g1 being deleted', async () => !!((await request(cc, 'GET', `${path('gadgets', 'v1')}/g1`)).body as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp);
    await new Promise((r) => setTimeout(r, 300));
    expect(w.ended()).toBe(false);
    const unhold = [{ op: 'remove', path: '/metadata/finalizers' }];
    expect((await request(cc, 'PATCH', `${path('gadgets', 'v1')}/g1`, unhold, { contentType: 'application/json-patch+json' })).code).toBe(200);
    await until('the watch to end', async () => w.ended());
    await until('the CRD gone', async () => (await request(cc, 'GET', `${CRDS}/gadgets.${GROUP}`)).code === 404);
    expect((await request(cc, 'POST', CRDS, crd('gadgets', [{ name: 'v3', served: true, storage: true }]))).code).toBe(201);
    await until('v3 served', () => served('gadgets', 'v3'));
    expect((await request(cc, 'POST', path('gadgets', 'v3'), object('gadgets', 'v3', 'g6'))).code).toBe(201);
    const text = await w.text;
    const events = text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string; deletionTimestamp?: string } } });
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}${e.object.metadata.deletionTimestamp ? ' (deleting)' : ''}`)).toEqual(['ADDED g1', 'MODIFIED g1 (deleting)', 'DELETED g1 (deleting)']);
    expect(text).not.toContain('"g6"');
  });

  it('ends when the watched version stops being served, and not on a write that leaves the spec alone', async () => {
    const versions = [
      { name: 'v1', served: true, storage: true },
      { name: 'v2', served: true, storage: false },
    ];
    expect((await request(cc, 'POST', CRDS, crd('widgets', versions))).code).toBe(201);
    await until('v2 served', () => served('widgets', 'v2'));
    const w = await watch(path('widgets', 'v2'));
    // A label on the CRD (no spec change): the watch stays.
    expect((await request(cc, 'PATCH', `${CRDS}/widgets.${GROUP}`, { metadata: { labels: { team: 'a' } } }, { contentType: 'application/merge-patch+json' })).code).toBe(200);
    expect((await request(cc, 'POST', path('widgets', 'v1'), object('widgets', 'v1', 'w1'))).code).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    expect(w.ended()).toBe(false);
    // v2 no longer served: the watch ends, and a later object is not sent on it as v2.
    const patch = [{ op: 'replace', path: '/spec/versions/1/served', value: false }];
    expect((await request(cc, 'PATCH', `${CRDS}/widgets.${GROUP}`, patch, { contentType: 'application/json-patch+json' })).code).toBe(200);
    await until('the watch to end', async () => w.ended());
    expect((await request(cc, 'POST', path('widgets', 'v1'), object('widgets', 'v1', 'w2'))).code).toBe(201);
    const text = await w.text;
    expect(text).toContain('"w1"');
    expect(text).not.toContain('"w2"');
    expect(await served('widgets', 'v2')).toBe(false);
  });
});
