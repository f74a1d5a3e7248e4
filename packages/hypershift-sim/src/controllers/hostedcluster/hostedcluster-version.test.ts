import { describe, expect, it } from 'vitest';
import { Image414, Image415, T0, at } from '../../testing/fixtures.js';
import type { ClusterVersionStatus, UpdateHistory } from '../../types.js';
import { computeVersionStatus, currentVersion, hasCompletedRollout, type VersionInput } from './hostedcluster-version.js';

const entry = (state: UpdateHistory['state'], image: string, startedMs: number, completedMs?: number): UpdateHistory => ({
  state,
  startedTime: at(startedMs),
  completionTime: completedMs === undefined ? null : at(completedMs),
  version: image === Image414 ? '4.14.0' : '4.15.2',
  image,
  verified: false,
});
const status = (desired: string, history: UpdateHistory[], observedGeneration = 1): ClusterVersionStatus => ({
  desired: { image: desired, version: desired === Image414 ? '4.14.0' : '4.15.2' },
  history,
  observedGeneration,
  availableUpdates: null,
});
const base: VersionInput = {
  releaseImage: Image414,
  generation: 1,
  current: undefined,
  nowMs: T0,
  availableDelayMs: 2000,
  releaseValid: true,
  controlPlaneReady: true,
};

describe('computeVersionStatus', () => {
  it.each([
    {
      name: 'first pass: one Partial entry, desired = spec release, waits for the delay',
      input: base,
      want: { version: status(Image414, [entry('Partial', Image414, 0)]), requeueAfterMs: 2999 },
    },
    {
      name: 'first pass without a control plane yet: no timer',
      input: { ...base, controlPlaneReady: false },
      want: { version: status(Image414, [entry('Partial', Image414, 0)]) },
    },
    {
      name: 'delay over: Completed with version and completionTime',
      input: { ...base, nowMs: T0 + 3000, current: status(Image414, [entry('Partial', Image414, 0)]) },
      want: { version: status(Image414, [entry('Completed', Image414, 0, 3000)]) },
    },
    {
      name: 'delay not over: requeue for the rest',
      input: { ...base, nowMs: T0 + 1000, current: status(Image414, [entry('Partial', Image414, 0)]) },
      want: { version: status(Image414, [entry('Partial', Image414, 0)]), requeueAfterMs: 1999 },
    },
    {
      name: 'release only became valid later: the delay counts from then',
      input: { ...base, nowMs: T0 + 4000, gateMs: T0 + 5000, current: status(Image414, [entry('Partial', Image414, 0)]) },
      want: { version: status(Image414, [entry('Partial', Image414, 0)]), requeueAfterMs: 3000 },
    },
    {
      name: 'invalid release: never completes',
      input: { ...base, nowMs: T0 + 9000, releaseValid: false, current: status(Image414, [entry('Partial', Image414, 0)]) },
      want: { version: status(Image414, [entry('Partial', Image414, 0)]) },
    },
    {
      name: 'upgrade: a new Partial entry in front, desired and observedGeneration move',
      input: { ...base, releaseImage: Image415, generation: 2, nowMs: T0 + 10_000, current: status(Image414, [entry('Completed', Image414, 0, 3000)]) },
      want: { version: status(Image415, [entry('Partial', Image415, 10_000), entry('Completed', Image414, 0, 3000)], 2), requeueAfterMs: 2000 },
    },
    {
      name: 'upgrade to an invalid release: nothing starts',
      input: { ...base, releaseImage: Image415, generation: 2, releaseValid: false, current: status(Image414, [entry('Completed', Image414, 0, 3000)]) },
      want: { version: status(Image414, [entry('Completed', Image414, 0, 3000)]) },
    },
    {
      name: 'upgrade during a rollout: the unfinished entry stays Partial with a completionTime',
      input: { ...base, releaseImage: Image415, generation: 2, nowMs: T0 + 1000, current: status(Image414, [entry('Partial', Image414, 0)]) },
      want: { version: status(Image415, [entry('Partial', Image415, 1000), entry('Partial', Image414, 0, 1000)], 2), requeueAfterMs: 2000 },
    },
  ])('$name', ({ input, want }) => {
    const before = structuredClone(input.current);
    expect(computeVersionStatus(input)).toEqual(want);
    expect(input.current).toEqual(before);
  });

  it('an upgrade completes, then the next pass is stable', () => {
    const rolling = status(Image415, [entry('Partial', Image415, 10_000), entry('Completed', Image414, 0, 3000)], 2);
    const done = computeVersionStatus({ ...base, releaseImage: Image415, generation: 2, nowMs: T0 + 13_000, current: rolling });
    expect(done.version.history.map((h) => h.state)).toEqual(['Completed', 'Completed']);
    expect(computeVersionStatus({ ...base, releaseImage: Image415, generation: 2, nowMs: T0 + 20_000, current: done.version })).toEqual({ version: done.version });
  });

  it('helpers', () => {
    const v = status(Image415, [entry('Partial', Image415, 10_000), entry('Completed', Image414, 0, 3000)]);
    expect(hasCompletedRollout(v)).toBe(true);
    expect(currentVersion(v)).toBe('4.14.0');
    expect(hasCompletedRollout(undefined)).toBe(false);
  });
});
