import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { releaseSupported, releaseVersionOfImage } from './release-supported.js';

const ocp = (tag: string) => `quay.io/openshift-release-dev/ocp-release:${tag}`;
const supported = ['4.22', '4.21', '4.20', '4.19', '4.18', '4.17', '4.16', '4.15', '4.14'];

describe('releaseVersionOfImage', () => {
  it.each([
    { name: 'release tag with arch', input: ocp('4.16.12-x86_64'), want: '4.16' },
    { name: 'multi-arch', input: ocp('4.17.3-multi'), want: '4.17' },
    { name: 'release candidate', input: ocp('4.18.0-rc.1-x86_64'), want: '4.18' },
    { name: 'nightly', input: 'registry.ci.openshift.org/ocp/release:4.19.0-0.nightly-2026-01-01-000000', want: '4.19' },
    { name: 'registry with port', input: 'registry.local:5000/ocp-release:4.15.2', want: '4.15' },
    { name: 'registry with port, no tag', input: 'registry.local:5000/ocp-release', want: undefined },
    { name: 'digest', input: 'quay.io/openshift-release-dev/ocp-release@sha256:0123abcd', want: undefined },
    { name: 'tag and digest (pinned)', input: `${ocp('4.12.3-x86_64')}@sha256:0123abcd`, want: '4.12' },
    { name: 'registry with port, digest', input: 'registry.local:5000/ocp-release@sha256:0123abcd', want: undefined },
    { name: 'custom tag', input: 'quay.io/me/release:latest', want: undefined },
    { name: 'no image', input: undefined, want: undefined },
  ])('$name', ({ input, want }) => {
    expect(releaseVersionOfImage(input)).toBe(want);
  });
});

describe('ReleaseSupported filter', () => {
  it.each([
    { name: 'supported', input: { image: ocp('4.16.12-x86_64'), supported }, want: [] },
    { name: 'too old', input: { image: ocp('4.12.0-x86_64'), supported }, want: ['release 4.12 not supported'] },
    { name: 'too new', input: { image: ocp('4.23.1-x86_64'), supported }, want: ['release 4.23 not supported'] },
    { name: 'cluster reports no list', input: { image: ocp('4.12.0-x86_64'), supported: undefined }, want: [] },
    { name: 'cluster reports an empty list', input: { image: ocp('4.12.0-x86_64'), supported: [] }, want: [] },
    { name: 'unknown version passes', input: { image: 'quay.io/me/release@sha256:00', supported }, want: [] },
    { name: 'tag and digest: the tag decides', input: { image: `${ocp('4.12.3-x86_64')}@sha256:00`, supported }, want: ['release 4.12 not supported'] },
    { name: 'list with patch versions', input: { image: ocp('4.16.1'), supported: ['4.16.0'] }, want: [] },
  ])('$name', ({ input, want }) => {
    expect(releaseSupported.filter(hostedCluster({ image: input.image }), info('a', { supportedVersions: input.supported })).reasons).toEqual(want);
  });
});
