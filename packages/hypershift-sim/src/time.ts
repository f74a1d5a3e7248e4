/**
 * Time as the Kubernetes API writes it: metav1.Time is RFC 3339 with second precision
 * (`2024-01-01T00:00:00Z`), so every time the sim stores is truncated to the second, and every
 * delay measured from a stored time may end up to one second early.
 */

/** Milliseconds since the epoch → RFC 3339, seconds precision. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 → milliseconds since the epoch; undefined for a missing or unparsable value. */
export function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * How long until `startMs + delayMs`, in milliseconds; 0 when that moment has passed.
 */
export function remainingMs(nowMs: number, startMs: number, delayMs: number): number {
  return Math.max(0, startMs + delayMs - nowMs);
}
