/**
 * The syncer end to end: what reaches a management cluster and what comes back — Secret
 * rotation (also by a whole replace) and deletion, a foreign HostedCluster of the same name left alone, NodePool spec changes (replicas, upgradeType, config references),
 * drift correction, fields an older CRD in the management cluster drops, the CRD puller, a second syncer under the same name, one cluster
 * under two names. Push mode and a syncer resumed after a pause: syncer-push.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, waitFor } from './helpers/tools.js';
import { spawnHcc, startHccUp, stopProcess, type HccUp } from './helpers/processes.js';
import { nodePool, noneHostedCluster, pullSecret } from './helpers/manifests.js';

const Label = 'controlcenter.hcc.dev/management-cluster';
const Selector = 'controlcenter.hcc.dev/management-cluster-selector';

const hostedCluster = (name: string, ns: string) => noneHostedCluster(name, ns);

describe('syncer: pull mode details', () => {
  let hcc: HccUp;
  let owner = '';
  const ns = 'sync';
  const k = (args: string[], input?: string) => kubectl('1.35', hcc.kubeconfig, args, { input });
  const mk = (args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig(owner), args, { input });
  const downJSON = async (args: string[]) => JSON.parse((await mk([...args, '-o', 'json'])).stdout);

  beforeAll(async () => {
    hcc = await startHccUp(['--management-clusters', '2', '--capacity', '10', '--pull-crds']);
    expect((await k(['create', 'namespace', ns])).code).toBe(0);
    expect((await k(['create', 'secret', 'generic', 'ex-pull-secret', '-n', ns, '--from-literal=.dockerconfigjson={"v":1}'])).code).toBe(0);
    expect((await k(['create', 'configmap', 'mc-a', '-n', ns, '--from-literal=config=a'])).code).toBe(0);
    expect((await k(['create', 'configmap', 'mc-b', '-n', ns, '--from-literal=config=b'])).code).toBe(0);
    const np = `---\n${nodePool('ex-workers', 'ex', ns, '4.16.12', '  config: [{name: mc-a}]\n')}`;
    const r = await k(['apply', '-f', '-'], hostedCluster('ex', ns) + np);
    expect(r.code, r.stderr).toBe(0);
    owner = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 'ex', '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    await waitFor('the copy', async () => (await mk(['get', 'hc', 'ex', '-n', ns])).code === 0, 20_000);
  });
  afterAll(async () => {
    await hcc?.stop();
  });

  it('rotates a referenced Secret into the management cluster', async () => {
    const yaml = (await k(['create', 'secret', 'generic', 'ex-pull-secret', '-n', ns, '--from-literal=.dockerconfigjson={"v":2}', '--dry-run=client', '-o', 'yaml'])).stdout;
    expect((await k(['apply', '-f', '-'], yaml)).code).toBe(0);
    await waitFor('the rotated value downstream', async () => {
      const s = await downJSON(['get', 'secret', 'ex-pull-secret', '-n', ns]);
      return Buffer.from(s.data['.dockerconfigjson'], 'base64').toString() === '{"v":2}';
    }, 20_000);
  });

  it('keeps the copy when the referenced Secret is replaced whole (kubectl replace drops hcc\'s state label until the scheduler puts it back)', async () => {
    const uid = (await downJSON(['get', 'secret', 'ex-pull-secret', '-n', ns])).metadata.uid;
    const yaml = (await k(['create', 'secret', 'generic', 'ex-pull-secret', '-n', ns, '--from-literal=.dockerconfigjson={"v":3}', '--dry-run=client', '-o', 'yaml'])).stdout;
    const r = await k(['replace', '-f', '-'], yaml);
    expect(r.code, r.stderr).toBe(0);
    await waitFor('the replaced value downstream', async () => {
      const s = await downJSON(['get', 'secret', 'ex-pull-secret', '-n', ns]);
      return Buffer.from(s.data['.dockerconfigjson'], 'base64').toString() === '{"v":3}';
    }, 20_000);
    // The same object all along: never deleted and created again under the operator.
    expect((await downJSON(['get', 'secret', 'ex-pull-secret', '-n', ns])).metadata.uid).toBe(uid);
  });

  it('never takes over or deletes a HostedCluster of the same name that hcc did not create', async () => {
    const theirs = noneHostedCluster('theirs', ns, '4.15.1');
    for (const mc of ['mgmt-1', 'mgmt-2']) {
      const mkc = (args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig(mc), args, { input });
      await mkc(['create', 'namespace', ns]);
      const c = await mkc(['create', '-f', '-'], theirs);
      expect(c.code, c.stderr).toBe(0);
      expect((await mkc(['create', 'secret', 'generic', 'theirs-pull-secret', '-n', ns, '--from-literal=.dockerconfigjson=FOREIGN'])).code).toBe(0);
      // Their NodePool too: the same manifest applied there by hand.
      const np = await mkc(['create', '-f', '-'], nodePool('theirs-np', 'theirs', ns, '4.15.1'));
      expect(np.code, np.stderr).toBe(0);
    }
    // Theirs has a pull secret of the same name; ours comes with a NodePool. Neither may reach
    // their cluster: the NodePool would point at their HostedCluster, the Secret would replace theirs.
    const r = await k(['apply', '-f', '-'], `${noneHostedCluster('theirs', ns)}---\n${pullSecret('theirs', ns)}---\n${nodePool('theirs-np', 'theirs', ns, '4.16.12')}`);
    expect(r.code, r.stderr).toBe(0);
    const placedOn = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 'theirs', '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    const event = await waitFor('the CopyBlocked Event', async () => {
      const evs = JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=CopyBlocked,involvedObject.name=theirs', '-o', 'json'])).stdout).items;
      return evs[0];
    }, 20_000);
    expect(event.message).toContain(`management cluster ${placedOn} already has a HostedCluster ${ns}/theirs that hcc did not create`);
    const mkc = (args: string[]) => kubectl('1.35', hcc.mgmtKubeconfig(placedOn), args);
    const down = JSON.parse((await mkc(['get', 'hc', 'theirs', '-n', ns, '-o', 'json'])).stdout);
    expect(down.spec.release.image).toContain('4.15.1');
    expect(down.metadata.labels?.['controlcenter.hcc.dev/synced-by']).toBeUndefined();
    await waitFor('the NodePool\'s CopyBlocked Event', async () =>
      JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=CopyBlocked,involvedObject.name=theirs-np', '-o', 'json'])).stdout).items[0], 20_000);
    // Their NodePool is left as it was: not relabelled, not changed.
    const theirNP = JSON.parse((await mkc(['get', 'np', 'theirs-np', '-n', ns, '-o', 'json'])).stdout);
    expect(theirNP.metadata.labels?.['controlcenter.hcc.dev/synced-by']).toBeUndefined();
    expect(theirNP.spec.release.image).toContain('4.15.1');
    // With no copy there, no operator reports on either: the control center says so where
    // `kubectl get` and `kubectl wait` look, instead of showing an empty status.
    const condition = async (kind: string, name: string, type: string) =>
      (JSON.parse((await k(['get', kind, name, '-n', ns, '-o', 'json'])).stdout).status?.conditions ?? []).find((c: { type: string }) => c.type === type);
    const available = await waitFor('Available=Unknown, CopyBlocked', async () => ((await condition('hc', 'theirs', 'Available'))?.reason === 'CopyBlocked' ? condition('hc', 'theirs', 'Available') : undefined), 20_000);
    expect(available.status).toBe('Unknown');
    expect(available.message).toContain(`management cluster ${placedOn} has no copy: it already has a HostedCluster ${ns}/theirs that hcc did not create`);
    const ready = await waitFor('NodePool Ready=Unknown, CopyBlocked', async () => ((await condition('np', 'theirs-np', 'Ready'))?.reason === 'CopyBlocked' ? condition('np', 'theirs-np', 'Ready') : undefined), 20_000);
    expect(ready.status).toBe('Unknown');
    expect(ready.message).toContain(`management cluster ${placedOn} has no copy`);
    const pull = JSON.parse((await mkc(['get', 'secret', 'theirs-pull-secret', '-n', ns, '-o', 'json'])).stdout);
    expect(Buffer.from(pull.data['.dockerconfigjson'], 'base64').toString()).toBe('FOREIGN');
    expect(pull.metadata.labels?.['controlcenter.hcc.dev/synced-by']).toBeUndefined();
    // Deleting the control center's object leaves theirs alone.
    expect((await k(['delete', 'hc', 'theirs', '-n', ns, '--timeout=30s'])).code).toBe(0);
    const still = JSON.parse((await mkc(['get', 'hc', 'theirs', '-n', ns, '-o', 'json'])).stdout);
    expect(still.metadata.uid).toBe(down.metadata.uid);
    expect(still.metadata.deletionTimestamp).toBeUndefined();
    expect(still.spec.release.image).toContain('4.15.1');
    const pullAfter = JSON.parse((await mkc(['get', 'secret', 'theirs-pull-secret', '-n', ns, '-o', 'json'])).stdout);
    expect(Buffer.from(pullAfter.data['.dockerconfigjson'], 'base64').toString()).toBe('FOREIGN');
  });

  it('never gives the copy of an earlier HostedCluster of the same name (deleted while its syncer was away) to a new one', async () => {
    // The syncers are away (stopped), and what an earlier "reborn", deleted meanwhile, left in both
    // clusters is hcc's copy (synced-by, its upstream uid), with the clusterID its operator generated.
    const pids = JSON.parse(readFileSync(path.join(hcc.stateDir, 'processes.json'), 'utf8')) as Record<string, number>;
    const syncers = ['syncer-mgmt-1', 'syncer-mgmt-2'].map((p) => pids[p]!);
    for (const pid of syncers) process.kill(pid, 'SIGSTOP');
    const resume = () => syncers.forEach((pid) => process.kill(pid, 'SIGCONT'));
    try {
      await createEarlierCopiesAndTheNewOne();
    } finally {
      resume();
    }
    await checkTheEarlierCopiesStay();
  });

  const createEarlierCopiesAndTheNewOne = async () => {
    for (const mc of ['mgmt-1', 'mgmt-2']) {
      const mkc = (args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig(mc), args, { input });
      await mkc(['create', 'namespace', ns]);
      const old = YAML.parse(noneHostedCluster('reborn', ns, '4.15.1'));
      old.metadata.labels = { 'controlcenter.hcc.dev/synced-by': mc };
      old.metadata.annotations = { 'controlcenter.hcc.dev/upstream-uid': 'uid-of-the-deleted-one' };
      old.spec.clusterID = `0ld00000-0000-4000-8000-00000000000${mc.slice(-1)}`.replace('0ld', '01d');
      const c = await mkc(['create', '-f', '-'], JSON.stringify(old));
      expect(c.code, c.stderr).toBe(0);
    }
    const r = await k(['apply', '-f', '-'], noneHostedCluster('reborn', ns));
    expect(r.code, r.stderr).toBe(0);
    await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 'reborn', '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
  };

  const checkTheEarlierCopiesStay = async () => {
    const placedOn = JSON.parse((await k(['get', 'hc', 'reborn', '-n', ns, '-o', 'json'])).stdout).metadata.labels[Label] as string;
    const event = await waitFor('the CopyBlocked Event', async () =>
      JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=CopyBlocked,involvedObject.name=reborn', '-o', 'json'])).stdout).items[0], 20_000);
    expect(event.message).toContain(`management cluster ${placedOn} has a copy of an earlier HostedCluster ${ns}/reborn (upstream uid uid-of-the-deleted-one, clusterID 01d00000-0000-4000-8000-00000000000${placedOn.slice(-1)})`);
    const mkc = (args: string[]) => kubectl('1.35', hcc.mgmtKubeconfig(placedOn), args);
    const down = JSON.parse((await mkc(['get', 'hc', 'reborn', '-n', ns, '-o', 'json'])).stdout);
    expect([down.spec.release.image, down.metadata.annotations['controlcenter.hcc.dev/upstream-uid']]).toEqual([expect.stringContaining('4.15.1'), 'uid-of-the-deleted-one']);
    const up = JSON.parse((await k(['get', 'hc', 'reborn', '-n', ns, '-o', 'json'])).stdout);
    expect(up.spec.clusterID ?? '').toBe(''); // not the old cluster's identity
    // Deleting the new one leaves the old copy where it is.
    expect((await k(['delete', 'hc', 'reborn', '-n', ns, '--timeout=30s'])).code).toBe(0);
    expect(JSON.parse((await mkc(['get', 'hc', 'reborn', '-n', ns, '-o', 'json'])).stdout).metadata.uid).toBe(down.metadata.uid);
  };

  it("never writes into HyperShift's or the system's namespaces, nor over a Secret something in the management cluster owns", async () => {
    // The operator's supported-versions ConfigMap, named by a HostedCluster in the control center's "hypershift" namespace.
    expect((await k(['create', 'namespace', 'hypershift'])).code).toBe(0);
    expect((await k(['create', 'configmap', 'supported-versions', '-n', 'hypershift', '--from-literal=supported-versions={"versions":["4.99"]}'])).code).toBe(0);
    const inOperatorNs = YAML.parse(noneHostedCluster('evil', 'hypershift'));
    inOperatorNs.spec.additionalTrustBundle = { name: 'supported-versions' };
    expect((await k(['apply', '-f', '-'], JSON.stringify(inOperatorNs))).code).toBe(0);
    // The scheduler places it nowhere (its ControlPlaneNamespace filter knows the reserved namespaces)...
    await waitFor('the scheduler to refuse it', async () =>
      JSON.stringify(JSON.parse((await k(['get', 'hc', 'evil', '-n', 'hypershift', '-o', 'json'])).stdout).status ?? {}).includes('namespace hypershift is reserved on every management cluster'), 20_000);
    // ...and a placement made anyway (here with the scheduler's own identity) meets the syncer's refusal.
    const asScheduler = (args: string[]) => kubectl('1.35', path.join(hcc.stateDir, 'scheduler.kubeconfig'), args);
    const bound = await asScheduler(['label', 'hc', 'evil', '-n', 'hypershift', `${Label}=mgmt-1`]);
    expect(bound.code, bound.stderr).toBe(0);
    const placedOn = 'mgmt-1';
    const blocked = await waitFor('the CopyBlocked Event', async () =>
      JSON.parse((await k(['get', 'events', '-n', 'hypershift', '--field-selector', 'reason=CopyBlocked,involvedObject.name=evil', '-o', 'json'])).stdout).items[0], 20_000);
    expect(blocked.message).toContain('namespace hypershift is one hcc never writes into');
    const mkc = (args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig(placedOn), args, { input });
    const versions = JSON.parse((await mkc(['get', 'configmap', 'supported-versions', '-n', 'hypershift', '-o', 'json'])).stdout);
    expect(versions.data['supported-versions']).not.toContain('4.99');
    expect((await mkc(['get', 'hc', 'evil', '-n', 'hypershift'])).code).not.toBe(0);
    expect((await k(['delete', 'namespace', 'hypershift', '--timeout=60s'])).code).toBe(0);

    // A Secret a control plane owns there (ownerReferences), in both clusters, named by a HostedCluster placed on one.
    for (const mc of ['mgmt-1', 'mgmt-2']) {
      const m = (args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig(mc), args, { input });
      await m(['create', 'namespace', ns]);
      const owner = JSON.parse((await m(['create', 'configmap', 'hcp-owner', '-n', ns, '-o', 'json'])).stdout);
      const owned = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'owned-ca', namespace: ns, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'hcp-owner', uid: owner.metadata.uid }] }, stringData: { 'id_rsa.pub': 'THEIRS' } };
      expect((await m(['create', '-f', '-'], JSON.stringify(owned))).code).toBe(0);
    }
    expect((await k(['create', 'secret', 'generic', 'owned-ca', '-n', ns, '--from-literal=id_rsa.pub=OURS'])).code).toBe(0);
    const user = YAML.parse(noneHostedCluster('uses-owned', ns));
    user.spec.sshKey = { name: 'owned-ca' };
    const applied = await k(['apply', '-f', '-'], JSON.stringify(user));
    expect(applied.code, applied.stderr).toBe(0);
    const usedOn = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 'uses-owned', '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    const ownedEvent = await waitFor('the CopyBlocked Event on the Secret', async () =>
      JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=CopyBlocked,involvedObject.name=owned-ca', '-o', 'json'])).stdout).items[0], 30_000);
    expect(ownedEvent.message).toContain(`Secret ${ns}/owned-ca that hcc did not create and that ConfigMap hcp-owner owns there`);
    const theirs = JSON.parse((await kubectl('1.35', hcc.mgmtKubeconfig(usedOn), ['get', 'secret', 'owned-ca', '-n', ns, '-o', 'json'])).stdout);
    expect(Buffer.from(theirs.data['id_rsa.pub'], 'base64').toString()).toBe('THEIRS');
    // The HostedCluster is told its copy runs with that cluster's Secret, not the control center's.
    const told = await waitFor('the DependencyNotCopied Event on the HostedCluster', async () =>
      JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=DependencyNotCopied,involvedObject.name=uses-owned', '-o', 'json'])).stdout).items[0], 30_000);
    expect(told.message).toContain(`has a Secret ${ns}/owned-ca that hcc did not create (ConfigMap hcp-owner owns it)`);
    expect((await k(['delete', 'hc', 'uses-owned', '-n', ns, '--timeout=60s'])).code).toBe(0);
  });

  it("never takes over a Secret that a HostedCluster hcc did not create uses there, whatever that cluster's name", async () => {
    for (const mc of ['mgmt-1', 'mgmt-2']) {
      const mkc = (args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig(mc), args, { input });
      await mkc(['create', 'namespace', ns]);
      expect((await mkc(['create', 'secret', 'generic', 'localhc-pull-secret', '-n', ns, '--from-literal=.dockerconfigjson={"foreign":1}'])).code).toBe(0);
      const c = await mkc(['create', '-f', '-'], noneHostedCluster('localhc', ns, '4.15.1'));
      expect(c.code, c.stderr).toBe(0);
    }
    // Ours, named otherwise, uses a pull Secret of the same name as theirs.
    const ours = noneHostedCluster('ours', ns).replace('ours-pull-secret', 'localhc-pull-secret');
    const r = await k(['apply', '-f', '-'], `${pullSecret('localhc', ns)}---\n${ours}`);
    expect(r.code, r.stderr).toBe(0);
    const placedOn = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 'ours', '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    const event = await waitFor('the Secret\'s CopyBlocked Event', async () =>
      JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=CopyBlocked,involvedObject.name=localhc-pull-secret', '-o', 'json'])).stdout).items[0], 20_000);
    expect(event.message).toContain(`management cluster ${placedOn} already has a Secret ${ns}/localhc-pull-secret that hcc did not create and that HostedCluster ${ns}/localhc (not hcc's) uses`);
    const pull = JSON.parse((await kubectl('1.35', hcc.mgmtKubeconfig(placedOn), ['get', 'secret', 'localhc-pull-secret', '-n', ns, '-o', 'json'])).stdout);
    expect(Buffer.from(pull.data['.dockerconfigjson'], 'base64').toString()).toBe('{"foreign":1}');
    expect(pull.metadata.labels?.['controlcenter.hcc.dev/synced-by']).toBeUndefined();
    expect((await k(['delete', 'hc', 'ours', '-n', ns, '--timeout=30s'])).code).toBe(0);
  });

  it("never overwrites a same-named Secret it did not create without that cluster's consent (the adoptable annotation)", async () => {
    for (const mc of ['mgmt-1', 'mgmt-2']) {
      const mkc = (args: string[]) => kubectl('1.35', hcc.mgmtKubeconfig(mc), args);
      await mkc(['create', 'namespace', ns]);
      const made = await mkc(['create', 'secret', 'generic', 'adoptee-pull-secret', '-n', ns, '--from-literal=.dockerconfigjson={"theirs":1}']);
      expect(made.code, made.stderr).toBe(0);
    }
    const hcYaml = noneHostedCluster('consent', ns).replace('consent-pull-secret', 'adoptee-pull-secret');
    const r = await k(['apply', '-f', '-'], `${pullSecret('adoptee', ns)}---\n${hcYaml}`);
    expect(r.code, r.stderr).toBe(0);
    const on = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 'consent', '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    const blocked = await waitFor('the CopyBlocked Event', async () =>
      JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=CopyBlocked,involvedObject.name=adoptee-pull-secret', '-o', 'json'])).stdout).items[0], 20_000);
    expect(blocked.message).toBe(
      `management cluster ${on} already has a Secret ${ns}/adoptee-pull-secret that hcc did not create; hcc does not overwrite it: rename this one, remove that one there, or annotate it there controlcenter.hcc.dev/adoptable=true to let hcc take it over`,
    );
    const mkOn = (args: string[]) => kubectl('1.35', hcc.mgmtKubeconfig(on), args);
    const data = async () => Buffer.from(JSON.parse((await mkOn(['get', 'secret', 'adoptee-pull-secret', '-n', ns, '-o', 'json'])).stdout).data['.dockerconfigjson'], 'base64').toString();
    expect(await data()).toBe('{"theirs":1}');
    // (With that cluster's consent, the look a minute later takes it over: downsync-reconcile.test.ts.)
    expect((await k(['delete', 'hc', 'consent', '-n', ns, '--timeout=30s'])).code).toBe(0);
  });

  it("never copies a HostedCluster whose control-plane namespace is someone else's namespace there (HyperShift would delete it with the HostedCluster)", async () => {
    for (const mc of ['mgmt-1', 'mgmt-2']) expect((await kubectl('1.35', hcc.mgmtKubeconfig(mc), ['create', 'namespace', `${ns}-cpns`])).code).toBe(0);
    const r = await k(['apply', '-f', '-'], `${pullSecret('cpns', ns)}---\n${noneHostedCluster('cpns', ns)}`);
    expect(r.code, r.stderr).toBe(0);
    const on = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 'cpns', '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    const blocked = await waitFor('the CopyBlocked Event', async () =>
      JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=CopyBlocked,involvedObject.name=cpns', '-o', 'json'])).stdout).items[0], 20_000);
    expect(blocked.message).toContain(`its control-plane namespace ${ns}-cpns exists here and is not a control plane's (no hypershift.openshift.io/hosted-control-plane label)`);
    expect((await kubectl('1.35', hcc.mgmtKubeconfig(on), ['get', 'hc', 'cpns', '-n', ns, '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    expect((await k(['delete', 'hc', 'cpns', '-n', ns, '--timeout=30s'])).code).toBe(0);
    for (const mc of ['mgmt-1', 'mgmt-2']) await kubectl('1.35', hcc.mgmtKubeconfig(mc), ['delete', 'namespace', `${ns}-cpns`, '--wait=false']);
  });

  it('copies a Secret held back for a blocked HostedCluster as soon as another HostedCluster placed there uses it', async () => {
    for (const mc of ['mgmt-1', 'mgmt-2']) {
      await kubectl('1.35', hcc.mgmtKubeconfig(mc), ['create', 'namespace', ns]);
      const c = await kubectl('1.35', hcc.mgmtKubeconfig(mc), ['create', '-f', '-'], { input: noneHostedCluster('held', ns, '4.15.1') });
      expect(c.code, c.stderr).toBe(0);
    }
    expect((await k(['apply', '-f', '-'], `${noneHostedCluster('held', ns)}---\n${pullSecret('held', ns)}`)).code).toBe(0);
    const on = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 'held', '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    await waitFor('the CopyBlocked Event', async () =>
      JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=CopyBlocked,involvedObject.name=held', '-o', 'json'])).stdout).items[0], 20_000);
    const mkOn = (args: string[]) => kubectl('1.35', hcc.mgmtKubeconfig(on), args);
    expect((await mkOn(['get', 'secret', 'held-pull-secret', '-n', ns, '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    // Another HostedCluster, pinned to the same cluster, uses the same pull secret: the Secret
    // already carries that cluster's state label, so nothing about it changes upstream.
    expect((await k(['label', 'mc', on, 'pin-held=yes'])).code).toBe(0);
    const user = noneHostedCluster('user', ns)
      .replace(`metadata: {name: user, namespace: ${ns}}`, `metadata: {name: user, namespace: ${ns}, annotations: {controlcenter.hcc.dev/management-cluster-selector: pin-held=yes}}`)
      .replace('pullSecret: {name: user-pull-secret}', 'pullSecret: {name: held-pull-secret}');
    expect((await k(['apply', '-f', '-'], user)).code).toBe(0);
    await waitFor('the Secret in the management cluster (not only at the minute recheck)', async () => (await mkOn(['get', 'secret', 'held-pull-secret', '-n', ns])).code === 0, 15_000);
    expect((await k(['delete', 'hc', 'user', 'held', '-n', ns, '--timeout=30s'])).code).toBe(0);
    await k(['label', 'mc', on, 'pin-held-']);
  });

  it("never puts a HostedCluster in another's control-plane namespace: the scheduler places it elsewhere, the syncer refuses one created there by hand", async () => {
    // Placed by the control center: outer's control plane lives in cpx-outer where it lands, so
    // a HostedCluster in namespace cpx-outer goes to the other cluster.
    const apply = async (yaml: string) => {
      const r = await k(['apply', '-f', '-'], yaml);
      expect(r.code, r.stderr).toBe(0);
    };
    await k(['create', 'namespace', 'cpx']);
    await k(['create', 'namespace', 'cpx-outer']);
    await apply(`${noneHostedCluster('outer', 'cpx')}---\n${pullSecret('outer', 'cpx')}`);
    const outerOn = await waitFor('outer placed', async () => JSON.parse((await k(['get', 'hc', 'outer', '-n', 'cpx', '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    await apply(`${noneHostedCluster('inner', 'cpx-outer')}---\n${pullSecret('inner', 'cpx-outer')}`);
    const innerOn = await waitFor('inner placed', async () => JSON.parse((await k(['get', 'hc', 'inner', '-n', 'cpx-outer', '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    expect(innerOn).not.toBe(outerOn);
    // Pinned to outer's cluster, one more waits, saying why.
    expect((await k(['label', 'mc', outerOn, 'cpx=here'])).code).toBe(0);
    const pinned = noneHostedCluster('pinned', 'cpx-outer').replace('metadata: {name: pinned, namespace: cpx-outer}', `metadata: {name: pinned, namespace: cpx-outer, annotations: {${Selector}: cpx=here}}`);
    await apply(`${pinned}---\n${pullSecret('pinned', 'cpx-outer')}`);
    await waitFor('pinned refused by ControlPlaneNamespace', async () => {
      const got = JSON.parse((await k(['get', 'hc', 'pinned', '-n', 'cpx-outer', '-o', 'json'])).stdout);
      return JSON.stringify(got.status ?? {}).includes('namespace cpx-outer is the control-plane namespace of a HostedCluster there') ? got : undefined;
    }, 20_000);
    expect(JSON.parse((await k(['get', 'hc', 'pinned', '-n', 'cpx-outer', '-o', 'json'])).stdout).metadata.labels?.[Label]).toBeUndefined();
    expect((await k(['label', 'mc', outerOn, 'cpx-'])).code).toBe(0);
    expect((await k(['delete', 'hc', 'pinned', '-n', 'cpx-outer', '--wait=false'])).code).toBe(0);
    // Created in a management cluster by hand (the scheduler cannot see it): its control-plane
    // namespace cpy-theirs is refused to HostedClusters placed there, with a CopyBlocked Event.
    for (const mc of ['mgmt-1', 'mgmt-2']) {
      const mkc = (args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig(mc), args, { input });
      await mkc(['create', 'namespace', 'cpy']);
      const c = await mkc(['create', '-f', '-'], noneHostedCluster('theirs', 'cpy'));
      expect(c.code, c.stderr).toBe(0);
    }
    await k(['create', 'namespace', 'cpy-theirs']);
    await apply(`${noneHostedCluster('tenant', 'cpy-theirs')}---\n${pullSecret('tenant', 'cpy-theirs')}`);
    const tenantOn = await waitFor('tenant placed', async () => JSON.parse((await k(['get', 'hc', 'tenant', '-n', 'cpy-theirs', '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    const event = await waitFor('the CopyBlocked Event', async () => {
      const evs = JSON.parse((await k(['get', 'events', '-n', 'cpy-theirs', '--field-selector', 'reason=CopyBlocked,involvedObject.name=tenant', '-o', 'json'])).stdout).items;
      return evs[0];
    }, 20_000);
    expect(event.message).toContain(`management cluster ${tenantOn}: namespace cpy-theirs is the control-plane namespace of HostedCluster cpy/theirs here`);
    const there = await kubectl('1.35', hcc.mgmtKubeconfig(tenantOn), ['get', 'hc', 'tenant', '-n', 'cpy-theirs']);
    expect(there.code).not.toBe(0);
    expect((await kubectl('1.35', hcc.mgmtKubeconfig(tenantOn), ['get', 'secret', 'tenant-pull-secret', '-n', 'cpy-theirs'])).code).not.toBe(0);
  });

  it('follows NodePool spec changes: replicas and config references', async () => {
    await waitFor('mc-a downstream', async () => (await mk(['get', 'configmap', 'mc-a', '-n', ns])).code === 0, 20_000);
    expect((await mk(['get', 'configmap', 'mc-b', '-n', ns, '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    const p = await k(['patch', 'np', 'ex-workers', '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":4,"config":[{"name":"mc-b"}]}}']);
    expect(p.code, p.stderr).toBe(0);
    await waitFor('the change downstream', async () => {
      const np = await downJSON(['get', 'np', 'ex-workers', '-n', ns]);
      return np.spec.replicas === 4 && np.spec.config[0].name === 'mc-b';
    }, 20_000);
    // The newly referenced ConfigMap arrives, the one no longer referenced leaves.
    await waitFor('mc-b downstream and mc-a gone', async () =>
      (await mk(['get', 'configmap', 'mc-b', '-n', ns])).code === 0 && (await mk(['get', 'configmap', 'mc-a', '-n', ns, '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 20_000);
    // Status comes back: the operator scaled to 4.
    await waitFor('replicas upstream', async () => JSON.parse((await k(['get', 'np', 'ex-workers', '-n', ns, '-o', 'json'])).stdout).status?.replicas === 4, 20_000);
  });

  it('corrects local drift of spec but keeps what the operator wrote', async () => {
    const before = await downJSON(['get', 'hc', 'ex', '-n', ns]);
    expect(before.metadata.finalizers).toContain('hypershift.openshift.io/finalizer');
    expect(before.spec.clusterID).toMatch(/^[0-9a-f-]{36}$/);
    const d = await mk(['patch', 'hc', 'ex', '-n', ns, '--type=merge', '-p', '{"spec":{"release":{"image":"edited.locally/ocp-release:4.16.99-x86_64"}}}']);
    expect(d.code, d.stderr).toBe(0);
    await waitFor('the drift to be corrected', async () => (await downJSON(['get', 'hc', 'ex', '-n', ns])).spec.release.image === 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64', 20_000);
    const after = await downJSON(['get', 'hc', 'ex', '-n', ns]);
    expect(after.spec.clusterID).toBe(before.spec.clusterID);
    expect(after.metadata.finalizers).toContain('hypershift.openshift.io/finalizer');
    // The generated clusterID was adopted into the control center.
    expect(JSON.parse((await k(['get', 'hc', 'ex', '-n', ns, '-o', 'json'])).stdout).spec.clusterID).toBe(before.spec.clusterID);
  });

  it('makes a copy deleted by hand in the management cluster again and says so (CopyDeleted), but not for a delete through the control center', async () => {
    const name = 'dropped';
    const r = await k(['apply', '-f', '-'], `${pullSecret(name, ns)}---\n${hostedCluster(name, ns)}---\n${nodePool(`${name}-workers`, name, ns, '4.16.12')}`);
    expect(r.code, r.stderr).toBe(0);
    const placedOn = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', name, '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    const mkc = (args: string[]) => kubectl('1.35', hcc.mgmtKubeconfig(placedOn), args);
    const copyUID = async () => {
      const g = await mkc(['get', 'hc', name, '-n', ns, '-o', 'jsonpath={.metadata.uid}']);
      return g.code === 0 && !g.stdout.includes('deletionTimestamp') ? g.stdout : '';
    };
    const first = await waitFor('the copy', copyUID, 20_000);
    await waitFor('the NodePool copy', async () => (await mkc(['get', 'np', `${name}-workers`, '-n', ns])).code === 0, 20_000);
    const copyDeleted = async (kind: string, object: string) =>
      (JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', `reason=CopyDeleted,involvedObject.name=${object}`, '-o', 'json'])).stdout).items as { type: string; message: string; involvedObject: { kind: string } }[]).filter(
        (e) => e.involvedObject.kind === kind,
      );
    expect(await copyDeleted('HostedCluster', name)).toEqual([]);
    expect((await mkc(['delete', 'hc', name, '-n', ns, '--wait=false'])).code).toBe(0);
    const [event] = await waitFor('the CopyDeleted Event', async () => {
      const e = await copyDeleted('HostedCluster', name);
      return e.length ? e : undefined;
    }, 30_000);
    expect(event!.type).toBe('Warning');
    expect(event!.message).toBe(`its copy in management cluster ${placedOn} was deleted there, not through the control center; hcc makes it again (HyperShift tears its hosted control plane down with the copy and builds a new one)`);
    await waitFor('a new copy', async () => {
      const uid = await copyUID();
      return uid && uid !== first ? uid : undefined;
    }, 60_000);
    await waitFor('the NodePool copy again', async () => (await mkc(['get', 'np', `${name}-workers`, '-n', ns])).code === 0, 30_000);
    // A delete through the control center is no such surprise: no CopyDeleted for it or its NodePool.
    const npEventsBefore = (await copyDeleted('NodePool', `${name}-workers`)).length;
    expect((await k(['delete', 'hc', name, '-n', ns, '--timeout=60s'])).code).toBe(0);
    await waitFor('the copies gone', async () => (await mkc(['get', 'hc,np', '-n', ns, '-o', 'name'])).stdout.split('\n').every((l) => !l.includes(name)), 30_000);
    expect((await copyDeleted('HostedCluster', name)).length).toBe(1);
    expect((await copyDeleted('NodePool', `${name}-workers`)).length).toBe(npEventsBefore);
  });

  it("reports the fields a management cluster's older CRD drops from a copy it creates or changes (FieldsDropped)", async () => {
    // The operators run an older CRD that has no spec.pausedUntil.
    const mkc = (mc: string, args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig(mc), args, { input });
    const crdOf = async (mc: string) => JSON.parse((await mkc(mc, ['get', 'crd', 'hostedclusters.hypershift.openshift.io', '-o', 'json'])).stdout);
    const originals = new Map<string, any>();
    for (const mc of ['mgmt-1', 'mgmt-2']) {
      const original = await crdOf(mc);
      originals.set(mc, original);
      const older = structuredClone(original);
      delete older.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.pausedUntil;
      delete older.metadata.resourceVersion;
      expect((await mkc(mc, ['replace', '-f', '-'], JSON.stringify(older))).code).toBe(0);
    }
    const droppedEvent = (name: string) =>
      waitFor(`the FieldsDropped Event of ${name}`, async () => {
        const list = JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=FieldsDropped', '-o', 'json'])).stdout);
        return list.items.find((e: { involvedObject: { name: string } }) => e.involvedObject.name === name);
      }, 20_000);
    try {
      // A change to an existing copy.
      const p = await k(['patch', 'hc', 'ex', '-n', ns, '--type=merge', '-p', '{"spec":{"pausedUntil":"true"}}']);
      expect(p.code, p.stderr).toBe(0);
      const event = await droppedEvent('ex');
      expect(event.type).toBe('Warning');
      expect(event.message).toContain(`management cluster ${owner} does not know "spec.pausedUntil"`);
      expect((await downJSON(['get', 'hc', 'ex', '-n', ns])).spec.pausedUntil).toBeUndefined();
      // A new copy.
      const fresh = noneHostedCluster('fresh', ns).replace('fresh-pull-secret', 'ex-pull-secret').replace('  platform: {type: None}', '  platform: {type: None}\n  pausedUntil: "true"');
      const c = await k(['apply', '-f', '-'], fresh);
      expect(c.code, c.stderr).toBe(0);
      const placedOn = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 'fresh', '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
      expect((await droppedEvent('fresh')).message).toContain(`management cluster ${placedOn} does not know "spec.pausedUntil"`);
    } finally {
      for (const [mc, original] of originals) {
        const current = await crdOf(mc);
        expect((await mkc(mc, ['replace', '-f', '-'], JSON.stringify({ ...original, metadata: { ...original.metadata, resourceVersion: current.metadata.resourceVersion } }))).code).toBe(0);
      }
      expect((await k(['patch', 'hc', 'ex', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/spec/pausedUntil"}]'])).code).toBe(0);
      expect((await k(['delete', 'hc', 'fresh', '-n', ns, '--timeout=30s'])).code).toBe(0);
    }
  });

  it('marks a HostedCluster Available=Unknown (NamespaceTerminating) while its namespace there is stuck terminating, without a CopyFailed refusal, and recovers once it is gone', async () => {
    const stuck = 'stuck';
    for (const mc of ['mgmt-1', 'mgmt-2']) {
      const mkc = (args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig(mc), args, { input });
      expect((await mkc(['create', 'namespace', stuck])).code).toBe(0);
      expect((await mkc(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hold', namespace: stuck, finalizers: ['example.com/hold'] } }))).code).toBe(0);
      expect((await mkc(['delete', 'namespace', stuck, '--wait=false'])).code).toBe(0);
    }
    expect((await k(['create', 'namespace', stuck])).code).toBe(0);
    const r = await k(['apply', '-f', '-'], `${pullSecret('s1', stuck)}---\n${noneHostedCluster('s1', stuck)}`);
    expect(r.code, r.stderr).toBe(0);
    const placedOn = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 's1', '-n', stuck, '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    const available = async () => (JSON.parse((await k(['get', 'hc', 's1', '-n', stuck, '-o', 'json'])).stdout).status?.conditions ?? []).find((c: { type: string }) => c.type === 'Available');
    const marked = await waitFor('Available=Unknown, NamespaceTerminating', async () => {
      const c = await available();
      return c?.status === 'Unknown' && c.reason === 'NamespaceTerminating' ? c : undefined;
    }, 30_000);
    expect(marked.message).toBe(`management cluster ${placedOn} has no copy yet: namespace ${stuck} there is being deleted; the copy is made once it is gone`);
    // Not a refusal: no CopyFailed Event (a Warning NamespaceTerminating comes only after 2 minutes).
    const events = JSON.parse((await k(['get', 'events', '-n', stuck, '--field-selector', 'reason=CopyFailed', '-o', 'json'])).stdout).items;
    expect(events.filter((e: { involvedObject: { name: string } }) => e.involvedObject.name === 's1')).toEqual([]);
    // The namespace there goes once its last object lets go; the copy is made and its status comes up.
    for (const mc of ['mgmt-1', 'mgmt-2']) {
      expect((await kubectl('1.35', hcc.mgmtKubeconfig(mc), ['patch', 'configmap', 'hold', '-n', stuck, '--type=merge', '-p', '{"metadata":{"finalizers":null}}'])).code).toBe(0);
    }
    await waitFor('the copy', async () => (await kubectl('1.35', hcc.mgmtKubeconfig(placedOn), ['get', 'hc', 's1', '-n', stuck])).code === 0, 60_000);
    await waitFor('the operator\'s Available upstream', async () => (await available())?.reason !== 'NamespaceTerminating', 30_000);
    expect((await k(['delete', 'hc', 's1', '-n', stuck, '--timeout=30s'])).code).toBe(0);
  });

  it('deletes the copy of a Secret deleted upstream while its HostedCluster lives, after a grace for a HostedCluster deleted with it', async () => {
    expect((await k(['delete', 'secret', 'ex-pull-secret', '-n', ns])).code).toBe(0);
    // The copy stays a moment (a `kubectl delete -f` deletes the Secret before the HostedCluster),
    await new Promise((r) => setTimeout(r, 3000));
    expect((await mk(['get', 'secret', 'ex-pull-secret', '-n', ns, '-o', 'name'])).stdout.trim()).toBe('secret/ex-pull-secret');
    // then goes: the HostedCluster is still there, so the deletion was meant (a revoked credential).
    await waitFor('the copy to go', async () => (await mk(['get', 'secret', 'ex-pull-secret', '-n', ns, '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 30_000);
  });

  it('pulls a newer HostedCluster CRD from the management cluster', async () => {
    // The "operator" in mgmt-1 upgrades its CRD: a new platform type appears.
    const crd = JSON.parse((await kubectl('1.35', hcc.mgmtKubeconfig('mgmt-1'), ['get', 'crd', 'hostedclusters.hypershift.openshift.io', '-o', 'json'])).stdout);
    const platformType = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.platform.properties.type;
    platformType.enum = [...platformType.enum, 'Moon'];
    delete crd.metadata.resourceVersion;
    const r = await kubectl('1.35', hcc.mgmtKubeconfig('mgmt-1'), ['replace', '-f', '-'], { input: JSON.stringify(crd) });
    expect(r.code, r.stderr).toBe(0);
    // The syncer pulls at start and every few minutes; restart it to pull now.
    const pids = JSON.parse(readFileSync(`${hcc.stateDir}/processes.json`, 'utf8')) as Record<string, number>;
    process.kill(pids['syncer-mgmt-1']!, 'SIGTERM');
    const pulled = await waitFor('the CRD in the control center', async () => {
      const up = JSON.parse((await k(['get', 'crd', 'hostedclusters.hypershift.openshift.io', '-o', 'json'])).stdout);
      return up.metadata.annotations?.['controlcenter.hcc.dev/pulled-from'] === 'mgmt-1' ? up : undefined;
    }, 30_000);
    expect(pulled.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.platform.properties.type.enum).toContain('Moon');
    expect(pulled.spec.versions[0].additionalPrinterColumns.map((c: { name: string }) => c.name)).toContain('Management Cluster');
  });

  it('a second syncer given the same --name on another management cluster waits: it serves nothing while the first holds the Lease', async () => {
    const other = owner === 'mgmt-1' ? 'mgmt-2' : 'mgmt-1';
    const clusterID = JSON.parse((await mk(['get', 'namespace', 'kube-system', '-o', 'json'])).stdout).metadata.uid;
    const lease = async () => JSON.parse((await k(['get', 'lease', owner, '-n', 'hcc-system', '-o', 'json'])).stdout);
    await waitFor('the Lease to carry the cluster ID', async () => (await lease()).metadata.annotations?.['controlcenter.hcc.dev/cluster-id'] === clusterID, 20_000);
    const impostor = spawnHcc(['syncer', '--name', owner, '--kubeconfig', hcc.kubeconfig, '--management-kubeconfig', hcc.mgmtKubeconfig(other), '--heartbeat-interval', '1', '--metrics-port', '0']);
    try {
      await waitFor('the conflict in its log', () => impostor.output().includes(`holds Lease hcc-system/${owner}`), 30_000);
      expect(impostor.output()).toContain(`of another management cluster (cluster ID ${clusterID}`);
      // Its /readyz says why it does not serve.
      const ops = /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(impostor.output())![1]!;
      const ready = await waitFor('its /readyz to name the conflict', async () => {
        const r = await fetch(`${ops}/readyz?verbose`);
        const body = await r.text();
        return r.status !== 200 && body.includes(`holds Lease hcc-system/${owner}`) && body;
      }, 10_000);
      expect(ready).toContain('syncing caches; the syncer');
      const event = await waitFor('the SyncerConflict Event', async () => {
        const r = await k(['get', 'events', '-A', '--field-selector', `reason=SyncerConflict,involvedObject.name=${owner}`, '-o', 'json']);
        return r.code === 0 && JSON.parse(r.stdout).items[0];
      }, 20_000);
      expect(event).toMatchObject({ type: 'Warning', involvedObject: { kind: 'ManagementCluster', name: owner } });
      await new Promise((r) => setTimeout(r, 3000));
      // Nothing of the owner's was copied into the other cluster, and the Lease stayed the owner's.
      const copied = await kubectl('1.35', hcc.mgmtKubeconfig(other), ['get', 'hc,nodepools,secrets,configmaps', '-A', '-l', `controlcenter.hcc.dev/synced-by=${owner}`, '-o', 'name']);
      expect(copied.stdout.trim()).toBe('');
      expect((await lease()).metadata.annotations['controlcenter.hcc.dev/cluster-id']).toBe(clusterID);
      expect(impostor.proc.exitCode).toBeNull(); // waiting, not crash-looping
    } finally {
      await stopProcess(impostor.proc);
    }
  });

  it('one management cluster registered under a second name takes no placements there (DuplicateCluster=True), with its cluster ID shown', async () => {
    const clusterID = JSON.parse((await mk(['get', 'namespace', 'kube-system', '-o', 'json'])).stdout).metadata.uid;
    // A second syncer for the owner's management cluster, under another name and with room.
    const second = spawnHcc(['syncer', '--name', 'mgmt-again', '--kubeconfig', hcc.kubeconfig, '--management-kubeconfig', hcc.mgmtKubeconfig(owner), '--capacity', '10', '--labels', 'again=yes', '--heartbeat-interval', '1', '--metrics-port', '0']);
    try {
      const mc = await waitFor('mgmt-again reported', async () => {
        const r = await k(['get', 'mc', 'mgmt-again', '-o', 'json']);
        return r.code === 0 && JSON.parse(r.stdout).status?.clusterID ? JSON.parse(r.stdout) : undefined;
      }, 30_000);
      expect(mc.status.clusterID).toBe(clusterID);
      const conditions = Object.fromEntries(mc.status.conditions.map((c: { type: string }) => [c.type, c]));
      expect(conditions.DuplicateCluster).toMatchObject({
        status: 'True',
        reason: 'SameClusterID',
        message: expect.stringContaining(`is the same cluster as ManagementCluster ${owner} (cluster ID ${clusterID}`),
      });
      // Its syncer is healthy (and would serve what was placed there before).
      expect(conditions.Ready).toMatchObject({ status: 'True' });
      // kubectl get mc -o wide shows both names with the one ID.
      const wide = (await k(['get', 'mc', owner, 'mgmt-again', '-o', 'wide'])).stdout.split('\n');
      expect(wide[0]).toContain('CLUSTER ID');
      expect(wide.filter((l) => l.includes(clusterID))).toHaveLength(2);
      const event = await waitFor('the DuplicateCluster Event', async () => {
        const r = await k(['get', 'events', '-A', '--field-selector', 'reason=DuplicateCluster,involvedObject.name=mgmt-again', '-o', 'json']);
        return r.code === 0 && JSON.parse(r.stdout).items[0];
      }, 20_000);
      expect(event).toMatchObject({ type: 'Warning', involvedObject: { kind: 'ManagementCluster', name: 'mgmt-again' } });
      // A HostedCluster only it would take waits, saying why.
      const pinned = hostedCluster('again', ns).replace(`metadata: {name: again, namespace: ${ns}}`, `metadata: {name: again, namespace: ${ns}, annotations: {${Selector}: again=yes}}`);
      expect((await k(['apply', '-f', '-'], `${pinned}---\n${pullSecret('again', ns)}`)).code).toBe(0);
      await waitFor('again refused as a duplicate', async () => {
        const got = JSON.parse((await k(['get', 'hc', 'again', '-n', ns, '-o', 'json'])).stdout);
        return JSON.stringify(got.status ?? {}).includes('same cluster as another ManagementCluster') ? got : undefined;
      }, 20_000);
      expect(JSON.parse((await k(['get', 'hc', 'again', '-n', ns, '-o', 'json'])).stdout).metadata.labels?.[Label]).toBeUndefined();
      expect((await k(['delete', 'hc', 'again', '-n', ns])).code).toBe(0);
    } finally {
      await stopProcess(second.proc);
    }
    expect((await k(['delete', 'mc', 'mgmt-again'])).code).toBe(0);
  });

  it('did all of the above as each syncer\'s own restricted user (hcc:syncer:<cluster>) without one 403', async () => {
    const forbidden = (await k(['get', '--raw', '/metrics'])).stdout.split('\n').filter((l) => l.startsWith('apiserver_request_total') && l.includes('code="403"'));
    expect(forbidden).toEqual([]);
  });
});
