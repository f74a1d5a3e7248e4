import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { ArgsError } from '../args.js';
import { spreadByLabel, spreadByLabelArgs } from './spread-by-label.js';

const region = (r: string | undefined, placedKeys: string[] = []): { labels: Record<string, string>; placedKeys: string[] } => ({
  labels: r ? { 'topology.kubernetes.io/region': r } : {},
  placedKeys,
});

describe('SpreadByLabel score', () => {
  it.each([
    {
      name: 'the region without the tenant wins',
      input: { clusters: [region('eu', ['t1/a']), region('us')], feasible: [0, 1] },
      want: [0, 100],
    },
    {
      name: 'counts the whole region, not just the cluster',
      input: { clusters: [region('eu', ['t1/a']), region('eu'), region('us', ['t1/b', 't1/c'])], feasible: [1, 2] },
      want: [50, 0],
    },
    {
      name: 'other tenants do not count',
      input: { clusters: [region('eu', ['t2/a', 't2/b']), region('us', ['t1/x'])], feasible: [0, 1] },
      want: [100, 0],
    },
    {
      name: 'a cluster without the label scores 0',
      input: { clusters: [region(undefined), region('eu', ['t1/a'])], feasible: [0, 1] },
      want: [0, 100],
    },
    {
      name: 'all regions even',
      input: { clusters: [region('eu', ['t1/a']), region('us', ['t1/b'])], feasible: [0, 1] },
      want: [100, 100],
    },
  ])('$name', ({ input, want }) => {
    const plugin = spreadByLabel(spreadByLabelArgs(undefined));
    const hc = hostedCluster({ namespace: 't1', name: 'new' });
    const all = input.clusters.map((o, i) => info(`c${i}`, o));
    const feasible = input.feasible.map((i) => all[i]!);
    const state = plugin.preScore!(hc, feasible, all);
    expect(plugin.normalizeScore!(feasible.map((c) => plugin.score(hc, c, state)))).toEqual(want);
  });

  it('uses the configured label', () => {
    const plugin = spreadByLabel(spreadByLabelArgs({ topologyKey: 'zone' }));
    const hc = hostedCluster({ namespace: 't1' });
    const all = [info('a', { labels: { zone: '1' }, placedKeys: ['t1/x'] }), info('b', { labels: { zone: '2' } })];
    const state = plugin.preScore!(hc, all, all);
    expect(plugin.normalizeScore!(all.map((c) => plugin.score(hc, c, state)))).toEqual([0, 100]);
  });
});

describe('SpreadByLabel args', () => {
  it.each([
    { name: 'defaults', input: undefined, want: 'topology.kubernetes.io/region' },
    { name: 'custom key', input: { topologyKey: 'example.com/rack' }, want: 'example.com/rack' },
    { name: 'invalid key', input: { topologyKey: 'not a key' }, want: /topologyKey: Invalid value: "not a key"/ },
    { name: 'wrong type', input: { topologyKey: 3 }, want: /topologyKey: Invalid value: 3: must be a string/ },
    { name: 'unknown field', input: { topologyKeys: 'x' }, want: /topologyKeys: Unknown field/ },
  ])('$name', ({ input, want }) => {
    if (typeof want === 'string') expect(spreadByLabelArgs(input).topologyKey).toBe(want);
    else expect(() => spreadByLabelArgs(input)).toThrow(ArgsError), expect(() => spreadByLabelArgs(input)).toThrow(want);
  });
});
