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
    // Not placed: no cluster needs the Secret, nothing to reconcile.
    expect(t.observe('HostedCluster', 'ns/a', hc('a', 'shared'), '')).toEqual([]);
    expect(t.clustersFor('Secret/ns/shared')).toEqual(new Set());
    expect(t.observe('HostedCluster', 'ns/a', hc('a', 'shared'), 'm1')).toEqual(['Secret/ns/shared']);
    // A second HostedCluster on m1 sharing the Secret changes no cluster set.
    expect(t.observe('HostedCluster', 'ns/b', hc('b', 'shared'), 'm1')).toEqual([]);
    expect(t.observe('HostedCluster', 'ns/c', hc('c', 'shared'), 'm2')).toEqual(['Secret/ns/shared']);
    expect(t.clustersFor('Secret/ns/shared')).toEqual(new Set(['m1', 'm2']));
    // A status update (same generation, same placement) changes nothing and computes nothing.
    expect(t.observe('HostedCluster', 'ns/a', hc('a', 'shared'), 'm1')).toEqual([]);
    // A spec change to another Secret moves the reference.
    expect(t.observe('HostedCluster', 'ns/c', hc('c', 'own', 2), 'm2').sort()).toEqual(['Secret/ns/own', 'Secret/ns/shared']);
    expect(t.clustersFor('Secret/ns/shared')).toEqual(new Set(['m1']));
    expect(t.clustersFor('Secret/ns/own')).toEqual(new Set(['m2']));
    expect(t.observe('HostedCluster', 'ns/a', undefined, '')).toEqual([]);
    expect(t.clustersFor('Secret/ns/shared')).toEqual(new Set(['m1']));
    // The last one on m1 goes: m1 leaves the set.
    expect(t.observe('HostedCluster', 'ns/b', undefined, '')).toEqual(['Secret/ns/shared']);
    expect(t.clustersFor('Secret/ns/shared')).toEqual(new Set());
    t.observe('NodePool', 'ns/p', np('p', 'mc'), 'm3');
    expect(t.clustersFor('ConfigMap/ns/mc')).toEqual(new Set(['m3']));
  });

  it('a move between clusters changes the set; a re-observation with the same placement does not', () => {
    const t = new ReferenceTracker();
    t.observe('HostedCluster', 'ns/a', hc('a', 's'), 'm1');
    expect(t.observe('HostedCluster', 'ns/a', hc('a', 's'), 'm2')).toEqual(['Secret/ns/s']);
    expect(t.clustersFor('Secret/ns/s')).toEqual(new Set(['m2']));
    // A spec change that keeps the same references on the same cluster: the count goes 1 → 0 → 1, the set stays.
    expect(t.observe('HostedCluster', 'ns/a', hc('a', 's', 2), 'm2')).toEqual([]);
    expect(t.clustersFor('Secret/ns/s')).toEqual(new Set(['m2']));
  });
});
