/**
 * The syncer end to end in push mode (split from syncer.test.ts so the two test workers share the
 * load): a pull syncer refused by a Push-mode cluster, Push-mode clusters served from next to the
 * control center with pull mode's guarantees, deleting a ManagementCluster that still hosts a
 * HostedCluster, strict-JSON log lines, and a syncer resumed after a pause during which a
 * HostedCluster was deleted and applied again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, waitFor } from './helpers/tools.js';
import { spawnHcc, startHccUp, stopProcess, type HccUp } from './helpers/processes.js';
import { nodePool, noneHostedCluster, pullSecret } from './helpers/manifests.js';

const Label = 'controlcenter.hcc.dev/management-cluster';
const Selector = 'controlcenter.hcc.dev/management-cluster-selector';

const hostedCluster = (name: string, ns: string) => noneHostedCluster(name, ns);

describe('syncer: push mode', () => {
  let hcc: HccUp;
  beforeAll(async () => {
    hcc = await startHccUp(['--management-clusters', '2', '--capacity', '5', '--mode', 'Push']);
  });
  afterAll(async () => {
    await hcc?.stop();
  });

  it('a pull syncer refused (its cluster is in Push mode) and stopped before it registered copies nothing', async () => {
    // Found by a README walkthrough: stopped while it retried registering, the syncer went on to
    // "syncer ready" and copied the other cluster's HostedClusters into the one it was pointed at.
    const k = (args: string[], input?: string) => kubectl('1.35', hcc.kubeconfig, args, { input });
    expect((await k(['create', 'namespace', 'q'])).code).toBe(0);
    expect((await k(['create', 'secret', 'generic', 'qx-pull-secret', '-n', 'q', '--from-literal=.dockerconfigjson={}'])).code).toBe(0);
    expect((await k(['apply', '-f', '-'], hostedCluster('qx', 'q'))).code).toBe(0);
    const owner = await waitFor('placement', async () => JSON.parse((await k(['get', 'hc', 'qx', '-n', 'q', '-o', 'json'])).stdout).metadata.labels?.[Label], 20_000);
    const other = owner === 'mgmt-1' ? 'mgmt-2' : 'mgmt-1';
    const stray = spawnHcc(['syncer', '--name', owner, '--kubeconfig', hcc.kubeconfig, '--management-kubeconfig', hcc.mgmtKubeconfig(other), '--heartbeat-interval', '1', '--metrics-port', '0']);
    try {
      await waitFor('two refused registrations', () => (stray.output().match(/registering the ManagementCluster failed; retrying/g) ?? []).length >= 2, 30_000);
    } finally {
      await stopProcess(stray.proc);
    }
    expect(stray.output()).not.toContain('"msg":"syncer ready"');
    const copied = await kubectl('1.35', hcc.mgmtKubeconfig(other), ['get', 'hc,nodepools,secrets,configmaps', '-A', '-l', `controlcenter.hcc.dev/synced-by=${owner}`, '-o', 'name']);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout.trim()).toBe('');
    expect((await k(['delete', 'namespace', 'q', '--timeout=60s'])).code).toBe(0);
  });

  it('serves Push-mode clusters from next to the control center with the same guarantees', async () => {
    const k = (args: string[], input?: string) => kubectl('1.35', hcc.kubeconfig, args, { input });
    const mcs = JSON.parse((await k(['get', 'mc', '-o', 'json'])).stdout).items;
    expect(mcs.map((m: { spec: { mode: string } }) => m.spec.mode)).toEqual(['Push', 'Push']);
    expect((await k(['create', 'namespace', 'p'])).code).toBe(0);
    expect((await k(['create', 'secret', 'generic', 'px-pull-secret', '-n', 'p', '--from-literal=.dockerconfigjson={}'])).code).toBe(0);
    expect((await k(['apply', '-f', '-'], hostedCluster('px', 'p'))).code).toBe(0);
    const w = await k(['wait', '--for=condition=Available', 'hc/px', '-n', 'p', '--timeout=60s']);
    expect(w.code, w.stderr).toBe(0);
    const owner = JSON.parse((await k(['get', 'hc', 'px', '-n', 'p', '-o', 'json'])).stdout).metadata.labels[Label];
    expect((await kubectl('1.35', hcc.mgmtKubeconfig(owner), ['get', 'hc', 'px', '-n', 'p', '-o', 'name'])).stdout.trim()).toBe('hostedcluster.hypershift.openshift.io/px');
    // The push syncer's /metrics carries every cluster's syncer series, labelled with the cluster;
    // the queue counters are counters (client-go's workqueue_adds_total is one).
    const started = readFileSync(path.join(hcc.stateDir, 'logs', 'syncer-push.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg?: string; metrics?: string }).find((l) => l.msg === 'syncer started');
    const metrics = await waitFor('both clusters in the push syncer\'s metrics', async () => {
      const text = await (await fetch(started!.metrics!)).text();
      return ['mgmt-1', 'mgmt-2'].every((c) => text.includes(`hcc_syncer_queue_depth{cluster="${c}",queue="downsync"}`)) && text;
    }, 15_000);
    expect(metrics).toContain('# TYPE hcc_syncer_queue_adds_total counter');
    expect(metrics).toContain('# TYPE hcc_syncer_queue_retries_total counter');
    expect(metrics).toMatch(new RegExp(`hcc_syncer_queue_adds_total\\{cluster="${owner}",queue="upsync"\\} [1-9]`));
    expect(metrics).toMatch(new RegExp(`hcc_syncer_cached_objects\\{cluster="${owner}",side="upstream",kind="HostedCluster"\\} 1`));
    expect((await k(['delete', 'hc', 'px', '-n', 'p', '--timeout=60s'])).code).toBe(0);
    expect((await kubectl('1.35', hcc.mgmtKubeconfig(owner), ['get', 'hc', 'px', '-n', 'p', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    // The namespace the syncer created for it goes once nothing placed there uses it.
    await waitFor('namespace p to leave the management cluster', async () =>
      (await kubectl('1.35', hcc.mgmtKubeconfig(owner), ['get', 'namespace', 'p', '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 30_000);

    // A kubeconfig Secret that is not there, or holds no kubeconfig, is named in a Warning Event
    // on the ManagementCluster, not just in a log line.
    expect((await k(['create', 'secret', 'generic', 'bad-kubeconfig', '-n', 'hcc-system', '--from-literal=kubeconfig=garbage: ['])).code).toBe(0);
    // Parses, but its CA is no certificate: client-go refuses it at load ("unable to load root certificates").
    const badCA = 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1", certificate-authority-data: Z2FyYmFnZQ==}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: t}}]\n';
    expect((await k(['create', 'secret', 'generic', 'bad-ca', '-n', 'hcc-system', `--from-literal=kubeconfig=${badCA}`])).code).toBe(0);
    for (const [secret, reason, says] of [
      ['no-such-secret', 'KubeconfigSecretNotFound', 'Secret hcc-system/no-such-secret not found in the control center'],
      ['bad-kubeconfig', 'KubeconfigInvalid', 'key "kubeconfig" of Secret hcc-system/bad-kubeconfig is not a usable kubeconfig (not valid YAML: Flow sequence'],
      ['bad-ca', 'KubeconfigInvalid', 'key "kubeconfig" of Secret hcc-system/bad-ca is not a usable kubeconfig (certificate-authority data holds no PEM certificate'],
    ] as const) {
      expect((await k(['patch', 'mc', 'mgmt-2', '--type=merge', '-p', JSON.stringify({ spec: { kubeconfigSecretRef: { name: secret } } })])).code).toBe(0);
      const event = await waitFor(`the ${reason} Event for ${secret}`, async () => {
        const r = await k(['get', 'events', '-A', '--field-selector', `reason=${reason},involvedObject.name=mgmt-2`, '-o', 'json']);
        return r.code === 0 && (JSON.parse(r.stdout).items as { message: string }[]).find((e) => e.message.includes(says));
      }, 30_000);
      expect(event).toMatchObject({ type: 'Warning', involvedObject: { kind: 'ManagementCluster', name: 'mgmt-2' } });
    }

    // One that loads (a real CA) but leads nowhere: ManagementClusterUnreachable once its syncer
    // has not been ready for 20 s.
    const ca = /certificate-authority-data: (\S+)/.exec(readFileSync(hcc.kubeconfig, 'utf8'))![1]!;
    const nowhere = `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1", certificate-authority-data: ${ca}}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: t}}]\n`;
    expect((await k(['create', 'secret', 'generic', 'nowhere', '-n', 'hcc-system', `--from-literal=kubeconfig=${nowhere}`])).code).toBe(0);
    expect((await k(['patch', 'mc', 'mgmt-2', '--type=merge', '-p', '{"spec":{"kubeconfigSecretRef":{"name":"nowhere"}}}'])).code).toBe(0);
    // (Its syncer's heartbeat also says so at once, with the connection error.)
    const unreachable = await waitFor('the ManagementClusterUnreachable Event', async () => {
      const r = await k(['get', 'events', '-A', '--field-selector', 'reason=ManagementClusterUnreachable,involvedObject.name=mgmt-2', '-o', 'json']);
      return r.code === 0 && (JSON.parse(r.stdout).items as { message: string }[]).find((e) => e.message.startsWith('the push syncer has not reached'));
    }, 60_000);
    expect(unreachable).toMatchObject({ type: 'Warning', involvedObject: { kind: 'ManagementCluster', name: 'mgmt-2' } });
    expect(unreachable.message).toContain('the push syncer has not reached this management cluster within 20s of starting with the kubeconfig in Secret hcc-system/nowhere');
  });

  it('keeps serving a ManagementCluster being deleted until what it hosts is torn down there, as pull mode does', async () => {
    const k = (args: string[], input?: string) => kubectl('1.35', hcc.kubeconfig, args, { input });
    const mk = (args: string[]) => kubectl('1.35', hcc.mgmtKubeconfig('mgmt-1'), args);
    const getMC = async () => {
      const r = await k(['get', 'mc', 'mgmt-1', '--ignore-not-found', '-o', 'json']);
      return r.stdout.trim() ? (JSON.parse(r.stdout) as { metadata: { deletionTimestamp?: string }; status?: { lastHeartbeatTime?: string } }) : undefined;
    };
    // mgmt-2 was pointed at a dead end above: pin this one to mgmt-1.
    expect((await k(['label', 'mc', 'mgmt-1', 'retire=yes'])).code).toBe(0);
    expect((await k(['create', 'namespace', 'r'])).code).toBe(0);
    const hc = hostedCluster('rx', 'r').replace('metadata: {name: rx, namespace: r}', `metadata: {name: rx, namespace: r, annotations: {${Selector}: retire=yes}}`);
    const r = await k(['apply', '-f', '-'], `${pullSecret('rx', 'r')}---\n${hc}---\n${nodePool('rx-workers', 'rx', 'r')}`);
    expect(r.code, r.stderr).toBe(0);
    const w = await k(['wait', '--for=condition=Available', 'hc/rx', '-n', 'r', '--timeout=60s']);
    expect(w.code, w.stderr).toBe(0);
    expect(JSON.parse((await k(['get', 'hc', 'rx', '-n', 'r', '-o', 'json'])).stdout).metadata.labels[Label]).toBe('mgmt-1');
    const copies = [['hc', 'rx', '-n', 'r'], ['nodepool', 'rx-workers', '-n', 'r'], ['secret', 'rx-pull-secret', '-n', 'r'], ['namespace', 'r-rx'], ['namespace', 'r']];
    for (const c of copies) expect((await mk(['get', ...c, '-o', 'name'])).code, c.join(' ')).toBe(0);

    // The tester's repro: the cluster first, then what it holds, neither waited for; and its
    // kubeconfig Secret with it (`kubectl delete -f` of a file holding both).
    expect((await k(['delete', 'mc', 'mgmt-1', '--wait=false'])).code).toBe(0);
    expect((await k(['delete', 'secret', 'mgmt-1-kubeconfig', '-n', 'hcc-system'])).code).toBe(0);
    const deleting = await getMC();
    expect(deleting?.metadata.deletionTimestamp).toBeTruthy(); // held by controlcenter.hcc.dev/placements
    // Its push syncer keeps heartbeating it (it used to stop at once, and the scheduler released
    // what it held once the heartbeat expired, without tearing it down).
    await waitFor('a heartbeat after the deletion', async () => {
      const beat = (await getMC())?.status?.lastHeartbeatTime;
      return !!beat && Date.parse(beat) > Date.parse(deleting!.metadata.deletionTimestamp!);
    }, 10_000);
    // A NodePool added now follows its HostedCluster there (it is not a new placement).
    const np2 = await k(['apply', '-f', '-'], nodePool('rx-late', 'rx', 'r'));
    expect(np2.code, np2.stderr).toBe(0);
    await waitFor('the late NodePool copied into the cluster being deleted', async () => (await mk(['get', 'nodepool', 'rx-late', '-n', 'r', '-o', 'name'])).code === 0, 30_000);
    expect((await k(['get', 'nodepool', 'rx-late', '-n', 'r', '-o', `jsonpath={.metadata.labels.${Label.replace(/\./g, '\\.')}}`])).stdout).toBe('mgmt-1');
    copies.push(['nodepool', 'rx-late', '-n', 'r']);
    expect((await k(['delete', 'hc', 'rx', '-n', 'r', '--wait=false'])).code).toBe(0);
    // Well inside the scheduler's 40 s heartbeat grace: torn down, not released.
    await waitFor('HostedCluster rx to go', async () => (await k(['get', 'hc', 'rx', '-n', 'r', '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', 30_000);
    await waitFor('ManagementCluster mgmt-1 to go', async () => !(await getMC()), 30_000);
    // Its syncer stops once it has removed what it made there (the Secret copy and the namespace
    // it created go only after the HostedCluster): nothing is left at that point.
    const pushLog = path.join(hcc.stateDir, 'logs', 'syncer-push.log');
    await waitFor('the push syncer of mgmt-1 to stop', () =>
      readFileSync(pushLog, 'utf8').split('\n').some((l) => l.includes('"cluster":"mgmt-1"') && l.includes('stopped push syncer')), 30_000);
    for (const c of copies) expect((await mk(['get', ...c, '--ignore-not-found', '-o', 'name'])).stdout.trim(), c.join(' ')).toBe('');
    const released = await k(['get', 'events', '-A', '--field-selector', 'reason=SyncerGone', '-o', 'json']);
    expect(JSON.parse(released.stdout).items).toEqual([]);
    // A push syncer serves clusters that exist: its heartbeats after the deletion did not register it again.
    expect(await getMC()).toBeUndefined();
  });

  it('writes log lines a strict JSON reader takes: no key twice in one line', () => {
    const logs = path.join(hcc.stateDir, 'logs');
    const files = readdirSync(logs).filter((f) => f.endsWith('.log'));
    expect(files.length).toBeGreaterThanOrEqual(5); // control center, 2 management clusters, scheduler, push syncer
    const duplicated: string[] = [];
    for (const f of files) {
      for (const line of readFileSync(path.join(logs, f), 'utf8').split('\n')) {
        if (!line.startsWith('{')) continue;
        // YAML 1.2 reads JSON and, unlike JSON.parse, refuses a repeated key.
        const doc = YAML.parseDocument(line, { uniqueKeys: true });
        if (doc.errors.length) duplicated.push(`${f}: ${line.slice(0, 200)}`);
      }
    }
    expect(duplicated).toEqual([]);
  });
});

describe('syncer: resumed after a pause', () => {
  let hcc: HccUp;
  beforeAll(async () => {
    hcc = await startHccUp(['--management-clusters', '2', '--capacity', '5', '--mode', 'Push', '--heartbeat-grace', '5']);
  });
  afterAll(async () => {
    await hcc?.stop();
  });

  it("tears down a HostedCluster deleted while it was away without deleting the NodePools of a new one of that name", async () => {
    // Found by a scheduler/lifecycle break test: resumed with the deleted HostedCluster still in
    // its cache, the syncer deleted the control center's NodePools of that name, the new one's too.
    const k = (args: string[], input?: string) => kubectl('1.35', hcc.kubeconfig, args, { input });
    const hcPinned = (pin: string) => noneHostedCluster('x1', 'rp').replace('metadata: {name: x1, namespace: rp}', `metadata: {name: x1, namespace: rp, annotations: {${Selector}: pin=${pin}}}`);
    expect((await k(['label', 'mc', 'mgmt-1', 'pin=one'])).code).toBe(0);
    expect((await k(['label', 'mc', 'mgmt-2', 'pin=two'])).code).toBe(0);
    expect((await k(['create', 'namespace', 'rp'])).code).toBe(0);
    const first = await k(['apply', '-f', '-'], `${pullSecret('x1', 'rp')}---\n${hcPinned('one')}---\n${nodePool('x1-workers', 'x1', 'rp')}`);
    expect(first.code, first.stderr).toBe(0);
    const w = await k(['wait', '--for=condition=Available', 'hc/x1', '-n', 'rp', '--timeout=60s']);
    expect(w.code, w.stderr).toBe(0);
    await waitFor('the NodePool copied into mgmt-1', async () => (await kubectl('1.35', hcc.mgmtKubeconfig('mgmt-1'), ['get', 'nodepool', 'x1-workers', '-n', 'rp', '-o', 'name'])).code === 0, 30_000);

    // The push syncer pauses; meanwhile mgmt-1 is retired and x1 deleted, then applied again
    // (with its NodePool) for mgmt-2.
    const pid = (JSON.parse(readFileSync(path.join(hcc.stateDir, 'processes.json'), 'utf8')) as Record<string, number>)['syncer-push']!;
    process.kill(pid, 'SIGSTOP');
    let npUID = '';
    try {
      expect((await k(['delete', 'mc', 'mgmt-1', '--wait=false'])).code).toBe(0);
      expect((await k(['delete', 'hc', 'x1', '-n', 'rp', '--wait=false'])).code).toBe(0);
      // The scheduler releases what mgmt-1 held once its heartbeat is 5 s old: x1 and its
      // NodePool (deleted with it) go. (Applied again while still Terminating, the NodePool would
      // go anyway, as any kube object applied during its deletion.)
      await waitFor('x1 and its NodePool released and gone', async () => (await k(['get', 'hc,nodepools', '-n', 'rp', '-o', 'name'])).stdout.trim() === '', 60_000);
      const again = await k(['apply', '-f', '-'], `${hcPinned('two')}---\n${nodePool('x1-workers', 'x1', 'rp')}`);
      expect(again.code, again.stderr).toBe(0);
      npUID = JSON.parse((await k(['get', 'nodepool', 'x1-workers', '-n', 'rp', '-o', 'json'])).stdout).metadata.uid;
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // Resumed, the syncer finishes with mgmt-1 (the teardown of the old x1 there) and serves
    // mgmt-2: the new x1 and its NodePool are copied there.
    const pushLog = path.join(hcc.stateDir, 'logs', 'syncer-push.log');
    await waitFor('the push syncer of mgmt-1 to stop', () =>
      readFileSync(pushLog, 'utf8').split('\n').some((l) => l.includes('"cluster":"mgmt-1"') && l.includes('stopped push syncer')), 60_000);
    const np = await k(['get', 'nodepool', 'x1-workers', '-n', 'rp', '--ignore-not-found', '-o', 'json']);
    expect(np.stdout.trim(), 'the new NodePool x1-workers').not.toBe('');
    expect(JSON.parse(np.stdout).metadata).toMatchObject({ uid: npUID });
    expect(JSON.parse(np.stdout).metadata.deletionTimestamp).toBeUndefined();
    const w2 = await k(['wait', '--for=condition=Available', 'hc/x1', '-n', 'rp', '--timeout=60s']);
    expect(w2.code, w2.stderr).toBe(0);
    await waitFor('the NodePool copied into mgmt-2', async () => (await kubectl('1.35', hcc.mgmtKubeconfig('mgmt-2'), ['get', 'nodepool', 'x1-workers', '-n', 'rp', '-o', 'name'])).code === 0, 30_000);
  });
});
