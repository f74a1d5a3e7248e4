/**
 * The load generator every HTTP measurement uses, baselines included: undici over a Pool of
 * `connections` keep-alive connections (pipelining 1), one worker loop per connection, closed
 * loop (a worker sends its next request when the previous response has been read to the end).
 * Latency is from just before the request is handed to undici to the last byte of the response
 * body, in milliseconds.
 */
import { Samples } from './stats.mjs';
import { nowMs } from './progress.mjs';

/**
 * Runs requests until durationMs passes or `count` requests were sent, whichever comes first.
 * @param opts.next - (i, worker) → { method, path, headers, body } for request i, or null to stop this worker
 * @param opts.ok - (statusCode) → whether the answer counts as a success (default 2xx)
 * @param opts.onBody - when given, the body is read as text and passed here as (text, i, worker, req) (else bytes are drained)
 * @param opts.onOk - called as (req, i, worker) for every successful request
 * @param opts.stop - () → true to stop early (e.g. the server was killed on purpose)
 * @returns requests, errors (non-ok or transport), requests/s over the run, latency samples, status counts
 */
export async function closedLoop({ pool, connections, durationMs = Infinity, count = Infinity, next, ok = (s) => s >= 200 && s < 300, onBody, onOk, stop = () => false }) {
  const latencies = new Samples();
  const statuses = {};
  let issued = 0;
  let completed = 0;
  let errors = 0;
  let firstError;
  const start = performance.now();
  const deadline = start + durationMs;
  const worker = async (w) => {
    for (;;) {
      if (issued >= count || performance.now() >= deadline || stop()) return;
      const i = issued++;
      const req = next(i, w);
      if (!req) return;
      const t0 = performance.now();
      try {
        const res = await pool.request(req);
        let text;
        if (onBody) text = await res.body.text();
        else for await (const _ of res.body); // drain: the same cost for every measurement
        const t1 = performance.now();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (ok(res.statusCode)) {
          latencies.push(t1 - t0);
          completed++;
          if (onBody) onBody(text, i, w, req);
          if (onOk) onOk(req, i, w);
        } else {
          errors++;
          firstError ??= `${req.method} ${req.path}: ${res.statusCode} ${(text ?? '').slice(0, 300)}`;
        }
      } catch (err) {
        errors++;
        firstError ??= `${req.method} ${req.path}: ${err.message}`;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, w) => worker(w)));
  const elapsedMs = performance.now() - start;
  return { requests: completed, errors, firstError, statuses, elapsedMs, rps: (completed * 1000) / elapsedMs, latencies };
}

/**
 * Open loop at a fixed rate: calls `send(i, sentAtMs)` ratePerSec times a second for durationMs,
 * whatever the previous calls are doing (a slow server does not slow the writer down).
 * Every 5 ms tick sends what is due (the last tick comes at the end of the window). A send
 * that blocks this thread delays the ones after it, and what was due in the window but not yet
 * sent goes out after it: the rate is then below ratePerSec, and sentRate says so.
 * Resolves when every send settled.
 * @returns sent, failed, skipped (not sent: maxInFlight reached), sentRate (sends per second from
 *   the start to the last send, or over durationMs if that is longer: the load actually offered),
 *   lastSendLagMs (how long after the window the last send was made; 0 when on time),
 *   achievedRate (successful sends per second from the start until the last one settled: the
 *   rate the server completed them at), and the latency of each send's promise in milliseconds
 */
export async function fixedRate({ ratePerSec, durationMs, send, maxInFlight = 10_000 }) {
  const latencies = new Samples();
  const inflight = new Set();
  let sent = 0;
  let failed = 0;
  let skipped = 0;
  let firstError;
  let lastSendAt = 0; // ms after start when the last send was called
  const start = performance.now();
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const elapsed = Math.min(now - start, durationMs);
      const due = Math.floor((elapsed * ratePerSec) / 1000);
      while (sent + skipped < due) {
        if (inflight.size >= maxInFlight) {
          skipped++;
          continue;
        }
        const i = sent++;
        const t0 = performance.now();
        const p = Promise.resolve()
          .then(() => {
            lastSendAt = performance.now() - start;
            return send(i, nowMs());
          })
          .then(
            () => latencies.push(performance.now() - t0),
            (err) => {
              failed++;
              firstError ??= err.message;
            },
          )
          .finally(() => inflight.delete(p));
        inflight.add(p);
      }
      if (now - start >= durationMs) resolve();
      else setTimeout(tick, Math.min(5, start + durationMs - now));
    };
    tick();
  });
  await Promise.all(inflight);
  const elapsedMs = performance.now() - start;
  return {
    sent,
    failed,
    skipped,
    firstError,
    sentRate: (sent * 1000) / Math.max(durationMs, lastSendAt),
    lastSendLagMs: Math.max(0, lastSendAt - durationMs),
    achievedRate: ((sent - failed) * 1000) / elapsedMs,
    latencies,
  };
}
