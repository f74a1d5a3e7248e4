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
import { MaxNestingDepth } from './pipeline/decode.js';
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
    const created = await send('POST', HCS, JSON.stringify(hostedCluster('deep-copy', nested(600))));
    expect(created.code).toBe(201);
    const into = `/spec/autoNode${'/a'.repeat(550)}`;
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
});
