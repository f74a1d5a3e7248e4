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
    expect(await get('/readyz?verbose')).toEqual({ code: 200, body: '[+]ping ok\n[+]serving ok\nreadyz check passed\n' });
    expect(await get('/healthz?verbose')).toEqual({ code: 200, body: '[+]ping ok\nhealthz check passed\n' });
    expect(await get('/readyz?verbose&exclude=serving')).toEqual({ code: 200, body: '[+]ping ok\n[+]serving excluded: ok\nreadyz check passed\n' });
  });

  it('answers one check at /readyz/<name> to an authenticated caller', async () => {
    const auth = { headers: { authorization: `Bearer ${cc.adminToken}` } };
    const one = await fetch(`${cc.url}/readyz/serving`, auth);
    expect([one.status, await one.text()]).toEqual([200, 'ok']);
    const missing = await fetch(`${cc.url}/livez/nope`, auth);
    expect(missing.status).toBe(404);
  });
});
