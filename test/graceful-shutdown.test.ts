/**
 * Graceful shutdown of `hcc control-center` on SIGTERM, as kube-apiserver drains: with 32 clients
 * creating HostedClusters over kept-alive connections and a watch open, SIGTERM ends the watch
 * stream cleanly, every request already being served gets its answer, later requests get 429 (Retry-After)
 * or find the port closed, and the process exits 0. After a restart on the same data, the stored
 * HostedClusters are exactly those whose create was answered 201: nothing acknowledged is lost and
 * nothing is stored that its client was not told about.
 */
import { afterAll, describe, expect, it } from 'vitest';
import tls from 'node:tls';
import { Agent, Pool, request } from 'undici';
import { KubeConfig } from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startControlCenterProcess, type ControlCenterProcess } from './helpers/processes.js';
import { hccBin, tempDir, waitFor } from './helpers/tools.js';
import { hostedCluster } from './conformance/fixtures.js';

const ns = 'drain';
const cmPath = '/api/v1/namespaces/default/configmaps';
const hcPath = `/apis/hypershift.openshift.io/v1beta1/namespaces/${ns}/hostedclusters`;

interface Endpoint {
  origin: string;
  ca: string;
  headers: Record<string, string>;
}

function endpointOf(kubeconfig: string): Endpoint {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const cluster = kc.getCurrentCluster()!;
  const user = kc.getCurrentUser()!;
  return {
    origin: new URL(cluster.server).origin,
    ca: Buffer.from(cluster.caData!, 'base64').toString(),
    headers: { authorization: `Bearer ${user.token}`, accept: 'application/json', 'content-type': 'application/json' },
  };
}

/** GETs `path` from a control center (the status and the JSON body; a dedicated connection). */
async function getJSON(cc: ControlCenterProcess, path: string): Promise<{ status: number; body: { items?: { metadata: { name: string } }[] } }> {
  const ep = endpointOf(cc.kubeconfig);
  const res = await request(`${ep.origin}${path}`, { headers: ep.headers, dispatcher: new Agent({ connect: { ca: ep.ca } }) });
  return { status: res.statusCode, body: (await res.body.json()) as { items?: { metadata: { name: string } }[] } };
}

/** The names of the objects listed at `path`. */
const namesAt = async (cc: ControlCenterProcess, path: string) => new Set((await getJSON(cc, path)).body.items!.map((i) => i.metadata.name));

describe('SIGTERM drains the control center', () => {
  let cc: ControlCenterProcess | undefined;
  let restarted: ControlCenterProcess | undefined;
  afterAll(async () => {
    await restarted?.stop();
    await cc?.stop();
  });

  it('answers every request it served, ends watches, exits 0, and stored exactly what it acknowledged', async () => {
    cc = await startControlCenterProcess();
    const ep = endpointOf(cc.kubeconfig);
    const connect = { ca: ep.ca };
    const pool = new Pool(ep.origin, { connections: 32, connect, keepAliveTimeout: 60_000 });
    const ns0 = await pool.request({ method: 'POST', path: '/api/v1/namespaces', headers: ep.headers, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }) });
    expect(ns0.statusCode).toBe(201);
    await ns0.body.dump();

    // A watch from now on, on its own connection.
    const watchAgent = new Agent({ connect, bodyTimeout: 0 });
    const watch = await request(`${ep.origin}${hcPath}?watch=true&resourceVersion=0`, { headers: ep.headers, dispatcher: watchAgent });
    expect(watch.statusCode).toBe(200);
    const watchEnded = watch.body.text().then(
      (text) => ({ ok: true as const, lines: text.split('\n').filter(Boolean).length }),
      (err: Error) => ({ ok: false as const, err }),
    );

    const outcome = new Map<string, number | string>(); // name → HTTP status, or the network error's code
    let stop = false;
    let n = 0;
    let answered201 = 0;
    const client = async () => {
      while (!stop) {
        const name = `hc-${n++}`;
        try {
          // Clients pause now and then, so connections sit idle when the signal comes.
          if (Math.random() < 0.2) await new Promise((r) => setTimeout(r, Math.random() * 20));
          const res = await pool.request({ method: 'POST', path: hcPath, headers: ep.headers, body: JSON.stringify(hostedCluster(ns, name)) });
          outcome.set(name, res.statusCode);
          await res.body.dump();
          if (res.statusCode === 201) answered201++;
          else if (res.statusCode === 429) {
            expect(res.headers['retry-after']).toBe('5');
            stop = true;
          }
        } catch (err) {
          outcome.set(name, (err as { code?: string }).code ?? String(err));
          stop = true;
        }
      }
    };
    const clients = Array.from({ length: 32 }, client);
    // SIGTERM while creates are in full flow.
    while (answered201 < 300) await new Promise((r) => setTimeout(r, 10));
    const exited = new Promise<number | null>((r) => cc!.proc.once('exit', (code) => r(code)));
    cc.proc.kill('SIGTERM');
    const code = await exited;
    await Promise.all(clients);
    await pool.close().catch(() => {});

    expect(code).toBe(0);
    const w = await watchEnded;
    expect(w.ok, w.ok ? '' : String(w.err)).toBe(true);
    expect(w.ok && w.lines).toBeGreaterThan(0);
    await watchAgent.close();

    // Answers after SIGTERM are 201 (served) or 429 (arrived while shutting down), or, for a
    // client that connects after the drain, a refused or reset connection (nothing was read).
    const statuses = [...outcome.values()];
    expect(statuses.filter((s) => typeof s === 'number' && s !== 201 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);

    restarted = await startControlCenterProcess({ dir: cc.dir });
    const stored = await namesAt(restarted, hcPath);
    const acknowledged = [...outcome].filter(([, s]) => s === 201).map(([name]) => name);
    expect(acknowledged.length).toBeGreaterThanOrEqual(300);
    expect(acknowledged.filter((name) => !stored.has(name)), 'acknowledged but lost').toEqual([]);
    expect(
      [...stored].filter((name) => outcome.get(name) !== 201).map((name) => `${name}: ${outcome.get(name)}`),
      'stored but its client got no 201',
    ).toEqual([]);
  }, 120_000);

  it.each([
    { name: 'with a watcher that never hangs up', stuckWatcher: true },
    { name: 'with no watcher (the drain window keeps idle connections open)', stuckWatcher: false },
  ])('answers a request on a connection kept alive across the signal with 429 and Retry-After, $name', async ({ stuckWatcher }) => {
    const p = await startControlCenterProcess();
    try {
      const ep = endpointOf(p.kubeconfig);
      const url = new URL(ep.origin);
      const raw = stuckWatcher ? tls.connect({ host: url.hostname, port: Number(url.port), ca: ep.ca, allowHalfOpen: true }) : undefined;
      if (raw) {
        await new Promise<void>((resolve, reject) => raw.once('secureConnect', () => resolve()).once('error', reject));
        const head = new Promise<string>((resolve) => raw.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
        raw.write(`GET /api/v1/namespaces?watch=true HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${ep.headers.authorization}\r\n\r\n`);
        expect(await head).toMatch(/^HTTP\/1.1 200/);
      }
      // A kept-alive connection, opened before the signal and idle when it comes.
      const pool = new Pool(ep.origin, { connections: 1, connect: { ca: ep.ca } });
      const first = await pool.request({ method: 'GET', path: cmPath, headers: ep.headers });
      expect(first.statusCode).toBe(200);
      await first.body.dump();

      const exited = new Promise<number | null>((r) => p.proc.once('exit', (code) => r(code)));
      p.proc.kill('SIGTERM');
      // Sent as soon as the signal is taken (the log line), and again while requests are still
      // served (201: the server has not begun to close): the first other answer must be the 429.
      await waitFor('the signal taken', () => p.output().includes('"msg":"shutting down"'), 10_000, 10);
      const post = (name: string) => pool.request({ method: 'POST', path: cmPath, headers: { ...ep.headers, 'content-type': 'application/json' }, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"}}` });
      let late = await post('late-0');
      for (let i = 1; late.statusCode === 201 && i < 100; i++) {
        await late.body.dump();
        await new Promise((r) => setTimeout(r, 10));
        late = await post(`late-${i}`);
      }
      expect(late.statusCode).toBe(429);
      expect(late.headers['retry-after']).toBe('5');
      expect(late.headers.connection).toBe('close');
      expect(await late.body.json()).toMatchObject({ kind: 'Status', code: 429, reason: 'TooManyRequests', details: { retryAfterSeconds: 5 } });
      expect(await exited).toBe(0);
      raw?.destroy();
      await pool.close().catch(() => {});
    } finally {
      await p.stop();
    }
  }, 60_000);

  it('answers a request pipelined behind an open watch before closing the connection', async () => {
    const p = await startControlCenterProcess();
    let again: ControlCenterProcess | undefined;
    try {
      const ep = endpointOf(p.kubeconfig);
      const url = new URL(ep.origin);
      const s = tls.connect({ host: url.hostname, port: Number(url.port), ca: ep.ca });
      await new Promise<void>((resolve, reject) => s.once('secureConnect', () => resolve()).once('error', reject));
      let data = '';
      s.on('data', (d: Buffer) => (data += d.toString('latin1')));
      const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
      const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"behind-watch"}}';
      s.write(
        `GET ${cmPath}?watch=true HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${ep.headers.authorization}\r\n\r\n` +
          `POST ${cmPath} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${ep.headers.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      // The POST is served (the watch shows its ADDED event) but answered only after the watch ends.
      for (const deadline = Date.now() + 10_000; !data.includes('"name":"behind-watch"'); ) {
        if (Date.now() > deadline) throw new Error(`no event: ${data}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const exited = new Promise<number | null>((r) => p.proc.once('exit', (code) => r(code)));
      p.proc.kill('SIGTERM');
      expect(await exited).toBe(0);
      await closed;
      const statuses = [...data.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
      expect(statuses, data.slice(-500)).toEqual([200, 201]);
      expect(data.indexOf('0\r\n\r\nHTTP/1.1 201')).toBeGreaterThan(0); // the watch's final chunk, then the answer

      again = await startControlCenterProcess({ dir: p.dir });
      expect((await getJSON(again, `${cmPath}/behind-watch`)).status).toBe(200);
    } finally {
      await again?.stop();
      await p.stop();
    }
  }, 60_000);

  it('answers every pipelined request it stored (HTTP/1.1 pipelining, two requests per write)', async () => {
    const p = await startControlCenterProcess();
    let again: ControlCenterProcess | undefined;
    try {
      const ep = endpointOf(p.kubeconfig);
      const url = new URL(ep.origin);
      const told = new Map<string, number>(); // name → status of its answer
      const sent: string[] = [];
      let seq = 0;
      const post = (name: string) => {
        const b = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
        return `POST ${cmPath} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${ep.headers.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`;
      };
      let created = 0;
      const connection = async () => {
        for (;;) {
          const s = tls.connect({ host: url.hostname, port: Number(url.port), ca: ep.ca });
          const ok = await new Promise<boolean>((resolve) => s.once('secureConnect', () => resolve(true)).once('error', () => resolve(false)));
          if (!ok) return; // the listener is closed
          let data = '';
          let closed = false;
          s.on('data', (d: Buffer) => (data += d.toString('latin1')));
          s.on('close', () => (closed = true));
          s.on('error', () => {});
          while (!closed) {
            const names = [`cm-${seq++}`, `cm-${seq++}`];
            sent.push(...names);
            data = '';
            s.write(post(names[0]!) + post(names[1]!));
            const answers = () => [...data.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
            while (!closed && answers().length < 2) await new Promise((r) => setTimeout(r, 1));
            answers().forEach((code, i) => {
              told.set(names[i]!, code);
              if (code === 201) created++;
            });
          }
          s.destroy();
        }
      };
      const conns = Array.from({ length: 16 }, connection);
      while (created < 200) await new Promise((r) => setTimeout(r, 10));
      const exited = new Promise<number | null>((r) => p.proc.once('exit', (code) => r(code)));
      p.proc.kill('SIGTERM');
      expect(await exited).toBe(0);
      await Promise.all(conns);

      again = await startControlCenterProcess({ dir: p.dir });
      const stored = new Set([...(await namesAt(again, cmPath))].filter((n) => n.startsWith('cm-')));
      expect([...told.values()].filter((c) => c !== 201 && c !== 429)).toEqual([]);
      expect([...stored].filter((n) => told.get(n) !== 201), 'stored but not answered 201').toEqual([]);
      expect(sent.filter((n) => told.get(n) === 201 && !stored.has(n)), 'answered 201 but lost').toEqual([]);
    } finally {
      await again?.stop();
      await p.stop();
    }
  }, 60_000);

  it('hcc up stopped while it is still starting stops what it started and exits 0', async () => {
    const { dir, cleanup } = tempDir('hcc-up-');
    try {
      for (const after of ['✓ control center serving', '• starting the scheduler']) {
        let out = '';
        const proc = spawn(process.execPath, [hccBin, 'up', '--state-dir', dir, '--management-clusters', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
        proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
        const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
        for (const deadline = Date.now() + 30_000; !out.includes(after); ) {
          if (Date.now() > deadline) throw new Error(`no "${after}" in: ${out}`);
          await new Promise((r) => setTimeout(r, 20));
        }
        const pids = Object.entries(JSON.parse(readFileSync(path.join(dir, 'processes.json'), 'utf8')) as Record<string, number>);
        proc.kill('SIGTERM');
        expect(await exited, out).toBe(0);
        expect(out).toContain('✓ stopped');
        expect(out).not.toContain('hcc is up');
        // Every process it started has exited, and the list of their pids is gone with them.
        expect(existsSync(path.join(dir, 'processes.json')), out).toBe(false);
        const alive = pids.filter(([, pid]) => {
          try {
            process.kill(pid, 0);
            return true;
          } catch {
            return false;
          }
        });
        expect(alive, out).toEqual([]);
      }
    } finally {
      cleanup();
    }
  }, 90_000);

  it('hcc up stopped by a Ctrl-C in its terminal (SIGINT to the whole process group) says it stopped, not that it restarts anything', async () => {
    const { dir, cleanup } = tempDir('hcc-up-group-');
    try {
      let out = '';
      const proc = spawn(process.execPath, [hccBin, 'up', '--state-dir', dir, '--management-clusters', '2'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
      for (const deadline = Date.now() + 60_000; !out.includes('hcc is up'); ) {
        if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`no "hcc is up" in: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      process.kill(-proc.pid!, 'SIGINT');
      expect(await exited, out).toBe(0);
      expect(out).toContain('✓ stopped');
      expect(out).not.toMatch(/exited \(.*\); restarting/);
      expect(existsSync(path.join(dir, 'processes.json')), out).toBe(false);
    } finally {
      cleanup();
    }
  }, 90_000);

  it.each([
    ['control-center', (dir: string) => ['control-center', '--port', '0', '--data-dir', path.join(dir, 'data'), '--kubeconfig', path.join(dir, 'admin.kubeconfig'), '--scheduler-kubeconfig', path.join(dir, 's.kubeconfig')], '"msg":"shutting down"'],
    ['up', (dir: string) => ['up', '--state-dir', dir, '--management-clusters', '2'], '✓ stopped'],
  ])('a SIGTERM while hcc %s is still loading its modules stops it cleanly once started (exit 0, not killed)', async (command, argsFor, stoppedLine) => {
    const { dir, cleanup } = tempDir('hcc-early-signal-');
    try {
      // A driver that loads bin/hcc.js like node does and signals itself as soon as hcc.js has
      // run its first lines, while dist/main.js and its modules are still loading (~300 ms; without
      // hcc.js's early handlers the driver signals at 100 ms, and the default action kills it: 143).
      const driver = [
        `process.argv.splice(1, 1, ${JSON.stringify(hccBin)});`,
        `const t0 = Date.now();`,
        `const poll = setInterval(() => { if (globalThis[Symbol.for('hcc.earlySignals')] || Date.now() - t0 > 100) { clearInterval(poll); process.kill(process.pid, 'SIGTERM'); } }, 1);`,
        `await import(${JSON.stringify(hccBin)});`,
      ].join('\n');
      const args = argsFor(dir);
      const proc = spawn(process.execPath, ['--input-type=module', '-e', driver, 'hcc', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const [code, signal] = await new Promise<[number | null, string | null]>((r) => proc.once('exit', (c, sig) => r([c, sig])));
      expect({ code, signal }, out).toEqual({ code: 0, signal: null });
      expect(out).toContain(stoppedLine);
      if (command === 'up') {
        // Nothing was started: no child process, no line after the stop.
        expect(out).not.toContain('serving at');
        expect(existsSync(path.join(dir, 'processes.json')), out).toBe(false);
      }
    } finally {
      cleanup();
    }
  }, 60_000);
});
