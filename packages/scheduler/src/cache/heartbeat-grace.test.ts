import { describe, expect, it } from 'vitest';
import type { ManagementCluster } from '@hcc/crds';
import { announcedLeaseMs, heartbeatGraceMs } from './heartbeat-grace.js';

const mc = (leaseDurationSeconds?: unknown): ManagementCluster => ({ metadata: { name: 'm' }, spec: {}, status: { leaseDurationSeconds: leaseDurationSeconds as number } });

describe('heartbeatGraceMs', () => {
  it.each([
    { name: 'a syncer announcing a longer Lease (60 s interval → 240 s) is given it', input: { mc: mc(240), configuredMs: 40_000 }, want: 240_000 },
    { name: 'a shorter announced Lease never undercuts --heartbeat-grace', input: { mc: mc(4), configuredMs: 40_000 }, want: 40_000 },
    { name: 'equal: the same', input: { mc: mc(40), configuredMs: 40_000 }, want: 40_000 },
    { name: 'an older syncer (no field): the configured grace', input: { mc: mc(undefined), configuredMs: 40_000 }, want: 40_000 },
    { name: 'no status at all: the configured grace', input: { mc: { metadata: { name: 'm' }, spec: {} } as ManagementCluster, configuredMs: 40_000 }, want: 40_000 },
    { name: 'no cluster: the configured grace', input: { mc: undefined, configuredMs: 500 }, want: 500 },
    { name: 'zero announced: ignored', input: { mc: mc(0), configuredMs: 40_000 }, want: 40_000 },
    { name: 'negative announced: ignored', input: { mc: mc(-100), configuredMs: 40_000 }, want: 40_000 },
    { name: 'a string: ignored', input: { mc: mc('240'), configuredMs: 40_000 }, want: 40_000 },
    { name: 'NaN and Infinity: ignored', input: { mc: mc(Infinity), configuredMs: 40_000 }, want: 40_000 },
    { name: 'a fractional configured grace (--heartbeat-grace 0.5) under an announced 4 s', input: { mc: mc(4), configuredMs: 500 }, want: 4000 },
  ])('$name', ({ input, want }) => {
    expect(heartbeatGraceMs(input.mc, input.configuredMs)).toBe(want);
  });

  it('announcedLeaseMs reads status.leaseDurationSeconds in milliseconds, 0 when nothing valid is announced', () => {
    expect(announcedLeaseMs(mc(240))).toBe(240_000);
    expect(announcedLeaseMs(mc(NaN))).toBe(0);
    expect(announcedLeaseMs(undefined)).toBe(0);
  });
});
