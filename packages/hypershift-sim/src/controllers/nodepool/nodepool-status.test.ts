import { describe, expect, it } from 'vitest';
import type { Condition, HostedCluster } from '@hcc/crds';
import { findCondition } from '../../conditions.js';
import { Image415, T0, at, hostedCluster, nodePool } from '../../testing/fixtures.js';
import type { NodePoolStatus } from '../../types.js';
import { computeNodePoolStatus, wantedReplicas } from './nodepool-status.js';

const availableHC = (sinceMs = 0): HostedCluster =>
  hostedCluster({ status: { conditions: [{ type: 'Available', status: 'True', reason: 'AsExpected', lastTransitionTime: at(sinceMs) }] } });
const unavailableHC = hostedCluster({ status: { conditions: [{ type: 'Available', status: 'False', reason: 'WaitingForAvailable', lastTransitionTime: at() }] } });

const compute = (status: NodePoolStatus | undefined, hc: HostedCluster, nowMs: number, spec = {}, generation = 1) =>
  computeNodePoolStatus({ np: nodePool({ metadata: { generation }, spec, status: status as never }), hc, nowMs, availableDelayMs: 2000 });
const pick = (conditions: Condition[] | undefined, type: string) => {
  const c = findCondition(conditions, type);
  return c && { status: c.status, reason: c.reason, message: c.message };
};

describe('wantedReplicas', () => {
  it.each([
    { name: 'replicas', input: { replicas: 3 }, want: 3 },
    { name: 'autoscaling min', input: { replicas: undefined, autoScaling: { min: 1, max: 5 } }, want: 1 },
    { name: 'nothing', input: { replicas: undefined }, want: 0 },
    // The schema takes a negative int32, as upstream's; no pool has fewer than no nodes.
    { name: 'negative replicas', input: { replicas: -5 }, want: 0 },
  ])('$name', ({ input, want }) => expect(wantedReplicas(nodePool({ spec: input }))).toBe(want));
});

describe('computeNodePoolStatus', () => {
  it('waits for the HostedCluster: no ignition endpoint, Ready=False, 0 replicas, no version', () => {
    const { status, requeueAfterMs } = compute(undefined, unavailableHC, T0);
    expect(requeueAfterMs).toBeUndefined();
    expect(status.replicas).toBe(0);
    expect(status.version).toBeUndefined();
    expect(pick(status.conditions, 'IgnitionEndpointAvailable')).toEqual({ status: 'False', reason: 'IgnitionEndpointMissing', message: 'Ignition endpoint not available, waiting' });
    expect(pick(status.conditions, 'Ready')).toEqual({ status: 'False', reason: 'WaitingForAvailableMachines', message: 'Minimum availability requires 2 replicas, current 0 available' });
    expect(pick(status.conditions, 'UpdatingVersion')).toEqual({ status: 'True', reason: 'AsExpected', message: 'Updating version in progress. Target version: 4.14.0' });
    expect(pick(status.conditions, 'AutoscalingEnabled')).toEqual({ status: 'False', reason: 'AsExpected', message: '' });
    expect(pick(status.conditions, 'AutorepairEnabled')).toEqual({ status: 'False', reason: 'AsExpected', message: '' });
    expect(pick(status.conditions, 'UpdatingConfig')).toEqual({ status: 'False', reason: 'AsExpected', message: '' });
    expect(pick(status.conditions, 'ValidReleaseImage')?.message).toBe('Using release image: quay.io/openshift-release-dev/ocp-release:4.14.0-x86_64');
  });

  it('comes up availableDelayMs after the HostedCluster became Available', () => {
    const waiting = compute(undefined, unavailableHC, T0).status;
    const early = compute(waiting, availableHC(10_000), T0 + 11_000);
    expect(early.requeueAfterMs).toBe(1999);
    expect(findCondition(early.status.conditions, 'IgnitionEndpointAvailable')).toBeUndefined();
    expect(pick(early.status.conditions, 'Ready')?.status).toBe('False');

    const { status, requeueAfterMs } = compute(early.status, availableHC(10_000), T0 + 13_000);
    expect(requeueAfterMs).toBeUndefined();
    expect(status.replicas).toBe(2);
    expect(status.version).toBe('4.14.0');
    expect(pick(status.conditions, 'Ready')).toEqual({ status: 'True', reason: 'AsExpected', message: '' });
    expect(pick(status.conditions, 'UpdatingVersion')?.status).toBe('False');
    expect(findCondition(status.conditions, 'Ready')?.lastTransitionTime).toBe(at(13_000));
    expect(compute(status, availableHC(10_000), T0 + 60_000)).toEqual({ status });
  });

  it.each([
    { name: 'scale up', input: 5, want: { reason: 'WaitingForAvailableMachines', message: 'Minimum availability requires 5 replicas, current 2 available' } },
    { name: 'scale down', input: 1, want: { reason: 'ScalingDown', message: 'Scaling down from 2 to 1 replicas' } },
  ])('$name after the delay, Ready=False meanwhile', ({ input, want }) => {
    const ready = compute(compute(undefined, availableHC(), T0).status, availableHC(), T0 + 3000).status;
    const changing = compute(ready, availableHC(), T0 + 10_000, { replicas: input }, 2);
    expect(changing.requeueAfterMs).toBe(2000);
    expect(changing.status.replicas).toBe(2);
    expect(pick(changing.status.conditions, 'Ready')).toEqual({ status: 'False', ...want });
    const done = compute(changing.status, availableHC(), T0 + 13_000, { replicas: input }, 2);
    expect(done.status.replicas).toBe(input);
    expect(pick(done.status.conditions, 'Ready')?.status).toBe('True');
  });

  it('follows a new release after the delay with UpdatingVersion=True meanwhile', () => {
    const ready = compute(compute(undefined, availableHC(), T0).status, availableHC(), T0 + 3000).status;
    const updating = compute(ready, availableHC(), T0 + 10_000, { release: { image: Image415 } }, 2);
    expect(updating.status.version).toBe('4.14.0');
    expect(pick(updating.status.conditions, 'UpdatingVersion')).toEqual({ status: 'True', reason: 'AsExpected', message: 'Updating version in progress. Target version: 4.15.2' });
    expect(pick(updating.status.conditions, 'Ready')?.status).toBe('True');
    const done = compute(updating.status, availableHC(), T0 + 13_000, { release: { image: Image415 } }, 2);
    expect(done.status.version).toBe('4.15.2');
    expect(pick(done.status.conditions, 'UpdatingVersion')?.status).toBe('False');
  });

  it('autoscaling and autorepair', () => {
    const { status } = compute(undefined, availableHC(), T0, { replicas: undefined, autoScaling: { min: 1, max: 4 }, management: { upgradeType: 'Replace', autoRepair: true } });
    expect(pick(status.conditions, 'AutoscalingEnabled')).toEqual({ status: 'True', reason: 'AsExpected', message: 'Maximum nodes: 4, Minimum nodes: 1' });
    expect(pick(status.conditions, 'AutorepairEnabled')?.status).toBe('True');
  });

  it('spec.pausedUntil: a scale and an upgrade asked for while paused wait, ReconciliationActive=False says until when, and both start once the pause ends', () => {
    const ready = compute(compute(undefined, availableHC(), T0).status, availableHC(), T0 + 3000).status;
    const until = at(60_000);
    const spec = { replicas: 5, release: { image: Image415 }, pausedUntil: until };
    const paused = compute(ready, availableHC(), T0 + 10_000, spec, 2);
    expect(pick(paused.status.conditions, 'ReconciliationActive')).toEqual({ status: 'False', reason: 'ReconciliationPaused', message: `Reconciliation paused until: ${until}` });
    expect(paused.status.replicas).toBe(2);
    expect(paused.status.version).toBe('4.14.0');
    expect(pick(paused.status.conditions, 'Ready')?.status).toBe('True');
    expect(pick(paused.status.conditions, 'UpdatingVersion')?.status).toBe('False');
    expect(paused.requeueAfterMs).toBe(50_000);
    // Long after the delay, still paused: nothing moved.
    const later = compute(paused.status, availableHC(), T0 + 59_000, spec, 2);
    expect(later.status.replicas).toBe(2);
    expect(later.status.version).toBe('4.14.0');
    // The pause ends: the changes start then and take the whole delay.
    const resumed = compute(later.status, availableHC(), T0 + 61_000, spec, 2);
    expect(pick(resumed.status.conditions, 'ReconciliationActive')?.status).toBe('True');
    expect(pick(resumed.status.conditions, 'Ready')?.status).toBe('False');
    expect(pick(resumed.status.conditions, 'UpdatingVersion')?.status).toBe('True');
    expect(resumed.status.replicas).toBe(2);
    expect(resumed.requeueAfterMs).toBe(2000);
    const done = compute(resumed.status, availableHC(), T0 + 64_000, spec, 2);
    expect(done.status.replicas).toBe(5);
    expect(done.status.version).toBe('4.15.2');
  });

  it('spec.pausedUntil as a boolean pauses until the field is removed; its false forms and bad values do not pause', () => {
    const ready = compute(compute(undefined, availableHC(), T0).status, availableHC(), T0 + 3000).status;
    for (const v of ['true', 'True', 'TRUE', 't', 'T', '1']) {
      const paused = compute(ready, availableHC(), T0 + 10_000, { replicas: 5, pausedUntil: v }, 2);
      expect(pick(paused.status.conditions, 'ReconciliationActive'), v).toEqual({ status: 'False', reason: 'ReconciliationPaused', message: 'Reconciliation paused until field removed' });
      expect(paused.requeueAfterMs, v).toBeUndefined();
      expect(paused.status.replicas, v).toBe(2);
    }
    for (const v of ['false', 'False', '0', 'yes', '2024-01-01', at(-1000)]) {
      const run = compute(ready, availableHC(), T0 + 10_000, { replicas: 5, pausedUntil: v }, 2);
      expect(pick(run.status.conditions, 'ReconciliationActive')?.status, v).toBe('True');
      expect(pick(run.status.conditions, 'Ready')?.reason, v).toBe('WaitingForAvailableMachines');
    }
  });

  it('ValidMachineConfig / ValidTuningConfig: False naming the missing ConfigMaps, and the pool holds (no scale) until they exist', () => {
    const ok = compute(undefined, availableHC(), T0).status;
    expect(pick(ok.conditions, 'ValidMachineConfig')).toEqual({ status: 'True', reason: 'AsExpected', message: '' });
    expect(pick(ok.conditions, 'ValidTuningConfig')).toEqual({ status: 'True', reason: 'AsExpected', message: '' });
    const held = (missingConfig: string[], missingTuningConfig: string[]) =>
      computeNodePoolStatus({ np: nodePool({ metadata: { generation: 1 } }), hc: availableHC(), nowMs: T0, availableDelayMs: 2000, missingConfig, missingTuningConfig });
    const one = held(['late'], []);
    expect(pick(one.status.conditions, 'ValidMachineConfig')).toEqual({ status: 'False', reason: 'ValidationFailed', message: 'configmaps "late" not found' });
    expect(pick(one.status.conditions, 'ValidTuningConfig')?.status).toBe('True');
    expect(one.status.replicas).toBe(0);
    expect(one.requeueAfterMs).toBeUndefined();
    expect(pick(one.status.conditions, 'Ready')?.status).toBe('False');
    const two = held([], ['t1', 't2']);
    expect(pick(two.status.conditions, 'ValidTuningConfig')).toEqual({ status: 'False', reason: 'ValidationFailed', message: '[configmaps "t1" not found, configmaps "t2" not found]' });
    expect(two.status.replicas).toBe(0);
    // A pass after the delay brings the replicas up, unless a ConfigMap is missing.
    const first = compute(undefined, availableHC(), T0).status;
    expect(compute(first, availableHC(), T0 + 3000).status.replicas).toBe(2);
    const later = computeNodePoolStatus({ np: nodePool({ metadata: { generation: 1 }, status: first as never }), hc: availableHC(), nowMs: T0 + 3000, availableDelayMs: 2000, missingConfig: ['late'] });
    expect(later.status.replicas).toBe(0);
  });

  it('every condition carries observedGeneration = metadata.generation', () => {
    const { status } = compute(undefined, availableHC(), T0, {}, 4);
    for (const c of status.conditions!) expect(c.observedGeneration, c.type).toBe(4);
  });
});

describe('SupportedVersionSkew', () => {
  const withVersion = (version: { history?: { version: string; state?: string }[]; desired?: { version?: string } }) =>
    hostedCluster({ status: { conditions: [{ type: 'Available', status: 'True', reason: 'AsExpected', lastTransitionTime: at() }], version: { history: [], desired: { image: '' }, ...version } } as never });
  const image = (v: string) => ({ release: { image: `quay.io/openshift-release-dev/ocp-release:${v}-x86_64` } });

  it('is True within the skew, from the newest completed history entry (not an upgrade still rolling out)', () => {
    const history = [
      { version: '4.19.0', state: 'Partial' },
      { version: '4.18.5', state: 'Completed' },
      { version: '4.14.0', state: 'Completed' },
    ];
    const { status } = compute(undefined, withVersion({ history }), T0, image('4.15.3'));
    expect(pick(status.conditions, 'SupportedVersionSkew')).toEqual({ status: 'True', reason: 'AsExpected', message: 'Release image version is valid' });
    // A NodePool at the upgrade's target is newer than what runs until the upgrade completes.
    const ahead = compute(undefined, withVersion({ history }), T0, image('4.19.0')).status;
    expect(pick(ahead.conditions, 'SupportedVersionSkew')).toEqual({ status: 'False', reason: 'UnsupportedSkew', message: 'NodePool version 4.19.0 cannot be higher than the HostedCluster version 4.18.5' });
    // The first rollout, not completed yet: its version.
    const first = compute(undefined, withVersion({ history: [{ version: '4.16.0', state: 'Partial' }] }), T0, image('4.20.0')).status;
    expect(pick(first.conditions, 'SupportedVersionSkew')?.message).toBe('NodePool version 4.20.0 cannot be higher than the HostedCluster version 4.16.0');
  });

  it('is False (UnsupportedSkew) for a NodePool newer than its HostedCluster, which still comes up', () => {
    const hc = withVersion({ history: [{ version: '4.16.0' }] });
    const first = compute(undefined, hc, T0, image('4.20.0'));
    expect(pick(first.status.conditions, 'SupportedVersionSkew')).toEqual({ status: 'False', reason: 'UnsupportedSkew', message: 'NodePool version 4.20.0 cannot be higher than the HostedCluster version 4.16.0' });
    const later = compute(first.status, hc, T0 + 60_000, image('4.20.0'));
    expect(later.status.version).toBe('4.20.0');
    expect(pick(later.status.conditions, 'Ready')?.status).toBe('True');
  });

  it('is False for more than three minors behind, from desired when there is no history', () => {
    const { status } = compute(undefined, withVersion({ desired: { version: '4.16.0' } }), T0, image('4.12.0'));
    expect(pick(status.conditions, 'SupportedVersionSkew')).toEqual({
      status: 'False',
      reason: 'UnsupportedSkew',
      message: 'NodePool minor version 4.12 is less than 4.13, which is the minimum NodePool version compatible with the 4.16 HostedCluster',
    });
  });

  it('is Unknown while the HostedCluster reports no version', () => {
    const { status } = compute(undefined, unavailableHC, T0);
    expect(pick(status.conditions, 'SupportedVersionSkew')).toEqual({ status: 'Unknown', reason: 'ValidationFailed', message: 'the HostedCluster reports no version yet' });
  });
});
