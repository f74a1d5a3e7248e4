import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { placementAdmission, SchedulersGroup } from './placement.js';
import type { AdmissionAttributes } from '../admission.js';
import type { ResourceInfo } from '../../../registry/types.js';
import type { Store } from '../../../storage/store.js';

const hcInfo = { group: 'hypershift.openshift.io', resource: 'hostedclusters' } as ResourceInfo;
const cmInfo = { group: '', resource: 'configmaps' } as ResourceInfo;
const L = 'controlcenter.hcc.dev/management-cluster';
const obj = (cluster?: string): KubeObject => ({ metadata: { name: 'x', namespace: 'ns', labels: cluster ? { [L]: cluster } : {} } });
const terminating: KubeObject = { metadata: { name: 'mgmt-old', deletionTimestamp: '2026-11-30T00:00:00Z', finalizers: ['x'] } };
// The HostedCluster ns/hc-old is placed on the cluster being deleted.
const hcOnOld: KubeObject = { metadata: { name: 'hc-old', namespace: 'ns', labels: { [L]: 'mgmt-old' } } };
const store = {
  get: (k: string) => (k.endsWith('/mgmt-1') ? { object: obj() } : k.endsWith('/mgmt-old') ? { object: terminating } : k.endsWith('/hostedclusters/ns/hc-old') ? { object: hcOnOld } : undefined),
} as unknown as Store;
const npInfo = { group: 'hypershift.openshift.io', resource: 'nodepools' } as ResourceInfo;
const nodePool = (cluster: string | undefined, clusterName: string): KubeObject => ({ ...obj(cluster), spec: { clusterName } });
const scheduler = { name: 'system:hcc:scheduler', groups: [SchedulersGroup] };
const admin = { name: 'admin', groups: ['system:masters'] };
const run = (a: Partial<AdmissionAttributes>) => placementAdmission.validate({ info: hcInfo, operation: 'CREATE', obj: obj(), old: undefined, user: admin, store, ...a }).map((e) => `${e.type}: ${e.detail ?? ''}`);

describe('placement admission', () => {
  it.each([
    { name: 'the scheduler binds to an existing cluster', input: { obj: obj('mgmt-1'), old: obj(), user: scheduler }, want: 0 },
    { name: 'unchanged placement', input: { obj: obj('mgmt-1'), old: obj('mgmt-1'), user: admin }, want: 0 },
    { name: 'no placement', input: { obj: obj(), old: obj(), user: admin }, want: 0 },
    { name: 'other kinds are not checked', input: { info: cmInfo, obj: obj('x'), old: obj('y'), user: admin }, want: 0 },
    { name: 'a user cannot bind', input: { obj: obj('mgmt-1'), old: obj(), user: admin }, want: 1 },
    { name: 'a user cannot create a placed HostedCluster', input: { obj: obj('mgmt-1'), old: undefined, user: admin }, want: 1 },
    { name: 'nobody moves a placement', input: { obj: obj('mgmt-2'), old: obj('mgmt-1'), user: scheduler }, want: 1 },
    { name: 'nobody removes a placement', input: { obj: obj(), old: obj('mgmt-1'), user: admin }, want: 1 },
    { name: 'no binding to a missing cluster', input: { obj: obj('mgmt-9'), old: obj(), user: scheduler }, want: 1 },
    { name: 'no binding to a cluster being deleted', input: { obj: obj('mgmt-old'), old: obj(), user: scheduler }, want: 1 },
    { name: "a NodePool follows its HostedCluster onto a cluster being deleted", input: { info: npInfo, obj: nodePool('mgmt-old', 'hc-old'), old: nodePool(undefined, 'hc-old'), user: scheduler }, want: 0 },
    { name: 'a NodePool of another HostedCluster is not bound to a cluster being deleted', input: { info: npInfo, obj: nodePool('mgmt-old', 'other'), old: nodePool(undefined, 'other'), user: scheduler }, want: 1 },
  ])('$name', ({ input, want }) => {
    expect(run(input as Partial<AdmissionAttributes>)).toHaveLength(want);
  });

  it('explains itself', () => {
    expect(run({ obj: obj('mgmt-2'), old: obj('mgmt-1') })[0]).toContain('immutable once set');
    expect(run({ obj: obj('mgmt-1'), old: obj() })[0]).toContain('only the scheduler places HostedClusters');
    const np = { ...hcInfo, resource: 'nodepools' } as ResourceInfo;
    expect(run({ info: np, obj: obj('mgmt-2'), old: obj('mgmt-1') })[0]).toContain('a NodePool stays with its HostedCluster');
    expect(run({ info: np, obj: obj('mgmt-1'), old: obj() })[0]).toContain('only the scheduler places NodePools');
  });
});
