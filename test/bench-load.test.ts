/**
 * The bench's open-loop writer (bench/lib/load.mjs fixedRate): the rate it reports as offered is
 * the rate its sends were made at, not the target by construction. A send that blocks the thread
 * for 4 ms allows at most 250 sends a second: at a target of 500/s, what was due in the window
 * goes out late, and the reported rate and the lag of the last send say so.
 */
import { describe, expect, it } from 'vitest';
import { fixedRate } from '../bench/lib/load.mjs';

/** Keeps this thread busy for ms milliseconds (a send that does its work synchronously). */
function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('fixedRate', () => {
  it('reports the rate its sends were made at when a send blocks', async () => {
    const r = await fixedRate({ ratePerSec: 500, durationMs: 1000, send: () => block(4) });
    expect(r.sent).toBe(500); // everything due in the window was sent, late
    expect(r.sentRate).toBeLessThan(300);
    expect(r.lastSendLagMs).toBeGreaterThan(500);
  });

  it('reports about the target when the sends keep up', async () => {
    const r = await fixedRate({ ratePerSec: 500, durationMs: 1000, send: async () => {} });
    expect(r.sent).toBe(500);
    expect(r.sentRate).toBeGreaterThan(400); // a loaded machine delays the last tick a little
    expect(r.sentRate).toBeLessThanOrEqual(500);
    expect(r.failed).toBe(0);
  });
});
