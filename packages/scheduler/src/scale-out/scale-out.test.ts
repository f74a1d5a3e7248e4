import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createSchedulerMetrics } from '../metrics.js';
import { info } from '../testing/fixtures.js';
import { createScaleOutController, lastSignalMs } from './scale-out-controller.js';
import { fleetDemand, notifyWebhook, runCommand, ScaleOutDebouncer, scaleOutMessage, scaleOutRequest, type PendingInfo, type ScaleOutRequest } from './scale-out.js';

const p = (budgetBound: boolean, platform = 'AWS', sinceMs = 0): PendingInfo => ({ budgetBound, platform, sinceMs });

describe('fleetDemand', () => {
  it.each([
    { name: 'nothing waits', input: { pending: {}, clusters: [info('a')] }, want: { pending: 0, missingSlots: 0, byPlatform: {}, freeSlots: 10, cordonedFreeSlots: 0, oldestPending: '' } },
    {
      name: 'only budget-bound HostedClusters are missing slots',
      input: { pending: { 'n/a': p(true, 'AWS', 5), 'n/b': p(true, 'KubeVirt', 3), 'n/c': p(false, 'Agent', 1) }, clusters: [info('a', { capacity: 1, hosted: 1 })] },
      want: { pending: 3, missingSlots: 2, byPlatform: { AWS: 1, KubeVirt: 1 }, freeSlots: 0, cordonedFreeSlots: 0, oldestPending: 'n/b' },
    },
    {
      name: 'free slots count only clusters that take placements; those of cordoned Ready ones are counted apart',
      input: { pending: {}, clusters: [info('a', { capacity: 5, hosted: 1 }), info('b', { cordon: true }), info('c', { ready: false })] },
      want: { pending: 0, missingSlots: 0, byPlatform: {}, freeSlots: 4, cordonedFreeSlots: 10, oldestPending: '' },
    },
  ])('$name', ({ input, want }) => {
    expect(fleetDemand(new Map(Object.entries(input.pending)), input.clusters)).toEqual({ ...want, managementClusters: input.clusters.length });
  });

  it('counts one cluster under several names once (the same status.clusterID), whichever name is ready', () => {
    const withID = (c: ReturnType<typeof info>, id: string) => ({ ...c, cluster: { ...c.cluster, status: { ...c.cluster.status, clusterID: id } } });
    const clusters = [withID(info('a', { ready: false }), 'uid-a'), withID({ ...info('a-again') }, 'uid-a'), info('b'), info('c', { ready: false })];
    expect(fleetDemand(new Map(), clusters).managementClusters).toBe(3);
  });
});

describe('ScaleOutDebouncer', () => {
  it.each([
    {
      name: 'waits for the debounce period, then at most once per interval',
      input: { debounceSeconds: 2, minIntervalSeconds: 10, steps: [[0, 5], [1000, 5], [2000, 6], [3000, 6], [11_999, 6], [12_000, 7]] },
      want: [false, false, true, false, false, true],
    },
    {
      name: 'missing slots going back to 0 restart the debounce, not the interval',
      input: { debounceSeconds: 1, minIntervalSeconds: 5, steps: [[0, 1], [1000, 1], [2000, 0], [3000, 1], [4000, 1], [6000, 1]] },
      want: [false, true, false, false, false, true],
    },
    { name: 'no debounce', input: { debounceSeconds: 0, minIntervalSeconds: 1, steps: [[0, 0], [10, 3], [20, 3]] }, want: [false, true, false] },
  ])('$name', ({ input, want }) => {
    const d = new ScaleOutDebouncer(input);
    expect(input.steps.map(([t, n]) => d.observe(n!, t!))).toEqual(want);
  });
});

describe('scaleOutMessage', () => {
  it('says how many, of which platforms, where', () => {
    const d = fleetDemand(new Map([['n/a', p(true, 'AWS', 1)], ['n/b', p(true, 'AWS', 2)], ['n/c', p(true, 'KubeVirt', 3)]]), [info('a', { capacity: 1, hosted: 1 })]);
    expect(scaleOutMessage(d)).toBe(
      '3 HostedClusters wait for budget: 3 slots missing (2 AWS, 1 KubeVirt) across 1 management cluster, which has no free slots; oldest waiting: n/a. Add a management cluster or raise a capacity.',
    );
  });

  it('names free slots on cordoned clusters, and uncordoning as a way out', () => {
    const d = fleetDemand(new Map([['n/a', p(true, 'KubeVirt', 1)], ['n/b', p(true, 'KubeVirt', 2)]]), [info('a', { capacity: 1, hosted: 1 }), info('c', { capacity: 5, hosted: 0, cordon: true })]);
    expect(scaleOutMessage(d)).toBe(
      '2 HostedClusters wait for budget: 2 slots missing (2 KubeVirt) across 2 management clusters, which have no free slots apart from 5 on cordoned ones; oldest waiting: n/a. Uncordon a management cluster, add one or raise a capacity.',
    );
    const withUnusable = fleetDemand(new Map([['n/a', p(true, 'KubeVirt', 1)]]), [info('a', { capacity: 3, hosted: 1 }), info('c', { capacity: 5, hosted: 0, cordon: true })]);
    expect(scaleOutMessage(withUnusable)).toBe(
      '1 HostedCluster waits for budget: 1 slot missing (1 KubeVirt) across 2 management clusters, whose 2 free slots it cannot use (platform, taints or selectors), and 5 on cordoned ones; oldest waiting: n/a. Uncordon a management cluster, add one or raise a capacity.',
    );
  });

  it('leaves out the free slots of a cluster being deleted', () => {
    const deleting = info('d', { capacity: 3, hosted: 0 });
    deleting.cluster.metadata.deletionTimestamp = '2026-12-02T00:00:00Z';
    const d = fleetDemand(new Map([['n/a', p(true, 'None', 1)]]), [info('a', { capacity: 1, hosted: 1 }), deleting]);
    expect(d.freeSlots).toBe(0);
    expect(scaleOutMessage(d)).toContain('across 2 management clusters, which have no free slots; oldest waiting');
  });

  it('says one in the singular, and names free slots the waiting ones cannot use', () => {
    const d = fleetDemand(new Map([['n/a', p(true, 'None', 1)]]), [info('a', { capacity: 1, hosted: 1 }), info('b', { capacity: 3, hosted: 1 })]);
    expect(scaleOutMessage(d)).toBe(
      '1 HostedCluster waits for budget: 1 slot missing (1 None) across 2 management clusters, whose 2 free slots it cannot use (platform, taints or selectors); oldest waiting: n/a. Add a management cluster or raise a capacity.',
    );
    const one = fleetDemand(new Map([['n/a', p(true, 'None', 1)], ['n/b', p(true, 'None', 2)]]), [info('a', { capacity: 1, hosted: 1 }), info('b', { capacity: 2, hosted: 1 })]);
    expect(scaleOutMessage(one)).toContain('2 HostedClusters wait for budget: 2 slots missing (2 None) across 2 management clusters, whose 1 free slot they cannot use');
  });
});

const body = (): ScaleOutRequest => scaleOutRequest({ pending: 4, missingSlots: 3, byPlatform: { None: 3 }, managementClusters: 2, freeSlots: 0, cordonedFreeSlots: 0, oldestPending: 'n/a' }, new Date(0));

describe('notifyWebhook', () => {
  it('POSTs the JSON body; 2xx is success, anything else a failure', async () => {
    const got: unknown[] = [];
    let status = 200;
    const server = createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        got.push({ method: req.method, type: req.headers['content-type'], body: JSON.parse(b) });
        res.writeHead(status).end(status === 200 ? '' : 'no capacity left in eu-west-1\n');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/scale`;
    try {
      expect(await notifyWebhook(url, body(), 5000)).toEqual({ ok: true, detail: 'HTTP 200' });
      status = 503;
      expect(await notifyWebhook(url, body(), 5000)).toEqual({ ok: false, detail: 'HTTP 503: no capacity left in eu-west-1' });
      expect(got[0]).toEqual({ method: 'POST', type: 'application/json', body: { ...body(), apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ScaleOutRequest' } });
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('says why a call failed, not just fetch\'s "fetch failed"', async () => {
    // A port nothing listens on any more: refused.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    expect(await notifyWebhook(`http://127.0.0.1:${port}/scale`, body(), 2000)).toEqual({ ok: false, detail: expect.stringMatching(/^fetch failed: .*ECONNREFUSED/) });
  });

  it('says a timeout as the command does', async () => {
    const server = createServer(() => undefined); // never answers
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/scale`;
      expect(await notifyWebhook(url, body(), 300)).toEqual({ ok: false, detail: 'timed out after 300 ms' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('runCommand', () => {
  const node = process.execPath;
  const checks = 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.exit(process.env.HCC_MISSING_SLOTS==="3"&&JSON.parse(s).missingSlots===3&&process.env.HCC_PENDING_HOSTEDCLUSTERS==="4"?0:7))';
  it.each([
    { name: 'env and stdin carry the request; exit 0 succeeds', input: { argv: [node, '-e', checks], timeoutMs: 10_000 }, want: { ok: true, detail: 'exit code 0' } },
    { name: 'non-zero exit fails', input: { argv: [node, '-e', 'process.exit(3)'], timeoutMs: 10_000 }, want: { ok: false, detail: 'exit code 3' } },
    { name: 'a failure says the end of its stderr', input: { argv: [node, '-e', 'console.error("x".repeat(500) + " quota exceeded"); process.exit(3)'], timeoutMs: 10_000 }, want: { ok: false, detail: expect.stringMatching(/^exit code 3: …x+ quota exceeded$/) } },
    { name: 'missing binary fails', input: { argv: ['/nonexistent/hcc-scale-out'], timeoutMs: 10_000 }, want: { ok: false, detail: expect.stringContaining('ENOENT') } },
    { name: 'timeout kills it', input: { argv: [node, '-e', 'setTimeout(()=>{}, 60000)'], timeoutMs: 300 }, want: { ok: false, detail: 'timed out after 300 ms' } },
  ])('$name', async ({ input, want }) => {
    expect(await runCommand(input.argv, body(), input.timeoutMs)).toEqual(want);
  });

  it('leaves alone what a command that exits in time left running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hcc-scale-out-'));
    const pidFile = join(dir, 'bg.pid');
    try {
      // The background process keeps stderr open: the result waits briefly for it, never kills it.
      const script = `sleep 30 & echo $! > ${pidFile}; exit 0`;
      expect(await runCommand(['/bin/sh', '-c', script], body(), 5000)).toEqual({ ok: true, detail: 'exit code 0' });
      const pid = Number(readFileSync(pidFile, 'utf8'));
      await new Promise((r) => setTimeout(r, 5200)); // past the timeout it had
      expect(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]).not.toBe('Z');
      process.kill(pid, 'SIGKILL');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 15_000);

  it('kills what a timed-out command started too (its process group)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hcc-scale-out-'));
    const pidFile = join(dir, 'sleep.pid');
    try {
      // A shell script whose child outlives a kill of the script alone.
      const script = `sleep 60 & echo $! > ${pidFile}; wait`;
      expect(await runCommand(['/bin/sh', '-c', script], body(), 500)).toEqual({ ok: false, detail: 'timed out after 500 ms' });
      const pid = Number(readFileSync(pidFile, 'utf8'));
      // Gone, or a zombie nobody reaped yet (a container's init may never reap it).
      const alive = () => {
        try {
          return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(alive()).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the scale-out controller', () => {
  it('updates the gauges every tick and signals (event, webhook, command) when the debouncer says so', async () => {
    let t = 0;
    const pending = new Map<string, PendingInfo>([['n/a', p(true, 'None', 0)], ['n/b', p(false, 'None', 0)]]);
    const events: string[] = [];
    const calls: string[] = [];
    const metrics = createSchedulerMetrics();
    const c = createScaleOutController({
      settings: { webhook: 'http://example.invalid/x', command: ['add-cluster'], minIntervalSeconds: 60, debounceSeconds: 5, timeoutSeconds: 1 },
      pending,
      snapshot: () => [info('a', { capacity: 1, hosted: 1 })],
      eventObject: async () => ({ kind: 'Lease', metadata: { name: 'hcc-scheduler', namespace: 'hcc-system' } }),
      recorder: { event: (obj, type, reason, message) => void events.push(`${obj.kind} ${type} ${reason}: ${message}`) },
      metrics,
      logger: pino({ enabled: false }),
      now: () => new Date(t),
      webhook: async (url, b) => (calls.push(`webhook ${url} ${b.missingSlots}`), { ok: true, detail: 'HTTP 204' }),
      command: async (argv, b) => (calls.push(`command ${argv.join(' ')} ${b.missingSlots}`), { ok: false, detail: 'exit code 1' }),
    });
    expect(c.tick()).toBeUndefined();
    expect((await metrics.pending.get()).values[0]!.value).toBe(2);
    expect((await metrics.missingSlots.get()).values[0]!.value).toBe(1);
    t = 5000;
    await c.tick();
    expect(events).toEqual([expect.stringMatching(/^Lease Warning FleetOutOfBudget: 1 HostedCluster waits for budget: 1 slot missing \(1 None\)/)]);
    expect(calls.sort()).toEqual(['command add-cluster 1', 'webhook http://example.invalid/x 1']);
    t = 6000;
    expect(c.tick()).toBeUndefined();
    const signals = (await metrics.scaleOutSignals.get()).values.map((v) => `${v.labels.target}/${v.labels.result}=${v.value}`).sort();
    expect(signals).toEqual(['command/failure=1', 'event/success=1', 'webhook/success=1']);
  });

  /** A controller over one budget-bound HostedCluster (300 s interval, 2 s debounce), its clock and the Event reasons it recorded. */
  const leaderWith = (lastSignal: () => Promise<number | undefined>) => {
    const clock = { t: 0 };
    const events: string[] = [];
    const c = createScaleOutController({
      settings: { minIntervalSeconds: 300, debounceSeconds: 2, timeoutSeconds: 1 },
      pending: new Map([['n/a', p(true, 'None', 0)]]),
      snapshot: () => [info('a', { capacity: 1, hosted: 1 })],
      eventObject: async () => ({ kind: 'Lease', metadata: { name: 'hcc-scheduler', namespace: 'hcc-system' } }),
      recorder: { event: (_o, _t, reason) => void events.push(reason) },
      metrics: createSchedulerMetrics(),
      logger: pino({ enabled: false }),
      now: () => new Date(clock.t),
      lastSignal,
    });
    return { c, clock, events };
  };

  it('counts minIntervalSeconds from the last signal a former leader sent (its Event), not from its own start', async () => {
    let lastSignal: (v: number | undefined) => void = () => {};
    // The Lease was lost and regained: the last signal went out 60 s ago.
    const { c, clock, events } = leaderWith(() => new Promise((resolve) => (lastSignal = resolve)));
    clock.t = 100_000;
    // Not read yet: no signal, however long slots have been missing.
    expect(c.tick()).toBeUndefined();
    clock.t += 5000;
    expect(c.tick()).toBeUndefined();
    const last = clock.t - 60_000;
    lastSignal(last);
    await new Promise((r) => setImmediate(r));
    clock.t = last + 65_000;
    expect(c.tick()).toBeUndefined(); // 65 s after the last signal: within minIntervalSeconds
    clock.t = last + 299_000;
    expect(c.tick()).toBeUndefined();
    clock.t = last + 300_000;
    await c.tick(); // the next signal
    expect(events).toEqual(['FleetOutOfBudget']);
  });

  it('signals as before when the last signal cannot be read', async () => {
    const { c, clock, events } = leaderWith(async () => {
      throw new Error('503');
    });
    await new Promise((r) => setImmediate(r));
    expect(c.tick()).toBeUndefined();
    clock.t = 2000;
    await c.tick();
    expect(events).toEqual(['FleetOutOfBudget']);
  });
});

describe('lastSignalMs', () => {
  const ev = (reason: string, name: string, lastTimestamp: string, kind = 'Lease') => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: `e-${lastTimestamp}` }, reason, involvedObject: { kind, name }, lastTimestamp });
  it.each([
    { name: 'none', input: [], want: undefined },
    {
      name: "the newest of the Lease's FleetOutOfBudget Events",
      input: [ev('FleetOutOfBudget', 'hcc-scheduler', '2026-12-04T10:00:00Z'), ev('FleetOutOfBudget', 'hcc-scheduler', '2026-12-04T10:05:00Z'), ev('FleetOutOfBudget', 'hcc-scheduler', '2026-12-04T09:00:00Z')],
      want: Date.parse('2026-12-04T10:05:00Z'),
    },
    {
      name: 'other reasons and objects are not signals',
      input: [ev('LeaderElection', 'hcc-scheduler', '2026-12-04T11:00:00Z'), ev('FleetOutOfBudget', 'other', '2026-12-04T11:00:00Z'), ev('FleetOutOfBudget', 'hcc-scheduler', '2026-12-04T11:00:00Z', 'ConfigMap'), ev('FleetOutOfBudget', 'hcc-scheduler', '2026-12-04T10:00:00Z')],
      want: Date.parse('2026-12-04T10:00:00Z'),
    },
  ])('$name', ({ input, want }) => expect(lastSignalMs(input, 'hcc-scheduler')).toBe(want));
});
