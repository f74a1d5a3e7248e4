/**
 * A write that deletes an object answers with it at the delete's revision, the resourceVersion of
 * its DELETED watch event, as kube-apiserver does (its etcd3 store decodes the deleted object with
 * the delete's header revision): a client that watches from the answer's resourceVersion does not
 * see its own delete again.
 */
import { describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import { hostedClusterBody } from '../testing/fixtures.js';
import { request, useTestControlCenter } from '../testing/in-process.js';

// A custom resource: its DELETE answers the object (kube's ReturnDeletedObject); a ConfigMap's a Status.
const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters';
type Obj = { metadata: { name: string; resourceVersion: string; deletionTimestamp?: string } };

describe('the answer of a write that deletes', () => {
  const cc = useTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });

  it('carries the revision of the DELETED event: a DELETE, and a PATCH removing the last finalizer', async () => {
    const a = await request<Obj>(cc(), 'POST', HCS, hostedClusterBody('a'));
    expect(a.code).toBe(201);
    const from = a.body.metadata.resourceVersion;
    const b = await request<Obj>(cc(), 'POST', HCS, hostedClusterBody('b', 'clusters', {}, { finalizers: ['example.com/hold'] }));
    expect(b.code).toBe(201);

    const deleted = await request<Obj>(cc(), 'DELETE', `${HCS}/a`);
    expect(deleted.code).toBe(200);
    const terminating = await request<Obj>(cc(), 'DELETE', `${HCS}/b`);
    expect(terminating.body.metadata.deletionTimestamp).toBeDefined();
    const released = await request<Obj>(cc(), 'PATCH', `${HCS}/b`, { metadata: { finalizers: null } }, { contentType: 'application/merge-patch+json' });
    expect(released.code).toBe(200);
    expect((await request(cc(), 'GET', `${HCS}/b`)).code).toBe(404);

    const watch = await request<string>(cc(), 'GET', `${HCS}?watch=1&timeoutSeconds=1&resourceVersion=${from}`);
    const events = String(watch.body)
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { type: string; object: Obj });
    const deletedAt = (name: string) => events.find((e) => e.type === 'DELETED' && e.object.metadata.name === name)?.object.metadata.resourceVersion;
    expect(deletedAt('a')).toBeDefined();
    expect(deleted.body.metadata.resourceVersion).toBe(deletedAt('a'));
    expect(deletedAt('b')).toBeDefined();
    expect(released.body.metadata.resourceVersion).toBe(deletedAt('b'));
  });
});
