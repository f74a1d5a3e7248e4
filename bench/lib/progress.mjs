/**
 * Progress lines on stderr, prefixed with the time since the bench started, so a long run shows
 * what it is doing; the result table goes to stdout.
 */
const started = performance.now();

/** Seconds since the bench started. */
export const elapsedS = () => (performance.now() - started) / 1000;

/** Prints one progress line. */
export function progress(msg) {
  process.stderr.write(`[${elapsedS().toFixed(1).padStart(6)}s] ${msg}\n`);
}

/**
 * Prints `status()` every everyMs while `promise` is pending; returns what it resolves to.
 * For waits that can take long (placements, replication).
 */
export async function withTicker(promise, status, everyMs = 3000) {
  const t = setInterval(() => progress(status()), everyMs);
  try {
    return await promise;
  } finally {
    clearInterval(t);
  }
}

/** A promise resolved after ms. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Epoch milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
export const nowMs = () => performance.timeOrigin + performance.now();

/**
 * Polls `fn` every intervalMs until it returns a truthy value; returns it.
 * @throws Error naming `what` when timeoutMs passes first
 */
export async function waitFor(what, fn, timeoutMs, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
