import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { unschedulable, ErrReasonCordoned } from './unschedulable.js';

describe('Unschedulable filter', () => {
  it.each([
    { name: 'not cordoned', input: info('a'), want: 'Success' },
    { name: 'cordoned', input: info('a', { cordon: true }), want: 'Unschedulable' },
  ])('$name', ({ input, want }) => {
    const st = unschedulable.filter(hostedCluster(), input);
    expect(st.code).toBe(want);
    if (want !== 'Success') expect(st.reasons).toEqual([ErrReasonCordoned]);
  });
});
