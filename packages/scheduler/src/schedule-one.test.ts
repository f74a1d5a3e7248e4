import { describe, expect, it } from 'vitest';
import { ApiError, Store } from '@hcc/client';
import type { Condition, HostedCluster, ManagementCluster } from '@hcc/crds';
import { ClusterCache } from './cache/cluster-cache.js';
import { parseSchedulerConfig } from './config/config.js';
import { createSchedulerMetrics } from './metrics.js';
import type { PendingInfo } from './scale-out/scale-out.js';
import { scheduleOne, type ScheduleDeps } from './schedule-one.js';
import { fixedNow, hostedCluster, managementCluster } from './testing/fixtures.js';

const Label = 'controlcenter.hcc.dev/management-cluster';

/** Fake deps: listers backed by stores, a recording bind and condition writer, a fixed clock. */
function setup(o: { mcs: ManagementCluster[]; hcs: HostedCluster[]; bindError?: unknown; config?: string }) {
  const hcStore = new Store<HostedCluster>();
  const mcStore = new Store<ManagementCluster>();
  for (const m of o.mcs) mcStore.set(m.metadata.name!, m);
  for (const h of o.hcs) hcStore.set(`${h.metadata.namespace}/${h.metadata.name}`, h);
  const cache = new ClusterCache({ heartbeatGraceMs: 40_000, now: () => fixedNow });
  for (const h of o.hcs) cache.observeHostedCluster(`${h.metadata.namespace}/${h.metadata.name}`, h);
  const binds: [string, string][] = [];
  const writes: [string, Condition[]][] = [];
  const events: [string, string, string][] = [];
  const pending = new Map<string, PendingInfo>();
  const deps: ScheduleDeps = {
    hostedClusters: hcStore,
    managementClusters: mcStore,
    cache,
    config: parseSchedulerConfig(o.config ?? ''),
    random: () => 0,
    now: () => new Date(fixedNow),
    bindHandle: {
      patchMetadata: async () => {
        throw new Error('the default binder uses the binding subresource');
      },
      // Like the control center's binding subresource: one write, answered with a Status (the
      // placed object comes back on the informer).
      bind: async (hc, cluster) => {
        if (o.bindError) throw o.bindError;
        binds.push([`${hc.metadata.namespace}/${hc.metadata.name}`, cluster]);
      },
    },
    writeConditions: async (hc, conditions) => void writes.push([`${hc.metadata.namespace}/${hc.metadata.name}`, conditions]),
    recorder: { event: (obj, type, reason, message) => void events.push([`${type} ${reason}`, obj.metadata.name!, message]) },
    metrics: createSchedulerMetrics(),
    pending,
    unschedulableRetryMs: 60_000,
  };
  return { deps, cache, binds, writes, events, pending };
}

const hc = (name: string, extra: Partial<HostedCluster['metadata']> = {}, o: Parameters<typeof hostedCluster>[0] = {}): HostedCluster => {
  const h = hostedCluster({ name, ...o });
  return { ...h, metadata: { ...h.metadata, creationTimestamp: new Date(fixedNow - 1500).toISOString(), ...extra } };
};

describe('scheduleOne', () => {
  it('binds to the best cluster, assumes the slot, writes Scheduled=True and a Normal Scheduled event', async () => {
    const s = setup({ mcs: [managementCluster('a', { budget: 2 }), managementCluster('b', { budget: 5 })], hcs: [hc('x')] });
    expect(await scheduleOne(s.deps, 'clusters/x')).toBeUndefined();
    expect(s.binds).toEqual([['clusters/x', 'b']]);
    expect(s.cache.placedOn('b')).toBe(1);
    // The binding wrote the condition: no second write.
    expect(s.writes).toEqual([]);
    expect(s.events).toEqual([['Normal Scheduled', 'x', 'Successfully assigned clusters/x to management cluster b']]);
    const latency = await s.deps.metrics.e2eLatency.get();
    expect(latency.values.find((v) => v.metricName?.endsWith('_sum'))?.value).toBeCloseTo(1.5);
  });

  it('binds nothing while it is not sure to lead (a leader frozen past its renew deadline), and binds once it is', async () => {
    const s = setup({ mcs: [managementCluster('a', { budget: 2 })], hcs: [hc('x')] });
    let leading = false;
    s.deps.mayBind = () => leading;
    expect(await scheduleOne(s.deps, 'clusters/x')).toEqual({ requeueAfterMs: 1000 });
    expect(s.binds).toEqual([]);
    expect(s.cache.placedOn('a')).toBe(0);
    leading = true;
    expect(await scheduleOne(s.deps, 'clusters/x')).toBeUndefined();
    expect(s.binds).toEqual([['clusters/x', 'a']]);
  });

  it('writes no Scheduled=False nor FailedScheduling Event while it is not sure to lead (a replaced leader\'s old view)', async () => {
    const s = setup({ mcs: [managementCluster('a', { capacity: 1, hosted: 1 })], hcs: [hc('x')] });
    let leading = false;
    s.deps.mayBind = () => leading;
    expect(await scheduleOne(s.deps, 'clusters/x')).toEqual({ requeueAfterMs: 1000 });
    expect(s.writes).toEqual([]);
    expect(s.events).toEqual([]);
    leading = true;
    expect(await scheduleOne(s.deps, 'clusters/x')).toEqual({ requeueAfterMs: 60_000 });
    expect(s.events).toEqual([['Warning FailedScheduling', 'x', expect.stringContaining('1 no budget')]]);
  });

  it('explains an unschedulable HostedCluster once, records why it waits, and requeues', async () => {
    const s = setup({ mcs: [managementCluster('a', { capacity: 1, hosted: 1 }), managementCluster('b', { platforms: ['KubeVirt'] })], hcs: [hc('x')] });
    expect(await scheduleOne(s.deps, 'clusters/x')).toEqual({ requeueAfterMs: 60_000 });
    const msg = '0/2 management clusters are available: 1 no budget, 1 platform AWS not supported.';
    // Scheduled=False says why; Available=False says the same where `kubectl get hc` looks (AVAILABLE, MESSAGE).
    expect(s.writes).toEqual([
      [
        'clusters/x',
        [
          expect.objectContaining({ type: 'Scheduled', status: 'False', reason: 'Unschedulable', message: msg }),
          expect.objectContaining({ type: 'Available', status: 'False', reason: 'Unschedulable', message: `Not placed on a management cluster: ${msg}` }),
        ],
      ],
    ]);
    expect(s.events).toEqual([['Warning FailedScheduling', 'x', msg]]);
    expect(s.pending.get('clusters/x')).toEqual({ budgetBound: true, platform: 'AWS', sinceMs: fixedNow, eventMs: fixedNow });
    expect(s.binds).toEqual([]);
  });

  it('does not rewrite an up-to-date Unschedulable condition; records FailedScheduling again once per retry interval, as attempts', async () => {
    const msg = '0/1 management clusters are available: 1 cordoned.';
    const waiting = {
      ...hc('x'),
      status: {
        conditions: [
          { type: 'Scheduled', status: 'False' as const, reason: 'Unschedulable', message: msg },
          { type: 'Available', status: 'False' as const, reason: 'Unschedulable', message: `Not placed on a management cluster: ${msg}` },
        ],
      },
    };
    const s = setup({ mcs: [managementCluster('a', { cordon: true })], hcs: [waiting] });
    await scheduleOne(s.deps, 'clusters/x');
    expect(s.writes).toEqual([]);
    // This scheduler's first attempt: one Event (the recorder folds repeats into its count).
    expect(s.events).toEqual([['Warning FailedScheduling', 'x', msg]]);
    expect(s.pending.get('clusters/x')?.budgetBound).toBe(false);
    // A re-evaluation 10 s later (a fleet change) adds nothing; the retry a minute later does.
    s.deps.now = () => new Date(fixedNow + 10_000);
    await scheduleOne(s.deps, 'clusters/x');
    expect(s.events).toHaveLength(1);
    s.deps.now = () => new Date(fixedNow + 60_000);
    await scheduleOne(s.deps, 'clusters/x');
    expect(s.events).toHaveLength(2);
    expect(s.writes).toEqual([]);
  });

  it('forgets the reservation when the bind fails on a stale resourceVersion', async () => {
    const conflict = new ApiError(409, { kind: 'Status', reason: 'Conflict', code: 409, message: 'the object has been modified' }, 'PATCH');
    const s = setup({ mcs: [managementCluster('a')], hcs: [hc('x')], bindError: conflict });
    await expect(scheduleOne(s.deps, 'clusters/x')).rejects.toBe(conflict);
    expect(s.cache.placedOn('a')).toBe(0);
    expect(s.cache.isAssumed('clusters/x')).toBe(false);
    expect(s.writes).toEqual([]);
    expect(s.events).toEqual([]); // a lost race is not news
  });

  it('drops a HostedCluster deleted while its bind was in flight (404): no retry, no Event, the slot freed', async () => {
    const gone = new ApiError(404, { kind: 'Status', reason: 'NotFound', code: 404, message: 'hostedclusters.hypershift.openshift.io "x" not found' }, 'POST');
    const s = setup({ mcs: [managementCluster('a')], hcs: [hc('x')], bindError: gone });
    expect(await scheduleOne(s.deps, 'clusters/x')).toBeUndefined();
    expect(s.cache.placedOn('a')).toBe(0);
    expect(s.cache.isAssumed('clusters/x')).toBe(false);
    expect(s.events).toEqual([]);
  });

  it('shows a refused bind on the HostedCluster as a Warning FailedScheduling Event', async () => {
    const forbidden = new ApiError(422, { kind: 'Status', reason: 'Invalid', code: 422, message: 'HostedCluster.hypershift.openshift.io "x" is invalid: only the scheduler places HostedClusters' }, 'POST');
    const s = setup({ mcs: [managementCluster('a')], hcs: [hc('x')], bindError: forbidden });
    await expect(scheduleOne(s.deps, 'clusters/x')).rejects.toBe(forbidden);
    expect(s.cache.placedOn('a')).toBe(0);
    expect(s.events).toEqual([['Warning FailedScheduling', 'x', `Binding rejected: ${forbidden.message}`]]);
  });

  it('leaves an Available condition it did not write alone when it cannot place a HostedCluster', async () => {
    const msg = '0/1 management clusters are available: 1 cordoned.';
    const other = { type: 'Available', status: 'Unknown' as const, reason: 'SomethingElse', message: 'not ours', lastTransitionTime: '2026-11-30T00:00:00Z' };
    const s = setup({ mcs: [managementCluster('a', { cordon: true })], hcs: [{ ...hc('x'), status: { conditions: [other] } }] });
    await scheduleOne(s.deps, 'clusters/x');
    expect(s.writes).toEqual([['clusters/x', [other, expect.objectContaining({ type: 'Scheduled', status: 'False', message: msg })]]]);
  });

  it('drops its Available=False Unschedulable mark once the HostedCluster is placed (by a binder that left it)', async () => {
    const placed = {
      ...hc('x', { labels: { [Label]: 'a' } }),
      status: {
        conditions: [
          { type: 'Scheduled', status: 'True' as const, reason: 'Scheduled', message: 'Placed on management cluster a', lastTransitionTime: '2026-11-30T00:00:00Z' },
          { type: 'Available', status: 'False' as const, reason: 'Unschedulable', message: 'Not placed on a management cluster: ...', lastTransitionTime: '2026-11-30T00:00:00Z' },
        ],
      },
    };
    const s = setup({ mcs: [managementCluster('a')], hcs: [placed] });
    await scheduleOne(s.deps, 'clusters/x');
    expect(s.writes).toEqual([['clusters/x', [placed.status.conditions[0]]]]);
  });

  it('never moves a placed HostedCluster; only completes its condition', async () => {
    const placed = hc('x', { labels: { [Label]: 'a' } });
    const s = setup({ mcs: [managementCluster('a', { cordon: true }), managementCluster('b', { budget: 9 })], hcs: [placed] });
    await scheduleOne(s.deps, 'clusters/x');
    expect(s.binds).toEqual([]);
    expect(s.writes).toEqual([['clusters/x', [expect.objectContaining({ status: 'True', message: 'Placed on management cluster a' })]]]);
  });

  it('leaves a placed HostedCluster\'s condition alone when current; drops an observedGeneration an older hcc wrote (kubectl wait hung on it)', async () => {
    const cond = (extra: Partial<Condition>): Condition => ({ type: 'Scheduled', status: 'True', reason: 'Scheduled', message: 'Placed on management cluster a', lastTransitionTime: '2026-11-30T00:00:00Z', ...extra });
    const current = { ...hc('x', { labels: { [Label]: 'a' }, generation: 3 }), status: { conditions: [cond({})] } };
    let s = setup({ mcs: [managementCluster('a')], hcs: [current] });
    await scheduleOne(s.deps, 'clusters/x');
    expect(s.writes).toEqual([]);
    const stale = { ...hc('x', { labels: { [Label]: 'a' }, generation: 3 }), status: { conditions: [cond({ observedGeneration: 1 })] } };
    s = setup({ mcs: [managementCluster('a')], hcs: [stale] });
    await scheduleOne(s.deps, 'clusters/x');
    expect(s.writes).toEqual([['clusters/x', [cond({})]]]);
  });

  it('skips a key whose bind is in flight, and one being deleted', async () => {
    const s = setup({ mcs: [managementCluster('a')], hcs: [hc('x'), hc('y', { deletionTimestamp: new Date(fixedNow).toISOString() })] });
    s.cache.assume('clusters/x', 'a', '1');
    await scheduleOne(s.deps, 'clusters/x');
    await scheduleOne(s.deps, 'clusters/y');
    expect(s.binds).toEqual([]);
    expect(s.writes).toEqual([]);
  });

  it('a HostedCluster that is gone drops its reservation and pending entry', async () => {
    const s = setup({ mcs: [managementCluster('a')], hcs: [] });
    s.cache.assume('clusters/x', 'a', '1');
    s.pending.set('clusters/x', { budgetBound: true, platform: 'AWS', sinceMs: 0 });
    await scheduleOne(s.deps, 'clusters/x');
    expect(s.cache.placedOn('a')).toBe(0);
    expect(s.pending.size).toBe(0);
  });

  it('uses the profile the annotation names, and says so when it does not exist', async () => {
    const config = 'profiles: [{name: default}, {name: cost, scores: [Pack]}]';
    const mcs = [managementCluster('empty', { capacity: 10, hosted: 0 }), managementCluster('full', { capacity: 10, hosted: 8 })];
    const s = setup({
      mcs,
      config,
      hcs: [
        hc('p', { annotations: { 'controlcenter.hcc.dev/scheduler-profile': 'cost' } }),
        hc('q', { annotations: { 'controlcenter.hcc.dev/scheduler-profile': 'nope' } }),
      ],
    });
    await scheduleOne(s.deps, 'clusters/p');
    expect(s.binds).toEqual([['clusters/p', 'full']]);
    expect(await scheduleOne(s.deps, 'clusters/q')).toEqual({ requeueAfterMs: 60_000 });
    expect(s.writes[0]![1]).toEqual([
      expect.objectContaining({ type: 'Scheduled', status: 'False', reason: 'Unschedulable', message: 'scheduler profile "nope" is not configured (profiles: default, cost)' }),
      expect.objectContaining({ type: 'Available', status: 'False', reason: 'Unschedulable' }),
    ]);
    expect(s.pending.get('clusters/q')?.budgetBound).toBe(false);
  });

  it('never overbooks: concurrent cycles see each other’s reservations', async () => {
    const s = setup({ mcs: [managementCluster('a', { capacity: 3 })], hcs: ['h1', 'h2', 'h3', 'h4', 'h5'].map((n) => hc(n)) });
    const results = await Promise.all(['h1', 'h2', 'h3', 'h4', 'h5'].map((n) => scheduleOne(s.deps, `clusters/${n}`)));
    expect(s.binds).toHaveLength(3);
    expect(results.filter((r) => r && 'requeueAfterMs' in r)).toHaveLength(2);
    expect(s.cache.placedOn('a')).toBe(3);
  });
});
