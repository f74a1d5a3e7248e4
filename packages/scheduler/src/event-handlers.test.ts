import { describe, expect, it } from 'vitest';
import type { ManagementCluster } from '@hcc/crds';
import { fleetChangeMayHelp } from './event-handlers.js';
import { fixedNow, managementCluster } from './testing/fixtures.js';

const base = managementCluster('a', { capacity: 10, hosted: 5 });
const with_ = (f: (m: ManagementCluster) => void): ManagementCluster => {
  const m = structuredClone(base);
  f(m);
  return m;
};

describe('fleetChangeMayHelp', () => {
  it.each([
    { name: 'a new cluster', input: { old: undefined, cur: base }, want: true },
    { name: 'a heartbeat that changes nothing', input: { old: base, cur: with_((m) => (m.status!.lastHeartbeatTime = new Date(fixedNow).toISOString())) }, want: false },
    { name: 'a heartbeat reporting less room', input: { old: base, cur: with_((m) => ((m.status!.budget = 4), (m.status!.hostedClusters = 6))) }, want: false },
    { name: 'a heartbeat reporting more room', input: { old: base, cur: with_((m) => ((m.status!.budget = 6), (m.status!.hostedClusters = 4))) }, want: true },
    { name: 'capacity raised', input: { old: base, cur: with_((m) => (m.spec.capacity = 20)) }, want: true },
    { name: 'uncordoned', input: { old: with_((m) => (m.spec.unschedulable = true)), cur: base }, want: true },
    { name: 'taints changed', input: { old: base, cur: with_((m) => (m.spec.taints = [{ key: 'k', effect: 'NoSchedule' }])) }, want: true },
    { name: 'labels changed', input: { old: base, cur: with_((m) => (m.metadata.labels = { region: 'eu' })) }, want: true },
    { name: 'supported versions changed', input: { old: base, cur: with_((m) => (m.status!.supportedVersions = ['4.18'])) }, want: true },
    { name: 'Ready again', input: { old: with_((m) => (m.status!.conditions![0]!.status = 'False')), cur: base }, want: true },
    { name: 'lost (messages of waiting ones change)', input: { old: base, cur: with_((m) => (m.status!.conditions![0]!.status = 'False')) }, want: true },
    {
      name: 'the next beat of a 60 s interval syncer (Lease 240 s announced) is no readiness flip: nothing to re-evaluate',
      input: {
        old: with_((m) => ((m.status!.lastHeartbeatTime = new Date(fixedNow - 60_000).toISOString()), (m.status!.leaseDurationSeconds = 240))),
        cur: with_((m) => (m.status!.leaseDurationSeconds = 240)),
      },
      want: false,
    },
  ])('$name', ({ input, want }) => {
    expect(fleetChangeMayHelp(input.old, input.cur, fixedNow, 40_000)).toBe(want);
  });

  it('counts what the scheduler placed: a heartbeat that catches up on a placement with the same budget frees a slot', () => {
    // Capacity 2, one placement the syncer had not counted: 1 free by capacity, 0 by the report.
    const old = managementCluster('a', { capacity: 2, budget: 1, hosted: 0 });
    // The next heartbeat counts it: same budget, one more held, so the report no longer holds a slot back.
    const cur = managementCluster('a', { capacity: 2, budget: 1, hosted: 1 });
    expect(fleetChangeMayHelp(old, cur, fixedNow, 40_000, 1)).toBe(true);
    // Without a placement in between there is nothing new.
    expect(fleetChangeMayHelp(old, managementCluster('a', { capacity: 2, budget: 1, hosted: 0 }), fixedNow, 40_000, 1)).toBe(false);
  });
});
