import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { liveUsersHere } from './live-users.js';

const ns = 'team';
const deleting = { deletionTimestamp: '2026-12-06T00:00:00Z' };
const hc = (name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name, namespace: ns, ...extra } });
const np = (name: string, clusterName: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name, namespace: ns, ...extra }, spec: { clusterName } } as KubeObject);

describe('liveUsersHere', () => {
  it('counts a HostedCluster that uses the object, not one being deleted (its teardown takes nothing over)', () => {
    const lookup = () => undefined;
    expect([...liveUsersHere([{ kind: 'HostedCluster', obj: hc('a') }], lookup)]).toEqual(['a']);
    expect([...liveUsersHere([{ kind: 'HostedCluster', obj: hc('a', deleting) }], lookup)]).toEqual([]);
  });

  it('counts a NodePool for its HostedCluster, only when that HostedCluster is known and neither is being deleted', () => {
    const clusters = new Map([['live', hc('live')], ['going', hc('going', deleting)]]);
    const lookup = (name: string) => clusters.get(name);
    expect([...liveUsersHere([{ kind: 'NodePool', obj: np('w', 'live') }], lookup)]).toEqual(['live']);
    expect([...liveUsersHere([{ kind: 'NodePool', obj: np('w', 'live', deleting) }], lookup)]).toEqual([]);
    expect([...liveUsersHere([{ kind: 'NodePool', obj: np('w', 'going') }], lookup)]).toEqual([]);
    expect([...liveUsersHere([{ kind: 'NodePool', obj: np('w', 'unknown') }], lookup)]).toEqual([]);
  });

  it('names each HostedCluster once, however many of its objects use it', () => {
    const clusters = new Map([['a', hc('a')]]);
    const users = [{ kind: 'HostedCluster' as const, obj: hc('a') }, { kind: 'NodePool' as const, obj: np('w1', 'a') }, { kind: 'NodePool' as const, obj: np('w2', 'a') }, { kind: 'HostedCluster' as const, obj: hc('b', deleting) }];
    expect([...liveUsersHere(users, (n) => clusters.get(n))]).toEqual(['a']);
  });
});
