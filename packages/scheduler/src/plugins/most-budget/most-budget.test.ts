import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { mostBudget } from './most-budget.js';

describe('MostBudget score', () => {
  it.each([
    { name: 'proportional to free slots', input: [{ capacity: 10, hosted: 0 }, { capacity: 10, hosted: 5 }, { capacity: 10, hosted: 10 }], want: [100, 50, 0] },
    { name: 'absolute, not relative to capacity', input: [{ capacity: 100, hosted: 80 }, { capacity: 10, hosted: 0 }], want: [100, 50] },
    { name: 'unreported reservations count', input: [{ capacity: 10, hosted: 0, placed: 8 }, { capacity: 10, hosted: 6 }], want: [50, 100] },
    { name: 'all equal', input: [{ capacity: 4 }, { capacity: 4 }], want: [100, 100] },
  ])('$name', ({ input, want }) => {
    const raw = input.map((o, i) => mostBudget.score(hostedCluster(), info(`c${i}`, o)));
    expect(mostBudget.normalizeScore(raw)).toEqual(want);
  });
});
