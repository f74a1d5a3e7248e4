/**
 * LIST and WATCH read at a consistent resourceVersion, and refuse the option combinations
 * kube-apiserver refuses: chunked lists are one snapshot at the first page's revision,
 * `resourceVersionMatch=Exact` reads an earlier revision, a future resourceVersion gets 504 with
 * Retry-After, and sendInitialEvents follows the WatchList rules.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import { request, startTestControlCenter, useTestControlCenter } from '../testing/in-process.js';

const CMS = '/api/v1/namespaces/default/configmaps';

interface Body {
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: { reason?: string; field?: string; message?: string }[]; retryAfterSeconds?: number };
  metadata?: { resourceVersion?: string; continue?: string };
  items?: { metadata: { name: string }; data?: Record<string, string> }[];
}

describe('consistent lists and list options', () => {
  const server = useTestControlCenter({ crds: allCRDs, namespaces: ['default'] });
  const send = (method: string, url: string, body?: unknown) => request<Body>(server(), method, url, body);
  const cm = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { set: 'snap' } }, data: { v } });
  const names = (b: Body) => b.items!.map((i) => i.metadata.name);
  /** Reads a watch for `ms` and returns its events. */
  const watchFor = async (query: string, ms: number, during?: () => Promise<unknown>, accept?: string) => {
    const ac = new AbortController();
    const cc = server();
    const res = await fetch(`${cc.url}${CMS}?watch=true&${query}`, { headers: { authorization: `Bearer ${cc.adminToken}`, ...(accept ? { accept } : {}) }, signal: ac.signal });
    expect(res.status).toBe(200);
    const events: { type: string; object: { kind?: string; apiVersion?: string; rows?: unknown[]; metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> } } }[] = [];
    let text = '';
    const reading = (async () => {
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          text += Buffer.from(chunk).toString('utf8');
          let nl: number;
          while ((nl = text.indexOf('\n')) >= 0) {
            events.push(JSON.parse(text.slice(0, nl)));
            text = text.slice(nl + 1);
          }
        }
      } catch {
        // aborted
      }
    })();
    await new Promise((r) => setTimeout(r, 100));
    await during?.();
    await new Promise((r) => setTimeout(r, ms));
    ac.abort();
    await reading;
    return events;
  };

  beforeAll(async () => {
    for (let i = 0; i < 10; i++) expect((await send('POST', CMS, cm(`cm-${i}`, 'old'))).code).toBe(201);
  });

  it('serves every page of a chunked list from the first page’s revision, whatever is written in between', async () => {
    const first = await send('GET', `${CMS}?labelSelector=set%3Dsnap&limit=4`);
    expect(first.code).toBe(200);
    const rv = first.body.metadata!.resourceVersion!;
    // Between pages: one deleted, one modified, one added after the continue key.
    expect((await send('DELETE', `${CMS}/cm-5`)).code).toBe(200);
    expect((await send('PUT', `${CMS}/cm-6`, cm('cm-6', 'new'))).code).toBe(200);
    expect((await send('POST', CMS, cm('cm-99', 'old'))).code).toBe(201);
    const seen = [...first.body.items!];
    let token = first.body.metadata!.continue;
    // Unpadded URL-safe base64, as kube-apiserver's storage.EncodeContinue writes it.
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    while (token) {
      const page = await send('GET', `${CMS}?labelSelector=set%3Dsnap&limit=4&continue=${encodeURIComponent(token)}`);
      expect(page.code).toBe(200);
      expect(page.body.metadata!.resourceVersion).toBe(rv);
      seen.push(...page.body.items!);
      token = page.body.metadata!.continue;
    }
    expect(seen.map((i) => i.metadata.name)).toEqual(Array.from({ length: 10 }, (_, i) => `cm-${i}`));
    expect(seen.every((i) => i.data!.v === 'old')).toBe(true);
    // A new list sees the writes.
    const now = await send('GET', `${CMS}?labelSelector=set%3Dsnap`);
    expect(names(now.body)).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'cm-6', 'cm-7', 'cm-8', 'cm-9', 'cm-99']);
    expect(now.body.items!.find((i) => i.metadata.name === 'cm-6')!.data!.v).toBe('new');

    // resourceVersionMatch=Exact reads the same earlier revision; NotOlderThan the latest.
    const exact = await send('GET', `${CMS}?labelSelector=set%3Dsnap&resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(exact.code).toBe(200);
    expect(exact.body.metadata!.resourceVersion).toBe(rv);
    expect(names(exact.body)).toEqual(Array.from({ length: 10 }, (_, i) => `cm-${i}`));
    // With a limit and no match, a resourceVersion means Exact too (the legacy semantics).
    const limited = await send('GET', `${CMS}?labelSelector=set%3Dsnap&resourceVersion=${rv}&limit=20`);
    expect(limited.body.metadata!.resourceVersion).toBe(rv);
    expect(names(limited.body)).toEqual(names(exact.body));
    const notOlder = await send('GET', `${CMS}?labelSelector=set%3Dsnap&resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    expect(names(notOlder.body)).toEqual(names(now.body));
    expect(Number(notOlder.body.metadata!.resourceVersion)).toBeGreaterThan(Number(rv));
  });

  it('answers a list at a resourceVersion not reached yet with 504 and Retry-After after waiting', async () => {
    const cur = Number((await send('GET', CMS)).body.metadata!.resourceVersion);
    const r = await send('GET', `${CMS}?resourceVersion=${cur + 1000}`);
    expect(r.code).toBe(504);
    expect(r.body.reason).toBe('Timeout');
    expect(r.body.message).toBe(`Too large resource version: ${cur + 1000}, current: ${cur}`);
    expect(r.body.details!.causes![0]!.reason).toBe('ResourceVersionTooLarge');
    expect(r.headers.get('retry-after')).toBe('1');
    // One write ahead: served as soon as the store reaches it.
    const waiting = send('GET', `${CMS}?resourceVersion=${cur + 1}`);
    await new Promise((res) => setTimeout(res, 200));
    expect((await send('POST', CMS, cm('late', 'x'))).code).toBe(201);
    const ok = await waiting;
    expect(ok.code).toBe(200);
    expect(names(ok.body)).toContain('late');
    // A watch from a future revision is refused the same way, before its stream starts (where
    // kube-apiserver's watch cache would open it: see handlers/watch.ts).
    const now = Number((await send('GET', CMS)).body.metadata!.resourceVersion);
    const w = await send('GET', `${CMS}?watch=true&resourceVersion=${now + 1000}`);
    expect(w.code).toBe(504);
    expect(w.body.message).toBe(`Too large resource version: ${now + 1000}, current: ${now}`);
    expect(w.headers.get('retry-after')).toBe('1');
    // A watch-list waits as kube-apiserver's does, and its timeout is the stream's one ERROR event
    // (the cacher's newErrWatcher), the stream then ended.
    const wl = await request<{ type?: string; object?: Body }>(
      server(),
      'GET',
      `${CMS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${now + 1000}`,
    );
    expect(wl.code).toBe(200);
    expect(wl.body.type).toBe('ERROR');
    expect(wl.body.object).toMatchObject({ kind: 'Status', code: 504, reason: 'Timeout', message: `Too large resource version: ${now + 1000}, current: ${now}` });
  });

  it.each([
    { name: 'sendInitialEvents on a list', q: 'sendInitialEvents=true', msg: 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list' },
    { name: 'a match without a resourceVersion', q: 'resourceVersionMatch=NotOlderThan', msg: 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' },
    { name: 'an unknown match', q: 'resourceVersion=1&resourceVersionMatch=Newest', msg: 'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""' },
    { name: 'Exact at 0', q: 'resourceVersion=0&resourceVersionMatch=Exact', msg: 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"' },
    { name: 'watch: sendInitialEvents without NotOlderThan', q: 'watch=true&sendInitialEvents=true', msg: 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan' },
    { name: 'watch: a match without sendInitialEvents', q: 'watch=true&resourceVersionMatch=NotOlderThan', msg: 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' },
    {
      name: 'watch: Exact',
      q: 'watch=true&sendInitialEvents=true&resourceVersionMatch=Exact',
      msg: '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    },
  ])('refuses $name with 422 Invalid ListOptions', async ({ q, msg }) => {
    const r = await send('GET', `${CMS}?${q}`);
    expect(r.code).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.message).toBe(`ListOptions.meta.k8s.io "" is invalid: ${msg}`);
    expect(r.body.details!.causes!.length).toBeGreaterThan(0);
  });

  it.each([
    { name: 'a resourceVersion that is not a number', q: 'resourceVersion=abc', msg: 'invalid resource version: strconv.ParseUint: parsing "abc": invalid syntax' },
    { name: 'a watch from one', q: 'watch=true&resourceVersion=-1', msg: 'invalid resource version: strconv.ParseUint: parsing "-1": invalid syntax' },
    { name: 'a resourceVersion with a continue token', q: 'resourceVersion=5&continue=abc', msg: 'specifying resource version is not allowed when using continue' },
    { name: 'a resourceVersion past uint64', q: 'resourceVersion=99999999999999999999999', msg: 'invalid resource version: strconv.ParseUint: parsing "99999999999999999999999": value out of range' },
    {
      name: 'a continue token of another collection',
      q: `limit=1&continue=${encodeURIComponent(Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: '/core/secrets/default/a' })).toString('base64'))}`,
      msg: 'continue key is not valid: the continue token is for another resource or namespace',
    },
    {
      name: 'a continue token at revision 0',
      q: `limit=1&continue=${Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 0, start: '/core/configmaps/default/a' })).toString('base64url')}`,
      msg: 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    },
    {
      name: 'a continue token whose key walks out of its collection',
      q: `limit=1&continue=${Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: '/core/configmaps/default/../../secrets/default/x' })).toString('base64url')}`,
      msg: 'continue key is not valid: /core/configmaps/default/../../secrets/default/x',
    },
    {
      name: 'a continue token with a fractional revision',
      q: `limit=1&continue=${encodeURIComponent(Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1.5, start: '/core/configmaps/default/a' })).toString('base64'))}`,
      msg: 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    },
  ])('refuses $name with 400', async ({ q, msg }) => {
    const r = await send('GET', `${CMS}?${q}`);
    expect(r.code).toBe(400);
    expect(r.body.message).toBe(msg);
  });

  it('watch-list: initial events, then the annotated bookmark; sendInitialEvents=false starts from now', async () => {
    const list = await watchFor('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', 300);
    const added = list.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name);
    expect(added).toContain('cm-0');
    const end = list.findIndex((e) => e.type === 'BOOKMARK');
    expect(end).toBe(added.length);
    expect(list[end]!.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });

    const fromNow = await watchFor('sendInitialEvents=false&resourceVersionMatch=NotOlderThan', 300, () => send('POST', CMS, cm('fresh', 'x')));
    expect(fromNow.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED fresh']);
    // The legacy watch with no resourceVersion still starts with the synthetic ADDED events.
    const legacy = await watchFor('', 200);
    expect(legacy.map((e) => e.object.metadata.name)).toContain('fresh');
    expect(legacy.every((e) => e.type === 'ADDED')).toBe(true);
  });

  it('bookmarks take the shape of the stream: PartialObjectMetadata for metadata-only watches, a Table without rows for Table watches', async () => {
    const query = 'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';
    const meta = await watchFor(query, 300, undefined, 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1');
    const kinds = new Set(meta.map((e) => `${e.object.apiVersion} ${e.object.kind}`));
    expect([...kinds]).toEqual(['meta.k8s.io/v1 PartialObjectMetadata']);
    const bookmark = meta.find((e) => e.type === 'BOOKMARK')!;
    expect(bookmark.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThan(0);

    const table = await watchFor(query, 300, undefined, 'application/json;as=Table;g=meta.k8s.io;v=v1');
    const tableBookmark = table.find((e) => e.type === 'BOOKMARK')!;
    expect(tableBookmark.object).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [] });
    expect(table.filter((e) => e.type === 'ADDED').every((e) => e.object.kind === 'Table' && e.object.apiVersion === 'meta.k8s.io/v1')).toBe(true);
  });

  it('timeoutSeconds: an integer, as ListOptions decodes it; one past the longest timer still keeps the watch open', async () => {
    for (const bad of ['1e3', '0x10', '1.5', '-1', 'soon', '9223372036854775808']) {
      for (const watch of ['watch=true&', '']) {
        const r = await send('GET', `${CMS}?${watch}timeoutSeconds=${encodeURIComponent(bad)}`);
        expect(r.code, `${watch}${bad}`).toBe(400);
        expect(r.body.message).toContain(`timeoutSeconds: Invalid value: "${bad}"`);
      }
    }
    // -0 parses as 0 (the default), as ParseInt reads it.
    expect((await send('GET', `${CMS}?timeoutSeconds=-0`)).code).toBe(200);
    // 2147484 s is past setTimeout's 2^31-1 ms: the watch must not end at once.
    const started = Date.now();
    const events = await watchFor('timeoutSeconds=2147484', 300, () => send('POST', CMS, cm('long-timeout', 'x')));
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toContain('ADDED long-timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });
});

describe('Exact reads past the kept history', () => {
  it('answers 410 Expired for a revision older than the history, and for a continue token from before it', async () => {
    const cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['default'], historyCapacity: 5 });
    try {
      const send = (method: string, url: string, body?: unknown) => request<Body>(cc, method, url, body);
      for (let i = 0; i < 3; i++) await send('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `a-${i}` } });
      const first = await send('GET', `${CMS}?limit=1`);
      const rv = first.body.metadata!.resourceVersion!;
      for (let i = 0; i < 10; i++) await send('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `b-${i}` } });
      const exact = await send('GET', `${CMS}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      expect(exact.code).toBe(410);
      expect(exact.body.reason).toBe('Expired');
      expect(exact.body.message).toBe('The resourceVersion for the provided list is too old.');
      const next = await send('GET', `${CMS}?limit=1&continue=${encodeURIComponent(first.body.metadata!.continue!)}`);
      expect(next.code).toBe(410);
      expect(next.body.message).toContain('or use the continue token in this response to retrieve the remainder of the results');
      // The 410 carries a token that goes on from the same key at the latest revision
      // (handleCompactedErrorForPaging): the rest of the list, created since included.
      const rest: string[] = [];
      let token = next.body.metadata!.continue;
      expect(token).toBeTruthy();
      while (token) {
        const page = await send('GET', `${CMS}?limit=4&continue=${encodeURIComponent(token)}`);
        expect(page.code).toBe(200);
        rest.push(...(page.body.items ?? []).map((o) => o.metadata.name));
        token = page.body.metadata!.continue;
      }
      expect(rest).toEqual(['a-1', 'a-2', ...Array.from({ length: 10 }, (_, i) => `b-${i}`)]);
    } finally {
      await cc.close();
    }
  });
});
