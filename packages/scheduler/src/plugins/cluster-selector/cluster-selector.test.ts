import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { clusterSelector, ErrReasonBadSelector, ErrReasonSelectorMismatch } from './cluster-selector.js';

const sel = (s: string) => ({ 'controlcenter.hcc.dev/management-cluster-selector': s });

describe('ClusterSelector filter', () => {
  it.each<{ name: string; input: { annotations: Record<string, string>; labels: Record<string, string> }; want: string[] }>([
    { name: 'no annotation', input: { annotations: {}, labels: {} }, want: [] },
    { name: 'blank annotation', input: { annotations: sel('  '), labels: {} }, want: [] },
    { name: 'equality matches', input: { annotations: sel('region=eu'), labels: { region: 'eu' } }, want: [] },
    { name: 'equality mismatch', input: { annotations: sel('region=eu'), labels: { region: 'us' } }, want: [ErrReasonSelectorMismatch] },
    { name: 'set-based', input: { annotations: sel('tier in (prod,stage),!legacy'), labels: { tier: 'prod' } }, want: [] },
    { name: 'set-based mismatch', input: { annotations: sel('tier in (prod),!legacy'), labels: { tier: 'prod', legacy: 'y' } }, want: [ErrReasonSelectorMismatch] },
    { name: 'unparseable', input: { annotations: sel('region in (eu'), labels: { region: 'eu' } }, want: [ErrReasonBadSelector] },
  ])('$name', ({ input, want }) => {
    expect(clusterSelector.filter(hostedCluster({ annotations: input.annotations }), info('a', { labels: input.labels })).reasons).toEqual(want);
  });
});
