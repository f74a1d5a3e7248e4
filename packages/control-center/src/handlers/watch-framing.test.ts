/**
 * Watch streams are HTTP/1.1 chunked responses whose chunks the server frames itself, once per
 * batch shared by every watcher. Read here byte by byte with a raw socket: the stream must be
 * valid chunked encoding ending with the zero-size chunk, both when the watch owns its
 * connection and when it was pipelined behind another request (then the response writes them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';

const CMS = '/api/v1/namespaces/default/configmaps';

/** Creates a ConfigMap in `default` on `target`, expecting 201. */
async function createConfigMap(target: RunningControlCenter, name: string, data?: Record<string, string>): Promise<void> {
  const res = await fetch(target.url + CMS, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...(data && { data }) }),
  });
  expect(res.status).toBe(201);
}

/** Splits raw HTTP/1.1 responses (Content-Length or chunked); returns them and what is left unparsed. */
function parseResponses(raw: Buffer): { responses: { status: number; body: string; complete: boolean }[] } {
  const responses: { status: number; body: string; complete: boolean }[] = [];
  let at = 0;
  while (at < raw.length) {
    const headEnd = raw.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const head = raw.toString('latin1', at, headEnd);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)![1]);
    let p = headEnd + 4;
    const length = /\r\ncontent-length: (\d+)/i.exec(head);
    if (length) {
      responses.push({ status, body: raw.toString('utf8', p, p + Number(length[1])), complete: true });
      at = p + Number(length[1]);
      continue;
    }
    expect(head).toMatch(/\r\ntransfer-encoding: chunked/i);
    const parts: Buffer[] = [];
    let complete = false;
    for (;;) {
      const lineEnd = raw.indexOf('\r\n', p);
      if (lineEnd < 0) break;
      const size = parseInt(raw.toString('latin1', p, lineEnd), 16);
      expect(Number.isNaN(size), `chunk size at ${p}: ${JSON.stringify(raw.toString('latin1', p, lineEnd + 2))}`).toBe(false);
      if (lineEnd + 2 + size + 2 > raw.length) break;
      expect(raw.toString('latin1', lineEnd + 2 + size, lineEnd + 4 + size)).toBe('\r\n');
      p = lineEnd + 4 + size;
      if (size === 0) {
        complete = true;
        break;
      }
      parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    }
    responses.push({ status, body: Buffer.concat(parts).toString('utf8'), complete });
    at = p;
    if (!complete) break;
  }
  return { responses };
}

describe('watch stream framing', () => {
  let cc: RunningControlCenter;
  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs });
  });
  afterAll(async () => {
    await cc?.close();
  });

  const create = (name: string) => createConfigMap(cc, name, { text: 'ü€😀'.repeat(50) });

  it.each([
    { name: 'a watch that owns its connection', pipelined: false },
    { name: 'a watch pipelined behind a list', pipelined: true },
  ])('$name: valid chunked encoding, every event, then the final chunk', async ({ pipelined }) => {
    const url = new URL(cc.url);
    const sock = net.connect({ host: url.hostname, port: Number(url.port) });
    await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
    const chunks: Buffer[] = [];
    sock.on('data', (d: Buffer) => chunks.push(d));
    const auth = `Authorization: Bearer ${cc.adminToken}\r\nHost: ${url.host}\r\n`;
    const prefix = `${pipelined ? 'p' : 'o'}-`;
    const watch = `GET ${CMS}?watch=true&resourceVersion=0&timeoutSeconds=2 HTTP/1.1\r\n${auth}\r\n`;
    sock.write(pipelined ? `GET ${CMS} HTTP/1.1\r\n${auth}\r\n${watch}` : watch);
    await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 20; i++) await create(`${prefix}${i}`);
    // timeoutSeconds=2 ends the stream with the zero-size chunk.
    for (const deadline = Date.now() + 10_000; ; ) {
      const { responses } = parseResponses(Buffer.concat(chunks));
      if (responses.length === (pipelined ? 2 : 1) && responses.at(-1)!.complete) break;
      if (Date.now() > deadline) throw new Error(`stream did not end: ${Buffer.concat(chunks).toString('latin1').slice(-300)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    sock.destroy();
    const { responses } = parseResponses(Buffer.concat(chunks));
    expect(responses.map((r) => r.status)).toEqual(pipelined ? [200, 200] : [200]);
    const events = responses
      .at(-1)!
      .body.split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string }; data?: { text: string } } });
    const mine = events.filter((e) => e.object.metadata.name.startsWith(prefix));
    expect(mine.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(Array.from({ length: 20 }, (_, i) => `ADDED ${prefix}${i}`));
    expect(mine.every((e) => e.object.data?.text === 'ü€😀'.repeat(50))).toBe(true);
  });

  it('drops a watcher that falls too far behind and keeps serving the others', async () => {
    const small = await startTestControlCenter({ crds: allCRDs, watch: { maxBufferedBytes: 256 * 1024 } });
    try {
      const url = new URL(small.url);
      const open = async (read: boolean) => {
        const sock = net.connect({ host: url.hostname, port: Number(url.port) });
        await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
        let bytes = 0;
        const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
        sock.on('error', () => {});
        sock.on('data', (d: Buffer) => (bytes += d.length));
        sock.write(`GET ${CMS}?watch=true&resourceVersion=0 HTTP/1.1\r\nAuthorization: Bearer ${small.adminToken}\r\nHost: ${url.host}\r\n\r\n`);
        await new Promise((r) => setTimeout(r, 100));
        if (!read) sock.pause();
        return { sock, closed, bytes: () => bytes };
      };
      /** Open watch streams, from the server's /metrics. */
      const openWatches = async () => Number(/^apiserver_registered_watchers (\d+)/m.exec(await (await fetch(`${small.url}/metrics`, { headers: { authorization: `Bearer ${small.adminToken}` } })).text())![1]);
      const slow = await open(false);
      const fast = await open(true);
      const watching = await openWatches();
      // ~0.9 MB per object: the kernel's socket buffers take several MB before the server's own
      // buffer grows; write until the server has dropped a stream (at most ~45 MB).
      const value = 'x'.repeat(900_000);
      for (let i = 0; i < 50 && (await openWatches()) === watching; i++) await createConfigMap(small, `big-${i}`, { v: value });
      // The server dropped the reader that read nothing (its buffer passed 256 KiB beyond what the
      // kernel holds): once it reads again it finds the connection closed.
      slow.sock.resume();
      await Promise.race([slow.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('the slow watcher was not dropped')), 10_000))]);
      // ...
      // and the one that reads is still served.
      const before = fast.bytes();
      await createConfigMap(small, 'after');
      for (const deadline = Date.now() + 5_000; fast.bytes() === before; ) {
        if (Date.now() > deadline) throw new Error('the reading watcher got nothing after the slow one was dropped');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(fast.sock.destroyed).toBe(false);
      fast.sock.destroy();
    } finally {
      await small.close();
    }
  }, 60_000);

  it('sends an initial burst larger than the slow-client limit whole to a client that reads (list-watch and resourceVersion=0)', async () => {
    const small = await startTestControlCenter({ crds: allCRDs, watch: { maxBufferedBytes: 256 * 1024 } });
    try {
      const names = Array.from({ length: 24 }, (_, i) => `burst-${i}`);
      for (const name of names) await createConfigMap(small, name, { v: 'y'.repeat(500_000) });
      // ~12 MB of initial events: more than the kernel's socket buffers take at once, and far over the limit, which is for a client falling behind live events.
      for (const query of ['watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', 'watch=true&resourceVersion=0']) {
        const ac = new AbortController();
        const res = await fetch(`${small.url}${CMS}?${query}`, { headers: { authorization: `Bearer ${small.adminToken}` }, signal: ac.signal });
        expect(res.status).toBe(200);
        const seen = new Set<string>();
        let endBookmark = false;
        let text = '';
        const reader = res.body!.getReader();
        const dec = new TextDecoder();
        const deadline = Date.now() + 20_000;
        try {
          while (seen.size < names.length || (query.includes('sendInitialEvents') && !endBookmark)) {
            if (Date.now() > deadline) break;
            const { done, value } = await reader.read();
            if (done) break;
            text += dec.decode(value, { stream: true });
            let nl: number;
            while ((nl = text.indexOf('\n')) >= 0) {
              const ev = JSON.parse(text.slice(0, nl)) as { type: string; object: { metadata: { name?: string; annotations?: Record<string, string> } } };
              text = text.slice(nl + 1);
              if (ev.type === 'ADDED' && ev.object.metadata.name?.startsWith('burst-')) seen.add(ev.object.metadata.name);
              if (ev.type === 'BOOKMARK' && ev.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true') endBookmark = true;
            }
          }
        } finally {
          ac.abort();
        }
        expect(seen.size, query).toBe(names.length);
        if (query.includes('sendInitialEvents')) expect(endBookmark).toBe(true);
      }
    } finally {
      await small.close();
    }
  }, 60_000);

  it("sends a list-watch's initial events as its client reads them: the server holds a bounded part at a time, and changes meanwhile follow the initial-events-end bookmark", async () => {
    const big = await startTestControlCenter({ crds: allCRDs });
    const serverSockets = new Set<net.Socket>();
    big.app.server.on('connection', (s: net.Socket) => serverSockets.add(s));
    const agent = new http.Agent({ keepAlive: false });
    try {
      // 40 objects of ~500 KB: ~20 MB of initial events, several times what the kernel's socket buffers take.
      const names = Array.from({ length: 40 }, (_, i) => `init-${String(i).padStart(2, '0')}`);
      for (const name of names) await createConfigMap(big, name, { v: 'z'.repeat(500_000) });
      const url = new URL(big.url);
      const query = 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=60';
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.get({ host: url.hostname, port: url.port, path: `${CMS}?${query}`, agent, headers: { authorization: `Bearer ${big.adminToken}` } }, resolve);
        req.on('error', reject);
      });
      expect(res.statusCode).toBe(200);
      // The client reads nothing for a while: what the server keeps queued for it stays small.
      res.pause();
      let mostQueued = 0;
      for (let i = 0; i < 20; i++) {
        await new Promise((r) => setTimeout(r, 50));
        for (const s of serverSockets) mostQueued = Math.max(mostQueued, s.writableLength);
      }
      expect(mostQueued, 'bytes queued on the server for a client that reads nothing').toBeLessThan(4 * 1024 * 1024);
      // A change while the initial events are still going out.
      const patched = await fetch(`${big.url}${CMS}/init-00`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${big.adminToken}`, 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ metadata: { labels: { changed: 'yes' } } }),
      });
      expect(patched.status).toBe(200);
      const patchedRV = Number(((await patched.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
      const events: { type: string; object: { metadata: { name?: string; resourceVersion: string; annotations?: Record<string, string>; labels?: Record<string, string> }; data?: { v: string } } }[] = [];
      let text = '';
      res.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`stream incomplete after 30 s: ${events.length} events`)), 30_000);
        res.on('data', (d: string) => {
          text += d;
          let nl: number;
          while ((nl = text.indexOf('\n')) >= 0) {
            events.push(JSON.parse(text.slice(0, nl)));
            text = text.slice(nl + 1);
          }
          if (events.some((e) => e.type === 'MODIFIED')) {
            clearTimeout(timer);
            resolve();
          }
        });
        res.resume();
      });
      res.destroy();
      const summary = events.map((e) => (e.type === 'BOOKMARK' ? `BOOKMARK ${e.object.metadata.annotations?.['k8s.io/initial-events-end']}` : `${e.type} ${e.object.metadata.name}`));
      expect(summary).toEqual([...names.map((n) => `ADDED ${n}`), 'BOOKMARK true', 'MODIFIED init-00']);
      expect(events.slice(0, 40).every((e) => e.object.data?.v.length === 500_000 && !e.object.metadata.labels)).toBe(true);
      const bookmarkRV = Number(events[40]!.object.metadata.resourceVersion);
      expect(bookmarkRV).toBeLessThan(patchedRV);
      expect(Number(events[41]!.object.metadata.resourceVersion)).toBe(patchedRV);
    } finally {
      agent.destroy();
      await big.close();
    }
  }, 60_000);

  it('keeps a slow reader of the initial events with a small slow-client limit: what is still buffered at the initial-events-end bookmark is not a client behind on live events', async () => {
    const small = await startTestControlCenter({ crds: allCRDs, watch: { maxBufferedBytes: 64 * 1024 } });
    const agent = new http.Agent({ keepAlive: false });
    try {
      const names = Array.from({ length: 16 }, (_, i) => `slow-${String(i).padStart(2, '0')}`);
      for (const name of names) await createConfigMap(small, name, { v: 's'.repeat(500_000) });
      const url = new URL(small.url);
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const q = 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=60';
        const req = http.get({ host: url.hostname, port: url.port, path: `${CMS}?${q}`, agent, headers: { authorization: `Bearer ${small.adminToken}` } }, resolve);
        req.on('error', reject);
      });
      expect(res.statusCode).toBe(200);
      // A reader slower than the server: the kernel's buffers stay full, so the server's own
      // buffer for this connection holds data when the last initial events and the bookmark go out.
      const seen: string[] = [];
      let text = '';
      res.setEncoding('utf8');
      const outcome = await new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('timeout'), 30_000);
        res.on('data', (d: string) => {
          text += d;
          let nl: number;
          while ((nl = text.indexOf('\n')) >= 0) {
            const ev = JSON.parse(text.slice(0, nl)) as { type: string; object: { metadata: { name?: string; annotations?: Record<string, string> } } };
            text = text.slice(nl + 1);
            seen.push(ev.type === 'BOOKMARK' ? `BOOKMARK ${ev.object.metadata.annotations?.['k8s.io/initial-events-end']}` : `${ev.type} ${ev.object.metadata.name}`);
            if (ev.type === 'BOOKMARK') {
              clearTimeout(timer);
              resolve('bookmark');
            }
          }
          res.pause();
          setTimeout(() => res.resume(), 5);
        });
        res.on('close', () => resolve('closed'));
      });
      res.destroy();
      expect(outcome).toBe('bookmark');
      expect(seen).toEqual([...names.map((n) => `ADDED ${n}`), 'BOOKMARK true']);
    } finally {
      agent.destroy();
      await small.close();
    }
  }, 60_000);

  it('ends a watch whose client left while it waited for its resourceVersion (no stream kept open for nobody)', async () => {
    const openWatches = async () => Number(/^apiserver_registered_watchers (\d+)/m.exec(await (await fetch(`${cc.url}/metrics`, { headers: { authorization: `Bearer ${cc.adminToken}` } })).text())![1]);
    const storeWatchers = () => (cc.store as unknown as { inner: { watcherCount(): number } }).inner.watcherCount();
    const before = await openWatches();
    const registered = storeWatchers();
    const list = (await (await fetch(cc.url + CMS, { headers: { authorization: `Bearer ${cc.adminToken}` } })).json()) as { metadata: { resourceVersion: string } };
    // A resourceVersion the store has not reached yet: the watch waits for it (up to 3 s).
    const ahead = Number(list.metadata.resourceVersion) + 1;
    const ac = new AbortController();
    const pending = fetch(`${cc.url}${CMS}?watch=true&resourceVersion=${ahead}`, { headers: { authorization: `Bearer ${cc.adminToken}` }, signal: ac.signal }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    ac.abort();
    await pending;
    await new Promise((r) => setTimeout(r, 100));
    await create('reached');
    await new Promise((r) => setTimeout(r, 300));
    expect(await openWatches()).toBe(before);
    expect(storeWatchers(), 'watchers registered with the store').toBe(registered);
  });

  it('serves watch after watch on one kept-alive connection without piling listeners on it (client-go re-watches on the same connection)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.name);
    process.on('warning', onWarning);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL(cc.url);
    const sockets = new Set<unknown>();
    try {
      // Node warns at the 11th listener of one event on one emitter.
      for (let i = 0; i < 12; i++) {
        await new Promise<void>((resolve, reject) => {
          const req = http.get({ host: url.hostname, port: url.port, path: `${CMS}?watch=true&timeoutSeconds=1`, agent, headers: { authorization: `Bearer ${cc.adminToken}` } }, (res) => {
            sockets.add(req.socket);
            res.resume();
            res.on('end', () => resolve());
          });
          req.on('error', reject);
        });
      }
    } finally {
      agent.destroy();
      process.off('warning', onWarning);
    }
    expect(sockets.size).toBe(1);
    expect(warnings.filter((w) => w === 'MaxListenersExceededWarning')).toEqual([]);
  }, 60_000);
});
