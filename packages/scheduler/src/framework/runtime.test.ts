import { describe, expect, it } from 'vitest';
import type { HostedCluster, ManagementCluster } from '@hcc/crds';
import { runProfile, unschedulableMessage } from './runtime.js';
import { defaultProfile } from '../plugins/registry.js';
import { clusterInfo } from '../cache/cluster-cache.js';

const now = Date.parse('2026-11-30T00:00:00Z');
const hc = (platform = 'AWS', annotations: Record<string, string> = {}): HostedCluster => ({
  metadata: { name: 'x', namespace: 'clusters', annotations },
  spec: { platform: { type: platform } },
});
const mc = (name: string, o: { capacity?: number; budget?: number; hosted?: number; ready?: boolean; cordon?: boolean; platforms?: string[]; labels?: Record<string, string>; hbAgeMs?: number } = {}): ManagementCluster => ({
  metadata: { name, labels: o.labels },
  spec: { capacity: o.capacity ?? 10, unschedulable: o.cordon, platforms: o.platforms },
  status: {
    conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', reason: 'SyncerHeartbeat' }],
    lastHeartbeatTime: new Date(now - (o.hbAgeMs ?? 1000)).toISOString(),
    budget: o.budget ?? (o.capacity ?? 10) - (o.hosted ?? 0),
    hostedClusters: o.hosted ?? 0,
  },
});
const snap = (mcs: ManagementCluster[], placed: Record<string, number> = {}) => mcs.map((m) => clusterInfo(m, placed[m.metadata.name!] ?? 0, now, 40_000));

describe('runProfile with the default profile', () => {
  it.each([
    { name: 'most budget wins', input: { hc: hc(), clusters: [mc('a', { budget: 3 }), mc('b', { budget: 7 }), mc('c', { budget: 5 })] }, want: 'b' },
    { name: 'platform filter', input: { hc: hc('KubeVirt'), clusters: [mc('a', { budget: 9, platforms: ['AWS'] }), mc('b', { budget: 1, platforms: ['KubeVirt', 'AWS'] })] }, want: 'b' },
    { name: 'empty platform list means all', input: { hc: hc('Agent'), clusters: [mc('a', { budget: 2, platforms: [] })] }, want: 'a' },
    { name: 'cordoned is skipped', input: { hc: hc(), clusters: [mc('a', { budget: 9, cordon: true }), mc('b', { budget: 1 })] }, want: 'b' },
    { name: 'stale heartbeat is not ready', input: { hc: hc(), clusters: [mc('a', { budget: 9, hbAgeMs: 60_000 }), mc('b', { budget: 1 })] }, want: 'b' },
    { name: 'selector annotation', input: { hc: hc('AWS', { 'controlcenter.hcc.dev/management-cluster-selector': 'region=eu' }), clusters: [mc('a', { budget: 9, labels: { region: 'us' } }), mc('b', { budget: 1, labels: { region: 'eu' } })] }, want: 'b' },
    { name: 'tie broken by fewer hosted', input: { hc: hc(), clusters: [mc('a', { capacity: 10, budget: 4, hosted: 6 }), mc('b', { capacity: 5, budget: 4, hosted: 1 })] }, want: 'b' },
  ])('$name', ({ input, want }) => {
    const placed = Object.fromEntries(input.clusters.map((c) => [c.metadata.name!, c.status!.hostedClusters!]));
    const r = runProfile(defaultProfile(), input.hc, snap(input.clusters, placed), () => 0);
    expect(r.feasible && r.cluster).toBe(want);
  });

  it('explains why nothing fits, one reason per cluster', () => {
    const clusters = [mc('a', { budget: 0 }), mc('b', { budget: 0 }), mc('c', { cordon: true }), mc('d', { platforms: ['AWS'] })];
    const r = runProfile(defaultProfile(), hc('KubeVirt'), snap(clusters), () => 0);
    expect(r.feasible).toBe(false);
    if (!r.feasible) expect(r.message).toBe('0/4 management clusters are available: 2 no budget, 1 cordoned, 1 platform KubeVirt not supported.');
  });

  it('uses the random source only among equals', () => {
    const clusters = [mc('a', { budget: 5 }), mc('b', { budget: 5 })];
    const pick = (x: number) => {
      const r = runProfile(defaultProfile(), hc(), snap(clusters), () => x);
      return r.feasible ? r.cluster : '';
    };
    expect(pick(0)).toBe('a');
    expect(pick(0.99)).toBe('b');
  });

  it('reports an empty fleet', () => {
    expect(unschedulableMessage(0, {})).toBe('0/0 management clusters are available: no management clusters are registered.');
  });
});
