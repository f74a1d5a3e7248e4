import { describe, expect, it } from 'vitest';
import type { Condition } from '@hcc/crds';
import { findCondition } from '../../conditions.js';
import { Image414, Image415, T0, at, hostedCluster } from '../../testing/fixtures.js';
import type { HostedClusterStatus } from '../../types.js';
import { computeHostedClusterStatus, type HostedClusterFacts } from './hostedcluster-status.js';

const noControlPlane: HostedClusterFacts = { pullSecret: 'found', controlPlaneNamespace: false, kubeconfigSecret: false, kubeadminPasswordSecret: false };
const controlPlane: HostedClusterFacts = { pullSecret: 'found', controlPlaneNamespace: true, kubeconfigSecret: true, kubeadminPasswordSecret: true };
const supportedVersions = ['4.18', '4.17', '4.16', '4.15', '4.14'];

const compute = (status: HostedClusterStatus | undefined, facts: HostedClusterFacts, nowMs = T0, spec = {}, generation = 1) =>
  computeHostedClusterStatus({
    hc: hostedCluster({ metadata: { generation }, spec, status: status as never }),
    facts,
    nowMs,
    availableDelayMs: 2000,
    supportedVersions,
  });

const pick = (conditions: Condition[] | undefined, type: string) => {
  const c = findCondition(conditions, type);
  return c && { status: c.status, reason: c.reason, message: c.message };
};

describe('computeHostedClusterStatus', () => {
  it.each([
    {
      name: 'new cluster, no control plane yet',
      input: { facts: noControlPlane },
      want: {
        Available: { status: 'False', reason: 'WaitingForAvailable', message: 'Waiting for hosted control plane to be healthy' },
        Progressing: { status: 'True', reason: 'Progressing', message: 'HostedCluster is deploying, upgrading, or reconfiguring: rolling out version 4.14.0' },
        Degraded: { status: 'Unknown', reason: 'StatusUnknown', message: 'The hosted control plane is not found' },
        ValidReleaseImage: { status: 'True', reason: 'AsExpected', message: 'Release image is valid' },
        ReconciliationSucceeded: { status: 'True', reason: 'ReconciliatonSucceeded', message: 'Reconciliation completed successfully' },
        EtcdAvailable: { status: 'Unknown', reason: 'StatusUnknown', message: 'The hosted control plane is not found' },
      },
    },
    {
      name: 'missing pull secret',
      input: { facts: { ...noControlPlane, pullSecret: 'missing' as const } },
      want: {
        Available: { status: 'False', reason: 'WaitingForAvailable', message: 'Waiting for hosted control plane to be healthy' },
        Progressing: { status: 'False', reason: 'Blocked', message: 'ValidReleaseImage condition is false' },
        ValidReleaseImage: { status: 'False', reason: 'SecretNotFound', message: 'failed to get pull secret: secrets "pull-secret" not found' },
        ReconciliationSucceeded: {
          status: 'False',
          reason: 'ReconciliationError',
          message: 'failed to lookup release image: failed to get pull secret: secrets "pull-secret" not found',
        },
      },
    },
    {
      name: 'pull secret without .dockerconfigjson',
      input: { facts: { ...noControlPlane, pullSecret: 'invalid' as const } },
      want: {
        ValidReleaseImage: { status: 'False', reason: 'InvalidImage', message: 'expected .dockerconfigjson key in pull secret' },
        ReconciliationSucceeded: { status: 'False', reason: 'ReconciliationError', message: 'failed to lookup release image: expected .dockerconfigjson key in pull secret' },
      },
    },
    {
      name: 'release newer than the supported versions',
      input: { facts: noControlPlane, spec: { release: { image: 'quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64' } } },
      want: {
        ValidReleaseImage: { status: 'False', reason: 'InvalidImage', message: 'the latest version supported is: "4.18.0". Attempting to use: "4.19.0"' },
        ReconciliationSucceeded: { status: 'True', reason: 'ReconciliatonSucceeded', message: 'Reconciliation completed successfully' },
        Progressing: { status: 'False', reason: 'Blocked', message: 'ValidReleaseImage condition is false' },
      },
    },
  ])('$name', ({ input, want }) => {
    const { status } = compute(undefined, input.facts, T0, input.spec);
    for (const [type, c] of Object.entries(want)) expect(pick(status.conditions, type), type).toEqual(c);
  });

  it('becomes Available availableDelayMs after the rollout started, with refs and endpoints', () => {
    const first = compute(undefined, controlPlane);
    expect(first.requeueAfterMs).toBe(2999);
    expect(pick(first.status.conditions, 'Available')?.status).toBe('False');

    const early = compute(first.status, controlPlane, T0 + 1000);
    expect(early.requeueAfterMs).toBe(1999);
    expect(early.status).toEqual(first.status);

    const { status, requeueAfterMs } = compute(first.status, controlPlane, T0 + 3000);
    expect(requeueAfterMs).toBeUndefined();
    expect(pick(status.conditions, 'Available')).toEqual({ status: 'True', reason: 'AsExpected', message: 'The hosted control plane is available' });
    expect(pick(status.conditions, 'Progressing')).toEqual({ status: 'False', reason: 'AsExpected', message: 'HostedCluster is at expected version' });
    expect(pick(status.conditions, 'Degraded')).toEqual({ status: 'False', reason: 'AsExpected', message: 'The hosted cluster is not degraded' });
    expect(pick(status.conditions, 'EtcdAvailable')?.status).toBe('True');
    expect(pick(status.conditions, 'IgnitionEndpointAvailable')?.status).toBe('True');
    expect(findCondition(status.conditions, 'Available')?.lastTransitionTime).toBe(at(3000));
    expect(findCondition(status.conditions, 'ValidReleaseImage')?.lastTransitionTime).toBe(at(0));
    expect(status.version?.history).toEqual([
      { state: 'Completed', startedTime: at(0), completionTime: at(3000), version: '4.14.0', image: Image414, verified: false },
    ]);
    expect(status).toMatchObject({
      kubeconfig: { name: 'example-admin-kubeconfig' },
      kubeadminPassword: { name: 'example-kubeadmin-password' },
      controlPlaneEndpoint: { host: 'api.example.hcc.example.com', port: 6443 },
      ignitionEndpoint: 'ignition-server-clusters-example.apps.hcc.example.com',
      payloadArch: 'AMD64',
    });
    // Stable afterwards.
    expect(compute(status, controlPlane, T0 + 60_000)).toEqual({ status });
  });

  it('does not become Available without the kubeconfig Secret', () => {
    const first = compute(undefined, { ...controlPlane, kubeconfigSecret: false });
    const later = compute(first.status, { ...controlPlane, kubeconfigSecret: false }, T0 + 10_000);
    expect(pick(later.status.conditions, 'Available')?.status).toBe('False');
    expect(later.status.version?.history[0]?.state).toBe('Partial');
    expect(later.status.kubeconfig).toBeUndefined();
  });

  it('a late pull secret starts the clock when it appears', () => {
    const blocked = compute(undefined, { ...controlPlane, pullSecret: 'missing' });
    const fixed = compute(blocked.status, controlPlane, T0 + 10_000);
    expect(fixed.requeueAfterMs).toBe(2999);
    expect(pick(fixed.status.conditions, 'Available')?.status).toBe('False');
    expect(pick(fixed.status.conditions, 'ReconciliationSucceeded')?.status).toBe('True');
    const available = compute(fixed.status, controlPlane, T0 + 13_000);
    expect(pick(available.status.conditions, 'Available')?.status).toBe('True');
  });

  describe('a missing referenced Secret or ConfigMap (facts.missingReference)', () => {
    const sshError = 'failed to get SSH key secret my-key: secrets "my-key" not found';
    const cmError = 'failed to get configmap clusters/user-ca-bundle: configmaps "user-ca-bundle" not found';
    const reconcileFailed = (message: string) => ({ status: 'False', reason: 'ReconciliationError', message });

    it('a new cluster reports the lookup error and is not Available after the delay; once the Secret exists it comes up availableDelayMs later', () => {
      const missing = { ...controlPlane, missingReference: sshError };
      const first = compute(undefined, missing);
      expect(pick(first.status.conditions, 'ReconciliationSucceeded')).toEqual(reconcileFailed(sshError));
      expect(pick(first.status.conditions, 'ValidReleaseImage')?.status).toBe('True');
      expect(pick(first.status.conditions, 'Progressing')?.status).toBe('True');
      expect(first.requeueAfterMs).toBeUndefined(); // nothing to wait for but the Secret (its event requeues)
      const later = compute(first.status, missing, T0 + 10_000);
      expect(pick(later.status.conditions, 'Available')).toEqual({ status: 'False', reason: 'WaitingForAvailable', message: 'Waiting for hosted control plane to be healthy' });
      expect(later.status.version?.history[0]).toMatchObject({ state: 'Partial', completionTime: null });
      expect(later.status.ignitionEndpoint).toBeUndefined();

      const fixed = compute(later.status, controlPlane, T0 + 10_000);
      expect(pick(fixed.status.conditions, 'ReconciliationSucceeded')?.status).toBe('True');
      expect(pick(fixed.status.conditions, 'Available')?.status).toBe('False');
      expect(fixed.requeueAfterMs).toBe(2999); // the clock starts when the Secret appears (times are stored to the second)
      expect(pick(compute(fixed.status, controlPlane, T0 + 12_000).status.conditions, 'Available')?.status).toBe('False');
      const available = compute(fixed.status, controlPlane, T0 + 13_000);
      expect(pick(available.status.conditions, 'Available')).toEqual({ status: 'True', reason: 'AsExpected', message: 'The hosted control plane is available' });
      expect(available.status.version?.history[0]).toMatchObject({ state: 'Completed', completionTime: at(13_000) });
    });

    it('a missing ConfigMap likewise', () => {
      const missing = { ...controlPlane, missingReference: cmError };
      const first = compute(undefined, missing);
      const later = compute(first.status, missing, T0 + 10_000);
      expect(pick(later.status.conditions, 'ReconciliationSucceeded')).toEqual(reconcileFailed(cmError));
      expect(pick(later.status.conditions, 'Available')?.status).toBe('False');
      const fixed = compute(later.status, controlPlane, T0 + 10_000);
      expect(pick(compute(fixed.status, controlPlane, T0 + 13_000).status.conditions, 'Available')?.status).toBe('True');
    });

    it('a missing pull secret wins', () => {
      const { status } = compute(undefined, { ...noControlPlane, pullSecret: 'missing', missingReference: sshError });
      expect(pick(status.conditions, 'ReconciliationSucceeded')).toEqual(
        reconcileFailed('failed to lookup release image: failed to get pull secret: secrets "pull-secret" not found'),
      );
      expect(pick(status.conditions, 'ValidReleaseImage')?.reason).toBe('SecretNotFound');
    });

    it('is reported also when the release is invalid without a reconcile error of its own', () => {
      const { status } = compute(undefined, { ...noControlPlane, missingReference: sshError }, T0, { release: { image: 'quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64' } });
      expect(pick(status.conditions, 'ValidReleaseImage')?.reason).toBe('InvalidImage');
      expect(pick(status.conditions, 'ReconciliationSucceeded')).toEqual(reconcileFailed(sshError));
    });

    it('an Available cluster that loses its SSH key stays Available and reports the error; an upgrade waits for the Secret', () => {
      const installed = compute(compute(undefined, controlPlane).status, controlPlane, T0 + 3000).status;
      const missing = { ...controlPlane, missingReference: sshError };
      const lost = compute(installed, missing, T0 + 10_000);
      expect(pick(lost.status.conditions, 'Available')).toEqual({ status: 'True', reason: 'AsExpected', message: 'The hosted control plane is available' });
      expect(findCondition(lost.status.conditions, 'Available')?.lastTransitionTime).toBe(at(3000));
      expect(pick(lost.status.conditions, 'ReconciliationSucceeded')).toEqual(reconcileFailed(sshError));
      expect(pick(lost.status.conditions, 'Degraded')?.status).toBe('False');
      expect(lost.status.version).toEqual(installed.version);
      expect(lost.status.ignitionEndpoint).toBe(installed.ignitionEndpoint);

      const upgrading = compute(lost.status, missing, T0 + 20_000, { release: { image: Image415 } }, 2);
      expect(upgrading.requeueAfterMs).toBeUndefined();
      const stuck = compute(upgrading.status, missing, T0 + 30_000, { release: { image: Image415 } }, 2);
      expect(stuck.status.version?.history[0]).toMatchObject({ state: 'Partial', version: '4.15.2', completionTime: null });
      expect(pick(stuck.status.conditions, 'Available')?.status).toBe('True');
      const back = compute(stuck.status, controlPlane, T0 + 30_000, { release: { image: Image415 } }, 2);
      expect(pick(back.status.conditions, 'ReconciliationSucceeded')?.status).toBe('True');
      expect(back.requeueAfterMs).toBe(2999);
      expect(compute(back.status, controlPlane, T0 + 33_000, { release: { image: Image415 } }, 2).status.version?.history[0]).toMatchObject({ state: 'Completed', version: '4.15.2' });
    });
  });

  it('every condition carries observedGeneration = metadata.generation', () => {
    const { status } = compute(undefined, controlPlane, T0, {}, 7);
    expect(status.conditions!.length).toBeGreaterThan(10);
    for (const c of status.conditions!) expect(c.observedGeneration, c.type).toBe(7);
  });

  it('spec.pausedUntil: an upgrade asked for while paused waits, ReconciliationActive=False says until when, and starts once the pause ends', () => {
    const installed = compute(compute(undefined, controlPlane).status, controlPlane, T0 + 3000).status;
    const until = at(60_000);
    const paused = compute(installed, controlPlane, T0 + 10_000, { release: { image: Image415 }, pausedUntil: until }, 2);
    expect(pick(paused.status.conditions, 'ReconciliationActive')).toEqual({ status: 'False', reason: 'ReconciliationPaused', message: `Reconciliation paused until: ${until}` });
    expect(pick(paused.status.conditions, 'Progressing')).toEqual({ status: 'False', reason: 'Blocked', message: 'ReconciliationActive condition is false' });
    expect(pick(paused.status.conditions, 'Available')?.status).toBe('True');
    expect(paused.status.version).toEqual(installed.version);
    expect(paused.requeueAfterMs).toBe(50_000);
    const resumed = compute(paused.status, controlPlane, T0 + 61_000, { release: { image: Image415 }, pausedUntil: until }, 2);
    expect(pick(resumed.status.conditions, 'ReconciliationActive')?.status).toBe('True');
    expect(resumed.status.version?.desired).toEqual({ image: Image415, version: '4.15.2' });
    // A boolean as Go's strconv.ParseBool reads one pauses until the field changes; anything else
    // that is not a future time is no pause, as upstream reads it.
    for (const v of ['true', 'True', 'TRUE', 't', '1']) {
      expect(pick(compute(installed, controlPlane, T0 + 10_000, { pausedUntil: v }).status.conditions, 'ReconciliationActive'), v).toEqual({
        status: 'False',
        reason: 'ReconciliationPaused',
        message: 'Reconciliation paused until field removed',
      });
    }
    for (const v of ['false', 'False', '0', 'yes', 'tomorrow', '2024-01-02', at(-1000)]) {
      expect(pick(compute(installed, controlPlane, T0 + 10_000, { pausedUntil: v }).status.conditions, 'ReconciliationActive')?.status, v).toBe('True');
    }
  });

  it('upgrade: Progressing=True while Available stays True, then done', () => {
    const installed = compute(compute(undefined, controlPlane).status, controlPlane, T0 + 3000).status;
    const upgrading = compute(installed, controlPlane, T0 + 10_000, { release: { image: Image415 } }, 2);
    expect(upgrading.requeueAfterMs).toBe(2000);
    expect(pick(upgrading.status.conditions, 'Available')?.status).toBe('True');
    expect(pick(upgrading.status.conditions, 'Progressing')).toEqual({
      status: 'True',
      reason: 'Progressing',
      message: 'HostedCluster is deploying, upgrading, or reconfiguring: rolling out version 4.15.2',
    });
    expect(upgrading.status.version?.desired).toEqual({ image: Image415, version: '4.15.2' });
    expect(upgrading.status.version?.observedGeneration).toBe(2);
    const upgraded = compute(upgrading.status, controlPlane, T0 + 13_000, { release: { image: Image415 } }, 2);
    expect(upgraded.status.version?.history.map((h) => [h.state, h.version])).toEqual([
      ['Completed', '4.15.2'],
      ['Completed', '4.14.0'],
    ]);
    expect(pick(upgraded.status.conditions, 'Progressing')?.status).toBe('False');
  });

  it('a y-stream downgrade is refused and nothing rolls out', () => {
    const installed = compute(compute(undefined, controlPlane, T0, { release: { image: Image415 } }).status, controlPlane, T0 + 3000, { release: { image: Image415 } }).status;
    const { status } = compute(installed, controlPlane, T0 + 10_000, { release: { image: Image414 } }, 2);
    expect(pick(status.conditions, 'ValidReleaseImage')).toEqual({ status: 'False', reason: 'InvalidImage', message: 'y-stream downgrade from "4.15.2" to "4.14.0" is not supported' });
    expect(status.version?.desired.image).toBe(Image415);
    expect(pick(status.conditions, 'Available')?.status).toBe('True');
  });

  it('keeps fields it does not own, drops kubeadminPassword with explicit OAuth', () => {
    const old = { platform: { aws: { defaultWorkerSecurityGroupID: 'sg-1' } }, kubeadminPassword: { name: 'example-kubeadmin-password' } };
    const { status } = compute(old, controlPlane, T0, { configuration: { oauth: {} } });
    expect(status.platform).toEqual(old.platform);
    expect(status.kubeadminPassword).toBeUndefined();
  });

  it('points status.customKubeconfig at <name>-custom-admin-kubeconfig while spec.kubeAPIServerDNSName is set, and clears it with the field', () => {
    const set = compute(undefined, { ...controlPlane, customKubeconfigSecret: true }, T0, { kubeAPIServerDNSName: 'api.custom.example.com' });
    expect(set.status.customKubeconfig).toEqual({ name: 'example-custom-admin-kubeconfig' });
    expect(compute(set.status, controlPlane, T0 + 1000).status.customKubeconfig).toBeUndefined();
  });
});
