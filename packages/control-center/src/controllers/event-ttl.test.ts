import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { KubeObject } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';
import { createObject, updateObject } from '../handlers/object-ops.js';
import { events } from '../registry/builtin/events.js';
import { configmaps } from '../registry/builtin/configmaps.js';
import { storageKey } from '../registry/types.js';
import { EventTTLController, lastWriteMs } from './event-ttl.js';

const T0 = Date.parse('2026-11-30T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const ctx = (ms: number) => ({ fieldValidation: 'Ignore' as const, warnings: [], now: new Date(ms) });
const event = (name: string, last: number | undefined): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { kind: 'HostedCluster', name: 'hc-1', namespace: 'default' },
    reason: 'Scheduled',
    message: 'placed',
    type: 'Normal',
    ...(last !== undefined && { lastTimestamp: iso(last), firstTimestamp: iso(last) }),
  }) as unknown as KubeObject;

describe('lastWriteMs', () => {
  it('takes the latest of lastTimestamp, eventTime, series, managedFields and creationTimestamp', () => {
    const ev = { metadata: { creationTimestamp: iso(T0), managedFields: [{ time: iso(T0 + 5000) }] }, lastTimestamp: iso(T0 + 1000), eventTime: null } as unknown as KubeObject;
    expect(lastWriteMs(ev)).toBe(T0 + 5000);
    const series = { metadata: { creationTimestamp: iso(T0) }, eventTime: '2026-11-30T10:00:01.000000Z', series: { lastObservedTime: '2026-11-30T10:00:09.500000Z' } } as unknown as KubeObject;
    expect(lastWriteMs(series)).toBe(T0 + 9500);
    expect(lastWriteMs({ metadata: {} } as KubeObject)).toBeNaN();
  });
});

describe('EventTTLController', () => {
  let cc: RunningControlCenter;
  beforeAll(async () => {
    cc = await startTestControlCenter({ eventTTLMs: 0 });
  });
  afterAll(async () => {
    await cc.close();
  });

  it('deletes Events whose last write is older than the TTL, keeps the rest and every other kind', async () => {
    const hour = 3_600_000;
    // Written (creationTimestamp) at T0; one repeated at T0 + 50 min.
    await createObject(cc.store, configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old-config' } }, ctx(T0 - hour), { dryRun: false });
    await createObject(cc.store, events, 'default', event('old', T0), ctx(T0), { dryRun: false });
    await createObject(cc.store, events, 'default', event('repeated', T0), ctx(T0), { dryRun: false });
    await updateObject(cc.store, events, 'default', 'repeated', (cur) => ({ ...cur!, count: 2, lastTimestamp: iso(T0 + 50 * 60_000) }) as KubeObject, ctx(T0 + 50 * 60_000), { dryRun: false, subresource: '' });
    await createObject(cc.store, events, 'default', event('fresh', T0 + 30 * 60_000), ctx(T0 + 30 * 60_000), { dryRun: false });
    let now = T0 + 59 * 60_000;
    const ttl = new EventTTLController(cc.store, hour, pino({ enabled: false }), () => now);
    const exists = (n: string) => !!cc.store.get(storageKey(events, 'default', n));
    expect(await ttl.sweep()).toBe(0);
    now = T0 + hour + 1000;
    expect(await ttl.sweep()).toBe(1);
    expect([exists('old'), exists('repeated'), exists('fresh')]).toEqual([false, true, true]);
    now = T0 + 2 * hour;
    expect(await ttl.sweep()).toBe(2);
    expect(exists('repeated') || exists('fresh')).toBe(false);
    // Other kinds are never touched, however old.
    expect(cc.store.get(storageKey(configmaps, 'default', 'old-config'))).toBeTruthy();
  });
});
