/**
 * A custom resource written with a finalizer that has no `/` path gets kube's warning (Argo CD
 * users see it for `resources-finalizer.argocd.argoproj.io`), once, when the finalizer is added.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from '../control-center.js';
import { widgetCRD, WidgetsPath } from '../testing/fixtures.js';
import { startTestControlCenter } from '../testing/in-process.js';
import { finalizerWarnings } from './custom-resources.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = WidgetsPath;
const crd = widgetCRD({ status: true });
/** A warning as the `Warning` header carries it (RFC 7234: quotes escaped). */
const header = (text: string) => `299 - "${text.replace(/["\\]/g, '\\$&')}"`;
const warn = (f: string) => `metadata.finalizers: "${f}": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`;

describe('finalizerWarnings', () => {
  it('warns for added finalizers without a path, sorted, but not the garbage collector’s', () => {
    const obj = { metadata: { finalizers: ['zeta.example.com', 'orphan', 'foregroundDeletion', 'example.com/ok', 'alpha', 'alpha'] } };
    expect(finalizerWarnings(obj)).toEqual([warn('alpha'), warn('zeta.example.com')]);
    expect(finalizerWarnings(obj, { metadata: { finalizers: ['alpha'] } })).toEqual([warn('zeta.example.com')]);
    expect(finalizerWarnings({ metadata: {} })).toEqual([]);
  });
});

describe('finalizer warnings on the wire', () => {
  let cc: RunningControlCenter;
  const call = async (method: string, url: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(cc.url + url, { method, headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': contentType }, ...(body ? { body: JSON.stringify(body) } : {}) });
    const json = (await res.json()) as { metadata?: { resourceVersion?: string } };
    return { code: res.status, warning: res.headers.get('warning') ?? '', body: json };
  };

  beforeAll(async () => {
    cc = await startTestControlCenter();
    expect((await call('POST', CRDS, crd)).code).toBe(201);
    for (let i = 0; i < 100 && (await call('GET', WIDGETS)).code !== 200; i++) await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('warns on a create, on an update only for what it adds, never on a status update or a built-in', async () => {
    const created = await call('POST', WIDGETS, { apiVersion: 'example.hcc.dev/v1', kind: 'Widget', metadata: { name: 'w', finalizers: ['cleanup', 'example.com/hold'] }, spec: { size: 1 } });
    expect(created.code).toBe(201);
    expect(created.warning).toBe(header(warn('cleanup')));

    const relabelled = await call('PATCH', `${WIDGETS}/w`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    expect(relabelled.code).toBe(200);
    expect(relabelled.warning).toBe('');

    const added = await call('PATCH', `${WIDGETS}/w`, { metadata: { finalizers: ['cleanup', 'example.com/hold', 'more'] } }, 'application/merge-patch+json');
    expect(added.code).toBe(200);
    expect(added.warning).toBe(header(warn('more')));

    const status = await call('PATCH', `${WIDGETS}/w/status`, { status: { ok: true } }, 'application/merge-patch+json');
    expect(status.code).toBe(200);
    expect(status.warning).toBe('');

    // A refused write says only why it is refused.
    const invalid = await call('POST', WIDGETS, { apiVersion: 'example.hcc.dev/v1', kind: 'Widget', metadata: { name: 'bad', finalizers: ['cleanup'] }, spec: { size: 'big' } });
    expect(invalid.code).toBe(422);
    expect(invalid.warning).toBe('');

    // A server-side apply that creates warns as a create does.
    const applyBody = 'apiVersion: example.hcc.dev/v1\nkind: Widget\nmetadata: {name: applied, finalizers: [cleanup]}\nspec: {size: 1}\n';
    const res = await fetch(`${cc.url}${WIDGETS}/applied?fieldManager=m`, { method: 'PATCH', headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/apply-patch+yaml' }, body: applyBody });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBe(header(warn('cleanup')));

    const cm = await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', finalizers: ['cleanup'] } });
    expect(cm.code).toBe(201);
    expect(cm.warning).toBe('');
  });
});
