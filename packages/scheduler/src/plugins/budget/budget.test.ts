import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { budget, ErrReasonNoBudget } from './budget.js';

describe('Budget filter', () => {
  it.each([
    { name: 'room left', input: info('a', { capacity: 5, hosted: 4 }), want: [] },
    { name: 'full', input: info('a', { capacity: 5, hosted: 5 }), want: [ErrReasonNoBudget] },
    { name: 'reservations not yet reported fill it', input: info('a', { capacity: 5, hosted: 2, placed: 5 }), want: [ErrReasonNoBudget] },
    { name: 'the syncer reports less room than capacity', input: info('a', { capacity: 5, hosted: 1, budget: 0 }), want: [ErrReasonNoBudget] },
    { name: 'capacity 0', input: info('a', { capacity: 0 }), want: [ErrReasonNoBudget] },
  ])('$name', ({ input, want }) => {
    expect(budget.filter(hostedCluster(), input).reasons).toEqual(want);
  });
});
