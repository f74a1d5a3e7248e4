/**
 * The bytes of a response as kube-apiserver writes them: `Content-Type` exactly as negotiated
 * (`application/json`, no charset; aggregated discovery's parameters unquoted), JSON indented with
 * two spaces when `pretty` is true or the client is curl (isPrettyPrint), `/version` always
 * indented (WriteRawJSON), watch events never.
 */
import { describe, expect, it } from 'vitest';
import { useTestControlCenter } from '../testing/in-process.js';

describe('response format', () => {
  const cc = useTestControlCenter();
  const get = (path: string, headers: Record<string, string> = {}) => fetch(cc().url + path, { headers: { authorization: `Bearer ${cc().adminToken}`, ...headers } });

  it('JSON, YAML, errors, discovery and OpenAPI carry exactly the Content-Type kube-apiserver sends', async () => {
    for (const path of ['/api/v1/namespaces/default', '/api/v1/namespaces', '/api/v1/namespaces/missing', '/api', '/apis', '/api/v1', '/version', '/openapi/v3', '/openapi/v3/api/v1', '/openapi/v2']) {
      const r = await get(path);
      expect(r.headers.get('content-type'), path).toBe('application/json');
    }
    expect((await get('/api/v1/namespaces/default', { accept: 'application/yaml' })).headers.get('content-type')).toBe('application/yaml');
    const agg = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
    expect((await get('/apis', { accept: agg })).headers.get('content-type')).toBe(agg);
  });

  it('indents JSON when pretty is true (as Go parses a bool) or the client is curl, not otherwise', async () => {
    const ns = '/api/v1/namespaces/default';
    const compact = await (await get(ns)).text();
    const obj: unknown = JSON.parse(compact);
    const indented = JSON.stringify(obj, null, 2);
    expect(compact).toBe(JSON.stringify(obj));
    for (const q of ['pretty=true', 'pretty=1', 'pretty=True', 'pretty=t', 'pretty=1&pretty=0']) expect(await (await get(`${ns}?${q}`)).text(), q).toBe(indented);
    for (const q of ['pretty=false', 'pretty=0', 'pretty=yes', 'pretty=']) expect(await (await get(`${ns}?${q}`)).text(), q).toBe(compact);
    expect(await (await get(ns, { 'user-agent': 'curl/8.5.0' })).text()).toBe(indented);
    expect(await (await get(`${ns}?pretty=false`, { 'user-agent': 'curl/8.5.0' })).text()).toBe(compact);
    // Lists, errors and discovery too.
    expect(await (await get('/api/v1/namespaces?pretty=true')).text()).toMatch(/^\{\n {2}"kind": "NamespaceList",/);
    expect(await (await get('/api/v1/namespaces/missing?pretty=true')).text()).toMatch(/^\{\n {2}"kind": "Status",/);
    expect(await (await get('/apis?pretty=1')).text()).toMatch(/^\{\n {2}"kind": "APIGroupList",/);
    // /version is always indented.
    expect(await (await get('/version')).text()).toMatch(/^\{\n {2}"major": /);
  });

  it('never indents watch events', async () => {
    const ac = new AbortController();
    const r = await fetch(`${cc().url}/api/v1/namespaces?watch=true&pretty=true`, { headers: { authorization: `Bearer ${cc().adminToken}` }, signal: ac.signal });
    const reader = r.body!.getReader();
    const { value } = await reader.read();
    ac.abort();
    const line = new TextDecoder().decode(value).split('\n')[0]!;
    expect(line).toMatch(/^\{"type":"ADDED","object":\{/);
  });
});

describe('error answers', () => {
  const cc = useTestControlCenter();
  const get = (path: string, headers: Record<string, string> = {}, token: string | undefined = cc().adminToken) =>
    fetch(cc().url + path, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });

  it('are a Status in YAML when the Accept header picks YAML, as kube-apiserver negotiates a Status like any object', async () => {
    const yamlAccept = { accept: 'application/yaml' };
    const cases: Array<[string, number, Record<string, string>, string | undefined]> = [
      ['/api/v1/namespaces/missing', 404, yamlAccept, cc().adminToken],
      ['/api/v1/namespaces?labelSelector=a%3D%3D%3Db', 400, yamlAccept, cc().adminToken],
      // A watch refused before its stream starts (its bad selector; YAML has no watch framing: 406).
      ['/api/v1/namespaces?watch=true&labelSelector=a%3D%3D%3Db', 400, yamlAccept, cc().adminToken],
      ['/api/v1/namespaces?watch=true', 406, yamlAccept, cc().adminToken],
      ['/api/v1/namespaces', 401, yamlAccept, 'not-a-token'],
      ['/apis/no.such.group/v1/things', 404, { accept: 'application/yaml, application/json' }, cc().adminToken],
    ];
    for (const [path, code, headers, token] of cases) {
      const r = await get(path, headers, token);
      expect(r.status, path).toBe(code);
      expect(r.headers.get('content-type'), path).toBe('application/yaml');
      const text = await r.text();
      expect(text, path).toMatch(/^apiVersion: v1\n/m);
      expect(text, path).toMatch(/^kind: Status$/m);
      expect(text, path).toMatch(new RegExp(`^code: ${code}$`, 'm'));
    }
  });

  it('are JSON when YAML is not the first range hcc serves, or nothing can be served', async () => {
    for (const accept of ['application/json, application/yaml', 'text/html', 'application/yaml;as=Table;g=meta.k8s.io;v=v1', '']) {
      const r = await get('/api/v1/namespaces/missing', accept ? { accept } : {});
      expect(r.headers.get('content-type'), accept).toBe('application/json');
      expect((await r.json()) as { kind: string }, accept).toMatchObject({ kind: 'Status' });
    }
  });

  it('of a watch are indented for curl, as every other answer', async () => {
    const r = await get('/api/v1/namespaces?watch=true&labelSelector=a%3D%3D%3Db', { 'user-agent': 'curl/8.5.0' });
    expect(r.status).toBe(400);
    expect(await r.text()).toMatch(/^\{\n {2}"kind": "Status",/);
  });
});
