import selfsigned from 'selfsigned';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, isAlreadyExists, isConflict, isGone, isNotFound, RequestError } from './api-errors.js';
import { resourcePath, RestClient, warningTexts } from './rest.js';
import { FakeApiServer } from './testing/fake-apiserver.js';
import type { KubeObject, ResourceRef, WatchEvent } from './types.js';

const configmaps: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
const hostedclusters: ResourceRef = { group: 'hypershift.openshift.io', version: 'v1beta1', resource: 'hostedclusters', namespaced: true };
const managementclusters: ResourceRef = { group: 'controlcenter.hcc.dev', version: 'v1alpha1', resource: 'managementclusters', namespaced: false };

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw server whose handler the test writes; records every request. */
async function recordingServer(handler: (req: Recorded, res: http.ServerResponse) => void | Promise<void>) {
  const seen: Recorded[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(r);
      void handler(r, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 5));
const json = (res: http.ServerResponse, code: number, body: unknown) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('resourcePath', () => {
  it.each<{ name: string; input: Parameters<typeof resourcePath>; want: string }>([
    { name: 'core collection, all namespaces', input: [configmaps], want: '/api/v1/configmaps' },
    { name: 'core collection in a namespace', input: [configmaps, 'ns'], want: '/api/v1/namespaces/ns/configmaps' },
    { name: 'group object', input: [hostedclusters, 'clusters', 'example'], want: '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters/example' },
    { name: 'status subresource', input: [hostedclusters, 'clusters', 'example', 'status'], want: '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters/example/status' },
    { name: 'cluster-scoped ignores the namespace', input: [managementclusters, 'ignored', 'mgmt-1'], want: '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters/mgmt-1' },
    { name: 'names are escaped', input: [configmaps, 'ns', 'a b'], want: '/api/v1/namespaces/ns/configmaps/a%20b' },
  ])('$name', ({ input, want }) => expect(resourcePath(...input)).toBe(want));

  it('requires a namespace for a namespaced object', () => {
    expect(() => resourcePath(configmaps, undefined, 'x')).toThrow(/namespace required/);
  });
});

describe('RestClient against the fake API server', { timeout: 10_000 }, () => {
  let api: FakeApiServer;
  let client: RestClient;
  beforeAll(async () => {
    api = await FakeApiServer.start([configmaps, { ...managementclusters, kind: 'ManagementCluster' }]);
    client = new RestClient({ server: api.url });
  });
  afterAll(async () => {
    client.close();
    await api.close();
  });

  it('creates, reads, lists, updates, patches and deletes', async () => {
    const created = await client.create<KubeObject>(configmaps, 'ns', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { app: 'x' } }, data: { k: 'v' } });
    expect(created.metadata).toMatchObject({ name: 'a', namespace: 'ns', uid: expect.any(String), resourceVersion: expect.any(String) });
    await client.create(configmaps, 'ns', { metadata: { name: 'b', labels: { app: 'y' } } });

    expect((await client.get(configmaps, 'ns', 'a')).data).toEqual({ k: 'v' });
    const list = await client.list(configmaps, { namespace: 'ns', labelSelector: 'app=x' });
    expect(list.items.map((i) => i.metadata.name)).toEqual(['a']);
    expect(list.metadata.resourceVersion).toBe(api.resourceVersion);

    const updated = await client.update(configmaps, 'ns', { ...created, data: { k: 'v2' } });
    expect(updated.data).toEqual({ k: 'v2' });
    const stale = await client.update(configmaps, 'ns', { ...created, data: { k: 'v3' } }).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    expect((stale as ApiError).message).toMatch(/the object has been modified/);

    const patched = await client.patch(configmaps, 'ns', 'a', { data: { other: '1' } }, 'merge');
    expect(patched.data).toEqual({ k: 'v2', other: '1' });

    const wrongUid = await client.delete(configmaps, 'ns', 'a', { preconditions: { uid: 'nope' } }).catch((e: unknown) => e);
    expect(isConflict(wrongUid)).toBe(true);
    await client.delete(configmaps, 'ns', 'a', { preconditions: { uid: created.metadata.uid }, propagationPolicy: 'Background' });
    const missing = await client.get(configmaps, 'ns', 'a').catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    expect(missing).toMatchObject({ code: 404, reason: 'NotFound', message: 'configmaps "a" not found', details: { name: 'a' } });
  });

  it('reports AlreadyExists on a duplicate create', async () => {
    await client.create(configmaps, 'ns', { metadata: { name: 'dup' } });
    const err = await client.create(configmaps, 'ns', { metadata: { name: 'dup' } }).catch((e: unknown) => e);
    expect(isAlreadyExists(err)).toBe(true);
    expect(isConflict(err)).toBe(false);
  });

  it('addresses cluster-scoped resources and the status subresource', async () => {
    const mc = await client.create(managementclusters, undefined, { metadata: { name: 'mgmt-1' }, spec: { capacity: 3 } });
    const withStatus = await client.updateStatus(managementclusters, undefined, { ...mc, spec: { capacity: 99 }, status: { budget: 2 } });
    expect(withStatus).toMatchObject({ kind: 'ManagementCluster', spec: { capacity: 3 }, status: { budget: 2 } });
    expect(api.requests.at(-1)).toEqual({ method: 'PUT', url: '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters/mgmt-1/status' });
  });

  it('pages a list with limit and continue', async () => {
    for (const n of ['p1', 'p2', 'p3']) await client.create(configmaps, 'paged', { metadata: { name: n } });
    const first = await client.list(configmaps, { namespace: 'paged', limit: 2 });
    expect(first.items.map((i) => i.metadata.name)).toEqual(['p1', 'p2']);
    expect(first.metadata.continue).toBeTruthy();
    const second = await client.list(configmaps, { namespace: 'paged', limit: 2, continue: first.metadata.continue });
    expect(second.items.map((i) => i.metadata.name)).toEqual(['p3']);
    expect(second.metadata.continue).toBeUndefined();
    api.compact();
    const expired = await client.list(configmaps, { namespace: 'paged', limit: 2, continue: first.metadata.continue }).catch((e: unknown) => e);
    expect(isGone(expired)).toBe(true);
  });

  it('raw returns parsed JSON', async () => {
    expect(await client.raw('get', '/version')).toMatchObject({ gitVersion: 'v1.31.0-fake' });
  });
});

describe('RestClient requests', { timeout: 10_000 }, () => {
  let srv: Awaited<ReturnType<typeof recordingServer>>;
  afterEach(() => srv?.close());

  it('sends the verb, query, content type, headers and body each call needs', async () => {
    srv = await recordingServer((_req, res) => json(res, 200, { metadata: { name: 'x' } }));
    const c = new RestClient({ server: `${srv.url}/prefix/`, token: 's3cret' }, { userAgent: 'hcc-test/1' });
    const obj: KubeObject = { metadata: { name: 'x', namespace: 'ns' } };
    await c.create(configmaps, undefined, obj, { fieldManager: 'hcc', dryRun: true });
    await c.patch(hostedclusters, 'ns', 'x', [{ op: 'add', path: '/a', value: 1 }], 'json');
    await c.patch(hostedclusters, 'ns', 'x', { metadata: {} }, 'strategic');
    await c.patch(hostedclusters, 'ns', 'x', { apiVersion: 'v1', kind: 'X' }, 'apply', { fieldManager: 'hcc', force: true, subresource: 'status' });
    await c.delete(configmaps, 'ns', 'x', { preconditions: { resourceVersion: '7' }, propagationPolicy: 'Foreground' });
    await c.list(configmaps, { fieldSelector: 'metadata.name=x', resourceVersion: '0', limit: 10 });
    c.close();
    expect(srv.seen.map((r) => [r.method, r.url, r.headers['content-type'] ?? '', r.body])).toEqual([
      ['POST', '/prefix/api/v1/namespaces/ns/configmaps?fieldManager=hcc&dryRun=All', 'application/json', JSON.stringify(obj)],
      ['PATCH', '/prefix/apis/hypershift.openshift.io/v1beta1/namespaces/ns/hostedclusters/x', 'application/json-patch+json', '[{"op":"add","path":"/a","value":1}]'],
      ['PATCH', '/prefix/apis/hypershift.openshift.io/v1beta1/namespaces/ns/hostedclusters/x', 'application/strategic-merge-patch+json', '{"metadata":{}}'],
      ['PATCH', '/prefix/apis/hypershift.openshift.io/v1beta1/namespaces/ns/hostedclusters/x/status?fieldManager=hcc&force=true', 'application/apply-patch+yaml', '{"apiVersion":"v1","kind":"X"}'],
      ['DELETE', '/prefix/api/v1/namespaces/ns/configmaps/x', 'application/json', '{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"resourceVersion":"7"},"propagationPolicy":"Foreground"}'],
      ['GET', '/prefix/api/v1/configmaps?fieldSelector=metadata.name%3Dx&limit=10&resourceVersion=0', '', ''],
    ]);
    expect(srv.seen[0]!.headers).toMatchObject({ authorization: 'Bearer s3cret', 'user-agent': 'hcc-test/1', accept: 'application/json' });
  });

  it('asks for fieldValidation and hands each Warning header text to onWarning, as client-go does', async () => {
    srv = await recordingServer((_req, res) => {
      res.setHeader('warning', ['299 - "unknown field \\"spec.a\\""', '299 - "one", 299 - "two"']);
      json(res, 200, { metadata: { name: 'x' } });
    });
    const c = new RestClient({ server: srv.url });
    const got: string[] = [];
    await c.patch(hostedclusters, 'clusters', 'x', { spec: { a: 1 } }, 'merge', { fieldValidation: 'Warn', onWarning: (t) => got.push(t) });
    await c.create(hostedclusters, 'clusters', { metadata: { name: 'x' } }, { fieldValidation: 'Strict', onWarning: () => { throw new Error('a handler that throws is not the call\'s failure'); } });
    c.close();
    expect(got).toEqual(['unknown field "spec.a"', 'one', 'two']);
    expect(srv.seen.map((r) => r.url)).toEqual([
      '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters/x?fieldValidation=Warn',
      '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters?fieldValidation=Strict',
    ]);
  });

  it.each([
    { name: 'none', input: undefined, want: [] },
    { name: 'escaped quotes', input: ['299 - "unknown field \\"spec.x\\""'], want: ['unknown field "spec.x"'] },
    { name: 'two in one value', input: ['299 - "a, b", 299 kube-apiserver "c"'], want: ['a, b', 'c'] },
    { name: 'not a warning', input: ['garbage'], want: [] },
  ])('warningTexts: $name', ({ input, want }) => expect(warningTexts(input)).toEqual(want));

  it('reuses one keep-alive connection for sequential requests', async () => {
    srv = await recordingServer((_req, res) => json(res, 200, {}));
    const c = new RestClient({ server: srv.url });
    for (let i = 0; i < 20; i++) await c.raw('GET', '/version');
    c.close();
    expect(srv.connections()).toBe(1);
  });

  it('turns a non-Status error body into an ApiError', async () => {
    srv = await recordingServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('something broke');
    });
    const c = new RestClient({ server: srv.url });
    const err = await c.get(configmaps, 'ns', 'x').catch((e: unknown) => e);
    c.close();
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 500, reason: 'InternalError', message: 'something broke' });
  });

  it('times out a request after timeoutMs', async () => {
    srv = await recordingServer(() => {}); // never answers
    const c = new RestClient({ server: srv.url }, { timeoutMs: 50 });
    const err = await c.get(configmaps, 'ns', 'x').catch((e: unknown) => e);
    c.close();
    expect(err).toBeInstanceOf(RequestError);
    expect((err as Error).message).toMatch(/timed out after 50 ms/);
  });

  it('reports a refused connection with its cause', async () => {
    srv = await recordingServer(() => {});
    const url = srv.url;
    await srv.close();
    const c = new RestClient({ server: url });
    const err = await c.get(configmaps, 'ns', 'x').catch((e: unknown) => e);
    c.close();
    expect(err).toBeInstanceOf(RequestError);
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});

describe('RestClient.watch', { timeout: 10_000 }, () => {
  let srv: Awaited<ReturnType<typeof recordingServer>>;
  afterEach(() => srv?.close());
  const ev = (type: string, name: string, rv: string) => JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } });

  it('decodes events split across and packed into chunks, then resolves when the server ends', async () => {
    srv = await recordingServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const stream = `${ev('ADDED', 'a', '1')}\n${ev('MODIFIED', 'a', '2')}\n${ev('BOOKMARK', '', '3')}\n${ev('DELETED', 'a', '4')}\n`;
      // Cuts fall mid-line, right before a newline, and past several lines at once.
      let from = 0;
      for (const to of [10, 45, 46, 120, stream.length]) {
        res.write(stream.slice(from, to));
        from = to;
        await tick();
      }
      res.end();
    });
    const c = new RestClient({ server: srv.url });
    const got: WatchEvent[] = [];
    await c.watch(configmaps, { namespace: 'ns', resourceVersion: '0', allowWatchBookmarks: true, timeoutSeconds: 30 }, (e) => got.push(e));
    c.close();
    expect(got.map((e) => `${e.type}:${e.object.metadata?.resourceVersion}`)).toEqual(['ADDED:1', 'MODIFIED:2', 'BOOKMARK:3', 'DELETED:4']);
    expect(srv.seen[0]!.url).toBe('/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=30');
  });

  it('asks for a streaming list with sendInitialEvents', async () => {
    srv = await recordingServer((_req, res) => {
      res.end();
    });
    const c = new RestClient({ server: srv.url });
    await c.watch(configmaps, { sendInitialEvents: true, allowWatchBookmarks: true }, () => {});
    c.close();
    expect(srv.seen[0]!.url).toBe('/api/v1/configmaps?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan');
  });

  it('rejects when the connection drops mid-stream', async () => {
    srv = await recordingServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${ev('ADDED', 'a', '1')}\n{"type":"MOD`);
      await tick();
      res.socket?.destroy();
    });
    const c = new RestClient({ server: srv.url });
    const got: WatchEvent[] = [];
    const err = await c.watch(configmaps, {}, (e) => got.push(e)).catch((e: unknown) => e);
    c.close();
    expect(got).toHaveLength(1);
    expect(err).toBeInstanceOf(RequestError);
  });

  it('rejects with the Status when the server refuses the watch', async () => {
    srv = await recordingServer((_req, res) => json(res, 410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' }));
    const c = new RestClient({ server: srv.url });
    const err = await c.watch(configmaps, { resourceVersion: '1' }, () => {}).catch((e: unknown) => e);
    c.close();
    expect(isGone(err)).toBe(true);
    expect((err as Error).message).toBe('too old resource version: 1 (5)');
  });

  it('delivers ERROR events as events', async () => {
    srv = await recordingServer((_req, res) => {
      res.writeHead(200);
      res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } })}\n`);
    });
    const c = new RestClient({ server: srv.url });
    const got: WatchEvent[] = [];
    await c.watch(configmaps, {}, (e) => got.push(e));
    c.close();
    expect(got).toEqual([{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } }]);
  });

  it('resolves on abort and closes the connection', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((r) => (closed = r));
    srv = await recordingServer((_req, res) => {
      res.writeHead(200);
      res.write(`${ev('ADDED', 'a', '1')}\n`);
      res.on('close', closed);
    });
    const c = new RestClient({ server: srv.url });
    const ac = new AbortController();
    const watching = c.watch(configmaps, {}, () => ac.abort(), ac.signal);
    await expect(watching).resolves.toBeUndefined();
    await serverSawClose;
    c.close();
  });

  it('rejects with what onEvent throws, and on an undecodable line', async () => {
    srv = await recordingServer((req, res) => {
      res.writeHead(200);
      res.write(req.url.includes('bad') ? 'not json\n' : `${ev('ADDED', 'a', '1')}\n`);
    });
    const c = new RestClient({ server: srv.url });
    const thrown = await c.watch(configmaps, {}, () => {
      throw new Error('handler failed');
    }).catch((e: unknown) => e);
    expect((thrown as Error).message).toBe('handler failed');
    const bad = await c.watch(configmaps, { labelSelector: 'bad' }, () => {}).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(RequestError);
    expect((bad as Error).message).toMatch(/undecodable watch event/);
    c.close();
  });
});

describe('RestClient over TLS', { timeout: 10_000 }, () => {
  let dir: string;
  let server: https.Server;
  let url: string;
  let ca: Buffer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcc-tls-'));
    const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    writeFileSync(join(dir, 'key.pem'), pems.private);
    writeFileSync(join(dir, 'cert.pem'), pems.cert);
    ca = readFileSync(join(dir, 'cert.pem'));
    server = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert: ca }, (_req, res) => json(res, 200, { ok: true }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    { name: 'trusts the given CA', input: { ca: true, insecure: false }, want: 'ok' },
    { name: 'skips verification when told to', input: { ca: false, insecure: true }, want: 'ok' },
    { name: 'rejects an unknown CA', input: { ca: false, insecure: false }, want: 'RequestError' },
  ])('$name', async ({ input, want }) => {
    const c = new RestClient({ server: url, ca: input.ca ? ca : undefined, insecureSkipTLSVerify: input.insecure });
    const got = await c.raw('GET', '/version').then(
      () => 'ok',
      (e: Error) => e.name,
    );
    c.close();
    expect(got).toBe(want);
  });

  it('verifies every connection of a burst against the given CA', async () => {
    const c = new RestClient({ server: url, ca });
    const trusted = await Promise.all(Array.from({ length: 8 }, () => c.raw('GET', '/version')));
    c.close();
    expect(trusted).toEqual(Array(8).fill({ ok: true }));
    const stranger = new RestClient({ server: url });
    const refused = await Promise.allSettled(Array.from({ length: 4 }, () => stranger.raw('GET', '/version')));
    stranger.close();
    expect(refused.map((r) => (r.status === 'rejected' ? (r.reason as Error).name : 'ok'))).toEqual(Array(4).fill('RequestError'));
  });

  it('presents its client certificate to a server that asks for one', async () => {
    const key = readFileSync(join(dir, 'key.pem'));
    const mtls = https.createServer({ key, cert: ca, ca, requestCert: true, rejectUnauthorized: true }, (req, res) =>
      json(res, 200, { cn: (req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN }),
    );
    await new Promise<void>((resolve) => mtls.listen(0, '127.0.0.1', resolve));
    const mtlsURL = `https://127.0.0.1:${(mtls.address() as AddressInfo).port}`;
    try {
      const withCert = new RestClient({ server: mtlsURL, ca, cert: ca, key });
      const got = await Promise.all([withCert.raw('GET', '/version'), withCert.raw('GET', '/version')]);
      withCert.close();
      expect(got).toEqual([{ cn: '127.0.0.1' }, { cn: '127.0.0.1' }]);
      const without = new RestClient({ server: mtlsURL, ca });
      const refused = await without.raw('GET', '/version').then(() => 'ok', (e: Error) => e.name);
      without.close();
      expect(refused).toBe('RequestError');
    } finally {
      mtls.closeAllConnections();
      await new Promise((r) => mtls.close(r));
    }
  });

  it('fails each request, not its construction, when the client key does not parse', async () => {
    const c = new RestClient({ server: url, ca, cert: Buffer.from('not a certificate'), key: Buffer.from('not a key') });
    const err = await c.raw('GET', '/version').then(() => undefined, (e: Error) => e);
    c.close();
    expect(err?.message).toMatch(/PEM routines/);
  });
});
