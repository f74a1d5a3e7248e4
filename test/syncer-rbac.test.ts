/**
 * The syncer with exactly the rights the shipped manifests grant it: an embedded management
 * cluster (`hcc management-cluster`) enforces deploy/syncer/rbac.yaml (`--authorization-policy`)
 * for the syncer's service-account identity (`--token-file`), and a real `hcc syncer` runs as that
 * identity through a whole lifecycle — placement, copy, spec change, local drift, status back up,
 * deletion and the namespace clean-up. Every call it makes must be allowed: a verb missing from
 * the ClusterRole shows up as a 403 in the management cluster's metrics and as work never done.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { hccBin, kubectl, repoRoot, tempDir, waitFor } from './helpers/tools.js';
import { startControlCenterProcess, startHcc, startRestrictedManagementCluster, startSchedulerProcess, stopProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { nodePool, noneHostedCluster, pullSecret } from './helpers/manifests.js';

const SyncerUser = 'system:serviceaccount:hcc-system:hcc-syncer';

describe('syncer under the RBAC of deploy/syncer/rbac.yaml', () => {
  const t = tempDir('hcc-rbac-');
  let cc: ControlCenterProcess;
  let scheduler: SchedulerProcess;
  let mgmt: { proc: ChildProcess; output: () => string };
  let syncer: { proc: ChildProcess; output: () => string };
  const mgmtAdmin = path.join(t.dir, 'mgmt-admin.kubeconfig');
  const mgmtSyncer = path.join(t.dir, 'mgmt-syncer.kubeconfig');
  const ccSyncer = path.join(t.dir, 'cc-syncer.kubeconfig');
  const ccSyncerToken = 'cc-syncer-token-0123456789';
  /** The first Event of `reason` on the control center's object `name` in the test namespace, once there is one (30 s at most). */
  const eventFor = (reason: string, name: string) =>
    waitFor(`the ${reason} Event on ${name}`, async () => {
      const r = await k(['get', 'events', '-n', ns, '--field-selector', `reason=${reason},involvedObject.name=${name}`, '-o', 'json']);
      return r.code === 0 && JSON.parse(r.stdout).items[0];
    }, 30_000);
  /** The control center's 403s (apiserver_request_total lines with code 403). */
  const forbiddenInControlCenter = async () => {
    const r = await k(['get', '--raw', '/metrics']);
    return r.stdout.split('\n').filter((l) => l.startsWith('apiserver_request_total') && l.includes('code="403"') && !l.endsWith(' 0'));
  };
  const ns = 'rbac';
  const k = (args: string[], input?: string) => kubectl('1.35', cc.kubeconfig, args, { input });
  const mk = (args: string[], input?: string) => kubectl('1.35', mgmtAdmin, args, { input });
  const forbidden = async () => {
    const r = await mk(['get', '--raw', '/metrics']);
    return r.stdout.split('\n').filter((l) => l.startsWith('apiserver_request_total') && l.includes('code="403"') && !l.endsWith(' 0'));
  };

  beforeAll(async () => {
    const token = 'syncer-token-0123456789';
    const tokenFile = path.join(t.dir, 'tokens.csv');
    writeFileSync(tokenFile, `${token},${SyncerUser},uid-syncer,"system:serviceaccounts"\n`);
    // The control center enforces the shipped syncer policy too, for the syncer's own token user
    // (hcc:syncer:m1 in hcc:syncers, so also restricted to what is placed on m1): the admin and
    // the scheduler keep their rights, so placement still works.
    const ccTokens = path.join(t.dir, 'cc-tokens.csv');
    writeFileSync(ccTokens, `${ccSyncerToken},hcc:syncer:m1,uid-cc-syncer,"hcc:syncers"\n`);
    cc = await startControlCenterProcess({ extraArgs: ['--authorization-policy', path.join(repoRoot, 'deploy', 'control-center', 'syncer-policy.yaml'), '--token-file', ccTokens] });
    // The syncer's control-center kubeconfig, made as the README says (Deploying a syncer): a copy
    // of the admin one with the server address and the syncer's token set by kubectl config.
    copyFileSync(cc.kubeconfig, ccSyncer);
    const kc1 = (args: string[]) => kubectl('1.35', ccSyncer, args);
    const cluster = (await kc1(['config', 'view', '-o', 'jsonpath={.contexts[0].context.cluster}'])).stdout;
    const user = (await kc1(['config', 'view', '-o', 'jsonpath={.contexts[0].context.user}'])).stdout;
    const server = parse(readFileSync(cc.kubeconfig, 'utf8')).clusters[0].cluster.server as string;
    for (const args of [['config', 'set-cluster', cluster, '--server', server], ['config', 'set-credentials', user, '--token', ccSyncerToken]]) {
      const r = await kc1(args);
      expect(r.code, r.stderr).toBe(0);
    }
    const who = await kc1(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(who.stdout).toBe('hcc:syncer:m1');
    mgmt = await startHcc(
      ['management-cluster', '--name', 'm1', '--data-dir', path.join(t.dir, 'm1'), '--kubeconfig', mgmtAdmin, '--available-delay', '300', '--delete-delay', '200',
        '--token-file', tokenFile, '--authorization-policy', path.join(repoRoot, 'deploy', 'syncer', 'rbac.yaml')],
      /"msg":"management cluster ready"/,
    );
    // The syncer's kubeconfig: the admin one with the service account's token.
    const kc = parse(readFileSync(mgmtAdmin, 'utf8'));
    kc.users[0].user = { token };
    writeFileSync(mgmtSyncer, stringify(kc));
    scheduler = await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig });
    syncer = await startHcc(['syncer', '--name', 'm1', '--kubeconfig', ccSyncer, '--management-kubeconfig', mgmtSyncer, '--capacity', '5', '--heartbeat-interval', '1'], /"msg":"syncer ready"/);
  }, 120_000);

  afterAll(async () => {
    for (const p of [syncer?.proc, mgmt?.proc]) if (p) await stopProcess(p);
    await scheduler?.stop();
    await cc?.stop();
    t.cleanup();
  });

  it('enforces the policy: the syncer identity may not do what the ClusterRole does not grant', async () => {
    const r = await kubectl('1.35', mgmtSyncer, ['get', 'namespace', 'default']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`User "${SyncerUser}" cannot get resource "namespaces"`);
    expect((await kubectl('1.35', mgmtSyncer, ['get', 'hostedclusters', '-A'])).code).toBe(0);
    // In the control center, its own user is not the admin: it may patch and read, never create HostedClusters or bind them.
    const can = async (args: string[]) => (await kubectl('1.35', ccSyncer, ['auth', 'can-i', ...args])).stdout.trim();
    expect(await can(['patch', 'hostedclusters.hypershift.openshift.io', '-n', 'any'])).toBe('yes');
    expect(await can(['update', 'hostedclusters.hypershift.openshift.io', '--subresource=status', '-n', 'any'])).toBe('yes');
    expect(await can(['create', 'hostedclusters.hypershift.openshift.io', '-n', 'any'])).toBe('no - the syncer of management cluster "m1" may not create HostedClusters');
    expect(await can(['create', 'hostedclusters.hypershift.openshift.io', '--subresource=binding', '-n', 'any'])).toBe('no');
    expect(await can(['delete', 'secrets', '-n', 'any'])).toBe('no - the syncer of management cluster "m1" may not delete Secrets');
    // As the syncer of m1 it reads only the Secrets of what is placed on m1, by their label.
    expect(await can(['list', 'secrets', '-n', 'any'])).toBe('no - the syncer of management cluster "m1" may only list and watch Secrets with the label selector state.controlcenter.hcc.dev/m1=Sync (or controlcenter.hcc.dev/upsynced-from=m1, its copies of status Secrets)');
    expect(await can(['get', 'secrets/any', '-n', 'any'])).toBe('no - the syncer of management cluster "m1" may only read Secrets that HostedClusters placed on it reference');
  });

  it('answers kubectl auth can-i and auth whoami for the syncer identity (kubectl 1.35 and 1.20)', async () => {
    for (const v of ['1.35', '1.20'] as const) {
      const can = (args: string[]) => kubectl(v, mgmtSyncer, ['auth', 'can-i', ...args]);
      const yes = await can(['patch', 'hostedclusters.hypershift.openshift.io', '-n', 'any']);
      expect([yes.code, yes.stdout.trim()], `${v} ${yes.stderr}`).toEqual([0, 'yes']);
      const no = await can(['update', 'hostedclusters.hypershift.openshift.io', '-n', 'any']);
      expect([no.code, no.stdout.trim()], `${v} ${no.stderr}`).toEqual([1, 'no']);
      expect((await can(['delete', 'namespaces'])).stdout.trim()).toBe('yes');
      expect((await can(['get', 'namespaces'])).stdout.trim()).toBe('no');
      // The admin may do everything.
      expect((await kubectl(v, mgmtAdmin, ['auth', 'can-i', 'update', 'hostedclusters.hypershift.openshift.io', '-n', 'any'])).stdout.trim()).toBe('yes');
    }
    const who = await kubectl('1.35', mgmtSyncer, ['auth', 'whoami', '-o', 'json']);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout).status.userInfo).toEqual({ username: SyncerUser, uid: 'uid-syncer', groups: ['system:serviceaccounts', 'system:authenticated'] });
  });

  it('runs a HostedCluster through its whole lifecycle without a single forbidden call', async () => {
    const before = await forbidden(); // the previous test's own probe
    expect((await k(['create', 'namespace', ns])).code).toBe(0);
    const cm = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: np-config, namespace: ${ns}}\ndata: {config: a}\n`;
    const apply = await k(['apply', '-f', '-'], [pullSecret('ex', ns), cm, noneHostedCluster('ex', ns), nodePool('ex-np', 'ex', ns, '4.16.12', '  config: [{name: np-config}]\n')].join('---\n'));
    expect(apply.code, apply.stderr).toBe(0);

    // Copies arrive, status comes back.
    await waitFor('HostedCluster, NodePool, Secret and ConfigMap downstream', async () => {
      const r = await mk(['get', 'hc/ex', 'np/ex-np', 'secret/ex-pull-secret', 'configmap/np-config', '-n', ns, '-o', 'name']);
      return r.code === 0 && r.stdout.trim().split('\n').length === 4;
    }, 30_000);
    const w = await k(['wait', '--for=condition=Available', 'hc/ex', '-n', ns, '--timeout=30s']);
    expect(w.code, w.stderr).toBe(0);
    await waitFor('clusterID adopted upstream', async () => JSON.parse((await k(['get', 'hc/ex', '-n', ns, '-o', 'json'])).stdout).spec.clusterID, 20_000);

    // Its kubeconfig Secret, deleted or edited in the control center, is copied up again at once
    // (not at the 5-minute re-check), as HyperShift's operator restores the Secret it owns.
    const kubeconfigData = async () => {
      const r = await k(['get', 'secret/ex-admin-kubeconfig', '-n', ns, '-o', 'json', '--ignore-not-found']);
      return r.stdout.trim() ? (JSON.parse(r.stdout).data as Record<string, string>) : undefined;
    };
    await waitFor('the kubeconfig Secret copied up', async () => (await kubeconfigData()) !== undefined, 20_000);
    const original = await kubeconfigData();
    expect((await k(['delete', 'secret/ex-admin-kubeconfig', '-n', ns])).code).toBe(0);
    await waitFor('the kubeconfig Secret copied up again after its delete', async () => JSON.stringify(await kubeconfigData()) === JSON.stringify(original), 20_000);
    expect((await k(['patch', 'secret/ex-admin-kubeconfig', '-n', ns, '--type=merge', '-p', '{"data":{"kubeconfig":"dGFtcGVyZWQ="}}'])).code).toBe(0);
    await waitFor('the kubeconfig Secret set back after an edit', async () => JSON.stringify(await kubeconfigData()) === JSON.stringify(original), 20_000);
    // Its ownerReference removed (which would leave it behind when the HostedCluster goes): put back too.
    expect((await k(['patch', 'secret/ex-admin-kubeconfig', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/ownerReferences"}]'])).code).toBe(0);
    await waitFor('the kubeconfig Secret owned by its HostedCluster again', async () => {
      const r = await k(['get', 'secret/ex-admin-kubeconfig', '-n', ns, '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}']);
      return r.stdout === 'HostedCluster/ex';
    }, 20_000);

    // A spec change upstream and a local drift downstream both end up as the upstream spec.
    expect((await k(['patch', 'np/ex-np', '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":3}}'])).code).toBe(0);
    await waitFor('the new replicas downstream', async () => JSON.parse((await mk(['get', 'np/ex-np', '-n', ns, '-o', 'json'])).stdout).spec.replicas === 3, 20_000);
    const drift = await mk(['patch', 'hc/ex', '-n', ns, '--type=merge', '-p', '{"spec":{"channel":"drifted","release":{"image":"quay.io/example/drifted:1"}}}']);
    expect(drift.code, drift.stderr).toBe(0);
    await waitFor('the drift corrected (a field upstream lacks removed, a changed one set back)', async () => {
      const spec = JSON.parse((await mk(['get', 'hc/ex', '-n', ns, '-o', 'json'])).stdout).spec;
      return spec.channel === undefined && spec.release.image.includes('ocp-release:4.16.12');
    }, 20_000);

    // A copy someone made immutable downstream is replaced when the control center's content changes.
    expect((await mk(['patch', 'configmap/np-config', '-n', ns, '--type=merge', '-p', '{"immutable":true}'])).code).toBe(0);
    expect((await k(['patch', 'configmap/np-config', '-n', ns, '--type=merge', '-p', '{"data":{"config":"b"}}'])).code).toBe(0);
    await waitFor('the immutable copy replaced with the new content', async () => {
      const r = await mk(['get', 'configmap/np-config', '-n', ns, '-o', 'json']);
      return r.code === 0 && JSON.parse(r.stdout).data.config === 'b';
    }, 20_000);

    // Annotations the control center takes reach the copy: 2,500 keys of 60 characters (150 KB;
    // hcc's own record of the keys it synced is packed to fit the 256 KiB limit).
    const manyKeys = Object.fromEntries(Array.from({ length: 2500 }, (_, i) => [`k${String(i).padStart(4, '0')}-${'x'.repeat(54)}`, '']));
    const manyFile = path.join(t.dir, 'many-annotations.json');
    writeFileSync(manyFile, JSON.stringify({ metadata: { annotations: manyKeys } }));
    expect((await k(['patch', 'configmap/np-config', '-n', ns, '--type=merge', '--patch-file', manyFile])).code).toBe(0);
    await waitFor('2,500 annotations on the ConfigMap copy', async () => {
      const r = await mk(['get', 'configmap/np-config', '-n', ns, '-o', 'json']);
      return r.code === 0 && Object.keys(JSON.parse(r.stdout).metadata.annotations).filter((a) => /^k\d{4}-/.test(a)).length === 2500;
    }, 30_000);
    // One annotation that leaves the pull secret no room for hcc's own: the management cluster
    // refuses the copy's change, and the live copy stays as it was (never deleted from under the
    // control planes using it); a CopyFailed Event says why.
    const fullFile = path.join(t.dir, 'full-annotations.json');
    const psUp = JSON.parse((await k(['get', 'secret/ex-pull-secret', '-n', ns, '-o', 'json'])).stdout);
    const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration'; // stays upstream: its room is not the copy's
    const others = Object.entries((psUp.metadata.annotations ?? {}) as Record<string, string>).filter(([a]) => a !== lastApplied).reduce((n, [a, v]) => n + a.length + v.length, 0);
    writeFileSync(fullFile, JSON.stringify({ metadata: { annotations: { [lastApplied]: null, big: 'a'.repeat(262_144 - others - 'big'.length) } }, data: { extra: 'enp6' } }));
    expect((await k(['patch', 'secret/ex-pull-secret', '-n', ns, '--type=merge', '--patch-file', fullFile])).code).toBe(0);
    const copyFailed = await eventFor('CopyFailed', 'ex-pull-secret');
    expect(copyFailed.message).toContain('262144');
    expect(copyFailed.message).toContain("the copy carries hcc's annotations");
    const stale = await mk(['get', 'secret/ex-pull-secret', '-n', ns, '-o', 'json']);
    expect(stale.code, stale.stderr).toBe(0);
    expect(JSON.parse(stale.stdout).data).not.toHaveProperty('extra');
    expect((await k(['patch', 'secret/ex-pull-secret', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/annotations/big"}]'])).code).toBe(0);
    await waitFor('the pull secret copy caught up once the annotation is gone', async () => {
      const r = await mk(['get', 'secret/ex-pull-secret', '-n', ns, '-o', 'json']);
      return r.code === 0 && JSON.parse(r.stdout).data.extra === 'enp6';
    }, 60_000);

    // A Secret hcc did not create, of another type, holds a referenced name downstream: even with
    // that cluster's consent to a take-over it cannot become the copy in place, so it is left
    // alone and a Warning Event on the control center's Secret says why.
    expect((await mk(['create', 'secret', 'generic', 'audit', '-n', ns, '--type=example.com/foreign', '--from-literal=x=y'])).code).toBe(0);
    expect((await mk(['annotate', 'secret', 'audit', '-n', ns, 'controlcenter.hcc.dev/adoptable=true'])).code).toBe(0);
    expect((await k(['create', 'secret', 'generic', 'audit', '-n', ns, '--from-literal=webhook-kubeconfig=abc'])).code).toBe(0);
    expect((await k(['patch', 'hc/ex', '-n', ns, '--type=merge', '-p', '{"spec":{"auditWebhook":{"name":"audit"}}}'])).code).toBe(0);
    const event = await eventFor('CopyBlocked', 'audit');
    expect(event.type).toBe('Warning');
    expect(event.message).toContain('management cluster m1 has a Secret rbac/audit that hcc did not create');
    expect(JSON.parse((await mk(['get', 'secret', 'audit', '-n', ns, '-o', 'json'])).stdout).type).toBe('example.com/foreign');
    expect((await k(['patch', 'hc/ex', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/spec/auditWebhook"}]'])).code).toBe(0);
    expect((await k(['delete', 'secret', 'audit', '-n', ns])).code).toBe(0);

    // Deletion: the copies go, then the namespace hcc created downstream.
    expect((await k(['delete', 'hc/ex', '-n', ns, '--wait=true', '--timeout=60s'])).code).toBe(0);
    await waitFor('the copies gone', async () => (await mk(['get', 'hc,np', '-n', ns, '-o', 'name'])).stdout.trim() === '', 30_000);
    expect((await k(['delete', 'secret/ex-pull-secret', 'configmap/np-config', '-n', ns])).code).toBe(0);
    // Anything someone else put there keeps the namespace (deleting it would delete theirs): here
    // a Lease, a kind the syncer never copies (every namespaced kind is listed, read-only, under
    // the ClusterRole's list rule); once it is gone the namespace is cleaned up.
    await waitFor('the copies gone', async () => (await mk(['get', 'secret,configmap', '-n', ns, '-l', 'controlcenter.hcc.dev/synced-by', '-o', 'name'])).stdout.trim() === '', 30_000);
    // The Lease first, then their Secret goes: the namespace never looks empty to a sweep in between.
    const lease = await mk(['create', '-f', '-'], `apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: theirs, namespace: ${ns}}\nspec: {holderIdentity: someone}\n`);
    expect(lease.code, lease.stderr).toBe(0);
    const logged = syncer.output().length;
    expect((await mk(['delete', 'secret/audit', '-n', ns])).code).toBe(0); // their Secret would keep it too
    // A sweep (every 5 s here) keeps the namespace for the Lease, and says so at info.
    await waitFor('a sweep to keep the namespace for the Lease', () => syncer.output().slice(logged).includes('"object":"Lease/theirs","msg":"kept a namespace hcc created: something else lives there"'), 20_000);
    expect((await mk(['get', 'lease', 'theirs', '-n', ns, '-o', 'name'])).stdout.trim()).toBe('lease.coordination.k8s.io/theirs');
    expect((await mk(['delete', 'lease/theirs', '-n', ns])).code).toBe(0);
    await waitFor('the namespace cleaned up downstream', async () => (await mk(['get', 'namespace', ns, '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 45_000);

    expect(await forbidden()).toEqual(before);
    // Nor one in the control center, where it runs as its own user under deploy/control-center/syncer-policy.yaml.
    expect(await forbiddenInControlCenter()).toEqual([]);
    expect(syncer.output()).not.toMatch(/"level":50/);
  }, 180_000);

  it('keeps the syncer of m1 to what is placed on m1 (kubectl as its identity)', async () => {
    const as = (args: string[], input?: string) => kubectl('1.35', ccSyncer, args, { input });
    expect((await k(['create', '-f', '-'], 'apiVersion: controlcenter.hcc.dev/v1alpha1\nkind: ManagementCluster\nmetadata: {name: m2}\nspec: {}\n')).code).toBe(0);
    const other = await as(['label', 'managementcluster', 'm2', 'stolen=yes']);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain(
      'managementclusters.controlcenter.hcc.dev "m2" is forbidden: User "hcc:syncer:m1" cannot patch resource "managementclusters" in API group "controlcenter.hcc.dev" at the cluster scope: the syncer of management cluster "m1" may only register and update its own ManagementCluster',
    );
    // `kubectl auth can-i` answers the same.
    const canI = await as(['auth', 'can-i', 'patch', 'managementclusters.controlcenter.hcc.dev/m2']);
    expect(canI.stdout.trim()).toBe('no - the syncer of management cluster "m1" may only register and update its own ManagementCluster');
    expect((await as(['auth', 'can-i', 'create', 'hostedclusters.hypershift.openshift.io', '-n', 'default'])).stdout.trim()).toBe('no - the syncer of management cluster "m1" may not create HostedClusters');
    // Its own cluster's labels and spec (capacity, taints) are the admin's: they decide what it is given.
    const ownLabel = await as(['label', 'managementcluster', 'm1', 'mine=yes']);
    expect(ownLabel.stderr).toContain('the syncer of management cluster "m1" may only write the status of its ManagementCluster');
    const list = await as(['get', 'secrets', '-A']);
    expect(list.code).not.toBe(0);
    expect(list.stderr).toContain('the syncer of management cluster "m1" may only list and watch Secrets with the label selector state.controlcenter.hcc.dev/m1=Sync');
    const own = await as(['get', 'secrets', '-A', '-l', 'state.controlcenter.hcc.dev/m1=Sync']);
    expect(own.code, own.stderr).toBe(0);
    // A HostedCluster placed nowhere (the scheduler only places on Ready clusters; m2 never is) is not m1's to patch.
    expect((await k(['apply', '-f', '-'], [pullSecret('loose', ns), noneHostedCluster('loose', ns).replace('metadata: {name: loose, namespace: rbac}', 'metadata: {name: loose, namespace: rbac, annotations: {controlcenter.hcc.dev/management-cluster-selector: nowhere=true}}')].join('---\n'))).code).toBe(0);
    const patch = await as(['annotate', 'hc/loose', '-n', ns, 'touched=yes']);
    expect(patch.code).not.toBe(0);
    expect(patch.stderr).toContain('the syncer of management cluster "m1" may only change or delete HostedClusters placed on it (this one is not placed)');
    expect((await k(['delete', 'hc/loose', 'secret/loose-pull-secret', 'managementcluster/m2', '-n', ns, '--wait=false'])).code).toBe(0);
  });

  it('under a role without the read-only list of every kind, says once (not at every heartbeat) that it cannot see presence Leases, and still serves', async () => {
    // deploy/syncer/rbac.yaml without its wildcard list rule, in another management cluster.
    const docs = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy', 'syncer', 'rbac.yaml'), 'utf8')).map((d) => d.toJS());
    const role = docs.find((d) => d.kind === 'ClusterRole');
    const before = role.rules.length;
    role.rules = role.rules.filter((r: { resources: string[] }) => !r.resources.includes('*'));
    expect(role.rules.length).toBe(before - 1);
    const m3 = await startRestrictedManagementCluster(t.dir, 'm3', { user: SyncerUser, groups: 'system:serviceaccounts', policy: docs.map((d) => stringify(d)).join('---\n') });
    const m3Syncer = m3.userKubeconfig;
    // The control center side as the admin: the shipped policy binds hcc:syncer:m1 to m1 only.
    const s2 = await startHcc(['syncer', '--name', 'm3', '--kubeconfig', cc.kubeconfig, '--management-kubeconfig', m3Syncer, '--heartbeat-interval', '1'], /"msg":"syncer ready"/);
    try {
      await new Promise((r) => setTimeout(r, 5000));
      const lines = s2.output().split('\n').filter((l) => l.includes('presence Leases of the management cluster cannot be listed'));
      const warns = lines.filter((l) => JSON.parse(l).level === 40);
      expect(warns, s2.output()).toHaveLength(1);
      expect(JSON.parse(warns[0]!).msg).toContain('lacks list on leases.coordination.k8s.io in every namespace');
      await waitFor('m3 Ready', async () => (await k(['get', 'mc', 'm3', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).stdout.trim() === 'True', 30_000);
    } finally {
      await stopProcess(s2.proc);
      await stopProcess(m3.proc);
    }
  }, 90_000);
});

describe('hcc syncer --name', () => {
  it.each([
    { name: 'q'.repeat(64), msg: 'must be no more than 63 characters' },
    { name: 'Bad_Name', msg: 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters' },
  ])('refuses $name before connecting anywhere', ({ name, msg }) => {
    const r = spawnSync(process.execPath, [hccBin, 'syncer', '--name', name], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`option '--name <name>' argument '${name}' is invalid. ${msg}`);
  });
});
