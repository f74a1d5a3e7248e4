import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { ready, ErrReasonNotReady } from './ready.js';

describe('Ready filter', () => {
  it.each([
    { name: 'ready with a fresh heartbeat', input: info('a'), want: [] },
    { name: 'Ready=False', input: info('a', { ready: false }), want: [ErrReasonNotReady] },
    { name: 'heartbeat older than the grace period', input: info('a', { heartbeatAgeMs: 41_000 }), want: [ErrReasonNotReady] },
    { name: 'heartbeat just within the grace period', input: info('a', { heartbeatAgeMs: 40_000 }), want: [] },
  ])('$name', ({ input, want }) => {
    expect(ready.filter(hostedCluster(), input).reasons).toEqual(want);
  });
});
