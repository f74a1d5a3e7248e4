import { describe, expect, it } from 'vitest';
import type { HostedCluster, ManagementCluster } from '@hcc/crds';
import { defaultNormalizeScore, runProfile, unschedulableMessage } from './runtime.js';
import { defaultProfile } from '../plugins/registry.js';
import { clusterInfo } from '../cache/cluster-cache.js';
import { parseSchedulerConfig } from '../config/config.js';
import { seededRandom } from './random.js';
import { Status, type Profile, type ScorePlugin } from './types.js';
import { hostedCluster, info } from '../testing/fixtures.js';

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

describe('runProfile with the default profile: the newer filters', () => {
  const ocp = (v: string) => `quay.io/openshift-release-dev/ocp-release:${v}-x86_64`;
  it.each([
    {
      name: 'NoSchedule taint keeps a HostedCluster away',
      input: { hc: hostedCluster(), clusters: [info('a', { budget: 9, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }), info('b', { budget: 1 })] },
      want: 'b',
    },
    {
      name: 'PreferNoSchedule taint lowers the score',
      input: { hc: hostedCluster(), clusters: [info('a', { budget: 9, taints: [{ key: 'maintenance', effect: 'PreferNoSchedule' }] }), info('b', { budget: 2 })] },
      want: 'b',
    },
    {
      name: 'release support',
      input: { hc: hostedCluster({ image: ocp('4.14.2') }), clusters: [info('a', { budget: 9, supportedVersions: ['4.16', '4.15'] }), info('b', { budget: 1, supportedVersions: ['4.15', '4.14'] })] },
      want: 'b',
    },
    {
      name: 'colliding control-plane namespace',
      input: { hc: hostedCluster({ namespace: 'a-b', name: 'c' }), clusters: [info('a', { budget: 9, placedKeys: ['a/b-c'] }), info('b', { budget: 1 })] },
      want: 'b',
    },
  ])('$name', ({ input, want }) => {
    const r = runProfile(defaultProfile(), input.hc, input.clusters, () => 0);
    expect(r.feasible && r.cluster).toBe(want);
  });

  it('names every reason, most frequent first, and which plugin ruled out how many', () => {
    const clusters = [
      info('a', { capacity: 1, hosted: 1 }),
      info('b', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }),
      info('c', { supportedVersions: ['4.18'] }),
      info('d', { capacity: 2, hosted: 2 }),
      info('e', { ready: false }),
    ];
    const r = runProfile(defaultProfile(), hostedCluster({ image: 'quay.io/openshift-release-dev/ocp-release:4.16.1-x86_64' }), clusters, () => 0);
    expect(r.feasible).toBe(false);
    if (r.feasible) return;
    expect(r.message).toBe('0/5 management clusters are available: 2 no budget, 1 had untolerated taint {dedicated: gpu}, 1 not ready, 1 release 4.16 not supported.');
    expect(r.rejectedBy).toEqual({ Budget: 2, TaintToleration: 1, Ready: 1, ReleaseSupported: 1 });
  });
});

describe('runProfile scoring', () => {
  const constant = (name: string, byCluster: Record<string, number>): ScorePlugin => ({ name, score: (_hc, c) => byCluster[c.name] ?? 0 });
  const profile = (scores: Profile['scores']): Profile => ({ ...defaultProfile(), scores });
  const two = [info('a'), info('b')];

  it.each([
    { name: 'weights multiply', input: profile([{ plugin: constant('X', { a: 60, b: 50 }), weight: 1 }, { plugin: constant('Y', { a: 0, b: 20 }), weight: 1 }]), want: 'b' },
    { name: 'a heavier weight wins', input: profile([{ plugin: constant('X', { a: 60, b: 50 }), weight: 3 }, { plugin: constant('Y', { a: 0, b: 20 }), weight: 1 }]), want: 'a' },
    { name: 'scores outside [0, 100] are clamped', input: profile([{ plugin: constant('X', { a: 500, b: 100 }), weight: 1 }, { plugin: constant('Y', { a: -50, b: 1 }), weight: 1 }]), want: 'b' },
  ])('$name', ({ input, want }) => {
    const r = runProfile(input, hostedCluster(), two, () => 0);
    expect(r.feasible && r.cluster).toBe(want);
  });

  it('runs preScore once per cycle and hands its state to score', () => {
    let calls = 0;
    const plugin: ScorePlugin = {
      name: 'S',
      preScore: (_hc, feasible, all) => (calls++, { feasible: feasible.length, all: all.length }),
      score: (_hc, c, state) => (c.name === 'a' ? (state as { all: number }).all : 0),
    };
    const r = runProfile(profile([{ plugin, weight: 1 }]), hostedCluster(), [info('a'), info('b'), info('c', { cordon: true })], () => 0);
    expect(calls).toBe(1);
    expect(r.feasible && r.scores).toEqual({ a: 3, b: 0 });
  });

  it('Pack fills the fullest cluster first (a profile from a configuration file)', () => {
    const cfg = parseSchedulerConfig('profiles: [{name: cost, scores: [{name: Pack, weight: 1}]}]');
    const r = runProfile(cfg.profiles[0]!, hostedCluster(), [info('a', { capacity: 10, hosted: 2 }), info('b', { capacity: 10, hosted: 7 })], () => 0);
    expect(r.feasible && r.cluster).toBe('b');
  });

  it('a seeded source gives the same choices every run', () => {
    const clusters = [info('a'), info('b'), info('c'), info('d')];
    const run = () => {
      const random = seededRandom(42);
      return Array.from({ length: 20 }, () => {
        const r = runProfile(defaultProfile(), hostedCluster(), clusters, random);
        return r.feasible ? r.cluster : '';
      });
    };
    const first = run();
    expect(run()).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(1);
  });

  it('a filter error counts as its reason', () => {
    const broken = { name: 'Broken', filter: () => Status.error('internal error') };
    const r = runProfile({ ...defaultProfile(), filters: [broken] }, hostedCluster(), [info('a')], () => 0);
    expect(!r.feasible && r.message).toBe('0/1 management clusters are available: 1 internal error.');
  });
});

describe('defaultNormalizeScore', () => {
  it.each([
    { name: 'relative to the largest', input: { scores: [0, 5, 10], reverse: false }, want: [0, 50, 100] },
    { name: 'reverse', input: { scores: [0, 5, 10], reverse: true }, want: [100, 50, 0] },
    { name: 'all equal', input: { scores: [3, 3], reverse: true }, want: [100, 100] },
    { name: 'all zero', input: { scores: [0, 0], reverse: false }, want: [100, 100] },
    { name: 'negative values shift', input: { scores: [-10, 0, 10], reverse: false }, want: [0, 50, 100] },
    { name: 'empty', input: { scores: [], reverse: false }, want: [] },
  ])('$name', ({ input, want }) => {
    expect(defaultNormalizeScore(input.scores, input.reverse)).toEqual(want);
  });
});
