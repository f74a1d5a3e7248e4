import { describe, expect, it } from 'vitest';
import type { HostedCluster } from '@hcc/crds';
import { hostedCluster } from '../../testing/fixtures.js';
import { defaultBinder } from './default-binder.js';

describe('DefaultBinder', () => {
  it.each([
    { name: 'sets the placement label', input: { cluster: 'mgmt-1' }, want: { labels: { 'controlcenter.hcc.dev/management-cluster': 'mgmt-1' } } },
  ])('$name', async ({ input, want }) => {
    const calls: unknown[] = [];
    const hc = hostedCluster();
    const out = await defaultBinder.bind(hc, input.cluster, {
      patchMetadata: async (obj: HostedCluster, metadata) => {
        calls.push([obj, metadata]);
        return obj;
      },
    });
    expect(calls).toEqual([[hc, want]]);
    expect(out).toBe(hc);
  });
});
