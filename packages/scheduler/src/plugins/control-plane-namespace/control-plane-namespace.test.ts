import { describe, expect, it } from 'vitest';
import { hostedCluster, info } from '../../testing/fixtures.js';
import { controlPlaneNamespace } from './control-plane-namespace.js';

describe('ControlPlaneNamespace filter', () => {
  it.each([
    { name: 'empty cluster', input: { hc: { namespace: 'a-b', name: 'c' }, placed: [] as string[] }, want: [] },
    { name: 'unrelated placements', input: { hc: { namespace: 'a-b', name: 'c' }, placed: ['x/b', 'a-b/d'] }, want: [] },
    { name: 'a/b-c already there collides with a-b/c', input: { hc: { namespace: 'a-b', name: 'c' }, placed: ['a/b-c'] }, want: ['control-plane namespace a-b-c already in use'] },
    { name: 'a control-plane namespace over 63 characters fits nowhere', input: { hc: { namespace: 'clusters', name: 'a'.repeat(55) }, placed: [] as string[] }, want: [`control-plane namespace clusters-${'a'.repeat(55)} is longer than 63 characters`] },
    { name: 'exactly 63 characters is fine', input: { hc: { namespace: 'clusters', name: 'a'.repeat(54) }, placed: [] as string[] }, want: [] },
    { name: 'and the other way round', input: { hc: { namespace: 'a', name: 'b-c' }, placed: ['x/y', 'a-b/c'] }, want: ['control-plane namespace a-b-c already in use'] },
    // Placed beside clusters/hosted-ipv4, whose control plane lives in clusters-hosted-ipv4, a
    // HostedCluster in that namespace would be deleted with that control plane.
    { name: 'its namespace is the control-plane namespace of one placed there', input: { hc: { namespace: 'clusters-hosted-ipv4', name: 'inner' }, placed: ['clusters/hosted-ipv4'] }, want: ['namespace clusters-hosted-ipv4 is the control-plane namespace of a HostedCluster there'] },
    { name: 'its control-plane namespace holds HostedClusters placed there', input: { hc: { namespace: 'clusters', name: 'hosted-ipv4' }, placed: ['clusters-hosted-ipv4/inner'] }, want: ['control-plane namespace clusters-hosted-ipv4 holds other HostedClusters there'] },
    { name: 'the same namespace as others is fine', input: { hc: { namespace: 'clusters', name: 'b' }, placed: ['clusters/a'] }, want: [] },
    { name: 'a control-plane namespace of the cluster itself (kube/system)', input: { hc: { namespace: 'kube', name: 'system' }, placed: [] as string[] }, want: ['control-plane namespace kube-system is reserved on every management cluster'] },
    { name: 'openshift/config (its own namespace is reserved first)', input: { hc: { namespace: 'openshift', name: 'config' }, placed: [] as string[] }, want: ['namespace openshift is reserved on every management cluster'] },
    { name: 'a HostedCluster in hypershift (its copy is refused everywhere)', input: { hc: { namespace: 'hypershift', name: 'x' }, placed: [] as string[] }, want: ['namespace hypershift is reserved on every management cluster'] },
    { name: 'a HostedCluster in hcc-system', input: { hc: { namespace: 'hcc-system', name: 'x' }, placed: [] as string[] }, want: ['namespace hcc-system is reserved on every management cluster'] },
    { name: 'a HostedCluster in default is fine', input: { hc: { namespace: 'default', name: 'x' }, placed: [] as string[] }, want: [] },
  ])('$name', ({ input, want }) => {
    expect(controlPlaneNamespace.filter(hostedCluster(input.hc), info('m', { placedKeys: input.placed })).reasons).toEqual(want);
  });
});
