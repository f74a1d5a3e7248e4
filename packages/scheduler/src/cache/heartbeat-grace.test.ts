import { describe, expect, it } from 'vitest';
import type { ManagementCluster } from '@hcc/crds';
import { announcedLeaseMs, HeartbeatObserver, heartbeatGraceMs } from './heartbeat-grace.js';

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
    { name: 'a huge announced Lease counts as 4 h at most (4 × the longest heartbeat interval)', input: { mc: mc(1e9), configuredMs: 40_000 }, want: 14_400_000 },
  ])('$name', ({ input, want }) => {
    expect(heartbeatGraceMs(input.mc, input.configuredMs)).toBe(want);
  });

  it('announcedLeaseMs reads status.leaseDurationSeconds in milliseconds, 0 when nothing valid is announced', () => {
    expect(announcedLeaseMs(mc(240))).toBe(240_000);
    expect(announcedLeaseMs(mc(NaN))).toBe(0);
    expect(announcedLeaseMs(undefined)).toBe(0);
  });
});

describe('HeartbeatObserver: heartbeat age on the scheduler\'s clock', () => {
  const at = (iso: string, uid = 'u1'): ManagementCluster => ({ metadata: { name: 'm', uid }, spec: {}, status: { lastHeartbeatTime: iso } });
  it('stamps a change when it arrives, whatever time the syncer wrote (its clock may be off)', () => {
    let now = Date.parse('2026-12-02T12:00:00Z');
    const o = new HeartbeatObserver(() => now);
    // First sight counts as now for health (a restart never marks a live cluster lost) ...
    expect(o.observe(at('2026-12-02T11:50:00Z'))).toBe(now);
    // ... and as the earlier of now and the reported time for placements, until a change is seen.
    expect(o.placementSeenMs(at('2026-12-02T11:50:00Z'))).toBe(Date.parse('2026-12-02T11:50:00Z'));
    now += 5000;
    // A syncer 10 minutes behind: its next heartbeat reads as seen now, for both.
    expect(o.observe(at('2026-12-02T11:50:05Z'))).toBe(now);
    expect(o.placementSeenMs(at('2026-12-02T11:50:05Z'))).toBe(now);
    // The same value seen again later keeps its stamp (it ages on the scheduler's clock).
    now += 60_000;
    expect(o.observe(at('2026-12-02T11:50:05Z'))).toBe(now - 60_000);
    // A syncer 10 minutes ahead that stops: its future time stops being fresh after the grace.
    const ahead = new HeartbeatObserver(() => now);
    expect(ahead.observe(at('2026-12-02T12:11:05Z'))).toBe(now);
    expect(ahead.placementSeenMs(at('2026-12-02T12:11:05Z'))).toBe(now);
    now += 41_000;
    expect(now - ahead.observe(at('2026-12-02T12:11:05Z'))).toBe(41_000);
  });

  it('treats a ManagementCluster created again under the same name as new, and nothing reported as NaN', () => {
    let now = Date.parse('2026-12-02T12:00:00Z');
    const o = new HeartbeatObserver(() => now);
    o.observe(at('2026-12-02T12:00:00Z', 'u1'));
    now += 100_000;
    expect(o.placementSeenMs(at('2026-12-02T11:00:00Z', 'u2'))).toBe(Date.parse('2026-12-02T11:00:00Z'));
    expect(o.observe({ metadata: { name: 'm', uid: 'u2' }, spec: {} })).toBeNaN();
  });

  it('leaves time the scheduler could not see the clusters out of a heartbeat\'s age, during the outage and after it, and only that time', () => {
    let now = Date.parse('2026-12-02T12:00:00Z');
    const o = new HeartbeatObserver(() => now);
    o.observe(at('2026-12-02T12:00:00Z'));
    o.observe(at('2026-12-02T12:00:01Z')); // a change: seen now
    const seen = now;
    now += 3000;
    o.unseenFrom(now); // the control center goes away 3 s after the last heartbeat
    o.unseenFrom(now + 1000); // told again during the same outage: ignored
    now += 10_000;
    // While blind, the age stands still at 3 s, for health and for placements alike.
    expect(now - o.observe(at('2026-12-02T12:00:01Z'))).toBe(3000);
    expect(now - o.placementSeenMs(at('2026-12-02T12:00:01Z'))).toBe(3000);
    o.seenAgain(now); // 10 s later the watch is back
    o.seenAgain(now + 5000); // nothing under way: ignored
    now += 2000;
    // After it, the age counts on from there: 3 s before + 2 s after, the 10 s outage left out.
    expect(now - o.observe(at('2026-12-02T12:00:01Z'))).toBe(5000);
    expect(o.observe(at('2026-12-02T12:00:01Z'))).toBe(seen + 10_000);
    // A dead syncer's cluster still expires: nothing new is reported, so the age grows again.
    now += 40_000;
    expect(now - o.observe(at('2026-12-02T12:00:01Z'))).toBe(45_000);
    // A heartbeat that changes after the outage is stamped when it arrives, as ever.
    expect(o.observe(at('2026-12-02T12:00:50Z'))).toBe(now);
  });
});
