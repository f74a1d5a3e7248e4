import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthAnswer, healthPath, serveOps, type OpsServer } from './ops-server.js';

describe('healthAnswer', () => {
  it.each([
    { name: 'passing, terse', input: { checks: [{ name: 'ping' }], query: '' }, want: { code: 200, body: 'ok' } },
    { name: 'failing, terse: 500 with every check listed', input: { checks: [{ name: 'ping' }, { name: 'ready', failure: 'syncing caches' }], query: '' }, want: { code: 500, body: '[+]ping ok\n[-]ready failed: syncing caches\nreadyz check failed\n' } },
    { name: 'passing, verbose', input: { checks: [{ name: 'ping' }, { name: 'ready', failure: '' }], query: 'verbose' }, want: { code: 200, body: '[+]ping ok\n[+]ready ok\nreadyz check passed\n' } },
    { name: 'failing, verbose=1 among other parameters', input: { checks: [{ name: 'ping' }, { name: 'ready', failure: 'standing by' }], query: 'x=1&verbose=1' }, want: { code: 500, body: '[+]ping ok\n[-]ready failed: standing by\nreadyz check failed\n' } },
    { name: 'a failing check excluded', input: { checks: [{ name: 'ping' }, { name: 'ready', failure: 'standing by' }], query: 'exclude=ready' }, want: { code: 200, body: 'ok' } },
    { name: 'excluded checks listed, verbose', input: { checks: [{ name: 'ping' }, { name: 'ready', failure: 'standing by' }], query: 'verbose&exclude=ready&exclude=nope' }, want: { code: 200, body: '[+]ping ok\n[+]ready excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nreadyz check passed\n' } },
    { name: 'unknown excludes said sorted, also on failure; terse success stays ok', input: { checks: [{ name: 'ping' }, { name: 'ready', failure: 'standing by' }], query: 'exclude=zz&exclude=aa' }, want: { code: 500, body: '[+]ping ok\n[-]ready failed: standing by\nwarn: some health checks cannot be excluded: no matches for "aa","zz"\nreadyz check failed\n' } },
    { name: 'unknown exclude, terse', input: { checks: [{ name: 'ping' }], query: 'exclude=nope' }, want: { code: 200, body: 'ok' } },
  ])('$name', ({ input, want }) => {
    expect(healthAnswer('readyz', input.checks, input.query)).toEqual(want);
  });

  it('answers one check at /readyz/<name>', () => {
    const checks = [{ name: 'ping' }, { name: 'ready', failure: 'standing by' }];
    expect(healthAnswer('readyz', checks, '', 'ping')).toEqual({ code: 200, body: 'ok' });
    expect(healthAnswer('readyz', checks, '', 'ready')).toEqual({ code: 500, body: 'internal server error: standing by' });
    expect(healthAnswer('readyz', checks, '', 'nope')).toEqual({ code: 404, body: 'not found' });
    expect([healthPath('/readyz'), healthPath('/livez/ping'), healthPath('/readyz/'), healthPath('/metrics'), healthPath('/readyz/a/b')]).toEqual([{ endpoint: 'readyz' }, { endpoint: 'livez', only: 'ping' }, { endpoint: 'readyz' }, undefined, undefined]);
    expect([healthPath('/readyz/%70ing'), healthPath('/readyz/%zz'), healthPath('/readyz//')]).toEqual([{ endpoint: 'readyz', only: 'ping' }, undefined, undefined]);
  });
});

describe('serveOps', () => {
  let ops: OpsServer;
  let why = 'syncing caches';
  beforeAll(async () => {
    ops = await serveOps({ port: 0, metrics: { metrics: async () => 'm_total 1\n', contentType: 'text/plain' }, readiness: () => why });
  });
  afterAll(async () => {
    await ops?.close();
  });
  const get = async (path: string) => {
    const res = await fetch(ops.url + path);
    return { code: res.status, body: await res.text() };
  };

  it('answers /healthz, /livez, /readyz (terse and verbose) and /metrics; 404 elsewhere', async () => {
    why = 'syncing caches';
    expect(await get('/healthz')).toEqual({ code: 200, body: 'ok' });
    expect(await get('/livez?verbose')).toEqual({ code: 200, body: '[+]ping ok\nlivez check passed\n' });
    expect(await get('/readyz')).toEqual({ code: 500, body: '[+]ping ok\n[-]ready failed: syncing caches\nreadyz check failed\n' });
    expect(await get('/readyz/ready')).toEqual({ code: 500, body: 'internal server error: syncing caches' });
    expect(await get('/readyz/ping')).toEqual({ code: 200, body: 'ok' });
    why = '';
    expect(await get('/readyz')).toEqual({ code: 200, body: 'ok' });
    expect(await get('/metrics')).toEqual({ code: 200, body: 'm_total 1\n' });
    expect((await get('/nope')).code).toBe(404);
  });
});

describe('serveOps on IPv6', () => {
  it('gives a URL with the address in brackets, which answers', async () => {
    const ops = await serveOps({ host: '::1', port: 0, metrics: { metrics: async () => '', contentType: 'text/plain' }, readiness: () => '' }).catch((err: NodeJS.ErrnoException) => {
      // A machine without IPv6 on loopback cannot run this check: say so rather than pass.
      throw new Error(`listening on ::1 failed (${err.code}): this machine has no IPv6 loopback`);
    });
    try {
      expect(ops.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await fetch(`${ops.url}/healthz`)).status).toBe(200);
    } finally {
      await ops.close();
    }
  });
});
