/**
 * PlacementCounts over a real LevelStore: what it counts at start and from the store's events
 * (placements, deletions, a label removed), and how a reservation holds a slot until released.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlCenterAPIVersion, HostedClusterResource, LabelManagementCluster, ManagementClusterResource, type KubeObject } from '@hcc/crds';
import { LevelStore } from '../storage/level/level-store.js';
import { storageKey } from '../registry/types.js';
import { capacityOf, PlacementCounts } from './placement-capacity.js';

const hc = (name: string, cluster?: string): KubeObject => ({
  apiVersion: 'hypershift.openshift.io/v1beta1',
  kind: 'HostedCluster',
  metadata: { name, namespace: 'clusters', ...(cluster ? { labels: { [LabelManagementCluster]: cluster } } : {}) },
});
const mc = (name: string, capacity?: number): KubeObject => ({ apiVersion: ControlCenterAPIVersion, kind: 'ManagementCluster', metadata: { name }, spec: capacity === undefined ? {} : { capacity } });

describe('PlacementCounts', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  const open = async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-placements-'));
    const store = new LevelStore({ dir });
    await store.open();
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const put = (key: string, object: KubeObject | undefined) => store.transact(key, () => (object ? { op: 'put', object } : { op: 'delete' }));
    return { store, put, hcKey: (name: string) => storageKey(HostedClusterResource, 'clusters', name) };
  };

  it('counts what is stored at start and follows placements, label removals and deletions', async () => {
    const { store, put, hcKey } = await open();
    await put(hcKey('a'), hc('a', 'm1'));
    await put(hcKey('b'), hc('b'));
    const counts = new PlacementCounts(store);
    counts.start();
    cleanups.unshift(async () => counts.stop());
    expect([counts.held('m1'), counts.held('m2')]).toEqual([1, 0]);
    await put(hcKey('b'), hc('b', 'm1'));
    await put(hcKey('c'), hc('c', 'm2'));
    expect([counts.held('m1'), counts.held('m2')]).toEqual([2, 1]);
    await put(hcKey('a'), hc('a'));
    await put(hcKey('c'), undefined);
    expect([counts.held('m1'), counts.held('m2')]).toEqual([1, 0]);
  });

  it('holds a slot for a bind in flight until it is released (once), and refuses past the capacity', async () => {
    const { store, put, hcKey } = await open();
    await put(storageKey(ManagementClusterResource, '', 'm1'), mc('m1', 2));
    await put(hcKey('a'), hc('a', 'm1'));
    const counts = new PlacementCounts(store);
    counts.start();
    cleanups.unshift(async () => counts.stop());
    const first = counts.reserve('m1');
    expect('release' in first).toBe(true);
    expect(counts.reserve('m1')).toEqual({ capacity: 2, held: 2 });
    if ('release' in first) {
      first.release();
      first.release();
    }
    expect(counts.held('m1')).toBe(1);
    // No ManagementCluster, or one without a capacity: no limit.
    for (let i = 0; i < 5; i++) expect('release' in counts.reserve('nowhere')).toBe(true);
    expect(counts.held('nowhere')).toBe(5);
  });

  it('reads a capacity only when it is a non-negative integer', () => {
    expect([mc('x', 3), mc('x', 0), mc('x'), { ...mc('x'), spec: { capacity: '3' } }, { ...mc('x'), spec: { capacity: -1 } }, undefined].map((m) => capacityOf(m as KubeObject | undefined))).toEqual([3, 0, undefined, undefined, undefined, undefined]);
  });
});
