/**
 * A JSON patch (RFC 6902) that does not apply is answered as kube-apiserver answers it: its
 * jsonPatcher turns any error of evanphx/json-patch's Apply into NewGenericServerResponse(422),
 * whose Status says only `the server rejected our request due to an error in our request`
 * (reason Invalid, empty details), and nothing is written.
 */
import { describe, expect, it } from 'vitest';
import { request, useTestControlCenter } from '../testing/in-process.js';

const CM = '/api/v1/namespaces/default/configmaps';

describe('JSON patch errors', () => {
  const cc = useTestControlCenter();

  it('a failed test, a missing path, an unknown op or a missing parent is 422 Invalid in kube-apiserver words, and writes nothing', async () => {
    const created = await request(cc(), 'POST', CM, { metadata: { name: 'jp' }, data: { a: '1' } });
    expect(created.code).toBe(201);
    const rv = created.body.metadata.resourceVersion as string;
    for (const ops of [
      [{ op: 'test', path: '/data/a', value: 'other' }],
      [{ op: 'remove', path: '/data/missing' }],
      // (A replace of a missing key sets it, as evanphx/json-patch v4 does: json-patch-v4.test.ts.)
      [{ op: 'replace', path: '/nope/missing', value: 'x' }],
      [{ op: 'add', path: '/nope/deeper', value: 'x' }],
      [{ op: 'frob', path: '/data/a' }],
      [{ op: 'add', path: '/data/b', value: '2' }, { op: 'test', path: '/data/a', value: '2' }],
    ]) {
      const r = await request(cc(), 'PATCH', `${CM}/jp`, ops, { contentType: 'application/json-patch+json' });
      expect(r.code, JSON.stringify(ops)).toBe(422);
      expect(r.body, JSON.stringify(ops)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server rejected our request due to an error in our request',
        reason: 'Invalid',
        details: {},
        code: 422,
      });
    }
    const after = await request(cc(), 'GET', `${CM}/jp`);
    expect([after.body.metadata.resourceVersion, after.body.data]).toEqual([rv, { a: '1' }]);
    // One that applies still does.
    const ok = await request(cc(), 'PATCH', `${CM}/jp`, [{ op: 'test', path: '/data/a', value: '1' }, { op: 'remove', path: '/data/a' }], { contentType: 'application/json-patch+json' });
    expect([ok.code, ok.body.data]).toEqual([200, undefined]);
  });
});
