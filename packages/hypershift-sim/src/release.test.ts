import { describe, expect, it } from 'vitest';
import { parseVersion, payloadArchFromImage, validateReleaseVersion, versionFromImage, versionSkewProblem } from './release.js';

describe('versionFromImage', () => {
  it.each([
    { name: 'x86_64 release', input: 'quay.io/openshift-release-dev/ocp-release:4.14.0-x86_64', want: '4.14.0' },
    { name: 'multi release', input: 'quay.io/openshift-release-dev/ocp-release:4.17.3-multi', want: '4.17.3' },
    { name: 'rc', input: 'quay.io/openshift-release-dev/ocp-release:4.16.0-rc.2-x86_64', want: '4.16.0-rc.2' },
    { name: 'nightly', input: 'registry.ci.openshift.org/ocp/release:4.16.0-0.nightly-2024-05-01-123456', want: '4.16.0-0.nightly-2024-05-01-123456' },
    { name: 'registry with a port', input: 'registry.local:5000/ocp/release:4.15.2', want: '4.15.2' },
    { name: 'digest', input: 'quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef', want: '4.16.0' },
    { name: 'tag and digest (pinned)', input: 'quay.io/openshift-release-dev/ocp-release:4.14.8-x86_64@sha256:0123456789abcdef', want: '4.14.8' },
    { name: 'latest tag', input: 'quay.io/x/y:latest', want: '4.16.0' },
    { name: 'no tag at all', input: 'registry.local:5000/ocp/release', want: '4.16.0' },
    { name: 'undefined', input: undefined, want: '4.16.0' },
  ])('$name', ({ input, want }) => expect(versionFromImage(input)).toBe(want));
});

describe('payloadArchFromImage', () => {
  it.each([
    { input: 'quay.io/openshift-release-dev/ocp-release:4.14.0-x86_64', want: 'AMD64' },
    { input: 'quay.io/openshift-release-dev/ocp-release:4.14.0-multi', want: 'Multi' },
    { input: 'quay.io/openshift-release-dev/ocp-release:4.14.0-aarch64', want: 'ARM64' },
    { input: 'quay.io/openshift-release-dev/ocp-release@sha256:abc', want: 'AMD64' },
    { input: 'quay.io/openshift-release-dev/ocp-release:4.14.0-aarch64@sha256:abc', want: 'ARM64' },
  ])('$input → $want', ({ input, want }) => expect(payloadArchFromImage(input)).toBe(want));
});

describe('validateReleaseVersion', () => {
  const supported = ['4.18', '4.17', '4.16', '4.15', '4.14'];
  it.each([
    { name: 'supported', input: ['4.15.2', undefined], want: undefined },
    { name: 'newer than supported', input: ['4.19.1', undefined], want: 'the latest version supported is: "4.18.0". Attempting to use: "4.19.1"' },
    { name: 'older than supported', input: ['4.13.9', undefined], want: 'the minimum version supported for platform None is: "4.14.0". Attempting to use: "4.13.9"' },
    { name: 'before 4.8', input: ['4.7.0', undefined], want: 'releases before 4.8 are not supported. Attempting to use: "4.7.0"' },
    { name: 'y-stream downgrade', input: ['4.14.3', '4.15.0'], want: 'y-stream downgrade from "4.15.0" to "4.14.3" is not supported' },
    { name: 'z-stream downgrade is fine', input: ['4.15.0', '4.15.3'], want: undefined },
    { name: 'not a version', input: ['banana', undefined], want: undefined },
  ])('$name', ({ input, want }) => expect(validateReleaseVersion(input[0]!, input[1], supported, 'None')).toBe(want));

  it('accepts anything when no supported version parses', () => {
    expect(validateReleaseVersion('4.99.0', undefined, ['x'], 'None')).toBeUndefined();
  });
});

describe('versionSkewProblem', () => {
  const v = (s: string) => parseVersion(s)!;
  // The cases and messages of HyperShift's TestValidateVersionSkew and the nodepool controller's tests.
  it.each([
    { hc: '4.18.5', np: '4.18.5', want: undefined },
    { hc: '4.18.10', np: '4.18.5', want: undefined },
    { hc: '4.18.0', np: '4.15.0', want: undefined },
    { hc: '4.17.0', np: '4.15.0', want: undefined },
    { hc: '4.18.5', np: '4.19.0', want: 'NodePool version 4.19.0 cannot be higher than the HostedCluster version 4.18.5' },
    { hc: '4.18.5', np: '4.18.10', want: 'NodePool version 4.18.10 cannot be higher than the HostedCluster version 4.18.5' },
    { hc: '4.18.0', np: '4.14.0', want: 'NodePool minor version 4.14 is less than 4.15, which is the minimum NodePool version compatible with the 4.18 HostedCluster' },
    { hc: '4.18.0', np: '5.0.0', want: 'NodePool major version 5 must match HostedCluster major version 4' },
    // A pre-release is older than its release (semver).
    { hc: '4.18.0-rc.1', np: '4.18.0', want: 'NodePool version 4.18.0 cannot be higher than the HostedCluster version 4.18.0-rc.1' },
    { hc: '4.18.0', np: '4.18.0-rc.1', want: undefined },
    { hc: '4.18.0-rc.2', np: '4.18.0-rc.10', want: 'NodePool version 4.18.0-rc.10 cannot be higher than the HostedCluster version 4.18.0-rc.2' },
  ])('HostedCluster $hc, NodePool $np', ({ hc, np, want }) => {
    expect(versionSkewProblem(v(hc), v(np))).toBe(want);
  });
});
