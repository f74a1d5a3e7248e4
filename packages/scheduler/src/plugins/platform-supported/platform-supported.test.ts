import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { platformSupported } from './platform-supported.js';

describe('PlatformSupported filter', () => {
  it.each([
    { name: 'listed', input: { platform: 'AWS', platforms: ['AWS', 'KubeVirt'] }, want: [] },
    { name: 'not listed', input: { platform: 'KubeVirt', platforms: ['AWS'] }, want: ['platform KubeVirt not supported'] },
    { name: 'empty list means every platform', input: { platform: 'Agent', platforms: [] }, want: [] },
    { name: 'no list means every platform', input: { platform: 'Agent', platforms: undefined }, want: [] },
    { name: 'no platform type counts as None', input: { platform: '', platforms: ['None'] }, want: [] },
    { name: 'None not listed', input: { platform: '', platforms: ['AWS'] }, want: ['platform None not supported'] },
  ])('$name', ({ input, want }) => {
    expect(platformSupported.filter(hostedCluster({ platform: input.platform }), info('a', { platforms: input.platforms })).reasons).toEqual(want);
  });
});
