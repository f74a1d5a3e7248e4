import { describe, expect, it } from 'vitest';
import { parseDuration } from './control-center.js';

describe('parseDuration (--event-ttl)', () => {
  it.each([
    ['1h', 3_600_000],
    ['30m', 1_800_000],
    ['90s', 90_000],
    ['1h30m', 5_400_000],
    ['1h0m0s', 3_600_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['45', 45_000],
    ['0', 0],
  ])('%s → %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each(['', 'h', '5x', '-1h', '1d', 'm5'])('refuses %j', (input) => {
    expect(() => parseDuration(input)).toThrow(/not a duration/);
  });
});
