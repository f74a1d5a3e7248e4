/**
 * A custom resource's `metadata` is ObjectMeta, as apiextensions-apiserver decodes it: fields
 * ObjectMeta does not have are dropped and reported per fieldValidation (with the schema's unknown
 * fields, in one message), and a value of the wrong type is a 400, so no client ever reads back
 * an object its typed client cannot decode.
 */
import { describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import { request, useTestControlCenter } from '../testing/in-process.js';
import { hostedClusterBody } from '../testing/fixtures.js';

const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters';

describe('custom resource metadata', () => {
  const cc = useTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });
  const hc = (name: string, metadata: Record<string, unknown>, spec: Record<string, unknown> = {}) => {
    const body = hostedClusterBody(name, 'clusters', spec);
    return { ...body, metadata: { ...body.metadata, ...metadata } };
  };
  const get = async (name: string) => (await request(cc(), 'GET', `${HCS}/${name}`)).body as { metadata: Record<string, unknown> };

  it('Strict: refuses unknown metadata fields, named after the schema’s own unknown fields; nothing is stored', async () => {
    const r = await request(cc(), 'POST', `${HCS}?fieldValidation=Strict`, hc('strict', { foo: 1, bogus: { a: 1 } }, { bogusSpec: true }));
    expect(r.code).toBe(400);
    expect(r.body.message).toBe(
      'HostedCluster in version "v1beta1" cannot be handled as a HostedCluster: strict decoding error: unknown field "spec.bogusSpec", unknown field "metadata.bogus", unknown field "metadata.foo"',
    );
    expect((await request(cc(), 'GET', `${HCS}/strict`)).code).toBe(404);
  });

  it('Warn (the default): drops unknown metadata fields with a warning each, from managedFields too', async () => {
    const res = await fetch(`${cc().url}${HCS}?fieldManager=test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cc().adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(hc('warn', { foo: 1 })),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toContain('unknown field \\"metadata.foo\\"');
    const stored = await get('warn');
    expect(stored.metadata.foo).toBeUndefined();
    expect(JSON.stringify(stored.metadata.managedFields)).not.toContain('f:foo');
    // A merge patch adding one is pruned the same way.
    const p = await request(cc(), 'PATCH', `${HCS}/warn`, { metadata: { bar: { x: [1, 2] } } }, { contentType: 'application/merge-patch+json' });
    expect(p.code).toBe(200);
    expect((await get('warn')).metadata.bar).toBeUndefined();
  });

  it('refuses a metadata field of the wrong type with 400, naming it', async () => {
    for (const [metadata, field] of [
      [{ generateName: 7 }, 'HostedCluster.metadata.generateName'],
      [{ labels: { a: 1 } }, 'HostedCluster.metadata.labels'],
      [{ finalizers: 'x' }, 'HostedCluster.metadata.finalizers'],
    ] as const) {
      const r = await request(cc(), 'POST', HCS, hc('typed', metadata));
      expect(r.code, JSON.stringify(metadata)).toBe(400);
      expect(r.body.message).toContain(field);
    }
    expect((await request(cc(), 'GET', `${HCS}/typed`)).code).toBe(404);
  });

  it('server-side apply: an unknown metadata field is reported and never owned', async () => {
    const r = await request(cc(), 'PATCH', `${HCS}/applied?fieldManager=me&fieldValidation=Strict`, JSON.stringify(hc('applied', { foo: 'x' })), { contentType: 'application/apply-patch+yaml' });
    expect(r.code).toBe(400);
    expect(r.body.message).toContain('unknown field "metadata.foo"');
    const ok = await request(cc(), 'PATCH', `${HCS}/applied?fieldManager=me&fieldValidation=Ignore`, JSON.stringify(hc('applied', { foo: 'x' })), { contentType: 'application/apply-patch+yaml' });
    expect(ok.code, JSON.stringify(ok.body)).toBe(201);
    const stored = await get('applied');
    expect(stored.metadata.foo).toBeUndefined();
    expect(JSON.stringify(stored.metadata.managedFields)).not.toContain('f:foo');
  });
});
