import { describe, expect, it } from 'vitest';
import { isLoopbackHost, parseDuration } from './control-center.js';

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

describe('isLoopbackHost (--anonymous warns off loopback)', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['192.0.2.2', false],
    ['cc.example.com', false],
    ['128.0.0.1', false],
  ])('%s → %s', (host, want) => {
    expect(isLoopbackHost(host)).toBe(want);
  });
});
