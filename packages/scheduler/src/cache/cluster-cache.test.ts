import { describe, expect, it } from 'vitest';
import type { HostedCluster, ManagementCluster } from '@hcc/crds';
import { ClusterCache, clusterInfo } from './cluster-cache.js';

const now = Date.parse('2026-11-30T00:00:00Z');
const mc = (capacity: number, budget: number, hosted: number): ManagementCluster => ({
  metadata: { name: 'm' },
  spec: { capacity },
  status: { conditions: [{ type: 'Ready', status: 'True' }], lastHeartbeatTime: new Date(now).toISOString(), budget, hostedClusters: hosted },
});
const placedHC = (name: string, cluster?: string): HostedCluster => ({
  metadata: { name, namespace: 'ns', labels: cluster ? { 'controlcenter.hcc.dev/management-cluster': cluster } : {} },
  spec: {},
});

describe('clusterInfo free slots', () => {
  it.each([
    { name: 'fresh report', input: { capacity: 5, budget: 5, hosted: 0, placed: 0 }, want: 5 },
    { name: 'placements not yet reported count against the budget', input: { capacity: 5, budget: 5, hosted: 0, placed: 3 }, want: 2 },
    { name: 'reported placements are not counted twice', input: { capacity: 5, budget: 2, hosted: 3, placed: 3 }, want: 2 },
    { name: 'the cluster reports less room than capacity says', input: { capacity: 10, budget: 1, hosted: 2, placed: 2 }, want: 1 },
    { name: 'capacity lowered below what is placed', input: { capacity: 2, budget: 5, hosted: 3, placed: 3 }, want: 0 },
    { name: 'foreign HostedClusters in the cluster', input: { capacity: 5, budget: 1, hosted: 4, placed: 1 }, want: 1 },
  ])('$name', ({ input, want }) => {
    expect(clusterInfo(mc(input.capacity, input.budget, input.hosted), input.placed, now, 40_000).freeSlots).toBe(want);
  });
});

describe('ClusterCache assume/confirm/forget', () => {
  it('reserves until the informer shows the bind, then counts it once', () => {
    const c = new ClusterCache({ heartbeatGraceMs: 40_000, assumeTtlMs: 30_000, now: () => now });
    c.assume('ns/a', 'm');
    expect(c.placedOn('m')).toBe(1);
    c.observeHostedCluster('ns/a', placedHC('a')); // stale view without the label: still reserved
    expect(c.placedOn('m')).toBe(1);
    expect(c.isAssumed('ns/a')).toBe(true);
    c.observeHostedCluster('ns/a', placedHC('a', 'm'));
    expect(c.isAssumed('ns/a')).toBe(false);
    expect(c.placedOn('m')).toBe(1);
  });

  it('forgets a failed bind and expires lost reservations', () => {
    let t = now;
    const c = new ClusterCache({ heartbeatGraceMs: 40_000, assumeTtlMs: 1000, now: () => t });
    c.assume('ns/a', 'm');
    c.forget('ns/a');
    expect(c.placedOn('m')).toBe(0);
    c.assume('ns/b', 'm');
    t += 1001;
    expect(c.placedOn('m')).toBe(0);
  });

  it('refuses to assume twice (a bug, not user input)', () => {
    const c = new ClusterCache({ heartbeatGraceMs: 40_000, assumeTtlMs: 1000, now: () => now });
    c.assume('ns/a', 'm');
    expect(() => c.assume('ns/a', 'm')).toThrow(/already assumed/);
  });
});
