import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { mapGeneration, upstreamStatus, upstreamTransitionTime } from './upsync-status.js';

describe('mapGeneration', () => {
  it.each([
    { name: 'current', input: [4, 4, 9], want: 9 },
    { name: 'one behind', input: [3, 4, 9], want: 8 },
    { name: 'never below 1', input: [1, 9, 2], want: 1 },
    { name: 'absent', input: [undefined, 4, 9], want: undefined },
    // A corrected drift bumped the copy twice with no upstream change: the operator, one
    // generation behind the copy, has still seen upstream generation 2, as shown already.
    { name: 'behind after a drift correction: not below what is shown', input: [2, 4, 2, 2], want: 2 },
    { name: 'behind a new spec: what is shown, not the lockstep guess', input: [4, 6, 3, 2], want: 2 },
    { name: 'a shown value past the copy\'s upstream generation is not a floor', input: [3, 4, 5, 7], want: 4 },
    { name: 'a lower shown value does not pull the guess down', input: [3, 4, 9, 2], want: 8 },
    { name: 'caught up: the upstream generation, whatever is shown', input: [4, 4, 9, 12], want: 9 },
  ])('$name', ({ input, want }) => {
    const [o, d, u, f] = input as [number | undefined, number, number, number | undefined];
    expect(mapGeneration(o, d, u, f)).toBe(want);
  });
});

describe('upstreamStatus', () => {
  const down: KubeObject = {
    metadata: { name: 'ex', generation: 2, annotations: { 'controlcenter.hcc.dev/upstream-generation': '5' } },
    status: {
      conditions: [
        { type: 'Available', status: 'True', observedGeneration: 2 },
        { type: 'Progressing', status: 'False', observedGeneration: 1 },
        { type: 'Scheduled', status: 'True', reason: 'Bogus' },
      ],
      version: { observedGeneration: 2, history: [{ state: 'Completed' }] },
      kubeconfig: { name: 'ex-admin-kubeconfig' },
    },
  };
  const up: KubeObject = {
    metadata: { name: 'ex', generation: 5 },
    status: { conditions: [{ type: 'Scheduled', status: 'True', reason: 'Scheduled', message: 'Placed on management cluster mgmt-1' }] },
  };

  it('translates generations and keeps the control-center-owned condition', () => {
    const s = upstreamStatus(down, up) as { conditions: { type: string; reason?: string; observedGeneration?: number }[]; version: { observedGeneration: number }; kubeconfig: unknown };
    expect(s.conditions.find((c) => c.type === 'Available')!.observedGeneration).toBe(5);
    expect(s.conditions.find((c) => c.type === 'Progressing')!.observedGeneration).toBe(4);
    expect(s.conditions.filter((c) => c.type === 'Scheduled')).toEqual([up.status!.conditions![0]]);
    expect(s.version.observedGeneration).toBe(5);
    expect(s.kubeconfig).toEqual({ name: 'ex-admin-kubeconfig' });
  });

  it('never shows an observedGeneration going back because the copy was corrected twice', () => {
    // Shown: caught up with upstream generation 2 (copy generation 2). Someone edited the copy
    // and the syncer put it back: copy generation 4, upstream still 2, the operator at 2.
    const corrected: KubeObject = {
      metadata: { name: 'ex', generation: 4, annotations: { 'controlcenter.hcc.dev/upstream-generation': '2' } },
      status: { conditions: [{ type: 'Available', status: 'True', observedGeneration: 2 }], version: { observedGeneration: 2 }, observedGeneration: 2 },
    };
    const shown: KubeObject = {
      metadata: { name: 'ex', generation: 2 },
      status: { conditions: [{ type: 'Available', status: 'True', observedGeneration: 2 }], version: { observedGeneration: 2 }, observedGeneration: 2 },
    };
    const s = upstreamStatus(corrected, shown) as { conditions: { observedGeneration?: number }[]; version: { observedGeneration: number }; observedGeneration: number };
    expect([s.conditions[0]!.observedGeneration, s.version.observedGeneration, s.observedGeneration]).toEqual([2, 2, 2]);
  });
});

describe('upstreamTransitionTime: when the upstream condition last changed status', () => {
  const now = new Date('2026-12-01T18:00:00Z');
  const c = (status: string, lastTransitionTime?: string) => ({ type: 'Available', status, ...(lastTransitionTime ? { lastTransitionTime } : {}) });
  it.each([
    { name: 'no upstream condition yet: the copy\'s', down: c('True', '2026-12-01T12:00:00Z'), up: undefined, want: '2026-12-01T12:00:00Z' },
    { name: 'same status upstream: upstream\'s own time', down: c('True', '2026-12-01T12:00:00Z'), up: c('True', '2026-12-01T17:30:00Z'), want: '2026-12-01T17:30:00Z' },
    { name: 'the copy changed after the upstream condition did: the copy\'s', down: c('False', '2026-12-01T17:45:00Z'), up: c('True', '2026-12-01T12:00:00Z'), want: '2026-12-01T17:45:00Z' },
    { name: 'upstream was something else meanwhile (Unknown while lost): now', down: c('True', '2026-12-01T12:00:00Z'), up: c('Unknown', '2026-12-01T17:00:00Z'), want: '2026-12-01T18:00:00Z' },
    { name: 'no times at all and a different status: now', down: c('True'), up: c('Unknown'), want: '2026-12-01T18:00:00Z' },
  ])('$name', ({ down, up, want }) => {
    expect(upstreamTransitionTime(down, up, now)).toBe(want);
  });
});
