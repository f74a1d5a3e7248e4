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
 * The answer of `/healthz`, `/livez` or `/readyz` (or of one check, `/readyz/<name>`) as
 * kube-apiserver gives it: `ok` with 200; with `?verbose` one `[+]name ok` line per check and
 * `<endpoint> check passed`; checks named by `?exclude=name` (repeatable) are listed as
 * `[+]name excluded: ok` and not counted (names matching no check get a line
 * `warn: some health checks cannot be excluded: no matches for "name"`). Any failed check makes it 500 with every check listed
 * (`[-]name failed: why`) and `<endpoint> check failed`; a single check that fails answers
 * `internal server error: why`. An unknown single check is 404.
 * @param endpoint - `healthz`, `livez` or `readyz`
 * @param query - the request's query string (without `?`)
 * @param only - the check named after the endpoint in the path, if any
 * @see https://kubernetes.io/docs/reference/using-api/health-checks/
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go (handleRootHealth)
 */
export function healthAnswer(endpoint: string, checks: HealthCheck[], query: string, only?: string): { code: number; body: string } {
  if (only !== undefined) {
    const c = checks.find((x) => x.name === only);
    if (!c) return { code: 404, body: 'not found' };
    return c.failure ? { code: 500, body: `internal server error: ${c.failure}` } : { code: 200, body: 'ok' };
  }
  const params = new URLSearchParams(query);
  const excluded = new Set(params.getAll('exclude'));
  const counted = checks.filter((c) => !excluded.has(c.name));
  const failed = counted.some((c) => c.failure);
  if (!params.has('verbose') && !failed) return { code: 200, body: 'ok' };
  const lines = checks.map((c) => (excluded.has(c.name) ? `[+]${c.name} excluded: ok` : c.failure ? `[-]${c.name} failed: ${c.failure}` : `[+]${c.name} ok`));
  // As kube-apiserver's healthz handler: excluded names that match no check are said, sorted and quoted.
  const unknown = [...excluded].filter((n) => !checks.some((c) => c.name === n)).sort();
  if (unknown.length) lines.push(`warn: some health checks cannot be excluded: no matches for ${unknown.map((n) => JSON.stringify(n)).join(',')}`);
  return { code: failed ? 500 : 200, body: `${lines.join('\n')}\n${endpoint} check ${failed ? 'failed' : 'passed'}\n` };
}

/** The endpoint and the single check a health path names (`/readyz`, `/readyz/ping`), or undefined for other paths. */
export function healthPath(path: string): { endpoint: 'healthz' | 'livez' | 'readyz'; only?: string } | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path); // as Go's net/http decodes it: /readyz/%70ing is /readyz/ping
  } catch {
    return undefined;
  }
  const m = /^\/(healthz|livez|readyz)(?:\/([^/]+))?\/?$/.exec(decoded);
  return m ? { endpoint: m[1] as 'healthz' | 'livez' | 'readyz', ...(m[2] !== undefined && { only: m[2] }) } : undefined;
}

/** A host as it goes in a URL: an IPv6 address in brackets (`http://[::]:8080`). */
const urlHost = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/** Starts the ops server and resolves once it listens. */
export function serveOps(opts: OpsServerOptions): Promise<OpsServer> {
  const server = http.createServer((req, res) => {
    const [path = '/', query = ''] = (req.url ?? '/').split('?', 2);
    const health = healthPath(path);
    if (health) {
      const checks: HealthCheck[] = [{ name: 'ping' }];
      if (health.endpoint === 'readyz') checks.push({ name: 'ready', failure: opts.readiness() });
      const a = healthAnswer(health.endpoint, checks, query, health.only);
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
        url: `http://${urlHost(opts.host ?? '127.0.0.1')}:${port}`,
        port,
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}
