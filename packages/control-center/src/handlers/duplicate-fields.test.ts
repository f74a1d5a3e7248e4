/**
 * Duplicate fields in request bodies, reported as kube-apiserver's strict decoders report them:
 * `fieldValidation=Strict` answers 400 `strict decoding error: ... duplicate field "spec.x"` (after
 * the unknown fields), `Warn` (the server default) adds a warning each, `Ignore` keeps the last
 * value silently. For custom resources, built-in kinds, and apply configurations (YAML's message).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';

const MCS = '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters';
const CMS = '/api/v1/namespaces/default/configmaps';

describe('duplicate fields', () => {
  let cc: RunningControlCenter;
  const send = async (method: string, path: string, body: string, contentType = 'application/json') => {
    const res = await fetch(cc.url + path, { method, headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': contentType }, body });
    return { code: res.status, warning: res.headers.get('warning') ?? '', body: (await res.json()) as { reason?: string; message?: string; spec?: { capacity?: number }; data?: Record<string, string> } };
  };
  const mc = (name: string) => `{"apiVersion":"controlcenter.hcc.dev/v1alpha1","kind":"ManagementCluster","metadata":{"name":"${name}"},"spec":{"capacity":3,"capacity":4}}`;

  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs });
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('Strict: a custom resource with a repeated field is refused with 400 naming its path, nothing stored', async () => {
    const r = await send('POST', `${MCS}?fieldValidation=Strict`, mc('dup-strict'));
    expect(r.code).toBe(400);
    expect(r.body.reason).toBe('BadRequest');
    expect(r.body.message).toBe('ManagementCluster in version "v1alpha1" cannot be handled as a ManagementCluster: strict decoding error: duplicate field "spec.capacity"');
    expect((await fetch(`${cc.url}${MCS}/dup-strict`, { headers: { authorization: `Bearer ${cc.adminToken}` } })).status).toBe(404);
  });

  it('Strict: unknown fields first, then duplicates, in one message', async () => {
    const body = '{"apiVersion":"controlcenter.hcc.dev/v1alpha1","kind":"ManagementCluster","metadata":{"name":"dup-both","name":"dup-both"},"spec":{"capacity":3,"bogus":1}}';
    const r = await send('POST', `${MCS}?fieldValidation=Strict`, body);
    expect(r.code).toBe(400);
    expect(r.body.message).toContain('strict decoding error: unknown field "spec.bogus", duplicate field "metadata.name"');
  });

  it('quotes a path holding a quote as Go does', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-q"},"data":{"a\\"b":"1","a\\"b":"2"}}';
    const r = await send('POST', `${CMS}?fieldValidation=Strict`, body);
    expect(r.code).toBe(400);
    expect(r.body.message).toContain('duplicate field "data.a\\"b"');
  });

  it('Warn (the default): stored with the last value, one warning per duplicate', async () => {
    const r = await send('POST', MCS, mc('dup-warn'));
    expect(r.code).toBe(201);
    expect(r.body.spec?.capacity).toBe(4);
    expect(r.warning).toContain('duplicate field \\"spec.capacity\\"');
  });

  it('Ignore: stored with the last value, silently', async () => {
    const r = await send('POST', `${MCS}?fieldValidation=Ignore`, mc('dup-ignore'));
    expect(r.code).toBe(201);
    expect(r.warning).toBe('');
  });

  it('Strict on update (PUT) too', async () => {
    const cur = await send('POST', MCS, mc('dup-put').replace(',"capacity":4', ''));
    expect(cur.code).toBe(201);
    const rv = (cur.body as { metadata?: { resourceVersion?: string } }).metadata!.resourceVersion!;
    const body = mc('dup-put').replace('"name":"dup-put"', `"name":"dup-put","resourceVersion":"${rv}"`);
    const r = await send('PUT', `${MCS}/dup-put?fieldValidation=Strict`, body);
    expect(r.code).toBe(400);
    expect(r.body.message).toContain('duplicate field "spec.capacity"');
  });

  it('a built-in kind: a repeated map key of ConfigMap data', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-cm"},"data":{"a":"1","a":"2"}}';
    const strict = await send('POST', `${CMS}?fieldValidation=Strict`, body);
    expect(strict.code).toBe(400);
    expect(strict.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a"');
    const warn = await send('POST', CMS, body);
    expect(warn.code).toBe(201);
    expect(warn.body.data).toEqual({ a: '2' });
    expect(warn.warning).toContain('duplicate field \\"data.a\\"');
  });

  it('merge and JSON patches are decoded strictly too', async () => {
    expect((await send('POST', CMS, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-patch"},"data":{"a":"1"}}')).code).toBe(201);
    const merge = await send('PATCH', `${CMS}/dup-patch?fieldValidation=Strict`, '{"data":{"b":"1","b":"2"}}', 'application/merge-patch+json');
    // A patch's strict errors are kube-apiserver's patcher's 422 on the field `patch`.
    expect(merge.code).toBe(422);
    expect(merge.body.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": strict decoding error: duplicate field "data.b"$/);
    const warn = await send('PATCH', `${CMS}/dup-patch`, '{"data":{"b":"1","b":"2"}}', 'application/merge-patch+json');
    expect(warn.code).toBe(200);
    expect(warn.body.data).toEqual({ a: '1', b: '2' });
    expect(warn.warning).toContain('duplicate field \\"data.b\\"');
    const json = await send('PATCH', `${CMS}/dup-patch?fieldValidation=Strict`, '[{"op":"add","op":"add","path":"/data/c","value":"3"}]', 'application/json-patch+json');
    expect(json.code).toBe(422);
    expect(json.body.message).toMatch(/: strict decoding error: json patch duplicate field "\[0\]\.op"$/);
  });

  it('server-side apply of YAML: go-yaml\'s message with the line', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup-apply\ndata:\n  a: "1"\n  a: "2"\n';
    const r = await send('PATCH', `${CMS}/dup-apply?fieldManager=me&fieldValidation=Strict`, yaml, 'application/apply-patch+yaml');
    expect(r.code).toBe(400);
    expect(r.body.message).toBe('error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
    const warn = await send('PATCH', `${CMS}/dup-apply?fieldManager=me`, yaml, 'application/apply-patch+yaml');
    expect(warn.code).toBe(201);
    // One warning, not one per decode of the configuration.
    expect(warn.warning.match(/already set in map/g)).toHaveLength(1);
    expect(warn.warning).toBe('299 - "line 7: key \\"a\\" already set in map"');
  });
});
