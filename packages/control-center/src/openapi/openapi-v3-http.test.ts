/**
 * /openapi/v3/<group version> caching, as kube-openapi's handler3 answers it: the document's hash
 * is its ETag; `?hash=` of another version is a 301 to the current URL; only the hashed URL may be
 * cached for good; If-None-Match of the current ETag is a 304.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';

describe('/openapi/v3 group version documents', () => {
  let cc: RunningControlCenter;
  let headers: Record<string, string>;
  beforeAll(async () => {
    cc = await startTestControlCenter();
    headers = { authorization: `Bearer ${cc.adminToken}` };
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('caches by hash, redirects a stale hash and answers 304 to the current ETag', async () => {
    const root = (await (await fetch(`${cc.url}/openapi/v3`, { headers })).json()) as { paths: Record<string, { serverRelativeURL: string }> };
    const url = root.paths['api/v1']!.serverRelativeURL;
    const hash = new URL(url, cc.url).searchParams.get('hash')!;
    expect(hash).toMatch(/^[0-9A-F]+$/i);

    const hashed = await fetch(cc.url + url, { headers });
    expect(hashed.status).toBe(200);
    expect(hashed.headers.get('etag')).toBe(`"${hash}"`);
    expect(hashed.headers.get('cache-control')).toBe('public, immutable');
    expect(hashed.headers.get('vary')).toBe('Accept');
    expect(Date.parse(hashed.headers.get('expires')!)).toBeGreaterThan(Date.now() + 300 * 86_400_000);

    const plain = await fetch(`${cc.url}/openapi/v3/api/v1`, { headers });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('etag')).toBe(`"${hash}"`);
    expect(plain.headers.get('cache-control')).toBeNull();

    const stale = await fetch(`${cc.url}/openapi/v3/api/v1?hash=BOGUS`, { headers, redirect: 'manual' });
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toBe(url);

    const again = await fetch(cc.url + url, { headers: { ...headers, 'if-none-match': `"${hash}"` } });
    expect(again.status).toBe(304);
    const changed = await fetch(cc.url + url, { headers: { ...headers, 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
  });
});
