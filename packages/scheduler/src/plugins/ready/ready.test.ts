import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { ready, ErrReasonDuplicate, ErrReasonNotReady } from './ready.js';

describe('Ready filter', () => {
  it.each([
    { name: 'ready with a fresh heartbeat', input: info('a'), want: [] },
    { name: 'Ready=False', input: info('a', { ready: false }), want: [ErrReasonNotReady] },
    { name: 'heartbeat older than the grace period', input: info('a', { heartbeatAgeMs: 41_000 }), want: [ErrReasonNotReady] },
    { name: 'heartbeat just within the grace period', input: info('a', { heartbeatAgeMs: 40_000 }), want: [] },
    { name: 'the same cluster as another ManagementCluster', input: { ...info('a'), ready: false, notReadyReason: 'DuplicateCluster' }, want: [ErrReasonDuplicate] },
  ])('$name', ({ input, want }) => {
    expect(ready.filter(hostedCluster(), input).reasons).toEqual(want);
  });
});
