import { describe, expect, it } from 'vitest';
import { ApiError, type RestClient } from '@hcc/client';
import type { KubeObject } from '@hcc/crds';
import { PresenceRenewer, presenceLeaseName, presences, presenceWriteProblem, renewPresence } from './presence.js';
import { TakeOver } from './take-over.js';

/** A fake management cluster holding Leases and namespaces, recording writes. */
function fakeCluster(namespaces: string[]) {
  const leases = new Map<string, KubeObject>();
  const writes: string[] = [];
  const notFound = () => new ApiError(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'not found', reason: 'NotFound', code: 404 });
  const client = {
    get: async (_ref: unknown, ns: string, name: string) => {
      const l = leases.get(`${ns}/${name}`);
      if (!l) throw notFound();
      return structuredClone(l);
    },
    create: async (ref: { resource: string }, ns: string | undefined, obj: KubeObject) => {
      writes.push(`create ${ref.resource} ${ns ?? ''}/${obj.metadata.name}`);
      if (ref.resource === 'namespaces') return void namespaces.push(obj.metadata.name!);
      if (!namespaces.includes(ns!)) throw notFound();
      leases.set(`${ns}/${obj.metadata.name}`, structuredClone(obj));
      return obj;
    },
    update: async (_ref: unknown, ns: string, obj: KubeObject) => {
      writes.push(`update ${ns}/${obj.metadata.name}`);
      leases.set(`${ns}/${obj.metadata.name}`, structuredClone(obj));
      return obj;
    },
    list: async (_ref: unknown, opts: { labelSelector?: string }) => {
      const want = Object.fromEntries((opts.labelSelector ?? '').split(',').map((r) => r.split('=')));
      return { metadata: {}, items: [...leases.values()].filter((l) => Object.entries(want).every(([k, v]) => l.metadata.labels?.[k] === v)) };
    },
  } as unknown as RestClient;
  return { client, writes, leases };
}

describe('presence Leases', () => {
  const t0 = Date.parse('2026-12-03T12:00:00Z');
  it('creates its Lease (and its namespace when missing), renews it, and reads every control center’s for the same name with until when each is live', async () => {
    const c = fakeCluster([]);
    const renew = (cc: string, nowMs: number, namespace = 'hcc-system', cluster = 'm1') => renewPresence(c.client, { namespace, cluster, controlCenter: cc, holder: `h-${cc}`, durationSeconds: 4, nowMs });
    await renew('cc-a', t0);
    expect(c.writes).toEqual(['create leases hcc-system/hcc-syncer.m1.cc-a', 'create namespaces /hcc-system', 'create leases hcc-system/hcc-syncer.m1.cc-a']);
    await renew('cc-a', t0 + 1000);
    expect(c.writes.at(-1)).toBe('update hcc-system/hcc-syncer.m1.cc-a');
    await renew('cc-b', t0 + 500, 'hcc-system');
    await renew('cc-c', t0, 'hcc-system', 'm2'); // another ManagementCluster name: not m1's
    const seen = await presences(c.client, 'm1');
    expect([...seen.keys()].sort()).toEqual(['cc-a', 'cc-b']);
    expect(seen.get('cc-a')).toMatchObject({ controlCenter: 'cc-a', lease: 'hcc-system/hcc-syncer.m1.cc-a', renewTime: '2026-12-03T12:00:01.000000Z', graceMs: 8000 });
    // Its label and ID edited by hand are put back at the next renewal.
    const lease = c.leases.get('hcc-system/hcc-syncer.m1.cc-a')!;
    lease.metadata.labels = {};
    lease.metadata.annotations = { 'controlcenter.hcc.dev/control-center-id': 'x' };
    await renew('cc-a', t0 + 2000);
    expect((await presences(c.client, 'm1')).get('cc-a')?.renewTime).toBe('2026-12-03T12:00:02.000000Z');
    expect(presenceLeaseName('M1', 'CC')).toBe('hcc-syncer.m1.cc');
  });

  it('reads the Lease again and retries when another renewal wrote it in between (409), and gives up after three writes', async () => {
    const c = fakeCluster(['hcc-system']);
    const renew = () => renewPresence(c.client, { namespace: 'hcc-system', cluster: 'm1', controlCenter: 'cc-a', holder: 'h', durationSeconds: 4, nowMs: t0 });
    await renew();
    const status = (code: number, reason: string) => new ApiError(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: reason, reason, code });
    const update = c.client.update.bind(c.client);
    let conflicts = 1;
    c.client.update = (async (...args: Parameters<RestClient['update']>) => {
      if (conflicts-- > 0) throw status(409, 'Conflict');
      return update(...args);
    }) as RestClient['update'];
    await renew();
    expect(c.writes.filter((w) => w.startsWith('update'))).toHaveLength(1);
    conflicts = 3;
    await expect(renew()).rejects.toMatchObject({ code: 409 });
    conflicts = 0;
    c.client.update = (async () => {
      throw status(403, 'Forbidden');
    }) as RestClient['update'];
    await expect(renew()).rejects.toMatchObject({ code: 403 });
  });

  it('renews one at a time: a renewal asked for while one is in flight shares it (no racing read-and-update)', async () => {
    const c = fakeCluster(['hcc-system']);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const get = c.client.get.bind(c.client);
    let gets = 0;
    c.client.get = (async (...args: Parameters<RestClient['get']>) => {
      gets++;
      await gate; // the management cluster is slow (or stopped) for now
      return get(...args);
    }) as RestClient['get'];
    const renewer = new PresenceRenewer(c.client);
    const o = { namespace: 'hcc-system', cluster: 'm1', controlCenter: 'cc-a', holder: 'h', durationSeconds: 4 };
    const first = renewer.renew({ ...o, nowMs: t0 });
    const second = renewer.renew({ ...o, nowMs: t0 + 1000 });
    release();
    await Promise.all([first, second]);
    expect(gets).toBe(1);
    expect(c.writes).toEqual(['create leases hcc-system/hcc-syncer.m1.cc-a']);
    // Once done, the next renewal writes again.
    await renewer.renew({ ...o, nowMs: t0 + 2000 });
    expect(c.writes.at(-1)).toBe('update hcc-system/hcc-syncer.m1.cc-a');
  });

  it('advises RBAC for a 403 only', () => {
    const err = (code: number) => new ApiError(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `leases is ${code}`, reason: code === 403 ? 'Forbidden' : 'Conflict', code });
    expect(presenceWriteProblem('hcc-system', err(403))).toContain('give the syncer get, create and update on Leases there');
    expect(presenceWriteProblem('hcc-system', err(409))).not.toContain('give the syncer');
    expect(presenceWriteProblem('hcc-system', err(409))).toContain('could not be renewed this heartbeat');
    expect(presenceWriteProblem('hcc-system', new Error('connect ECONNREFUSED'))).toContain('ECONNREFUSED');
  });
});

describe('take-over from a control center (--take-over-from)', () => {
  const now = 1_000_000;
  const lease = (id: string, rv: string, graceMs = 8000) => new Map([[id, { controlCenter: id, lease: `hcc-system/hcc-syncer.m1.${id}`, renewTime: '2099-01-01T00:00:00.000000Z', resourceVersion: rv, graceMs }]]);
  it('times a Lease on its own clock from when it last saw it change: waits while it is renewed, takes over once unrenewed for its grace, never at once (a Lease never seen counts from the start)', () => {
    const said: string[] = [];
    const t = new TakeOver(['cc-old'], (level, _id, message, reason) => said.push(`${level} ${reason ?? '-'} ${message.slice(0, 50)}`));
    expect(t.observe(undefined, now, 8000)).toEqual([]);
    expect(t.observe(lease('cc-old', '1'), now, 8000)).toEqual([]);
    expect(t.observe(lease('cc-old', '2'), now + 5000, 8000)).toEqual([]); // renewed: 8 s from now
    expect(t.observe(lease('cc-old', '2'), now + 12000, 8000)).toEqual([]);
    expect(t.active.size).toBe(0);
    // A renewTime far in the future written by a clock ahead does not matter: only the change does.
    expect(t.observe(lease('cc-old', '2'), now + 13001, 8000)).toEqual(['cc-old']);
    expect([...t.active]).toEqual(['cc-old']);
    // Renewed again (its syncer came back): no longer taken over.
    t.observe(lease('cc-old', '3'), now + 14000, 8000);
    expect(t.active.size).toBe(0);
    expect(said.map((x) => x.split(' ').slice(0, 2).join(' '))).toEqual(['warn TakeOverWaiting', 'warn TakeOverWaiting', 'info -', 'warn TakeOverWaiting']);
  });

  it('a Lease deleted by hand counts as running for its grace after it went; one never seen for the own grace after the start', () => {
    const t = new TakeOver(['cc-old'], () => {});
    t.observe(lease('cc-old', '1', 20_000), now, 8000);
    expect(t.observe(new Map(), now + 1000, 8000)).toEqual([]);
    expect(t.observe(new Map(), now + 20_999, 8000)).toEqual([]);
    expect(t.observe(new Map(), now + 21_000, 8000)).toEqual(['cc-old']);
    const fresh = new TakeOver(['cc-gone'], () => {});
    expect(fresh.observe(new Map(), now, 8000)).toEqual([]);
    expect(fresh.observe(new Map(), now + 8000, 8000)).toEqual(['cc-gone']);
  });

  it('counts another syncer as running only once it saw its Lease renewed', () => {
    const t = new TakeOver([], () => {});
    t.observe(lease('cc-x', '1'), now, 8000);
    expect(t.isLive('cc-x', now)).toBe(false); // perhaps left behind long ago
    t.observe(lease('cc-x', '2'), now + 1000, 8000);
    expect(t.isLive('cc-x', now + 1000)).toBe(true);
    expect(t.isLive('cc-x', now + 9000)).toBe(false);
  });

  it('gives up for good once a copy of its shows its syncer runs (one too old to keep a Lease)', () => {
    const said: string[] = [];
    const t = new TakeOver(['cc-old'], (level, _id, _message, reason) => said.push(`${level} ${reason}`));
    t.observe(new Map(), now, 0);
    expect(t.stop('cc-other', 'x')).toBe(false);
    expect(t.stop('cc-old', 'it made HostedCluster team/a')).toBe(true);
    expect(t.active.size).toBe(0);
    expect(t.observe(new Map(), now, 0)).toEqual([]);
    expect(t.active.size).toBe(0);
    expect(said).toEqual(['info undefined', 'error TakeOverStopped']);
  });
});
