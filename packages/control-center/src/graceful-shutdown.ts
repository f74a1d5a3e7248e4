/**
 * Graceful shutdown of the HTTP server, as kube-apiserver drains on SIGTERM with
 * `--shutdown-send-retry-after`: once `app.close()` starts,
 * - open watches end with their final chunk (clients relist elsewhere or after a restart), and
 *   their connections close once requests pipelined behind them are answered;
 * - requests being served finish and get their answer; the last one on each connection carries
 *   `Connection: close` (not an earlier one: HTTP/1.1 pipelined requests behind it are answered
 *   too, never stored unanswered);
 * - a request that arrives meanwhile, on a kept-alive connection or a new one, is not served: 429
 *   with `Retry-After: 5` and `Connection: close` (client-go waits and retries);
 * - for up to `drainMs` the listener and idle kept-alive connections stay open, so a request a
 *   client is already sending gets that 429 instead of a reset connection; the wait ends early
 *   once no connection has been open for 200 ms (a client told `Connection: close` reconnects for
 *   its next request and gets the 429 too). Then connections with no request being served are closed
 *   (idle ones, and ones that never sent a whole request head), and the server waits for the rest.
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/server/filters/with_retry_after.go
 */
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Tunables of {@link registerGracefulShutdown}, in milliseconds. */
export interface ShutdownOptions {
  /** Longest wait for connections to close before idle ones are closed (default 1,000). */
  drainMs?: number;
  /** Longest wait for watch clients to take their stream's end (default 5,000). */
  watchGraceMs?: number;
}

/** Seconds a client is asked to wait (Retry-After) while the server shuts down, as upstream. */
export const ShutdownRetryAfterSeconds = 5;

/** What the server's routes need from the shutdown logic. */
export interface GracefulShutdown {
  /** Registers an open watch: `end` finishes its stream. Returns the function that unregisters it. */
  trackWatch(socket: Socket, end: () => void): () => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long the drain window stays open with no connection left before it ends early, in milliseconds. */
const DrainQuietMs = 200;

/**
 * Installs the hooks described above on `app` (before any other onRequest hook, so a request
 * during shutdown is answered before authentication).
 * @param reject429 - sends the 429 Status (the caller owns the Status encoding)
 */
export function registerGracefulShutdown(app: FastifyInstance, reject429: (reply: FastifyReply) => void, opts: ShutdownOptions = {}): GracefulShutdown {
  const drainMs = opts.drainMs ?? 1_000;
  const watchGraceMs = opts.watchGraceMs ?? 5_000;
  let closing = false;
  const sockets = new Set<Socket>();
  const watches = new Map<() => void, Socket>();
  /** Requests being served per connection: only the last one closes it. */
  const inFlight = new WeakMap<Socket, number>();

  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  app.addHook('onRequest', (req, reply, done) => {
    const socket = req.raw.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    reply.raw.once('close', () => inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1));
    if (!closing) return done();
    reply.header('connection', 'close').header('retry-after', String(ShutdownRetryAfterSeconds));
    reject429(reply);
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    if (closing && (inFlight.get(req.raw.socket) ?? 0) <= 1) reply.header('connection', 'close');
    done(null, payload);
  });

  app.addHook('preClose', async () => {
    closing = true;
    // End each stream with its final chunk, then its connection, and wait until the client has
    // it: destroying the connection instead could drop the final chunk, and clients would see a
    // broken stream rather than its end. A connection with requests pipelined behind the watch
    // stays open for their answers (the last one closes it); the wait ends when they are sent.
    const gone = [...watches].map(([end, socket]) => {
      const closed = new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        const answered = () => {
          if (socket.destroyed || ((inFlight.get(socket) ?? 0) === 0 && socket.writableLength === 0)) resolve();
          else setTimeout(answered, 10);
        };
        setTimeout(answered, 10);
      });
      const queued = (inFlight.get(socket) ?? 0) > 1;
      end();
      if (!queued) socket.end();
      return closed;
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(gone), new Promise((resolve) => (timer = setTimeout(resolve, watchGraceMs)))]);
    clearTimeout(timer);
    // The drain window: requests already on their way get the 429 rather than a reset. It ends
    // early once no connection has been open for a short quiet time: a client whose last answer
    // said `Connection: close` reconnects for its next request (a few ms on loopback), and that
    // request must find the listener still open to get its 429.
    const quietMs = Math.min(DrainQuietMs, drainMs);
    let emptySince: number | undefined;
    for (const deadline = Date.now() + drainMs; Date.now() < deadline; await sleep(10)) {
      if (sockets.size > 0) emptySince = undefined;
      else if (Date.now() - (emptySince ??= Date.now()) >= quietMs) break;
    }
    // Then connections with no request being served go: idle kept-alive ones, and ones opened
    // but never sent a whole request head (Node's closeIdleConnections counts those as active,
    // and the server's close would wait for its headers timeout, a minute or more).
    for (const socket of sockets) if ((inFlight.get(socket) ?? 0) === 0) socket.destroy();
  });

  return {
    trackWatch(socket, end) {
      watches.set(end, socket);
      socket.once('close', end);
      return () => {
        watches.delete(end);
        socket.off('close', end);
      };
    },
  };
}
