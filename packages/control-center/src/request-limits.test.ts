/**
 * Bodies the control center must refuse or answer in full without falling over: objects nested
 * deeper than MaxNestingDepth (JSON, YAML, and a JSON patch whose copy nests the result deeper),
 * URLs with malformed %-escapes, and one Warning header per warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from './control-center.js';
import { startTestControlCenter } from './testing/in-process.js';
import { MaxNestingDepth, MaxYAMLAliases, MaxYAMLNestingDepth } from './pipeline/decode.js';
import { MaxJSONPatchCopyBytes } from './handlers/patch/apply-patch.js';
import { MaxObjectBytes } from './storage/level/level-store.js';
import net from 'node:net';
import YAML from 'yaml';
import { hostedClusterBody } from './testing/fixtures.js';

const HCS = '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters';

const nested = (depth: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
/** A HostedCluster body whose spec.autoNode nests `depth` levels, built as text (JSON.stringify itself would run out of stack). */
const deepBody = (name: string, depth: number): string =>
  JSON.stringify(hostedCluster(name, { marker: true })).replace('{"marker":true}', `${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`);

const hostedCluster = (name: string, autoNode: unknown = {}, extra: Record<string, unknown> = {}) => hostedClusterBody(name, 'clusters', { autoNode, ...extra });

describe('request limits', () => {
  let cc: RunningControlCenter;
  const send = async (method: string, url: string, body: string, contentType = 'application/json') => {
    const res = await fetch(cc.url + url, { method, headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': contentType }, body });
    return { code: res.status, headers: res.headers, body: (await res.json()) as { message?: string; metadata?: { name?: string } } };
  };

  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['clusters'] });
  });
  afterAll(async () => {
    await cc?.close();
  });

  it(`refuses objects nested deeper than ${MaxNestingDepth} levels with 400, and keeps serving`, async () => {
    for (const depth of [MaxNestingDepth, 5000]) {
      const r = await send('POST', HCS, deepBody(`deep-${depth}`, depth));
      expect(r.code).toBe(400);
      expect(r.body.message).toContain(`the object is nested more than ${MaxNestingDepth} levels deep`);
    }
    const yaml = `${Array.from({ length: 1200 }, (_, i) => `${'  '.repeat(i)}a:`).join('\n')} x\n`;
    const y = await send('PATCH', `${HCS}/deep-yaml?fieldManager=test`, yaml, 'application/apply-patch+yaml');
    expect(y.code).toBe(400);
    expect(y.body.message).toContain('nested more than');
    // Just under the limit is fine, and the server still answers.
    const ok = await send('POST', HCS, JSON.stringify(hostedCluster('deep-ok', nested(MaxNestingDepth - 10))));
    expect(ok.code, JSON.stringify(ok.body).slice(0, 300)).toBe(201);
  });

  it('takes back an object created at the limit as it was read (its managedFields nest deeper than it): PUT and a JSON patch', async () => {
    const created = await send('POST', HCS, deepBody('at-limit', MaxNestingDepth - 3));
    expect(created.code, JSON.stringify(created.body).slice(0, 200)).toBe(201);
    const read = await fetch(`${cc.url}${HCS}/at-limit`, { headers: { authorization: `Bearer ${cc.adminToken}` } });
    const text = await read.text();
    const put = await send('PUT', `${HCS}/at-limit`, text.replace('"metadata":{', '"metadata":{"labels":{"x":"y"},'));
    expect(put.code, JSON.stringify(put.body).slice(0, 200)).toBe(200);
    const patch = await send('PATCH', `${HCS}/at-limit`, JSON.stringify([{ op: 'add', path: '/metadata/labels/j', value: '1' }]), 'application/json-patch+json');
    expect(patch.code, JSON.stringify(patch.body).slice(0, 200)).toBe(200);
  });

  it('refuses a YAML alias bomb ("billion laughs") with 400, for a create and an apply, and stores nothing', async () => {
    const levels = 'abcdefghi'.split('');
    const bomb =
      `a: &a ["x","x","x","x","x","x","x","x","x"]\n` +
      levels.slice(1).map((l, i) => `${l}: &${l} [${Array(9).fill(`*${levels[i]}`).join(',')}]\n`).join('') +
      'metadata:\n  name: bomb\n';
    const create = await send('POST', '/api/v1/namespaces/clusters/configmaps', bomb, 'application/yaml');
    expect(create.code, JSON.stringify(create.body)).toBe(400);
    expect(create.body.message).toMatch(/^error decoding YAML: .*alias/i);
    const apply = await send('PATCH', `${HCS}/bomb?fieldManager=test`, bomb, 'application/apply-patch+yaml');
    expect(apply.code).toBe(400);
    const gone = await fetch(`${cc.url}/api/v1/namespaces/clusters/configmaps/bomb`, { headers: { authorization: `Bearer ${cc.adminToken}` } });
    expect(gone.status).toBe(404);
  });

  it('refuses a YAML body whose one large anchor, used a few dozen times, would expand it by millions of nodes', async () => {
    const items = Array(20_000).fill('1').join(',');
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wide\na: &a [${items}]\nb: [${Array(99).fill('*a').join(',')}]\n`;
    const r = await send('POST', '/api/v1/namespaces/clusters/configmaps', body, 'application/yaml');
    expect(r.code).toBe(400);
    expect(r.body.message).toBe('error decoding YAML: its aliases expand the document by more than 1000000 nodes');
    // Anchors of ordinary size (a merge key, repeated labels) are fine.
    const ok = await send('POST', '/api/v1/namespaces/clusters/configmaps', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: anchors\n  labels: &l {a: "1", b: "2"}\n  annotations: *l\ndata: {x: "1"}\n', 'application/yaml');
    expect(ok.code, JSON.stringify(ok.body)).toBe(201);
    expect((ok.body as { metadata: { annotations?: Record<string, string> } }).metadata.annotations).toEqual({ a: '1', b: '2' });
    // An alias inside what it names has no JSON form.
    const cyclic = await send('POST', '/api/v1/namespaces/clusters/configmaps', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cyc}\nx: &c [1, *c]\n', 'application/yaml');
    expect(cyclic.code).toBe(400);
  });

  it(`refuses a YAML body with more than ${MaxYAMLAliases} aliases at once (each alias costs a walk of the document), and reads one just under`, async () => {
    const body = (name: string, n: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, annotations: &a {}, labels: *a}\ndata:\n${Array.from({ length: n }, (_, i) => `  k${i}: &v${i} x`).join('\n')}\nbinaryData: {}\nx:\n${'- *a\n'.repeat(n)}`;
    const over = await send('POST', '/api/v1/namespaces/clusters/configmaps', body('aliases-over', MaxYAMLAliases), 'application/yaml');
    expect([over.code, over.body.message]).toEqual([400, `error decoding YAML: the document uses more than ${MaxYAMLAliases} aliases`]);
    const ok = await send('POST', '/api/v1/namespaces/clusters/configmaps?fieldValidation=Ignore', body('aliases-ok', MaxYAMLAliases - 2), 'application/yaml');
    expect(ok.code, JSON.stringify(ok.body).slice(0, 200)).toBe(201);
    expect((ok.body as { metadata: { name: string } }).metadata.name).toBe('aliases-ok');
  });

  it('refuses a number no float64 holds (1e400, YAML .inf) with 400 instead of storing null', async () => {
    const json = await send('POST', '/api/v1/namespaces/clusters/configmaps', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"inf","annotations":{"a":"b"}},"data":{},"binaryData":{},"immutable":false,"x":1e400}');
    expect(json.code).toBe(400);
    expect(json.body.message).toBe('error decoding request body: a number in the body is out of the range of a 64-bit float');
    const patch = await send('PATCH', `${HCS}/inf?fieldManager=test`, 'apiVersion: hypershift.openshift.io/v1beta1\nkind: HostedCluster\nmetadata:\n  name: inf\nspec:\n  configuration:\n    x: .inf\n', 'application/apply-patch+yaml');
    expect(patch.code).toBe(400);
    const merge = await send('POST', HCS, JSON.stringify(hostedCluster('finite')).replace('"autoNode":{}', '"autoNode":{},"configuration":{"w":1e400}'));
    expect(merge.code).toBe(400);
  });

  it('refuses a JSON patch whose result nests too deep (copy into itself), and stores nothing', async () => {
    const created = await send('POST', HCS, JSON.stringify(hostedCluster('deep-copy', nested(MaxNestingDepth - 100))));
    expect(created.code).toBe(201);
    const into = `/spec/autoNode${'/a'.repeat(MaxNestingDepth - 150)}`;
    const r = await send('PATCH', `${HCS}/deep-copy`, JSON.stringify([{ op: 'copy', from: '/spec/autoNode', path: `${into}/b` }]), 'application/json-patch+json');
    expect(r.code).toBe(400);
    expect(r.body.message).toContain('nested more than');
    const after = await fetch(`${cc.url}${HCS}/deep-copy`, { headers: { authorization: `Bearer ${cc.adminToken}` } });
    expect(((await after.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe((created.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
  });

  it('answers a URL with a malformed %-escape with a 400 Status, and keeps serving', async () => {
    for (const url of ['/api/v1/namespaces/%ZZ', `${HCS}/%E0%A4%A`]) {
      const res = await fetch(cc.url + url, { headers: { authorization: `Bearer ${cc.adminToken}` } });
      const body = (await res.json()) as Record<string, unknown>;
      expect([res.status, body.kind, body.reason, body.code]).toEqual([400, 'Status', 'BadRequest', 400]);
      expect(body.message).toContain('not a valid url component');
    }
    expect((await fetch(`${cc.url}/api/v1/namespaces/clusters`, { headers: { authorization: `Bearer ${cc.adminToken}` } })).status).toBe(200);
  });

  it('sends one Warning header per warning', async () => {
    const r = await send('POST', `${HCS}?fieldValidation=Warn`, JSON.stringify(hostedCluster('warned', {}, { bogus1: 1, bogus2: 2, platform: { type: 'None', bogus3: 3 } })));
    expect(r.code).toBe(201);
    const warning = r.headers.get('warning') ?? '';
    for (const f of ['spec.bogus1', 'spec.bogus2', 'spec.platform.bogus3']) expect(warning).toContain(`unknown field \\"${f}\\"`);
    expect(warning.match(/299 - /g)).toHaveLength(3);
  });

  const get = async (url: string, accept = 'application/json') => {
    const res = await fetch(cc.url + url, { headers: { authorization: `Bearer ${cc.adminToken}`, accept } });
    return { code: res.status, text: await res.text() };
  };
  const rvOf = async (url: string) => (JSON.parse((await get(url)).text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

  it(`reads a YAML body that is JSON text as JSON: ${MaxNestingDepth - 10} levels through a review and a server-side apply, twice, and keeps serving`, async () => {
    const d = MaxNestingDepth - 10;
    const review = `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","x":${'{"a":'.repeat(d)}1${'}'.repeat(d)}}`;
    for (let i = 0; i < 2; i++) {
      const r = await send('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review, 'application/yaml');
      expect(r.code, JSON.stringify(r.body).slice(0, 200)).toBe(201);
    }
    const hc = deepBody('deep-ssa', MaxNestingDepth - 15);
    for (let i = 0; i < 2; i++) {
      const r = await send('PATCH', `${HCS}/deep-ssa?fieldManager=test&force=true`, hc, 'application/apply-patch+yaml');
      expect(r.code, JSON.stringify(r.body).slice(0, 200)).toBe(i === 0 ? 201 : 200);
    }
    expect((await get('/readyz')).code).toBe(200);
  });

  it(`refuses YAML (not JSON text) nested deeper than ${MaxYAMLNestingDepth} levels before composing it, and takes it below that`, async () => {
    const block = (name: string, depth: number) =>
      `apiVersion: hypershift.openshift.io/v1beta1\nkind: HostedCluster\nmetadata:\n  name: ${name}\nspec:\n  autoNode:\n${Array.from({ length: depth }, (_, i) => `${'  '.repeat(i + 2)}a:`).join('\n')} leaf\n`;
    const deep = await send('PATCH', `${HCS}/yaml-deep?fieldManager=test`, block('yaml-deep', MaxYAMLNestingDepth), 'application/apply-patch+yaml');
    expect(deep.code).toBe(400);
    expect(deep.body.message).toBe(`error decoding YAML: the document is nested more than ${MaxYAMLNestingDepth} levels deep`);
    // Flow sequences of pairs count as the mappings they make (300 × 2 levels).
    const flowPairs = `x: ${'[a: '.repeat(MaxYAMLNestingDepth / 2 + 10)}1${']'.repeat(MaxYAMLNestingDepth / 2 + 10)}\n`;
    const pairs = await send('POST', '/api/v1/namespaces/clusters/configmaps', flowPairs, 'application/yaml');
    expect([pairs.code, pairs.body.message]).toEqual([400, deep.body.message]);
    // Just under the limit, block YAML is taken.
    const ok = await send('PATCH', `${HCS}/yaml-ok?fieldManager=test`, YAML.stringify(hostedCluster('yaml-ok', nested(MaxYAMLNestingDepth - 10))), 'application/apply-patch+yaml');
    expect(ok.code, JSON.stringify(ok.body).slice(0, 300)).toBe(201);
  });

  it('answers Accept: application/yaml for an object nested deep (the YAML writer recurses) as JSON text, a YAML document too', async () => {
    const created = await send('POST', HCS, deepBody('deep-get', MaxNestingDepth - 10));
    expect(created.code).toBe(201);
    const r = await get(`${HCS}/deep-get`, 'application/yaml');
    expect(r.code).toBe(200);
    expect((JSON.parse(r.text) as { metadata: { name: string } }).metadata.name).toBe('deep-get');
    const list = await get(HCS, 'application/yaml');
    expect(list.code).toBe(200);
  });

  it(`refuses a JSON patch whose copies add more than ${MaxJSONPatchCopyBytes} bytes (422) or that has over 10,000 operations (413), and stores nothing`, async () => {
    const big = 'x'.repeat(700 * 1024);
    const created = await send('POST', HCS, JSON.stringify(hostedCluster('copies', { big })));
    expect(created.code).toBe(201);
    const rv = await rvOf(`${HCS}/copies`);
    const copies = Array.from({ length: 10 }, (_, i) => ({ op: 'copy', from: '/spec/autoNode/big', path: `/spec/autoNode/c${i}` }));
    const r = await send('PATCH', `${HCS}/copies`, JSON.stringify(copies), 'application/json-patch+json');
    expect(r.code).toBe(422);
    // kube-apiserver's answer to any JSON patch that does not apply (evanphx/json-patch's error is dropped).
    expect([r.body.reason, r.body.message]).toEqual(['Invalid', 'the server rejected our request due to an error in our request']);
    expect(await rvOf(`${HCS}/copies`)).toBe(rv);
    // Under the limit a copy works.
    expect((await send('PATCH', `${HCS}/copies`, JSON.stringify(copies.slice(0, 2)), 'application/json-patch+json')).code).toBe(200);
    const tooMany = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'HostedCluster' }));
    const many = await send('PATCH', `${HCS}/copies`, JSON.stringify(tooMany), 'application/json-patch+json');
    expect(many.code).toBe(413);
    expect(many.body.message).toContain('The allowed maximum operations in a JSON patch is 10000, got 10001');
  });

  it(`refuses a write that would store an object over ${MaxObjectBytes} bytes with 413, and stores nothing`, async () => {
    const created = await send('POST', HCS, JSON.stringify(hostedCluster('huge', { a: 'x'.repeat(2_900_000) })));
    expect(created.code).toBe(201);
    const rv = await rvOf(`${HCS}/huge`);
    const r = await send('PATCH', `${HCS}/huge`, JSON.stringify({ spec: { autoNode: { b: 'y'.repeat(2_000_000) } } }), 'application/merge-patch+json');
    expect(r.code).toBe(413);
    expect(r.body.message).toMatch(/Request entity too large: the object would be \d+ bytes as stored, over the 4194304 the level store keeps/);
    expect(await rvOf(`${HCS}/huge`)).toBe(rv);
    // The store goes on: a smaller write after it is taken.
    expect((await send('PATCH', `${HCS}/huge`, JSON.stringify({ metadata: { labels: { a: 'b' } } }), 'application/merge-patch+json')).code).toBe(200);
  });

  it('never deletes on a DeleteOptions body that does not decode as one (400), as kube-apiserver', async () => {
    const cms = '/api/v1/namespaces/clusters/configmaps';
    for (const name of ['victim', 'dc1', 'dc2']) {
      expect((await send('POST', cms, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { grp: name === 'victim' ? 'v' : 'dc' } } }))).code).toBe(201);
    }
    const bad: [string, string][] = [
      ['{"kind":"DeleteOptions","apiVersion":"v1","dryRun":"All"}', 'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string'],
      ['[]', 'json: cannot unmarshal array into Go value of type v1.DeleteOptions'],
      ['"garbage"', 'json: cannot unmarshal string into Go value of type v1.DeleteOptions'],
      ['{"gracePeriodSeconds":"x"}', 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
      ['{"kind":"Pod"}', 'the body of a DELETE must be a DeleteOptions, got kind "Pod"'],
      ['{"preconditions":{"uid":5}}', 'json: cannot unmarshal number 5 into Go struct field Preconditions.preconditions.uid of type string'],
    ];
    for (const [body, message] of bad) {
      const r = await send('DELETE', `${cms}/victim`, body);
      expect([r.code, r.body.message]).toEqual([400, message]);
    }
    const dc = await send('DELETE', `${cms}?labelSelector=grp%3Ddc`, '{"kind":"DeleteOptions","apiVersion":"v1","dryRun":"All"}');
    expect(dc.code).toBe(400);
    for (const name of ['victim', 'dc1', 'dc2']) expect((await get(`${cms}/${name}`)).code).toBe(200);
    // A well-formed dry run still deletes nothing, and a real delete still works.
    expect((await send('DELETE', `${cms}/victim`, '{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}')).code).toBe(200);
    expect((await get(`${cms}/victim`)).code).toBe(200);
    expect((await send('DELETE', `${cms}/victim`, '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":null,"preconditions":null}')).code).toBe(200);
    expect((await get(`${cms}/victim`)).code).toBe(404);
  });

  it('keeps the Warning headers of 1,000 and of 150,000 unknown fields to a few kilobytes, and creates the object', async () => {
    for (const [name, n] of [['warn-1k', 1000], ['warn-150k', 150_000]] as const) {
      const fields = Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 1]));
      const r = await send('POST', `/api/v1/namespaces/clusters/configmaps?fieldValidation=Warn`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...fields }));
      expect(r.code, JSON.stringify(r.body).slice(0, 200)).toBe(201);
      const header = r.headers.get('warning') ?? '';
      expect(header).toContain('unknown field \\"f0\\"');
      expect(header.length).toBeLessThan(16 * 1024);
    }
  });

  it('sends a warning naming a field in any script as UTF-8 (no 500 after the write was stored)', async () => {
    const r = await fetch(`${cc.url}/api/v1/namespaces/clusters/configmaps?fieldValidation=Warn`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cyr' }, данные: { a: 'b' }, '😀': 1 }),
    });
    expect(r.status).toBe(201);
    // fetch (undici) reads header bytes as Latin-1: the UTF-8 text is there byte for byte.
    const header = Buffer.from(r.headers.get('warning') ?? '', 'latin1').toString('utf8');
    expect(header).toContain('unknown field \\"данные\\"');
    expect(header).toContain('unknown field \\"😀\\"');
  });

  it('counts annotation sizes in bytes of UTF-8, as kube-apiserver', async () => {
    const r = await send('POST', '/api/v1/namespaces/clusters/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'accents', annotations: { a: 'é'.repeat(200_000) } } }));
    expect(r.code).toBe(422);
    expect(r.body.message).toContain('metadata.annotations: Too long: may not be more than 262144 bytes');
  });

  it('answers a Content-Type it cannot parse with 415 and an UnsupportedMediaType Status saying 415', async () => {
    const r = await send('POST', '/api/v1/namespaces/clusters/configmaps', '{}', 'application/json, text/plain');
    expect(r.code).toBe(415);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
  });

  it("reads the Authorization header as kube's bearer token authenticator: two spaces carry an empty token (401)", async () => {
    for (const auth of [`Bearer  ${cc.adminToken}`, `Basic ${cc.adminToken}`, 'Bearer']) {
      const res = await fetch(`${cc.url}/api/v1/namespaces`, { headers: { authorization: auth } });
      expect([auth, res.status]).toEqual([auth, 401]);
    }
    expect((await fetch(`${cc.url}/api/v1/namespaces`, { headers: { authorization: `bearer ${cc.adminToken} trailing` } })).status).toBe(200);
  });
});

describe('the timeout parameter', () => {
  it('is a 400 when it is no Go duration, as kube-apiserver answers; a duration (or 0) is taken', async () => {
    const cc = await startTestControlCenter();
    try {
      const get = (q: string) => fetch(`${cc.url}/api/v1/namespaces?${q}`, { headers: { authorization: `Bearer ${cc.adminToken}` } });
      const bad = await get('timeout=junk');
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { message: string }).message).toBe('invalid timeout specified in the request URL - time: invalid duration "junk"');
      for (const ok of ['timeout=32s', 'timeout=0', 'timeout=1m30s', 'timeout=', 'timeout=junk&watch=true&timeoutSeconds=1', 'timeout=junk&watch=True&timeoutSeconds=1']) {
        expect([ok, (await get(ok)).status]).toEqual([ok, 200]);
      }
      // A named GET with ?watch=1 is a get (kube's RequestInfoFactory), so its timeout is checked.
      const named = await fetch(`${cc.url}/api/v1/namespaces/default?watch=1&timeout=junk`, { headers: { authorization: `Bearer ${cc.adminToken}` } });
      expect(named.status).toBe(400);
    } finally {
      await cc.close();
    }
  });
});

describe('a request whose body stalls', () => {
  it('is answered 408 and its connection closed once the request timeout passes', async () => {
    const cc = await startTestControlCenter({ requestTimeoutMs: 1000 });
    try {
      const { hostname, port } = new URL(cc.url);
      const sock = net.connect(Number(port), hostname);
      let answer = '';
      sock.on('data', (d) => (answer += d.toString()));
      const closed = new Promise<void>((resolve) => sock.on('close', () => resolve()));
      sock.write(`POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${cc.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"apiVer`);
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain('"reason":"Timeout"');
    } finally {
      await cc.close();
    }
  }, 20_000);
});
