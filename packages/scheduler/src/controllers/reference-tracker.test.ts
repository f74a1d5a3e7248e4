import { describe, expect, it } from 'vitest';
import type { HostedCluster, NodePool } from '@hcc/crds';
import { ReferenceTracker } from './reference-tracker.js';

const hc = (name: string, secret: string, generation = 1): HostedCluster => ({
  metadata: { name, namespace: 'ns', uid: `u-${name}`, generation },
  spec: { pullSecret: { name: secret } },
});
const np = (name: string, cm: string): NodePool => ({ metadata: { name, namespace: 'ns', uid: `u-${name}`, generation: 1 }, spec: { clusterName: 'a', config: [{ name: cm }] } });

describe('ReferenceTracker', () => {
  it('counts clusters per referenced object and follows placement, spec and deletion', () => {
    const t = new ReferenceTracker();
    expect(t.observe('HostedCluster', 'ns/a', hc('a', 'shared'), '')).toEqual(['Secret/ns/shared']);
    expect(t.clustersFor('Secret/ns/shared')).toEqual(new Set());
    expect(t.observe('HostedCluster', 'ns/a', hc('a', 'shared'), 'm1')).toEqual(['Secret/ns/shared']);
    t.observe('HostedCluster', 'ns/b', hc('b', 'shared'), 'm1');
    t.observe('HostedCluster', 'ns/c', hc('c', 'shared'), 'm2');
    expect(t.clustersFor('Secret/ns/shared')).toEqual(new Set(['m1', 'm2']));
    // A status update (same generation, same placement) changes nothing and computes nothing.
    expect(t.observe('HostedCluster', 'ns/a', hc('a', 'shared'), 'm1')).toEqual([]);
    // A spec change to another Secret moves the reference.
    expect(t.observe('HostedCluster', 'ns/c', hc('c', 'own', 2), 'm2').sort()).toEqual(['Secret/ns/own', 'Secret/ns/shared']);
    expect(t.clustersFor('Secret/ns/shared')).toEqual(new Set(['m1']));
    expect(t.clustersFor('Secret/ns/own')).toEqual(new Set(['m2']));
    t.observe('HostedCluster', 'ns/a', undefined, '');
    expect(t.clustersFor('Secret/ns/shared')).toEqual(new Set(['m1']));
    t.observe('HostedCluster', 'ns/b', undefined, '');
    expect(t.clustersFor('Secret/ns/shared')).toEqual(new Set());
    t.observe('NodePool', 'ns/p', np('p', 'mc'), 'm3');
    expect(t.clustersFor('ConfigMap/ns/mc')).toEqual(new Set(['m3']));
  });
});
