import { describe, expect, it } from 'vitest';
import type { Condition } from '@hcc/crds';
import { findCondition, isConditionTrue, removeCondition, setCondition, setConditions } from './conditions.js';

const old: Condition[] = [
  { type: 'Available', status: 'False', reason: 'WaitingForAvailable', message: 'waiting', observedGeneration: 1, lastTransitionTime: '2024-01-01T00:00:00Z' },
  { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '', observedGeneration: 1, lastTransitionTime: '2024-01-01T00:00:00Z' },
];
const now = '2024-01-01T00:05:00Z';

describe('setCondition', () => {
  it.each([
    {
      name: 'same status keeps lastTransitionTime, overwrites the rest',
      input: { type: 'Available', status: 'False' as const, reason: 'Other', message: 'still waiting', observedGeneration: 2 },
      want: { type: 'Available', status: 'False', reason: 'Other', message: 'still waiting', observedGeneration: 2, lastTransitionTime: '2024-01-01T00:00:00Z' },
    },
    {
      name: 'a flip sets lastTransitionTime to now',
      input: { type: 'Available', status: 'True' as const, reason: 'AsExpected', message: 'ok', observedGeneration: 1 },
      want: { type: 'Available', status: 'True', reason: 'AsExpected', message: 'ok', observedGeneration: 1, lastTransitionTime: now },
    },
    {
      name: 'a new type is appended with lastTransitionTime now',
      input: { type: 'Progressing', status: 'True' as const, reason: 'Progressing', observedGeneration: 1 },
      want: { type: 'Progressing', status: 'True', reason: 'Progressing', message: '', observedGeneration: 1, lastTransitionTime: now },
    },
  ])('$name', ({ input, want }) => {
    const got = setCondition(old, input, now);
    expect(findCondition(got, input.type)).toEqual(want);
    expect(got.map((c) => c.type).slice(0, 2)).toEqual(['Available', 'Degraded']);
    expect(old[0]!.status).toBe('False'); // input untouched
  });

  it('setConditions applies in order, removeCondition drops one type', () => {
    const got = setConditions(undefined, [
      { type: 'A', status: 'True' },
      { type: 'B', status: 'False' },
    ], now);
    expect(got.map((c) => c.type)).toEqual(['A', 'B']);
    expect(isConditionTrue(got, 'A')).toBe(true);
    expect(isConditionTrue(got, 'B')).toBe(false);
    expect(removeCondition(got, 'A').map((c) => c.type)).toEqual(['B']);
  });
});
