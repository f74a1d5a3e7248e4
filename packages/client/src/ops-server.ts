/**
 * The operations endpoint every hcc process serves besides its main work: `/metrics`
 * (Prometheus text format from a prom-client registry), `/healthz` (the process is alive) and
 * `/readyz` (it is doing its job: caches synced, leading or standing by).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Anything with prom-client's Registry `metrics()` and `contentType`. */
export interface MetricsSource {
  metrics(): Promise<string>;
  contentType: string;
}

/** Options of {@link serveOps}. */
export interface OpsServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port: number;
  metrics: MetricsSource;
  /** Returns '' when ready, else why not. */
  readiness: () => string;
}

/** A running ops server. */
export interface OpsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** One named check of a health endpoint and why it fails ('' or absent: it passes). */
export interface HealthCheck {
  name: string;
  failure?: string;
}

/**
 * The answer of `/healthz`, `/livez` or `/readyz` as kube-apiserver gives it: `ok` (200) or, with
 * `?verbose`, one `[+]name ok` / `[-]name failed: why` line per check and `<endpoint> check
 * passed`; any failed check makes it 503 (without `?verbose` the body then names what failed).
 * @param endpoint - `healthz`, `livez` or `readyz`
 * @param query - the request's query string (without `?`)
 * @see https://kubernetes.io/docs/reference/using-api/health-checks/
 */
export function healthAnswer(endpoint: string, checks: HealthCheck[], query: string): { code: number; body: string } {
  const failed = checks.filter((c) => c.failure);
  const verbose = new URLSearchParams(query).has('verbose');
  if (!verbose && !failed.length) return { code: 200, body: 'ok' };
  if (!verbose) return { code: 503, body: failed.map((c) => c.failure).join('; ') };
  const lines = checks.map((c) => (c.failure ? `[-]${c.name} failed: ${c.failure}` : `[+]${c.name} ok`));
  return { code: failed.length ? 503 : 200, body: `${lines.join('\n')}\n${endpoint} check ${failed.length ? 'failed' : 'passed'}\n` };
}

/** Starts the ops server and resolves once it listens. */
export function serveOps(opts: OpsServerOptions): Promise<OpsServer> {
  const server = http.createServer((req, res) => {
    const [path = '/', query = ''] = (req.url ?? '/').split('?', 2);
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      const checks: HealthCheck[] = [{ name: 'ping' }];
      if (path === '/readyz') checks.push({ name: 'ready', failure: opts.readiness() });
      const a = healthAnswer(path.slice(1), checks, query);
      res.writeHead(a.code, { 'content-type': 'text/plain; charset=utf-8' }).end(a.body);
    } else if (path === '/metrics') {
      opts.metrics
        .metrics()
        .then((body) => res.writeHead(200, { 'content-type': opts.metrics.contentType }).end(body))
        .catch((err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
        port,
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}
