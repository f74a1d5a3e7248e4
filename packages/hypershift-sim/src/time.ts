/**
 * Time as the Kubernetes API writes it: metav1.Time is RFC 3339 with second precision
 * (`2024-01-01T00:00:00Z`), so every time the sim stores is truncated to the second. Delays are
 * measured from {@link startTime}, the latest moment a stored time can stand for, so a delay is
 * never shorter than asked (and at most one second longer).
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
 * The latest moment an RFC 3339 time can stand for, in milliseconds: a time without fractional
 * seconds was truncated, so `…:05Z` stands for up to `…:05.999Z`. Undefined when unparsable.
 */
export function startTime(value: unknown): number | undefined {
  const ms = parseTime(value);
  if (ms === undefined) return undefined;
  return /\.\d+(Z|[+-]\d\d:\d\d)$/i.test(value as string) ? ms : ms + 999;
}

/**
 * How long until `startMs + delayMs`, in milliseconds; 0 when that moment has passed, and always 0
 * for a delay ≤ 0 (no delay means no waiting, whatever the time's precision).
 */
export function remainingMs(nowMs: number, startMs: number, delayMs: number): number {
  if (delayMs <= 0) return 0;
  return Math.max(0, startMs + delayMs - nowMs);
}
