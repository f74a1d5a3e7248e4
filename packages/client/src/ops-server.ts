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

/** Starts the ops server and resolves once it listens. */
export function serveOps(opts: OpsServerOptions): Promise<OpsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' || path === '/livez') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    } else if (path === '/readyz') {
      const why = opts.readiness();
      res.writeHead(why ? 503 : 200, { 'content-type': 'text/plain' }).end(why || 'ok');
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
