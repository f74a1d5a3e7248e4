/** /healthz, /livez and /readyz answer as kube-apiserver's do: `ok`, or one line per check with ?verbose. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from './control-center.js';
import { startTestControlCenter } from './testing/in-process.js';

describe('health endpoints', () => {
  let cc: RunningControlCenter;
  beforeAll(async () => {
    cc = await startTestControlCenter();
  });
  afterAll(async () => {
    await cc?.close();
  });
  const get = async (path: string) => {
    const res = await fetch(cc.url + path);
    return { code: res.status, body: await res.text() };
  };

  it('answers ok, and lists its checks with ?verbose, without credentials', async () => {
    for (const p of ['/healthz', '/livez', '/readyz']) expect(await get(p)).toEqual({ code: 200, body: 'ok' });
    expect(await get('/readyz?verbose')).toEqual({ code: 200, body: '[+]ping ok\n[+]storage ok\n[+]serving ok\nreadyz check passed\n' });
    expect(await get('/healthz?verbose')).toEqual({ code: 200, body: '[+]ping ok\n[+]storage ok\nhealthz check passed\n' });
    expect(await get('/livez?verbose')).toEqual({ code: 200, body: '[+]ping ok\nlivez check passed\n' });
    expect(await get('/readyz?verbose&exclude=serving')).toEqual({ code: 200, body: '[+]ping ok\n[+]storage ok\n[+]serving excluded: ok\nreadyz check passed\n' });
  });

  it('answers /metrics only to an authenticated caller, as kube-apiserver', async () => {
    const anonymous = await get('/metrics');
    expect(anonymous.code).toBe(401);
    expect(JSON.parse(anonymous.body)).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
    const res = await fetch(`${cc.url}/metrics`, { headers: { authorization: `Bearer ${cc.adminToken}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^# TYPE apiserver_request_total counter$/m);
  });

  it('answers one check at /readyz/<name> to an authenticated caller', async () => {
    const auth = { headers: { authorization: `Bearer ${cc.adminToken}` } };
    const one = await fetch(`${cc.url}/readyz/serving`, auth);
    expect([one.status, await one.text()]).toEqual([200, 'ok']);
    const missing = await fetch(`${cc.url}/livez/nope`, auth);
    expect(missing.status).toBe(404);
    // The check name is decoded, as Go's net/http decodes the path; a path naming none is a 404, not a 500.
    const escaped = await fetch(`${cc.url}/readyz/%70ing`, auth);
    expect([escaped.status, await escaped.text()]).toEqual([200, 'ok']);
    expect((await fetch(`${cc.url}/healthz//`, auth)).status).toBe(404);
    expect((await fetch(`${cc.url}/readyz/%zz`, auth)).status).toBe(400); // a malformed escape, as Go's net/http refuses it
  });

  it('answers /version/ without credentials too (public info, as /version)', async () => {
    expect((await get('/version/')).code).not.toBe(401);
  });

  // Last: it breaks this control center's store.
  it('fails /healthz and /readyz, not /livez, once the store failed to persist a write', async () => {
    await (cc.store as unknown as { inner: { db: { close(): Promise<void> } } }).inner.db.close();
    const write = await fetch(`${cc.url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }),
    });
    expect(write.status).toBe(500);
    const ready = await get('/readyz?verbose');
    expect(ready.code).toBe(500);
    expect(ready.body).toMatch(/^\[\+\]ping ok\n\[-\]storage failed: writes are refused until a restart: .+\n\[\+\]serving ok\nreadyz check failed\n$/);
    expect((await get('/healthz')).code).toBe(500);
    expect(await get('/livez')).toEqual({ code: 200, body: 'ok' });
  });
});
