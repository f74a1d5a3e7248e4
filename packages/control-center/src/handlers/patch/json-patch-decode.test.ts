/**
 * A JSON patch's body is decoded as kube-apiserver's jsonPatcher decodes it before applying
 * anything (patch.go applyJSPatch): a body that is not a list of operation objects, or an
 * operation whose `op`/`path`/`from` is not a string, is 400 BadRequest in Go's words and changes
 * nothing; a field an operation does not have is a strict-decoding error (a warning under the
 * default `Warn`, refused under `Strict`, silent under `Ignore`); `null` is an empty patch. A merge
 * or strategic merge patch that is not an object is refused as kube-apiserver refuses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../../control-center.js';
import { startTestControlCenter } from '../../testing/in-process.js';

const CMS = '/api/v1/namespaces/default/configmaps';

describe('JSON patch decoding', () => {
  let cc: RunningControlCenter;
  const send = async (method: string, path: string, body?: string, contentType = 'application/json-patch+json') => {
    const res = await fetch(cc.url + path, {
      method,
      headers: { authorization: `Bearer ${cc.adminToken}`, ...(body !== undefined && { 'content-type': contentType }) },
      ...(body !== undefined && { body }),
    });
    return {
      code: res.status,
      warning: res.headers.get('warning') ?? '',
      body: (await res.json()) as { reason?: string; message?: string; data?: Record<string, string>; metadata?: { resourceVersion?: string } },
    };
  };

  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs });
    expect((await send('POST', CMS, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"jp"},"data":{"a":"1"}}', 'application/json')).code).toBe(201);
  });
  afterAll(async () => {
    await cc?.close();
  });

  const unchanged = async () => {
    const r = await send('GET', `${CMS}/jp`);
    expect(r.body.data).toEqual({ a: '1' });
  };

  it.each([
    ['an element that is not an object', '[1]', 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp'],
    ['an op that is not a string', '[{"op":1,"path":"/data/b","value":"2"}]', 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string'],
    ['a path that is an object', '[{"op":"add","path":{},"value":"2"}]', 'error decoding patch: json: cannot unmarshal object into Go struct field jsonPatchOp.path of type string'],
    ['a body that is an object', '{"op":"add","path":"/data/b","value":"2"}', 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
  ])('%s is 400 BadRequest in Go\'s words, nothing changed', async (_what, body, message) => {
    const r = await send('PATCH', `${CMS}/jp`, body);
    expect(r.code).toBe(400);
    expect(r.body.reason).toBe('BadRequest');
    expect(r.body.message).toBe(message);
    await unchanged();
  });

  it('under fieldValidation=Ignore the same bodies are refused in json-patch\'s DecodePatch words', async () => {
    const r = await send('PATCH', `${CMS}/jp?fieldValidation=Ignore`, '[true]');
    expect(r.code).toBe(400);
    expect(r.body.message).toBe('json: cannot unmarshal bool into Go value of type jsonpatch.Operation');
    // DecodePatch takes any operation map; an op that is not a string then does not apply (422).
    const op = await send('PATCH', `${CMS}/jp?fieldValidation=Ignore`, '[{"op":1,"path":"/data/b","value":"2"}]');
    expect(op.code).toBe(422);
    await unchanged();
  });

  it("a field an operation does not have: a warning by default, 422 under Strict (kube-apiserver's patcher's), silent under Ignore", async () => {
    const strict = await send('PATCH', `${CMS}/jp?fieldValidation=Strict`, '[{"op":"add","path":"/data/b","value":"2","valeu":"3"}]');
    expect(strict.code).toBe(422);
    expect(strict.body.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": strict decoding error: json patch unknown field "\[0\]\.valeu"$/);
    await unchanged();
    const warn = await send('PATCH', `${CMS}/jp`, '[{"op":"test","path":"/data/a","value":"1"},{"op":"add","path":"/data/b","value":"2","extra":1}]');
    expect(warn.code).toBe(200);
    expect(warn.body.data).toEqual({ a: '1', b: '2' });
    expect(warn.warning).toBe('299 - "json patch unknown field \\"[1].extra\\""');
    const ignore = await send('PATCH', `${CMS}/jp?fieldValidation=Ignore`, '[{"op":"remove","path":"/data/b","extra":1}]');
    expect(ignore.code).toBe(200);
    expect(ignore.warning).toBe('');
    expect(ignore.body.data).toEqual({ a: '1' });
  });

  it('a null patch changes nothing and answers 200, as kube-apiserver does', async () => {
    const before = await send('GET', `${CMS}/jp`);
    const r = await send('PATCH', `${CMS}/jp`, 'null');
    expect(r.code).toBe(200);
    expect(r.body.data).toEqual({ a: '1' });
    expect(r.body.metadata?.resourceVersion).toBe(before.body.metadata?.resourceVersion);
  });
  it.each([
    // MergePatch: a list replaces the document, which then is no object (the decoder's 422 on `patch`).
    { type: 'application/merge-patch+json', body: '[{"a":null,"b":1}]', code: 422, message: ' "" is invalid: patch: Invalid value: "[{\\"b\\":1}]": couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }' },
    // Null or a scalar is no merge patch at all.
    { type: 'application/merge-patch+json', body: 'null', code: 400, message: 'Invalid JSON Patch' },
    { type: 'application/merge-patch+json', body: '"s"', code: 400, message: 'Invalid JSON Patch' },
    // A strategic merge patch is decoded into a map first.
    { type: 'application/strategic-merge-patch+json', body: '[]', code: 400, message: 'json: cannot unmarshal array into Go value of type map[string]interface {}' },
    { type: 'application/strategic-merge-patch+json', body: '5', code: 400, message: 'json: cannot unmarshal number into Go value of type map[string]interface {}' },
  ])('a $type body $body that is not an object: $code in kube-apiserver\'s words, nothing changed', async ({ type, body, code, message }) => {
    const r = await send('PATCH', `${CMS}/jp`, body, type);
    expect(r.code).toBe(code);
    expect(r.body.message).toBe(message);
    await unchanged();
  });

  it('a null strategic merge patch changes nothing and answers 200 (Go decodes it into an empty map)', async () => {
    const before = await send('GET', `${CMS}/jp`);
    const r = await send('PATCH', `${CMS}/jp`, 'null', 'application/strategic-merge-patch+json');
    expect(r.code).toBe(200);
    expect(r.body.metadata?.resourceVersion).toBe(before.body.metadata?.resourceVersion);
  });
});
