/**
 * Namespace `spec.finalizers` and `PUT /api/v1/namespaces/{name}/finalize`, as kube-apiserver
 * serves them: finalizers given at create stay (plus `kubernetes`); the namespace controller
 * removes only `kubernetes`; a Terminating Namespace goes once both its spec finalizers and
 * metadata finalizers are empty, never on an unrelated update while it still has content.
 */
import { describe, expect, it } from 'vitest';
import { request, useTestControlCenter } from '../../testing/in-process.js';

const NS = '/api/v1/namespaces';
const until = async (what: string, f: () => Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('Namespace finalizers and /finalize', () => {
  const cc = useTestControlCenter();
  const get = (name: string) => request(cc(), 'GET', `${NS}/${name}`);

  it('is listed in discovery as namespaces/finalize, update only', async () => {
    const r = await request(cc(), 'GET', '/api/v1');
    expect(r.body.resources).toContainEqual(expect.objectContaining({ name: 'namespaces/finalize', verbs: ['update'] }));
  });

  it('keeps finalizers given at create and adds kubernetes; refuses a bare name that is not a standard one', async () => {
    const ok = await request(cc(), 'POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fin-a' }, spec: { finalizers: ['example.com/hold'] } });
    expect(ok.code).toBe(201);
    expect(ok.body.spec.finalizers).toEqual(['example.com/hold', 'kubernetes']);
    const bad = await request(cc(), 'POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fin-bad' }, spec: { finalizers: ['hold'] } });
    expect(bad.code).toBe(422);
    expect(bad.body.message).toContain('spec.finalizers[0]: Invalid value: "hold": name is neither a standard finalizer name nor is it fully qualified');
  });

  it("the create's manager owns what its request carried, not the kubernetes finalizer the server adds (as kube-apiserver's field manager runs first)", async () => {
    const fieldsOf = async (body: Record<string, unknown>) => {
      const r = await request(cc(), 'POST', `${NS}?fieldManager=kubectl-create`, { apiVersion: 'v1', kind: 'Namespace', ...body });
      expect(r.code).toBe(201);
      expect(r.body.metadata.managedFields).toHaveLength(1);
      return r.body.metadata.managedFields[0].fieldsV1;
    };
    const labelOnly = { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } };
    // What `kubectl create namespace` sends: an empty spec and status.
    expect(await fieldsOf({ metadata: { name: 'mf-a' }, spec: {}, status: {} })).toEqual(labelOnly);
    expect(await fieldsOf({ metadata: { name: 'mf-b' } })).toEqual(labelOnly);
    // Finalizers the request lists are its own (the list, with `kubernetes` appended to it).
    expect(await fieldsOf({ metadata: { name: 'mf-c' }, spec: { finalizers: ['example.com/hold'] } })).toEqual({ ...labelOnly, 'f:spec': { 'f:finalizers': {} } });
    expect((await get('mf-a')).body.spec).toEqual({ finalizers: ['kubernetes'] });
    for (const n of ['mf-a', 'mf-b']) expect((await request(cc(), 'DELETE', `${NS}/${n}`)).code).toBe(200);
  });

  it('a deleted Namespace waits for its own finalizer; PUT /finalize without it removes the Namespace', async () => {
    expect((await request(cc(), 'DELETE', `${NS}/fin-a`)).code).toBe(200);
    // The namespace controller takes `kubernetes` off (the namespace is empty), not the other one.
    await until('kubernetes finalizer removed', async () => JSON.stringify((await get('fin-a')).body.spec?.finalizers) === '["example.com/hold"]');
    const ns = (await get('fin-a')).body;
    expect(ns.status.phase).toBe('Terminating');
    // Deleting it again while spec.finalizers remain: kube-apiserver's 409 (`kubectl delete ns` twice).
    const again = await request(cc(), 'DELETE', `${NS}/fin-a`);
    expect(again.code).toBe(409);
    expect(again.body).toMatchObject({
      kind: 'Status',
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on namespaces "fin-a": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
      details: { name: 'fin-a', kind: 'namespaces' },
    });
    expect((await get('fin-a')).body.metadata.resourceVersion).toBe(ns.metadata.resourceVersion);
    // PATCH is not served on /finalize; a bad name is refused.
    expect((await request(cc(), 'PATCH', `${NS}/fin-a/finalize`, { spec: { finalizers: [] } }, { contentType: 'application/merge-patch+json' })).code).toBe(405);
    const invalid = await request(cc(), 'PUT', `${NS}/fin-a/finalize`, { ...ns, spec: { finalizers: ['Bad Name'] } });
    expect(invalid.code).toBe(422);
    // A stale resourceVersion conflicts.
    expect((await request(cc(), 'PUT', `${NS}/fin-a/finalize`, { ...ns, metadata: { ...ns.metadata, resourceVersion: '1' }, spec: { finalizers: [] } })).code).toBe(409);
    const done = await request(cc(), 'PUT', `${NS}/fin-a/finalize`, { ...ns, spec: { finalizers: [] } });
    expect(done.code).toBe(200);
    expect((await get('fin-a')).code).toBe(404);
  });

  it('/finalize changes spec.finalizers only: labels and status in the body are ignored', async () => {
    expect((await request(cc(), 'POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fin-b' } })).code).toBe(201);
    const ns = (await get('fin-b')).body;
    const r = await request(cc(), 'PUT', `${NS}/fin-b/finalize`, { ...ns, metadata: { ...ns.metadata, labels: { x: 'y' } }, spec: { finalizers: ['kubernetes', 'example.com/b'] }, status: { phase: 'Terminating' } });
    expect(r.code).toBe(200);
    expect(r.body.spec.finalizers).toEqual(['kubernetes', 'example.com/b']);
    expect(r.body.metadata.labels).not.toHaveProperty('x');
    expect(r.body.status.phase).toBe('Active');
    // An empty list is left out, as kube-apiserver serves it (omitempty).
    const cleared = await request(cc(), 'PUT', `${NS}/fin-b/finalize`, { ...r.body, spec: {} });
    expect(cleared.code).toBe(200);
    expect(cleared.body.spec).toEqual({});
  });

  it('relabelling a Terminating Namespace that still has content does not delete it', async () => {
    expect((await request(cc(), 'POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fin-c' } })).code).toBe(201);
    const cm = await request(cc(), 'POST', `${NS}/fin-c/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    expect(cm.code).toBe(201);
    expect((await request(cc(), 'DELETE', `${NS}/fin-c`)).code).toBe(200);
    await until('the ConfigMap marked for deletion', async () => !!(await request(cc(), 'GET', `${NS}/fin-c/configmaps/held`)).body.metadata?.deletionTimestamp);
    const label = await request(cc(), 'PATCH', `${NS}/fin-c`, { metadata: { labels: { touched: 'yes' } } }, { contentType: 'application/merge-patch+json' });
    expect(label.code).toBe(200);
    const after = await get('fin-c');
    expect(after.code).toBe(200);
    expect(after.body.status.phase).toBe('Terminating');
    expect(after.body.spec.finalizers).toEqual(['kubernetes']);
    // Once the content is gone, the namespace goes.
    const held = (await request(cc(), 'GET', `${NS}/fin-c/configmaps/held`)).body;
    expect((await request(cc(), 'PUT', `${NS}/fin-c/configmaps/held`, { ...held, metadata: { ...held.metadata, finalizers: [] } })).code).toBe(200);
    await until('the namespace removed', async () => (await get('fin-c')).code === 404);
  });

  it("a Terminating Namespace's status says what it waits for, as the namespace controller's conditions do", async () => {
    expect((await request(cc(), 'POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fin-c' } })).code).toBe(201);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } };
    expect((await request(cc(), 'POST', `${NS}/fin-c/configmaps`, cm)).code).toBe(201);
    expect((await request(cc(), 'DELETE', `${NS}/fin-c`)).code).toBe(200);
    type Cond = { type: string; status: string; reason: string; message: string; lastTransitionTime: string };
    const conds = async () => ((await get('fin-c')).body.status?.conditions ?? []) as Cond[];
    await until('conditions', async () => (await conds()).some((c) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True'));
    const byType = Object.fromEntries((await conds()).map((c) => [c.type, c]));
    expect(byType.NamespaceContentRemaining).toMatchObject({ status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances' });
    expect(byType.NamespaceFinalizersRemaining).toMatchObject({ status: 'True', reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances' });
    expect(byType.NamespaceDeletionContentFailure).toMatchObject({ status: 'False', reason: 'ContentDeleted' });
    // All five of upstream's, in its order (discovery and group-version parsing done at once here).
    expect((await conds()).map((c) => c.type)).toEqual(['NamespaceDeletionDiscoveryFailure', 'NamespaceDeletionGroupVersionParsingFailure', 'NamespaceDeletionContentFailure', 'NamespaceContentRemaining', 'NamespaceFinalizersRemaining']);
    expect(byType.NamespaceDeletionDiscoveryFailure).toMatchObject({ status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' });
    expect(byType.NamespaceDeletionGroupVersionParsingFailure).toMatchObject({ status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' });
    expect(byType.NamespaceContentRemaining!.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Passes that find the same state write nothing.
    const rv = (await get('fin-c')).body.metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, 2500));
    expect((await get('fin-c')).body.metadata.resourceVersion).toBe(rv);
    // Once the finalizer goes, so do the ConfigMap and the Namespace.
    const held = (await request(cc(), 'GET', `${NS}/fin-c/configmaps/held`)).body;
    expect((await request(cc(), 'PUT', `${NS}/fin-c/configmaps/held`, { ...held, metadata: { ...held.metadata, finalizers: [] } })).code).toBe(200);
    await until('namespace gone', async () => (await get('fin-c')).code === 404);
  });
});
