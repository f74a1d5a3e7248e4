import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { events } from './events.js';

const now = new Date('2026-12-05T22:00:00Z');
const event = (fields: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'ns', creationTimestamp: '2026-12-05T21:59:00Z' }, ...fields }) as KubeObject;
const row = (fields: Record<string, unknown>) => {
  const names = events.strategy.tableColumns().map((c) => c.name);
  const cells = events.strategy.tableCells(event(fields), now);
  return Object.fromEntries(names.map((n, i) => [n, cells[i]]));
};

describe('the Event table, as kube-apiserver prints it', () => {
  it('has upstream\'s columns, the wide ones at priority 1', () => {
    const cols = events.strategy.tableColumns();
    expect(cols.map((c) => [c.name, c.priority])).toEqual([
      ['Last Seen', 0],
      ['Type', 0],
      ['Reason', 0],
      ['Object', 0],
      ['Subobject', 1],
      ['Source', 1],
      ['Message', 0],
      ['First Seen', 1],
      ['Count', 1],
      ['Name', 1],
    ]);
    expect(cols.at(-1)!.format).toBe('name');
  });

  it.each([
    {
      name: 'a client-go Event: both timestamps, count, source with host, trimmed message',
      fields: { type: 'Normal', reason: 'Scheduled', message: ' placed \n', involvedObject: { kind: 'HostedCluster', name: 'hc1', fieldPath: 'spec.x' }, source: { component: 'hcc-scheduler', host: 'h1' }, count: 3, firstTimestamp: '2026-12-05T21:00:00Z', lastTimestamp: '2026-12-05T21:50:00Z' },
      want: { 'Last Seen': '10m', Type: 'Normal', Reason: 'Scheduled', Object: 'hostedcluster/hc1', Subobject: 'spec.x', Source: 'hcc-scheduler, h1', Message: 'placed', 'First Seen': '60m', Count: 3, Name: 'e1' },
    },
    {
      name: 'no timestamps at all: <unknown>, not the object\'s age; a singleton counts 1; a kind without a name',
      fields: { reason: 'Bare', message: 'm', involvedObject: { kind: 'Node' } },
      want: { 'Last Seen': '<unknown>', Object: 'node', Source: '', 'First Seen': '<unknown>', Count: 1 },
    },
    {
      name: 'an events.k8s.io-style Event: eventTime, a series, reportingComponent and reportingInstance',
      fields: { reason: 'R', involvedObject: { kind: 'ConfigMap', name: 'c' }, eventTime: '2026-12-05T21:30:00.000000Z', series: { count: 7, lastObservedTime: '2026-12-05T21:58:00.000000Z' }, reportingComponent: 'ctrl', reportingInstance: 'pod-1' },
      want: { 'Last Seen': '2m', 'First Seen': '30m', Count: 7, Source: 'ctrl, pod-1' },
    },
    {
      name: 'lastTimestamp absent: first seen',
      fields: { reason: 'R', involvedObject: { kind: 'ConfigMap', name: 'c' }, firstTimestamp: '2026-12-05T21:55:00Z' },
      want: { 'Last Seen': '5m', 'First Seen': '5m' },
    },
  ])('$name', ({ fields, want }) => {
    expect(row(fields)).toMatchObject(want);
  });
});

describe('Event validation, as upstream legacyValidateEvent on every core/v1 create and update', () => {
  const inNs = (namespace: string, fields: Record<string, unknown>) => ({ ...event(fields), metadata: { name: 'e1', namespace } }) as KubeObject;
  const newStyle = { eventTime: '2026-12-05T21:30:00.000000Z', reportingComponent: 'example.com/ctrl', reportingInstance: 'pod-1', action: 'Sync', reason: 'R', involvedObject: { kind: 'ConfigMap', name: 'c', namespace: 'ns' } };
  it.each([
    { name: 'core/v1 style in its object\'s namespace', obj: inNs('ns', { reason: 'R', involvedObject: { kind: 'ConfigMap', name: 'c', namespace: 'ns' } }), want: [] },
    { name: 'core/v1 style about a cluster-scoped object, in default', obj: inNs('default', { reason: 'R', involvedObject: { kind: 'ManagementCluster', name: 'm' } }), want: [] },
    { name: 'core/v1 style about a cluster-scoped object, elsewhere', obj: inNs('ns', { reason: 'R', involvedObject: { kind: 'ManagementCluster', name: 'm' } }), want: [['involvedObject.namespace', 'does not match event.namespace']] },
    { name: 'core/v1 style in another namespace than its object', obj: inNs('ns', { reason: 'R', involvedObject: { kind: 'ConfigMap', name: 'c', namespace: 'other' } }), want: [['involvedObject.namespace', 'does not match event.namespace']] },
    { name: 'events.k8s.io style, complete', obj: inNs('ns', newStyle), want: [] },
    { name: 'events.k8s.io style about a cluster-scoped object in kube-system', obj: inNs('kube-system', { ...newStyle, involvedObject: { kind: 'Node', name: 'n' } }), want: [] },
    {
      name: 'events.k8s.io style without its reporting fields, action and reason',
      obj: inNs('ns', { eventTime: newStyle.eventTime, involvedObject: newStyle.involvedObject }),
      want: [
        ['reportingComponent', undefined],
        ['reportingComponent', "name part must be non-empty"],
        ['reportingComponent', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"],
        ['reportingInstance', undefined],
        ['action', undefined],
        ['reason', undefined],
      ],
    },
    {
      name: 'events.k8s.io style over the length limits',
      obj: inNs('ns', { ...newStyle, action: 'a'.repeat(129), reason: 'r'.repeat(129), reportingInstance: 'i'.repeat(129), message: 'm'.repeat(1025) }),
      want: [
        ['reportingInstance', 'can have at most 128 characters'],
        ['action', 'can have at most 128 characters'],
        ['reason', 'can have at most 128 characters'],
        ['message', 'can have at most 1024 characters'],
      ],
    },
  ])('$name', ({ obj, want }) => {
    const got = events.strategy.validate(obj, undefined as never).map((e) => [e.field, e.detail || undefined]);
    expect(got).toEqual(want);
    // The same on update: core/v1 makes nothing immutable.
    expect(events.strategy.validateUpdate(obj, obj).map((e) => [e.field, e.detail || undefined])).toEqual(want);
  });
});
