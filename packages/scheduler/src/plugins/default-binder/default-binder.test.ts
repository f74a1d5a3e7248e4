import { describe, expect, it } from 'vitest';
import type { HostedCluster } from '@hcc/crds';
import { hostedCluster } from '../../testing/fixtures.js';
import { defaultBinder } from './default-binder.js';

describe('DefaultBinder', () => {
  it.each([{ name: 'binds through the binding subresource', input: { cluster: 'mgmt-1' }, want: 'mgmt-1' }])('$name', async ({ input, want }) => {
    const calls: unknown[] = [];
    const hc = hostedCluster();
    const out = await defaultBinder.bind(hc, input.cluster, {
      patchMetadata: async () => {
        throw new Error('a binding never patches metadata');
      },
      bind: async (obj: HostedCluster, cluster: string) => {
        calls.push([obj, cluster]);
      },
    });
    expect(calls).toEqual([[hc, want]]);
    expect(out).toBeUndefined();
  });
});
