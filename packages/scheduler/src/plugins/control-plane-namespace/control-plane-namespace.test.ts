import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { controlPlaneNamespace } from './control-plane-namespace.js';

describe('ControlPlaneNamespace filter', () => {
  it.each([
    { name: 'empty cluster', input: { hc: { namespace: 'a-b', name: 'c' }, placed: [] as string[] }, want: [] },
    { name: 'unrelated placements', input: { hc: { namespace: 'a-b', name: 'c' }, placed: ['a/b', 'a-b/d'] }, want: [] },
    { name: 'a/b-c already there collides with a-b/c', input: { hc: { namespace: 'a-b', name: 'c' }, placed: ['a/b-c'] }, want: ['control-plane namespace a-b-c already in use'] },
    { name: 'a control-plane namespace over 63 characters fits nowhere', input: { hc: { namespace: 'clusters', name: 'a'.repeat(55) }, placed: [] as string[] }, want: [`control-plane namespace clusters-${'a'.repeat(55)} is longer than 63 characters`] },
    { name: 'exactly 63 characters is fine', input: { hc: { namespace: 'clusters', name: 'a'.repeat(54) }, placed: [] as string[] }, want: [] },
    { name: 'and the other way round', input: { hc: { namespace: 'a', name: 'b-c' }, placed: ['x/y', 'a-b/c'] }, want: ['control-plane namespace a-b-c already in use'] },
  ])('$name', ({ input, want }) => {
    expect(controlPlaneNamespace.filter(hostedCluster(input.hc), info('m', { placedKeys: input.placed })).reasons).toEqual(want);
  });
});
