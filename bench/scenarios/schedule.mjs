/**
 * `schedule`: the real `hcc scheduler` placing HostedClusters created as fast as the API takes
 * them, with 10 and 100 ManagementClusters.
 *
 * The ManagementClusters are registered by the bench the way syncers register them (object +
 * status: Ready, fresh heartbeat, budget, refreshed every 10 s) instead of running 100 syncer
 * and 100 management-cluster processes, which a 2-core machine cannot host: the scheduler only
 * talks to the control center, so it sees exactly what it would see with real syncers.
 *
 * Each run starts a fresh control center and scheduler, places a warm-up burst, then creates
 * N HostedClusters (closed loop, C connections) and watches them until every one carries the
 * placement label. Create-to-bind latency is from the create request's send to the bind's watch
 * event. Placements/s = N / (last bind − first create), so "N placed in T s" is the same number.
 * Checks: every HostedCluster placed, none over a cluster's capacity.
 *
 * Targets: ≥ 2,000 placements/s with 100 management clusters; 10,000 placed in under 10 s.
 */
import { HostedClusterResource } from '@hcc/crds';
import { Scope } from '../lib/cleanup.mjs';
import { startControlCenter, startScheduler, tempDir, cpuTimeMsOf } from '../lib/procs.mjs';
import { call, endpointOf, ensureNamespace, HC_PATH, hostedCluster, managementCluster, MC_PATH, PlacementLabel, poolFor, populate, pullSecret, SECRET_PATH } from '../lib/kube.mjs';
import { closedLoop } from '../lib/load.mjs';
import { median, summarize } from '../lib/stats.mjs';
import { nowMs, progress, waitFor, withTicker } from '../lib/progress.mjs';
import { clientFor, watchFromNow } from '../lib/watch.mjs';

export const description = 'the real scheduler placing HostedClusters created as fast as the API takes them (10 and 100 ManagementClusters)';

const rfc3339 = (d) => d.toISOString().replace(/\.\d+Z$/, 'Z');

/** What a syncer's heartbeat writes (packages/syncer/.../heartbeat-status.ts). */
function heartbeatStatus(capacity, now) {
  return {
    conditions: [{ type: 'Ready', status: 'True', reason: 'Heartbeat', message: 'The syncer is connected and reporting', lastTransitionTime: rfc3339(now) }],
    lastHeartbeatTime: rfc3339(now),
    namespaces: 0,
    hostedClusters: 0,
    budget: capacity,
    syncerVersion: 'bench',
  };
}

/**
 * One run with fresh processes. For experiments: `schedulerArgs` adds flags to `hcc scheduler`;
 * `ownPullSecrets` makes every HostedCluster reference a pull secret of its own (not created)
 * instead of the one shared `pull-secret` of its namespace.
 */
export async function oneRun(ctx, { M, N, warmN, label, schedulerArgs = [], ownPullSecrets = false }) {
  const scope = new Scope();
  try {
    const C = ctx.connections;
    const dir = tempDir(scope, 'schedule');
    const cc = await startControlCenter(scope, { tls: ctx.tls, dir });
    const ep = endpointOf(cc.kubeconfig);
    const pool = poolFor(ep, C);
    scope.defer(() => pool.destroy());
    const capacity = Math.ceil((2 * (N + warmN)) / M);
    const names = Array.from({ length: M }, (_, i) => `mgmt-${i + 1}`);
    const mergeCT = 'application/merge-patch+json';
    for (const n of names) await call(pool, ep, 'POST', MC_PATH, managementCluster(n, capacity));
    const beat = () => Promise.all(names.map((n) => call(pool, ep, 'PATCH', `${MC_PATH}/${n}/status`, { status: heartbeatStatus(capacity, new Date()) }, mergeCT)));
    await beat();
    const timer = setInterval(() => void beat().catch((err) => progress(`schedule: heartbeat failed: ${err.message}`)), 10_000);
    scope.defer(() => clearInterval(timer));
    for (const ns of ['warm', 'sched']) {
      await ensureNamespace(pool, ep, ns);
      await call(pool, ep, 'POST', SECRET_PATH(ns), pullSecret(ns, 'pull-secret'));
    }
    const sched = await startScheduler(scope, { kubeconfig: cc.schedulerKubeconfig, dir, extraArgs: schedulerArgs });

    // Bind times from a watch (the bench sees what any client sees).
    const client = clientFor(scope, cc.kubeconfig);
    const boundAt = new Map(); // ns/name → epoch ms the label was first seen
    const placedOn = new Map();
    const w = await watchFromNow(scope, client, HostedClusterResource, {}, (ev, at) => {
      const o = ev.object;
      const c = o?.metadata?.labels?.[PlacementLabel];
      if (!c || ev.type === 'BOOKMARK') return;
      const key = `${o.metadata.namespace}/${o.metadata.name}`;
      if (!boundAt.has(key)) {
        boundAt.set(key, at);
        placedOn.set(key, c);
      }
    });
    const boundIn = (ns) => [...boundAt.keys()].filter((k) => k.startsWith(`${ns}/`)).length;
    const waitBound = (ns, n, timeoutMs) =>
      withTicker(
        waitFor(`${n} placements in ${ns}`, () => {
          if (w.error()) throw w.error();
          return boundIn(ns) >= n;
        }, timeoutMs, 20),
        () => `schedule ${label}: ${boundIn(ns)}/${n} placed`,
      );

    // Warm-up burst.
    await populate(pool, ep, C, Array.from({ length: warmN }, (_, i) => ({ path: HC_PATH('warm'), body: hostedCluster('warm', `w-${i}`) })));
    await waitBound('warm', warmN, 120_000);

    // The measured burst.
    const sentAt = new Map();
    const schedCpu0 = cpuTimeMsOf(sched.pid);
    const ccCpu0 = cpuTimeMsOf(cc.pid);
    const jsonHeaders = { ...ep.headers, 'content-type': 'application/json' };
    const t0 = nowMs();
    const created = await closedLoop({
      pool,
      connections: C,
      count: N,
      next: (i) => {
        const name = `hc-${i}`;
        sentAt.set(`sched/${name}`, nowMs());
        const body = hostedCluster('sched', name, ownPullSecrets ? { pullSecret: `${name}-pull-secret` } : {});
        return { method: 'POST', path: HC_PATH('sched'), headers: jsonHeaders, body: JSON.stringify(body) };
      },
    });
    if (created.errors) throw new Error(`schedule: ${created.errors} creates failed; first: ${created.firstError}`);
    const tCreated = nowMs();
    progress(`schedule ${label}: ${N} created in ${((tCreated - t0) / 1000).toFixed(1)} s (${Math.round(created.rps)}/s); ${boundIn('sched')} placed so far`);
    await waitBound('sched', N, 600_000);
    const lat = [];
    let lastBind = 0;
    for (const [k, s] of sentAt) {
      const b = boundAt.get(k);
      lat.push(b - s);
      lastBind = Math.max(lastBind, b);
    }
    const totalS = (lastBind - t0) / 1000;
    const wallS = (nowMs() - t0) / 1000;
    const perCluster = {};
    for (const [k, c] of placedOn) if (k.startsWith('sched/') || k.startsWith('warm/')) perCluster[c] = (perCluster[c] ?? 0) + 1;
    const over = Object.entries(perCluster).filter(([, n]) => n > capacity);
    if (over.length) throw new Error(`schedule: over capacity ${capacity}: ${over.map(([c, n]) => `${c}=${n}`).join(', ')}`);
    const counts = Object.values(perCluster);
    const s = summarize(lat);
    const r = {
      rate: N / totalS,
      totalS,
      createRate: created.rps,
      createS: (tCreated - t0) / 1000,
      p50: s.p50,
      p90: s.p90,
      p99: s.p99,
      max: s.max,
      perClusterMin: Math.min(...counts),
      perClusterMax: Math.max(...counts),
      capacity,
      schedulerCpuPct: ((cpuTimeMsOf(sched.pid) - schedCpu0) / 10 / wallS),
      controlCenterCpuPct: ((cpuTimeMsOf(cc.pid) - ccCpu0) / 10 / wallS),
    };
    progress(
      `schedule ${label}: ${N} placed in ${totalS.toFixed(1)} s (${Math.round(r.rate)}/s), create-to-bind p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms; ` +
        `per cluster ${r.perClusterMin}..${r.perClusterMax} (capacity ${capacity}); CPU: scheduler ${Math.round(r.schedulerCpuPct)}%, control center ${Math.round(r.controlCenterCpuPct)}%`,
    );
    return r;
  } finally {
    await scope.close();
  }
}

export async function run(ctx) {
  const N = ctx.quick ? 300 : 10_000;
  const warmN = ctx.quick ? 50 : 500;
  const runs = ctx.fewRuns;
  // Filled case by case: a later case's failure keeps these (bench.mjs).
  const { rows, latencies, data } = ctx.partial;
  Object.assign(data, { hostedClusters: N, warmup: warmN });
  for (const M of [10, 100]) {
    const results = [];
    for (let i = 0; i < runs; i++) results.push(await oneRun(ctx, { M, N, warmN, label: `${M} clusters, run ${i + 1}/${runs}` }));
    const totalS = median(results.map((r) => r.totalS));
    const agg = {
      // The rate of the median time, so N ÷ "placed in" is the rate shown with it also for an even
      // number of runs (the median of the rates is then the mean of two, which N ÷ T is not).
      rate: N / totalS,
      totalS,
      createRate: median(results.map((r) => r.createRate)),
      schedulerCpuPct: median(results.map((r) => r.schedulerCpuPct)),
      controlCenterCpuPct: median(results.map((r) => r.controlCenterCpuPct)),
      p50: median(results.map((r) => r.p50)),
      p99: median(results.map((r) => r.p99)),
      runs: results,
    };
    data[`m${M}`] = agg;
    const target = M === 100 && N === 10_000;
    rows.push({
      case: `${M} clusters, ${N.toLocaleString('en-US')} HostedClusters: placements`,
      rate: agg.rate,
      unit: 'placed/s',
      p50: agg.p50,
      p99: agg.p99,
      vsBaseline: `created at ${Math.round(agg.createRate).toLocaleString('en-US')}/s`,
      target: M === 100 ? '≥ 2,000/s' : '',
      met: target ? agg.rate >= 2000 : undefined,
      valueBound: M === 100 ? 2000 : undefined,
      note: `latency: create → bind; CPU: scheduler ${Math.round(agg.schedulerCpuPct)}%, control center ${Math.round(agg.controlCenterCpuPct)}%`,
    });
    rows.push({
      case: `${M} clusters: all ${N.toLocaleString('en-US')} placed in`,
      value: agg.totalS,
      digits: 2,
      unit: 's',
      target: M === 100 ? '< 10 s' : '',
      met: target ? agg.totalS < 10 : undefined,
      valueBound: M === 100 ? 10 : undefined,
    });
    latencies.push({ label: `${M} clusters: create → bind`, p50: agg.p50, p99: agg.p99 });
  }
  return { rows, data, latencies };
}
