import { describe, expect, it } from 'vitest';
import type { Condition } from '@hcc/crds';
import { hostedCluster } from '../../testing/fixtures.js';
import { blockOnInvalidSpec } from './hostedcluster-reconcile-block.js';

const cond = (type: string, status: Condition['status']): Condition => ({ type, status });

describe('blockOnInvalidSpec', () => {
  it.each([
    { name: 'no status yet', input: undefined, want: 'continue' },
    { name: 'all valid', input: [cond('ValidReleaseImage', 'True'), cond('ValidConfiguration', 'True')], want: 'continue' },
    { name: 'invalid release image', input: [cond('ValidReleaseImage', 'False')], want: 'stop' },
    { name: 'invalid configuration', input: [cond('ValidConfiguration', 'False')], want: 'stop' },
    { name: 'unsupported', input: [cond('SupportedHostedCluster', 'False')], want: 'stop' },
    { name: 'unknown does not block', input: [cond('ValidReleaseImage', 'Unknown')], want: 'continue' },
    { name: 'other conditions do not block', input: [cond('Available', 'False')], want: 'continue' },
  ])('$name', async ({ input, want }) => {
    const hc = hostedCluster(input ? { status: { conditions: input } } : {});
    expect(await blockOnInvalidSpec().run(hc)).toBe(want);
  });
});
