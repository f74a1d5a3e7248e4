/**
 * Starts a real, single-member etcd for tests and benchmarks: the `etcd` binary (Debian package
 * `etcd-server`; `ETCD_BIN` overrides the path) on free loopback ports with a temporary data dir,
 * removed again by `stop()`. etcd cannot listen on port 0, so the ports are found by binding
 * throwaway servers to port 0 first.
 * Used by tests and bench scripts only; never by the control center itself.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';

/** A running test etcd. */
export interface TestEtcd {
  /** Client URL, e.g. `http://127.0.0.1:40123`. */
  endpoint: string;
  proc: ChildProcess;
  /** What etcd printed so far (for failure messages). */
  output(): string;
  /** Stops etcd (SIGTERM, SIGKILL after 5 s) and removes its data dir. */
  stop(): Promise<void>;
}

/** Path of the etcd binary, or undefined when it is not installed. */
export function findEtcd(): string | undefined {
  if (process.env.ETCD_BIN) return existsSync(process.env.ETCD_BIN) ? process.env.ETCD_BIN : undefined;
  const which = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : '';
  if (found) return found;
  return ['/usr/bin/etcd', '/usr/local/bin/etcd'].find((p) => existsSync(p));
}

/** Free TCP ports on 127.0.0.1 (bound together, then released). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<net.Server>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => resolve(s));
    })),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/**
 * Starts etcd and resolves once it answers a read.
 * @throws Error naming the fix when the etcd binary is missing, or with etcd's output when it does not come up within timeoutMs
 */
export async function startTestEtcd(timeoutMs = 20_000): Promise<TestEtcd> {
  const bin = findEtcd();
  if (!bin) {
    throw new Error('etcd is not installed: the etcd storage tests need a real etcd binary. Install it (Debian/Ubuntu: `apt-get install etcd-server`; .ci/run does) or set ETCD_BIN to its path.');
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'hcc-etcd-'));
  const [clientPort, peerPort] = await freePorts(2);
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  let out = '';
  const proc = spawn(
    bin,
    [
      '--name', 'test',
      '--data-dir', path.join(dir, 'data'),
      '--listen-client-urls', client,
      '--advertise-client-urls', client,
      '--listen-peer-urls', peer,
      '--initial-advertise-peer-urls', peer,
      '--initial-cluster', `test=${peer}`,
      '--initial-cluster-state', 'new',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ETCD_UNSUPPORTED_ARCH: process.arch === 'x64' || process.arch === 'arm64' ? '' : process.arch } },
  );
  proc.stdout!.on('data', (d) => (out = (out + d.toString()).slice(-20_000)));
  proc.stderr!.on('data', (d) => (out = (out + d.toString()).slice(-20_000)));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const probe = new Etcd3({ hosts: client, dialTimeout: 1_000 });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`etcd exited with code ${proc.exitCode}:\n${out}`);
      try {
        await probe.get('/probe').string();
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`etcd did not answer within ${timeoutMs} ms:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (err) {
    await stop();
    throw err;
  } finally {
    probe.close();
  }
  return { endpoint: client, proc, output: () => out, stop };
}

/**
 * A TCP proxy in front of etcd that can cut every connection and refuse new ones (a partition),
 * or stall: stop forwarding without closing anything (a network that drops packets), until resumed.
 */
export async function startProxy(target: string): Promise<{ endpoint: string; cut(): void; heal(): void; stall(): void; resume(): void; retarget(to: string): void; close(): Promise<void> }> {
  let { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let down = false;
  let stalled = false;
  const server = net.createServer((client) => {
    if (down) return client.destroy();
    const upstream = net.connect(Number(port), hostname);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => {
        sockets.delete(s);
        pairs.delete(pair);
      });
      s.on('error', () => {});
    }
    if (stalled) {
      client.pause();
      upstream.pause();
    } else client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    heal() {
      down = false;
    },
    /** New connections go to another etcd (one restored from an older snapshot, say). */
    retarget(to: string) {
      ({ hostname, port } = new URL(to));
    },
    stall() {
      stalled = true;
      for (const [c, u] of pairs) {
        c.unpipe(u);
        u.unpipe(c);
        c.pause();
        u.pause();
      }
    },
    resume() {
      stalled = false;
      for (const [c, u] of pairs) c.pipe(u).pipe(c);
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** A held-back etcd watch: see {@link holdWatch}. */
export interface HeldWatch {
  /** Handles every response held, in order, and stops holding. */
  release(): void;
  /** Handles the first response held and keeps holding the rest. */
  releaseOne(): void;
}

/**
 * Holds back the etcd watch responses an EtcdStore receives until released: a replica whose watch
 * lags (its process paused, its event loop busy) while etcd itself answers at once. Reaches into
 * the store's private watch cache; for tests only.
 * @param store - an opened EtcdStore (typed loosely so that this module does not load it)
 */
export function holdWatch(store: object): HeldWatch {
  const cache = (store as { cache: { onResponse: (stream: unknown, res: unknown) => void } }).cache;
  const handle = cache.onResponse.bind(cache);
  const held: [unknown, unknown][] = [];
  let holding = true;
  cache.onResponse = (stream, res) => (holding ? held.push([stream, res]) : handle(stream, res));
  return {
    release: () => {
      holding = false;
      for (const [stream, res] of held.splice(0)) handle(stream, res);
    },
    releaseOne: () => {
      const first = held.shift();
      if (first) handle(...first);
    },
  };
}

/** Whether promise p settles (resolves or rejects) within ms milliseconds. */
export const settledWithin = (p: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([p.then(() => true, () => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
