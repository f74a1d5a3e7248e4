import { describe, expect, it } from 'vitest';
import { requeueAfter, runSteps, type Step, type StepResult } from './step.js';
import { semanticEqual } from './equality.js';

const step = (name: string, result: StepResult, seen: string[]): Step<object> => ({
  name,
  run: async () => {
    seen.push(name);
    return result;
  },
});

describe('runSteps', () => {
  it.each([
    { name: 'all continue', input: ['continue', 'continue'] as StepResult[], want: { seen: ['a', 'b'], result: undefined, stoppedAt: '' } },
    { name: 'stop ends the pass', input: ['stop', 'continue'] as StepResult[], want: { seen: ['a'], result: undefined, stoppedAt: 'a' } },
    { name: 'requeue and stop', input: [requeueAfter(300), 'continue'], want: { seen: ['a'], result: { requeueAfterMs: 300 }, stoppedAt: 'a' } },
    {
      name: 'requeue and continue keeps the earliest requeue',
      input: [requeueAfter(300, 'continue'), requeueAfter(100, 'continue')],
      want: { seen: ['a', 'b'], result: { requeueAfterMs: 100 }, stoppedAt: '' },
    },
    { name: 'a later stop still returns an earlier requeue', input: [requeueAfter(50, 'continue'), 'stop'] as StepResult[], want: { seen: ['a', 'b'], result: { requeueAfterMs: 50 }, stoppedAt: 'b' } },
  ])('$name', async ({ input, want }) => {
    const seen: string[] = [];
    const [a, b] = input as [StepResult, StepResult];
    const out = await runSteps([step('a', a, seen), step('b', b, seen)], {});
    expect({ seen, result: out.result, stoppedAt: out.stoppedAt }).toEqual(want);
  });

  it('requeueAfter rounds up to at least 1 ms', () => expect(requeueAfter(0.2)).toEqual({ requeueAfterMs: 1, then: 'stop' }));
});

describe('semanticEqual', () => {
  it.each([
    { name: 'key order', input: [{ a: 1, b: { c: 2 } }, { b: { c: 2 }, a: 1 }], want: true },
    { name: 'null equals absent', input: [{ a: 1, t: null }, { a: 1 }], want: true },
    { name: 'different values', input: [{ a: [1, 2] }, { a: [2, 1] }], want: false },
  ])('$name', ({ input, want }) => expect(semanticEqual(input[0], input[1])).toBe(want));
});
