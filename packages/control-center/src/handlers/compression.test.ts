/**
 * Response compression as kube-apiserver's APIResponseCompression does it: a response over
 * 128 KiB is gzipped when the client accepts gzip (kubectl and client-go do); smaller ones,
 * clients that do not ask, and watch streams are sent as they are.
 */
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GzipThresholdBytes } from '../server.js';
import { request, useTestControlCenter } from '../testing/in-process.js';

const CMS = '/api/v1/namespaces/default/configmaps';

/** GET with exactly these headers (no client-side decompression): status, headers, raw body. */
function rawGet(url: string, headers: Record<string, string>, readMs?: number): Promise<{ code: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const done = () => resolve({ code: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) });
      res.on('end', done);
      if (readMs) setTimeout(() => (req.destroy(), done()), readMs);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('response compression', () => {
  const cc = useTestControlCenter();
  const auth = () => ({ authorization: `Bearer ${cc().adminToken}` });

  it('gzips a list over 128 KiB for a client that accepts gzip; the same bytes unzipped', async () => {
    const value = 'x'.repeat(2048);
    for (let i = 0; i < 80; i++) expect((await request(cc(), 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}` }, data: { v: value } })).code).toBe(201);
    const plain = await rawGet(cc().url + CMS, auth());
    expect(plain.code).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(GzipThresholdBytes);
    const gz = await rawGet(cc().url + CMS, { ...auth(), 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body.length).toBeLessThan(plain.body.length / 10);
    const list = JSON.parse(gunzipSync(gz.body).toString()) as { items: unknown[] };
    expect(list.items).toHaveLength(80);
    expect(JSON.parse(plain.body.toString())).toEqual(list);
  });

  it('leaves small responses and clients that ask for another encoding alone', async () => {
    const small = await rawGet(`${cc().url}${CMS}/big-0`, { ...auth(), 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    const br = await rawGet(cc().url + CMS, { ...auth(), 'accept-encoding': 'br' });
    expect(br.code).toBe(200);
    expect(br.headers['content-encoding']).toBeUndefined();
  });

  it('never compresses a watch stream', async () => {
    const w = await rawGet(`${cc().url}${CMS}?watch=true`, { ...auth(), 'accept-encoding': 'gzip' }, 500);
    expect(w.code).toBe(200);
    expect(w.headers['content-encoding']).toBeUndefined();
    expect(w.body.toString()).toContain('"type":"ADDED"');
  });
});
