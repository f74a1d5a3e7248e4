import { describe, expect, it } from 'vitest';
import { ApiError, type RestClient } from '@hcc/client';
import type { KubeObject } from '@hcc/crds';
import { presenceLeaseName, presences, renewPresence } from './presence.js';
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
    expect(seen.get('cc-a')).toEqual({ controlCenter: 'cc-a', lease: 'hcc-system/hcc-syncer.m1.cc-a', renewTime: '2026-12-03T12:00:01.000000Z', liveUntilMs: t0 + 1000 + 8000 });
    expect(presenceLeaseName('M1', 'CC')).toBe('hcc-syncer.m1.cc');
  });
});

describe('take-over from a control center (--take-over-from)', () => {
  const now = 1_000_000;
  const live = (id: string, untilMs: number) => new Map([[id, { controlCenter: id, lease: `hcc-system/hcc-syncer.m1.${id}`, renewTime: 'T', liveUntilMs: untilMs }]]);
  it('waits while its syncer’s Lease is live, takes over once it expired (or when there is none), and not while the Leases cannot be read', () => {
    const said: string[] = [];
    const t = new TakeOver(['cc-old'], (level, id, message, reason) => said.push(`${level} ${reason ?? '-'} ${message.slice(0, 60)}`));
    expect(t.observe(undefined, now)).toEqual([]);
    expect(t.active.size).toBe(0);
    expect(t.observe(live('cc-old', now + 1), now)).toEqual([]);
    expect(t.active.size).toBe(0);
    expect(t.observe(live('cc-old', now + 1), now)).toEqual([]); // said once
    expect(t.observe(live('cc-old', now - 1), now)).toEqual(['cc-old']);
    expect([...t.active]).toEqual(['cc-old']);
    expect(t.observe(new Map(), now)).toEqual([]); // still taken over, not new
    // Live again (its syncer came back): no longer taken over.
    t.observe(live('cc-old', now + 5000), now);
    expect(t.active.size).toBe(0);
    expect(said).toEqual([
      "warn TakeOverWaiting --take-over-from cc-old: the presence Leases in the manageme",
      "warn TakeOverWaiting --take-over-from cc-old: that control center's syncer still ",
      "info - taking over the copies of control center cc-old: its syncer'",
      "warn TakeOverWaiting --take-over-from cc-old: that control center's syncer still ",
    ]);
  });

  it('gives up for good once a copy of its shows its syncer runs (one too old to keep a Lease)', () => {
    const said: string[] = [];
    const t = new TakeOver(['cc-old'], (level, id, message, reason) => said.push(`${level} ${reason}`));
    t.observe(new Map(), now);
    expect(t.stop('cc-other', 'x')).toBe(false);
    expect(t.stop('cc-old', 'it made HostedCluster team/a')).toBe(true);
    expect(t.active.size).toBe(0);
    expect(t.observe(new Map(), now)).toEqual([]);
    expect(t.active.size).toBe(0);
    expect(said).toEqual(['info undefined', 'error TakeOverStopped']);
  });
});
