import { describe, expect, it } from 'vitest';
import { EventRecorder, eventName } from './event-recorder.js';
import type { KubeObject } from './types.js';
import { ApiError } from './api-errors.js';

const hc = (name: string, uid: string): KubeObject => ({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name, namespace: 'clusters', uid } });

describe('eventName', () => {
  it('is <name>.<hex nanoseconds> within the millisecond of the clock, and unique when the clock stands still', () => {
    const now = new Date('2026-11-30T00:00:00.123Z');
    const names = Array.from({ length: 1000 }, () => eventName('hc-1', now));
    expect(new Set(names).size).toBe(1000);
    for (const n of names.slice(0, 3)) {
      const m = /^hc-1\.([0-9a-f]+)$/.exec(n);
      expect(m).not.toBeNull();
      const ms = Number(BigInt(`0x${m![1]}`) / 1_000_000n);
      expect(ms).toBe(now.getTime());
    }
  });
});

describe('EventRecorder', () => {
  it('creates one Event per (object, type, reason, message) and counts repeats with a merge patch', async () => {
    const created: KubeObject[] = [];
    const patched: { name: string; body: unknown }[] = [];
    const rec = new EventRecorder({
      component: 'hcc-scheduler',
      client: {
        create: async (_r: unknown, _ns: string, obj: KubeObject) => {
          created.push(obj);
          return obj;
        },
        patch: async (_r: unknown, _ns: string, name: string, body: unknown) => {
          patched.push({ name, body });
          return {} as KubeObject;
        },
      } as never,
    });
    rec.event(hc('a', 'u1'), 'Normal', 'Scheduled', 'placed on mc-1');
    rec.event(hc('b', 'u2'), 'Normal', 'Scheduled', 'placed on mc-1');
    await new Promise((r) => setImmediate(r));
    rec.event(hc('a', 'u1'), 'Normal', 'Scheduled', 'placed on mc-1');
    await new Promise((r) => setImmediate(r));
    expect(created).toHaveLength(2);
    expect(created[0]).toMatchObject({ kind: 'Event', reason: 'Scheduled', type: 'Normal', count: 1, involvedObject: { kind: 'HostedCluster', name: 'a', uid: 'u1' } });
    // As client-go's core/v1 recorder: source.component and reportingComponent, no instance (no host).
    expect(created[0]).toMatchObject({ source: { component: 'hcc-scheduler' }, reportingComponent: 'hcc-scheduler', reportingInstance: '' });
    expect(created[0]!.metadata.name).not.toBe(created[1]!.metadata.name);
    expect(patched).toEqual([{ name: created[0]!.metadata.name, body: expect.objectContaining({ count: 2 }) }]);
  });

  it('creates the Event of a repeat again, with the count so far, when it is gone or its create failed (client-go recordToSink)', async () => {
    const stored = new Map<string, KubeObject>();
    const calls: string[] = [];
    let failCreates = 1;
    let failPatches = 0;
    const rec = new EventRecorder({
      component: 'hcc-scheduler',
      client: {
        create: async (_r: unknown, _ns: string, obj: KubeObject) => {
          calls.push(`create ${obj.metadata.name} count=${(obj as unknown as { count: number }).count}`);
          if (failCreates-- > 0) throw new ApiError(500, { kind: 'Status', code: 500, reason: 'InternalError', message: 'boom' });
          stored.set(obj.metadata.name!, obj);
          return obj;
        },
        patch: async (_r: unknown, _ns: string, name: string, body: { count: number }) => {
          calls.push(`patch ${name} count=${body.count}`);
          if (failPatches-- > 0) throw new ApiError(500, { kind: 'Status', code: 500, reason: 'InternalError', message: 'boom' });
          const ev = stored.get(name);
          if (!ev) throw new ApiError(404, { kind: 'Status', code: 404, reason: 'NotFound', message: `events "${name}" not found` });
          Object.assign(ev, body);
          return ev;
        },
      } as never,
    });
    const obj = hc('a', 'u1');
    const say = async () => {
      rec.event(obj, 'Warning', 'FailedScheduling', 'no cluster fits');
      await rec.idle();
    };
    await say(); // the create fails: nothing stored
    await say(); // the patch finds nothing: created again, count 2
    const [name] = [...stored.keys()];
    expect(stored.size).toBe(1);
    expect(stored.get(name!)).toMatchObject({ count: 2, reason: 'FailedScheduling' });
    stored.clear(); // deleted (e.g. the API server's Event TTL)
    await say();
    expect(stored.get(name!)).toMatchObject({ count: 3 });
    const first = (stored.get(name!) as unknown as { firstTimestamp: string }).firstTimestamp;
    failPatches = 1; // another failure than NotFound: dropped, no create
    await say();
    await say();
    expect(calls).toEqual([
      `create ${name} count=1`,
      `patch ${name} count=2`,
      `create ${name} count=2`,
      `patch ${name} count=3`,
      `create ${name} count=3`,
      `patch ${name} count=4`,
      `patch ${name} count=5`,
    ]);
    expect(stored.get(name!)).toMatchObject({ count: 5, firstTimestamp: first });
  });

  it('writes one Event at a time, in order, and drops new ones while maxQueued wait (as client-go does)', async () => {
    const created: string[] = [];
    let inFlight = 0;
    let most = 0;
    const rec = new EventRecorder({
      component: 'hcc-scheduler',
      maxQueued: 5,
      client: {
        create: async (_r: unknown, _ns: string, obj: KubeObject) => {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 2));
          inFlight--;
          created.push(obj.involvedObject ? String((obj.involvedObject as { name: string }).name) : '');
          return obj;
        },
        patch: async () => ({}) as KubeObject,
      } as never,
    });
    // The first is taken at once; five more wait; the rest of the burst is dropped.
    for (let i = 0; i < 20; i++) rec.event(hc(`h${i}`, `u${i}`), 'Normal', 'Scheduled', `placed ${i}`);
    await rec.idle();
    expect(created).toEqual(['h0', 'h1', 'h2', 'h3', 'h4', 'h5']);
    expect(most).toBe(1);
    expect(rec.dropped).toBe(14);
    // Room again once written.
    rec.event(hc('later', 'u99'), 'Normal', 'Scheduled', 'placed later');
    await rec.idle();
    expect(created.at(-1)).toBe('later');
  });
});
