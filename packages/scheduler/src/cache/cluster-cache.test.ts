import { describe, expect, it } from 'vitest';
import type { HostedCluster, ManagementCluster } from '@hcc/crds';
import { ClusterCache, clusterInfo } from './cluster-cache.js';

const now = Date.parse('2026-11-30T00:00:00Z');
const mc = (capacity: number, budget: number, hosted: number, name = 'm'): ManagementCluster => ({
  metadata: { name },
  spec: { capacity },
  status: { conditions: [{ type: 'Ready', status: 'True' }], lastHeartbeatTime: new Date(now).toISOString(), budget, hostedClusters: hosted },
});
const hcAt = (key: string, cluster: string | undefined, resourceVersion: string): HostedCluster => {
  const [namespace, name] = key.split('/') as [string, string];
  return { metadata: { name, namespace, resourceVersion, labels: cluster ? { 'controlcenter.hcc.dev/management-cluster': cluster } : {} }, spec: {} };
};
const newCache = (o: { ttlMs?: number; clock?: () => number } = {}) => new ClusterCache({ heartbeatGraceMs: 40_000, assumeTtlMs: o.ttlMs, now: o.clock ?? (() => now) });

describe('clusterInfo free slots', () => {
  it.each([
    { name: 'fresh report', input: { capacity: 5, budget: 5, hosted: 0, placed: 0 }, want: 5 },
    { name: 'placements not yet reported count against the budget', input: { capacity: 5, budget: 5, hosted: 0, placed: 3 }, want: 2 },
    { name: 'reported placements are not counted twice', input: { capacity: 5, budget: 2, hosted: 3, placed: 3 }, want: 2 },
    { name: 'the cluster reports less room than capacity says', input: { capacity: 10, budget: 1, hosted: 2, placed: 2 }, want: 1 },
    { name: 'capacity lowered below what is placed', input: { capacity: 2, budget: 5, hosted: 3, placed: 3 }, want: 0 },
    { name: 'foreign HostedClusters in the cluster', input: { capacity: 5, budget: 1, hosted: 4, placed: 1 }, want: 1 },
    { name: 'a report from before a deletion never frees more than capacity allows', input: { capacity: 5, budget: 0, hosted: 5, placed: 4 }, want: 0 },
  ])('$name', ({ input, want }) => {
    expect(clusterInfo(mc(input.capacity, input.budget, input.hosted), input.placed, now, 40_000).freeSlots).toBe(want);
  });

  it('counts placements against the syncer\'s copies, so HostedClusters created in the cluster directly never pass for placements', () => {
    // Capacity 5: 3 copies of placed ones and 1 created directly (reported 4 held, budget 1).
    const m = mc(5, 1, 4);
    m.status!.syncedHostedClusters = 3;
    expect(clusterInfo(m, 3, now, 40_000).freeSlots).toBe(1);
    // One more placed, not reported yet: full.
    expect(clusterInfo(m, 4, now, 40_000).freeSlots).toBe(0);
    // A syncer that does not say: every reported one is taken for a placement (as before).
    expect(clusterInfo(mc(5, 1, 4), 4, now, 40_000).freeSlots).toBe(1);
  });

  it.each([
    { name: 'capacity raised after the report (observedGeneration behind): the new capacity counts at once', input: { capacity: 6, generation: 3, observed: 2 }, want: 2 },
    { name: 'capacity lowered after the report: at once too', input: { capacity: 3, generation: 3, observed: 2 }, want: 0 },
    { name: 'a report of the current spec: its budget as reported', input: { capacity: 6, generation: 3, observed: 3 }, want: 0 },
    { name: 'a syncer that names no generation: its budget as reported', input: { capacity: 6, generation: 3, observed: undefined }, want: 0 },
  ])('$name', ({ input, want }) => {
    // Reported at capacity 4 with 4 held: budget 0.
    const m = mc(input.capacity, 0, 4);
    m.metadata.generation = input.generation;
    if (input.observed !== undefined) m.status!.observedGeneration = input.observed;
    expect(clusterInfo(m, 4, now, 40_000).freeSlots).toBe(want);
  });
});

describe('clusterInfo readiness by heartbeat age', () => {
  const aged = (ageMs: number, leaseDurationSeconds?: number): ManagementCluster => {
    const m = mc(5, 5, 0);
    m.status!.lastHeartbeatTime = new Date(now - ageMs).toISOString();
    if (leaseDurationSeconds !== undefined) m.status!.leaseDurationSeconds = leaseDurationSeconds;
    return m;
  };
  it.each([
    { name: 'within --heartbeat-grace', input: aged(39_000), want: '' },
    { name: 'older than --heartbeat-grace, nothing announced (an older syncer)', input: aged(41_000), want: 'HeartbeatExpired' },
    { name: 'a 60 s interval syncer 50 s after its beat: within its announced 240 s Lease', input: aged(50_000, 240), want: '' },
    { name: 'past the announced Lease', input: aged(241_000, 240), want: 'HeartbeatExpired' },
    { name: 'an announced Lease shorter than --heartbeat-grace does not shorten it', input: aged(39_000, 4), want: '' },
  ])('$name', ({ input, want }) => {
    const info = clusterInfo(input, 0, now, 40_000);
    expect(info.notReadyReason).toBe(want);
    expect(info.ready).toBe(want === '');
  });

  it('the snapshot applies each cluster its own grace', () => {
    const slow = aged(50_000, 240);
    slow.metadata.name = 'slow';
    const old = aged(50_000);
    old.metadata.name = 'old';
    expect(newCache().snapshot([slow, old]).map((i) => [i.name, i.ready])).toEqual([['slow', true], ['old', false]]);
  });
});

describe('ClusterCache assume/confirm/forget', () => {
  it('reserves until the informer shows the bind, then counts it once', () => {
    const c = newCache();
    c.assume('ns/a', 'm', '1');
    expect(c.placedOn('m')).toBe(1);
    c.observeHostedCluster('ns/a', hcAt('ns/a', undefined, '1')); // stale view without the label: still reserved
    c.finishBinding('ns/a');
    c.observeHostedCluster('ns/a', hcAt('ns/a', undefined, '1')); // a resync of the stale view: still reserved
    expect(c.placedOn('m')).toBe(1);
    expect(c.isAssumed('ns/a')).toBe(true);
    c.observeHostedCluster('ns/a', hcAt('ns/a', 'm', '2'));
    expect(c.isAssumed('ns/a')).toBe(false);
    expect(c.placedOn('m')).toBe(1);
  });

  it('confirms a bind the informer shows before the PATCH returns', () => {
    const c = newCache();
    c.assume('ns/a', 'm', '1');
    c.observeHostedCluster('ns/a', hcAt('ns/a', 'm', '2'));
    c.finishBinding('ns/a');
    expect(c.isAssumed('ns/a')).toBe(false);
    expect(c.placedOn('m')).toBe(1);
  });

  it('drops the reservation when a newer view shows the label removed after the bind', () => {
    const c = newCache();
    c.assume('ns/a', 'm', '1');
    c.finishBinding('ns/a');
    c.observeHostedCluster('ns/a', hcAt('ns/a', undefined, '3')); // relist collapsed bind + label removal
    expect(c.isAssumed('ns/a')).toBe(false);
    expect(c.placedOn('m')).toBe(0);
  });

  it('keeps the reservation while the bind is in flight, whatever the informer shows', () => {
    const c = newCache();
    c.assume('ns/a', 'm', '1');
    c.observeHostedCluster('ns/a', hcAt('ns/a', undefined, '2')); // a concurrent user edit; the bind will 409
    expect(c.isAssumed('ns/a')).toBe(true);
    c.forget('ns/a');
    expect(c.placedOn('m')).toBe(0);
  });

  it('drops the reservation when the HostedCluster is gone', () => {
    const c = newCache();
    c.assume('ns/a', 'm', '1');
    c.observeHostedCluster('ns/a', undefined);
    expect(c.placedOn('m')).toBe(0);
  });

  it('never expires reservations by default', () => {
    let t = now;
    const c = newCache({ clock: () => t });
    c.assume('ns/a', 'm', '1');
    c.finishBinding('ns/a');
    t += 24 * 3600_000;
    expect(c.placedOn('m')).toBe(1);
  });

  it('expires a finished bind after the TTL when one is set, never one in flight', () => {
    let t = now;
    const c = newCache({ ttlMs: 1000, clock: () => t });
    c.assume('ns/a', 'm', '1');
    c.assume('ns/b', 'm', '1');
    c.finishBinding('ns/b');
    t += 1001;
    expect(c.isAssumed('ns/a')).toBe(true);
    expect(c.isAssumed('ns/b')).toBe(false);
    expect(c.placedOn('m')).toBe(1);
  });

  it('refuses to assume twice (a bug, not user input)', () => {
    const c = newCache();
    c.assume('ns/a', 'm', '1');
    expect(() => c.assume('ns/a', 'm', '1')).toThrow(/already assumed/);
  });
});

describe('ClusterCache snapshot', () => {
  it('counts bound and assumed HostedClusters per cluster, namespace and control-plane namespace', () => {
    const c = newCache();
    c.observeHostedCluster('a/b-c', hcAt('a/b-c', 'm1', '1'));
    c.observeHostedCluster('a/x', hcAt('a/x', 'm1', '1'));
    c.observeHostedCluster('t/y', hcAt('t/y', 'm2', '1'));
    c.assume('t/z', 'm1', '1');
    const [m1, m2] = c.snapshot([mc(10, 10, 0, 'm1'), mc(10, 10, 0, 'm2')]);
    expect(m1!.placed).toBe(3);
    expect(m1!.freeSlots).toBe(7);
    expect(Object.fromEntries(m1!.namespaces)).toEqual({ a: 2, t: 1 });
    expect([...m1!.controlPlaneNamespaces.keys()].sort()).toEqual(['a-b-c', 'a-x', 't-z']);
    expect(m2!.placed).toBe(1);
    c.forget('t/z');
    c.observeHostedCluster('a/x', undefined);
    const [m1b] = c.snapshot([mc(10, 10, 0, 'm1')]);
    expect(m1b!.placed).toBe(1);
    expect(Object.fromEntries(m1b!.namespaces)).toEqual({ a: 1 });
    expect([...m1b!.controlPlaneNamespaces.keys()]).toEqual(['a-b-c']);
  });

  it('a cluster the cache never heard of is empty', () => {
    const [m] = newCache().snapshot([mc(4, 4, 0, 'new')]);
    expect(m).toMatchObject({ name: 'new', placed: 0, freeSlots: 4, ready: true });
    expect(m!.namespaces.size).toBe(0);
  });
});

describe('one management cluster under two names (status.clusterID)', () => {
  const named = (name: string, clusterID: string | undefined, created: string, o: { ready?: boolean; deleting?: boolean; duplicate?: boolean } = {}): ManagementCluster => {
    const m = mc(20, 20, 0, name);
    m.metadata.creationTimestamp = created;
    if (clusterID) m.status!.clusterID = clusterID;
    if (o.ready === false) m.status!.conditions = [{ type: 'Ready', status: 'False', reason: 'HeartbeatExpired' }];
    if (o.deleting) m.metadata.deletionTimestamp = '2026-11-30T00:00:00Z';
    if (o.duplicate) m.status!.conditions!.push({ type: 'DuplicateCluster', status: 'True', reason: 'SameClusterID' });
    return m;
  };
  const readiness = (mcs: ManagementCluster[]) => newCache().snapshot(mcs).map((i) => [i.name, i.ready, i.notReadyReason]);

  it('only the one registered first is ready; the others are DuplicateCluster', () => {
    const a = named('a', 'uid-1', '2026-11-29T10:00:00Z');
    const b = named('b', 'uid-1', '2026-11-29T09:00:00Z'); // b is older
    const c = named('c', 'uid-2', '2026-11-29T11:00:00Z');
    const d = named('d', 'uid-1', '2026-11-29T12:00:00Z');
    expect(readiness([a, b, c, d])).toEqual([
      ['a', false, 'DuplicateCluster'],
      ['b', true, ''],
      ['c', true, ''],
      ['d', false, 'DuplicateCluster'],
    ]);
  });

  it('created in the same second: the name decides, whatever the list order', () => {
    const x = named('x', 'uid-1', '2026-11-29T10:00:00Z');
    const y = named('y', 'uid-1', '2026-11-29T10:00:00Z');
    expect(readiness([y, x])).toEqual([
      ['y', false, 'DuplicateCluster'],
      ['x', true, ''],
    ]);
  });

  it('the first one not ready or being deleted: the next takes placements', () => {
    const lost = named('a', 'uid-1', '2026-11-29T09:00:00Z', { ready: false });
    const gone = named('b', 'uid-1', '2026-11-29T09:30:00Z', { deleting: true });
    const next = named('c', 'uid-1', '2026-11-29T10:00:00Z');
    expect(readiness([lost, gone, next]).map(([n, r]) => [n, r])).toEqual([
      ['a', false],
      ['b', true],
      ['c', true],
    ]);
  });

  it("the name that takes placements counts the other names' placements against its capacity, and their unreported ones against its budget", () => {
    // One cluster of capacity 20 holding 17 (mgmt-1's 12 and dup's 5, all copied and reported
    // by mgmt-1), and dup took 3 more while mgmt-1 was lost that its syncer has not copied yet.
    const first = named('first', 'uid-1', '2026-11-29T09:00:00Z');
    first.status = { ...first.status!, budget: 3, hostedClusters: 17, syncedHostedClusters: 12 };
    const dup = named('dup', 'uid-1', '2026-11-29T10:00:00Z');
    dup.status = { ...dup.status!, budget: 3, hostedClusters: 17, syncedHostedClusters: 5 };
    const cache = newCache();
    for (let i = 0; i < 12; i++) cache.observeHostedCluster(`ns/a${i}`, hcAt(`ns/a${i}`, 'first', '1'));
    for (let i = 0; i < 8; i++) cache.observeHostedCluster(`ns/b${i}`, hcAt(`ns/b${i}`, 'dup', '1'));
    // Without the other name in view, the first would offer its reported 3 (the overbooking).
    expect(cache.snapshot([first])[0]!.freeSlots).toBe(3);
    const [f, d] = cache.snapshot([first, dup]);
    expect([f!.ready, f!.freeSlots]).toEqual([true, 0]);
    expect(d!.ready).toBe(false);
    // Once dup's syncer has copied and reported them (and the first's report counts them), 0 still.
    const first2: ManagementCluster = { ...first, status: { ...first.status!, budget: 0, hostedClusters: 20 } };
    const dup2: ManagementCluster = { ...dup, status: { ...dup.status!, syncedHostedClusters: 8 } };
    expect(cache.snapshot([first2, dup2])[0]!.freeSlots).toBe(0);
    // One of dup's goes: its slot is offered again, once, by the first.
    cache.observeHostedCluster('ns/b7', undefined);
    const first3: ManagementCluster = { ...first2, status: { ...first2.status!, budget: 1, hostedClusters: 19 } };
    const dup3: ManagementCluster = { ...dup2, status: { ...dup2.status!, syncedHostedClusters: 7 } };
    const [f3, d3] = cache.snapshot([first3, dup3]);
    expect([f3!.ready, f3!.freeSlots, d3!.ready]).toEqual([true, 1, false]);
  });

  it('its syncer says DuplicateCluster=True: no placements, whatever the scheduler sees', () => {
    expect(readiness([named('b', 'uid-1', '2026-11-29T09:00:00Z', { duplicate: true })])).toEqual([['b', false, 'DuplicateCluster']]);
  });

  it('no cluster ID reported (an older syncer): no check', () => {
    expect(readiness([named('a', undefined, '2026-11-29T09:00:00Z'), named('b', undefined, '2026-11-29T09:00:00Z')]).map(([, r]) => r)).toEqual([true, true]);
  });
});
