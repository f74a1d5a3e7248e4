/**
 * Bad requests over plain HTTPS (what no client library sends on purpose): malformed bodies,
 * wrong content types, oversized bodies, invalid names, mismatched namespaces and kinds. Each
 * gets the Status kube-apiserver answers (code, reason and, where kubectl users see it, the
 * message) and writes nothing: the store's revision is the same after all of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:https';
import { loadKubeconfig, type ClusterConnection } from '@hcc/client';
import { startControlCenterProcess, type ControlCenterProcess } from '../helpers/processes.js';
import { hostedCluster } from './fixtures.js';

interface Reply {
  code: number;
  body: { kind?: string; code?: number; reason?: string; message?: string; details?: { causes?: { field?: string }[] }; metadata?: { resourceVersion?: string }; items?: unknown[] };
}

const rfc1123 = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;

describe('bad requests get Kubernetes Status errors and change nothing', () => {
  let cc: ControlCenterProcess;
  let conn: ClusterConnection;
  const send = (method: string, path: string, body?: string | Buffer, contentType = 'application/json') =>
    new Promise<Reply>((resolve, reject) => {
      const url = new URL(path, conn.server);
      const req = request(url, { method, ca: conn.ca, headers: { authorization: `Bearer ${conn.token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': contentType } : {}) } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: JSON.parse(text) as Reply['body'] }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const revision = async () => (await send('GET', '/api/v1/namespaces/default/configmaps')).body.metadata!.resourceVersion;
  const cms = '/api/v1/namespaces/default/configmaps';
  const cm = (name: string, extra: Record<string, unknown> = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { a: '1' } });
  let before: string | undefined;

  beforeAll(async () => {
    cc = await startControlCenterProcess();
    conn = loadKubeconfig(cc.kubeconfig);
    before = await revision();
  });
  afterAll(async () => {
    await cc?.stop();
  });

  it.each([
    { name: 'malformed JSON', method: 'POST', path: cms, body: '{"apiVersion":"v1","kind":"ConfigMap",', want: { code: 400, reason: 'BadRequest' } },
    { name: 'an empty body', method: 'POST', path: cms, body: '', want: { code: 400, reason: 'BadRequest' } },
    {
      name: 'a content type no one speaks',
      method: 'POST',
      path: cms,
      body: cm('typed'),
      contentType: 'text/plain',
      want: { code: 415, reason: 'UnsupportedMediaType', message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf' },
    },
    {
      name: 'an unknown patch type',
      method: 'PATCH',
      path: `${cms}/nope`,
      body: '{}',
      contentType: 'application/x-patch',
      want: { code: 415, reason: 'UnsupportedMediaType', message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml' },
    },
    { name: 'a body over 3 MiB', method: 'POST', path: cms, body: cm('big').replace('"1"', JSON.stringify('x'.repeat(3 * 1024 * 1024))), want: { code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' } },
    {
      name: 'an invalid ConfigMap name',
      method: 'POST',
      path: cms,
      body: cm('Bad_Name'),
      want: { code: 422, reason: 'Invalid', message: `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${rfc1123}`, field: 'metadata.name' },
    },
    {
      name: 'an invalid HostedCluster name',
      method: 'POST',
      path: '/apis/hypershift.openshift.io/v1beta1/namespaces/default/hostedclusters',
      body: JSON.stringify(hostedCluster('default', 'Bad_Name')),
      want: { code: 422, reason: 'Invalid', field: 'metadata.name' },
    },
    {
      name: 'a HostedCluster management-cluster selector that does not parse',
      method: 'POST',
      path: '/apis/hypershift.openshift.io/v1beta1/namespaces/default/hostedclusters',
      body: JSON.stringify({ ...hostedCluster('default', 'badsel'), metadata: { name: 'badsel', namespace: 'default', annotations: { 'controlcenter.hcc.dev/management-cluster-selector': 'region in (a' } } }),
      want: { code: 422, reason: 'Invalid', field: 'metadata.annotations[controlcenter.hcc.dev/management-cluster-selector]' },
    },
    {
      name: 'HostedCluster tolerations that are not JSON',
      method: 'POST',
      path: '/apis/hypershift.openshift.io/v1beta1/namespaces/default/hostedclusters',
      body: JSON.stringify({ ...hostedCluster('default', 'badtol'), metadata: { name: 'badtol', namespace: 'default', annotations: { 'controlcenter.hcc.dev/tolerations': 'not json' } } }),
      want: { code: 422, reason: 'Invalid', field: 'metadata.annotations[controlcenter.hcc.dev/tolerations]' },
    },
    { name: 'an invalid namespace name', method: 'POST', path: '/api/v1/namespaces', body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } }), want: { code: 422, reason: 'Invalid', field: 'metadata.name' } },
    { name: 'a namespace in the body that is not the URL’s', method: 'POST', path: cms, body: cm('elsewhere', { namespace: 'kube-system' }), want: { code: 400, reason: 'BadRequest', message: 'the namespace of the provided object does not match the namespace sent on the request' } },
    { name: 'a kind that is not the endpoint’s', method: 'POST', path: cms, body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }), want: { code: 400, reason: 'BadRequest' } },
    { name: 'a namespace that does not exist', method: 'POST', path: '/api/v1/namespaces/nope/configmaps', body: cm('orphan'), want: { code: 404, reason: 'NotFound', message: 'namespaces "nope" not found' } },
    { name: 'a resource that is not served', method: 'GET', path: '/apis/hypershift.openshift.io/v1beta1/namespaces/default/widgets', want: { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' } },
    // kubectl scale of a kind without a scale subresource (HostedClusters have none; NodePools do).
    { name: 'a subresource the kind does not serve (PATCH)', method: 'PATCH', path: '/apis/hypershift.openshift.io/v1beta1/namespaces/default/hostedclusters/w1/scale', body: '{"spec":{"replicas":2}}', contentType: 'application/merge-patch+json', want: { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' } },
    { name: 'a subresource the kind does not serve (PUT)', method: 'PUT', path: '/api/v1/namespaces/default/configmaps/x/scale', body: '{}', want: { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' } },
  ])('$name → $want.code $want.reason', async ({ method, path, body, contentType, want }) => {
    const r = await send(method, path, body, contentType);
    expect(r.code).toBe(want.code);
    expect(r.body).toMatchObject({ kind: 'Status', code: want.code, reason: want.reason });
    if (want.message) expect(r.body.message).toBe(want.message);
    if (want.field) expect(r.body.details?.causes?.map((c) => c.field)).toContain(want.field);
  });

  it('answers 413 to a body over the limit even while the client is still sending it', async () => {
    // Content-Length announces 3.3 MB, so the server knows at once; the client keeps writing.
    // Without reading the rest first, about half of these got a broken pipe instead of the 413.
    const big = cm('big').replace('"1"', JSON.stringify('x'.repeat(3_300_000)));
    const answers: string[] = [];
    for (let i = 0; i < 10; i++) {
      answers.push(await send('POST', cms, big).then((r) => `${r.code} ${r.body.message}`, (err: NodeJS.ErrnoException) => `error ${err.code}`));
    }
    expect(answers).toEqual(Array(10).fill('413 Request entity too large: limit is 3145728'));
  });

  it('wrote nothing', async () => {
    expect(await revision()).toBe(before);
    expect((await send('GET', cms)).body.items).toEqual([]);
  });
});
