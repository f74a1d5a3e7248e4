/**
 * A user allowed ManagementClusters but not a Secret cannot make the push syncer read that Secret
 * (and act as whoever it names) by setting `spec.kubeconfigSecretRef` to it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from '../../../control-center.js';
import { loadRBACPolicy, rbacAuthorizer } from '../../rbac.js';
import { request, startTestControlCenter } from '../../../testing/in-process.js';

const policy = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: fleet}
rules: [{apiGroups: ["controlcenter.hcc.dev"], resources: ["managementclusters"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: carol}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: fleet}
subjects: [{kind: User, name: carol}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: own-secrets, namespace: team-c}
rules: [{apiGroups: [""], resources: ["secrets"], verbs: ["get", "create"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: carol, namespace: team-c}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: own-secrets}
subjects: [{kind: User, name: carol}]
`;

const MCS = '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters';
const pushMC = (name: string, ref: Record<string, string>) => ({ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name }, spec: { mode: 'Push', capacity: 10, kubeconfigSecretRef: ref } });

describe('ManagementClusterSecretRef admission', () => {
  let cc: RunningControlCenter;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hcc-secret-ref-'));
    writeFileSync(path.join(dir, 'tokens.csv'), 'carol-token,carol,u1\n');
    cc = await startTestControlCenter({ tokenFile: path.join(dir, 'tokens.csv'), authorizer: rbacAuthorizer(loadRBACPolicy(policy, 'policy.yaml')), namespaces: ['team-b', 'team-c'], crds: allCRDs });
  });
  afterAll(async () => {
    await cc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a kubeconfigSecretRef to a Secret the writer may not get, and takes one they may", async () => {
    const stolen = await request(cc, 'POST', MCS, pushMC('p5', { namespace: 'team-b', name: 'bob-mgmt' }), { token: 'carol-token' });
    expect(stolen.code).toBe(403);
    expect(stolen.body.message).toBe(
      'managementclusters.controlcenter.hcc.dev "p5" is forbidden: spec.kubeconfigSecretRef: User "carol" cannot get the Secret team-b/bob-mgmt, which the push syncer would read with the control center\'s rights and act as in that management cluster',
    );
    // The default namespace, hcc-system, is no more hers.
    expect((await request(cc, 'POST', MCS, pushMC('p6', { name: 'fleet-kubeconfig' }), { token: 'carol-token' })).code).toBe(403);
    expect((await request(cc, 'GET', `${MCS}/p5`)).code).toBe(404);
    // Her own Secret: fine.
    expect((await request(cc, 'POST', MCS, pushMC('mine', { namespace: 'team-c', name: 'my-kubeconfig' }), { token: 'carol-token' })).code).toBe(201);
    // An admin's reference stays: carol may change other fields, not point it elsewhere.
    expect((await request(cc, 'POST', MCS, pushMC('admins', { namespace: 'team-b', name: 'bob-mgmt' }))).code).toBe(201);
    const relabel = await request(cc, 'PATCH', `${MCS}/admins`, { metadata: { labels: { region: 'eu' } } }, { token: 'carol-token', contentType: 'application/merge-patch+json' });
    expect(relabel.code).toBe(200);
    const repoint = await request(cc, 'PATCH', `${MCS}/mine`, { spec: { kubeconfigSecretRef: { namespace: 'team-b', name: 'bob-mgmt' } } }, { token: 'carol-token', contentType: 'application/merge-patch+json' });
    expect(repoint.code).toBe(403);
  });
});
