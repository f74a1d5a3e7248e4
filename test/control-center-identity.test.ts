/**
 * Two control centers serving one management cluster under the same ManagementCluster name (prod
 * and staging both calling it m1, or one started again on an empty data dir): each syncer stamps
 * its copies with its control center's ID (the uid of that control center's kube-system
 * namespace) and never deletes or overwrites the other's, which it reports (CopyBlocked on the
 * object it cannot copy, OtherControlCenter on its ManagementCluster). A syncer started with
 * `--take-over-from <ID>` takes that control center's copies as its own. Real processes: two
 * `hcc control-center`s with their schedulers, one `hcc management-cluster`, `hcc syncer`s, kubectl.
 */
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, repoRoot, tempDir, waitFor } from './helpers/tools.js';
import { spawnHcc, startControlCenterProcess, startHcc, startRestrictedManagementCluster, startSchedulerProcess, stopProcess, type ControlCenterProcess, type SchedulerProcess } from './helpers/processes.js';
import { noneHostedCluster, pullSecret } from './helpers/manifests.js';

const IDKey = 'controlcenter.hcc.dev/control-center-id';
const ns = 'team';

describe('two control centers, one management cluster, one ManagementCluster name', () => {
  const t = tempDir('hcc-ccid-');
  const mgmtAdmin = path.join(t.dir, 'mgmt-admin.kubeconfig');
  let a: ControlCenterProcess;
  let b: ControlCenterProcess;
  const schedulers: SchedulerProcess[] = [];
  let mgmt: { proc: ChildProcess; output: () => string };
  const syncers = new Map<string, { proc: ChildProcess; output: () => string }>();
  const ids = { a: '', b: '' };

  const ka = (args: string[], input?: string) => kubectl('1.35', a.kubeconfig, args, { input });
  const kb = (args: string[], input?: string) => kubectl('1.35', b.kubeconfig, args, { input });
  const km = (args: string[]) => kubectl('1.35', mgmtAdmin, args);
  const startSyncer = async (name: string, cc: ControlCenterProcess, extra: string[] = []) => {
    const s = await startHcc(['syncer', '--name', 'm1', '--kubeconfig', cc.kubeconfig, '--management-kubeconfig', mgmtAdmin, '--heartbeat-interval', '1', ...extra], /"msg":"syncer ready"/);
    syncers.set(name, s);
    return s;
  };
  const stopSyncer = async (name: string) => {
    const s = syncers.get(name);
    syncers.delete(name);
    if (s) await stopProcess(s.proc);
  };
  /** The copy of HostedCluster `name` in the management cluster (uid and control center ID), or undefined. */
  const copy = async (name: string): Promise<{ uid: string; id: string | undefined; image: string } | undefined> => {
    const r = await km(['get', 'hostedcluster', '-n', ns, name, '-o', 'json', '--ignore-not-found']);
    if (r.code !== 0 || !r.stdout.trim()) return undefined;
    const o = JSON.parse(r.stdout);
    return { uid: o.metadata.uid, id: o.metadata.annotations?.[IDKey], image: o.spec.release.image };
  };
  /** The first Event of `reason` on `name` (whose message matches `like`, when given), once there is one. */
  const eventOf = (k: typeof ka, reason: string, name: string, namespace?: string, like?: RegExp) =>
    waitFor(`the ${reason} Event on ${name}`, async () => {
      const r = await k(['get', 'events', ...(namespace ? ['-n', namespace] : ['-A']), '--field-selector', `reason=${reason},involvedObject.name=${name}`, '-o', 'json']);
      return r.code === 0 && (JSON.parse(r.stdout).items as { message: string }[]).find((e) => !like || like.test(e.message));
    }, 30_000);

  beforeAll(async () => {
    [a, b] = await Promise.all([startControlCenterProcess(), startControlCenterProcess()]);
    for (const cc of [a, b]) schedulers.push(await startSchedulerProcess({ kubeconfig: cc.schedulerKubeconfig }));
    mgmt = await startHcc(['management-cluster', '--name', 'm1', '--data-dir', path.join(t.dir, 'm1'), '--kubeconfig', mgmtAdmin, '--available-delay', '300', '--delete-delay', '200'], /"msg":"management cluster ready"/);
    for (const [key, k] of [['a', ka], ['b', kb]] as const) {
      const r = await k(['get', 'namespace', 'kube-system', '-o', 'jsonpath={.metadata.uid}']);
      expect(r.code, r.stderr).toBe(0);
      ids[key] = r.stdout.trim();
      expect((await k(['create', 'namespace', ns])).code).toBe(0);
    }
    expect(ids.a).not.toBe(ids.b);
    await Promise.all([startSyncer('a', a), startSyncer('b', b)]);
  }, 180_000);

  afterAll(async () => {
    for (const name of [...syncers.keys()]) await stopSyncer(name);
    if (mgmt) await stopProcess(mgmt.proc);
    for (const s of schedulers) await s.stop();
    await a?.stop();
    await b?.stop();
    t.cleanup();
  });

  it("keeps both control centers' copies, each stamped with its own control center's ID", async () => {
    expect((await ka(['apply', '-f', '-'], [pullSecret('only-a', ns), noneHostedCluster('only-a', ns)].join('---\n'))).code).toBe(0);
    expect((await kb(['apply', '-f', '-'], [pullSecret('only-b', ns), noneHostedCluster('only-b', ns)].join('---\n'))).code).toBe(0);
    const copyA = await waitFor('the copy of only-a', () => copy('only-a'));
    const copyB = await waitFor('the copy of only-b', () => copy('only-b'));
    expect(copyA.id).toBe(ids.a);
    expect(copyB.id).toBe(ids.b);
    for (const [name, id] of [['only-a-pull-secret', ids.a], ['only-b-pull-secret', ids.b]]) {
      const s = await km(['get', 'secret', '-n', ns, name, '-o', `jsonpath={.metadata.annotations.controlcenter\\.hcc\\.dev/control-center-id}`]);
      expect(s.stdout, name).toBe(id);
    }
    // Several heartbeats and resyncs later, neither syncer has deleted the other's copy (before
    // copies carried the ID, each deleted the other's on sight, and the two fought).
    await new Promise((r) => setTimeout(r, 5000));
    expect((await copy('only-a'))?.uid).toBe(copyA.uid);
    expect((await copy('only-b'))?.uid).toBe(copyB.uid);
    const ns1 = await km(['get', 'namespace', ns, '-o', 'json']);
    expect(JSON.parse(ns1.stdout).metadata.annotations?.[IDKey]).toMatch(new RegExp(`^(${ids.a}|${ids.b})$`));
  });

  it("an ID edited by hand on a copy (another control center's, or removed) makes neither syncer delete it; its own syncer puts it back", async () => {
    const before = await copy('only-a');
    for (const edit of [`${IDKey}=${ids.b}`, `${IDKey}-`]) {
      const r = await km(['annotate', '--overwrite', 'hostedcluster', '-n', ns, 'only-a', edit]);
      expect(r.code, r.stderr).toBe(0);
      await waitFor(`A's ID back on only-a after ${edit}`, async () => (await copy('only-a'))?.id === ids.a);
    }
    await new Promise((r) => setTimeout(r, 2000));
    expect((await copy('only-a'))?.uid).toBe(before?.uid);
    expect(syncers.get('b')!.output()).not.toContain('"object":"only-a","msg":"deleting the copy"');
  });

  it("never overwrites the other's copy of a same-named HostedCluster: CopyBlocked names that control center and --take-over-from", async () => {
    expect((await ka(['apply', '-f', '-'], [pullSecret('dup', ns), noneHostedCluster('dup', ns, '4.16.12')].join('---\n'))).code).toBe(0);
    const first = await waitFor("A's copy of dup", () => copy('dup'));
    expect(first.id).toBe(ids.a);
    expect((await kb(['apply', '-f', '-'], [pullSecret('dup', ns), noneHostedCluster('dup', ns, '4.17.3')].join('---\n'))).code).toBe(0);
    const ev = await eventOf(kb, 'CopyBlocked', 'dup', ns);
    expect(ev.message).toContain(`already has a HostedCluster ${ns}/dup that the syncer of another control center (ID ${ids.a}) made under the same ManagementCluster name`);
    expect(ev.message).toContain(`--take-over-from ${ids.a}`);
    // B's dup reads Available=Unknown with the reason; A's copy keeps A's release.
    const cond = await waitFor("B's dup Available=Unknown", async () => {
      const r = await kb(['get', 'hostedcluster', '-n', ns, 'dup', '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].reason}']);
      return r.stdout === 'CopyBlocked' && r.stdout;
    });
    expect(cond).toBe('CopyBlocked');
    const now = await copy('dup');
    expect(now).toMatchObject({ uid: first.uid, id: ids.a });
    expect(now!.image).toContain('4.16.12');
  });

  it("reports the other control center's copies on its ManagementCluster when a syncer starts (OtherControlCenter)", async () => {
    await stopSyncer('b');
    await startSyncer('b', b);
    const ev = await eventOf(kb, 'OtherControlCenter', 'm1', undefined, /copies labelled/);
    expect(ev.message).toMatch(new RegExp(`holds \\d+ copies labelled controlcenter.hcc.dev/synced-by=m1 that the syncer of another control center \\(ID ${ids.a}\\) made`));
    expect(ev.message).toContain(`--take-over-from ${ids.a}`);
    // And that A's syncer runs here under the same name: its presence Lease is live.
    const running = await eventOf(kb, 'OtherControlCenter', 'm1', undefined, /also serves/);
    expect(running.message).toContain(`the syncer of another control center (ID ${ids.a}) also serves this management cluster under the name m1 (its Lease hcc-system/hcc-syncer.m1.${ids.a} is being renewed)`);
  });

  it("waits to take over from a control center whose syncer still runs here (its presence Lease is live): TakeOverWaiting, nothing deleted", async () => {
    const leases = await km(['get', 'leases', '-A', '-l', 'controlcenter.hcc.dev/syncer-presence=true', '-o', 'json']);
    const ids_ = JSON.parse(leases.stdout).items.map((l: { metadata: { annotations: Record<string, string> } }) => l.metadata.annotations[IDKey]).sort();
    expect(ids_).toEqual([ids.a, ids.b].sort());
    await stopSyncer('b');
    const before = await copy('only-a');
    await startSyncer('b', b, ['--take-over-from', ids.a]);
    const ev = await eventOf(kb, 'TakeOverWaiting', 'm1');
    expect(ev.message).toContain(`--take-over-from ${ids.a}: that control center's syncer may still run for this management cluster (its Lease hcc-system/hcc-syncer.m1.${ids.a} was last seen renewed`);
    await new Promise((r) => setTimeout(r, 3000));
    expect((await copy('only-a'))?.uid).toBe(before?.uid);
    expect(syncers.get('b')!.output()).not.toContain('"msg":"deleting the copy"');
  });

  it('with --take-over-from, a syncer takes that control center\'s copies as its own: one whose object it does not hold is deleted', async () => {
    // A is retired; B's syncer takes over its copies.
    await stopSyncer('a');
    await stopSyncer('b');
    const before = await copy('only-b');
    await startSyncer('b', b, ['--take-over-from', ids.a]);
    // Once B's syncer has seen A's presence Lease unrenewed for 2 Lease durations of 4 s.
    await waitFor('the copy of only-a deleted', async () => (await copy('only-a')) === undefined, 40_000);
    expect(syncers.get('b')!.output()).toContain(`taking over the copies of control center ${ids.a}: its syncer's Lease hcc-system/hcc-syncer.m1.${ids.a} has not been renewed for`);
    expect((await copy('only-b'))?.uid).toBe(before?.uid);
  });

  /** The verbose /readyz of a syncer started with `--metrics-port 0`, once it fails and names `what`. */
  const failingReadyz = async (s: { output: () => string }, what: string): Promise<string> => {
    await waitFor('its ops address', () => /"metrics":"(http:\/\/[^"]+)\/metrics"/.test(s.output()), 30_000);
    const ops = /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(s.output())![1]!;
    return waitFor(`/readyz naming ${what}`, async () => {
      const r = await fetch(`${ops}/readyz?verbose`);
      const text = await r.text();
      return r.status !== 200 && text.includes(what) && text;
    }, 30_000);
  };

  it("waits, and says in /readyz which rule is missing, when the control center's policy refuses it the read of the ID", async () => {
    // The shipped syncer policy without its kube-system rule, enforced for the syncer's own user.
    const docs = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy', 'control-center', 'syncer-policy.yaml'), 'utf8')).map((d) => d.toJS());
    const role = docs.find((d) => d.kind === 'ClusterRole');
    role.rules = role.rules.filter((r: { resources: string[] }) => !r.resources.includes('namespaces'));
    const policy = path.join(t.dir, 'policy-without-ns.yaml');
    writeFileSync(policy, docs.map((d) => stringify(d)).join('---\n'));
    const tokens = path.join(t.dir, 'tokens.csv');
    writeFileSync(tokens, 'syncer-token-0123456789,hcc:syncer:m2,uid-m2,"hcc:syncers"\n');
    const c = await startControlCenterProcess({ extraArgs: ['--authorization-policy', policy, '--token-file', tokens] });
    const kc = path.join(t.dir, 'm2-syncer.kubeconfig');
    const config = parse(readFileSync(c.kubeconfig, 'utf8'));
    config.users[0].user = { token: 'syncer-token-0123456789' };
    writeFileSync(kc, stringify(config));
    const s = spawnHcc(['syncer', '--name', 'm2', '--kubeconfig', kc, '--management-kubeconfig', mgmtAdmin, '--heartbeat-interval', '1', '--metrics-port', '0']);
    try {
      const body = await failingReadyz(s, 'kube-system');
      expect(body).toContain('reading the control center ID; the control center refuses this syncer the read of its kube-system namespace');
      expect(body).toContain('deploy/control-center/syncer-policy.yaml');
      // It registered nothing: no ManagementCluster m2 while it cannot stamp its copies.
      expect((await kubectl('1.35', c.kubeconfig, ['get', 'managementcluster', 'm2', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    } finally {
      await stopProcess(s.proc);
      await c.stop();
    }
  });

  it("says --kubeconfig is a management cluster's, not the control center's, when that server refuses the read and serves no ManagementClusters", async () => {
    // A management cluster where the syncer's --kubeconfig identity may do nothing but discovery
    // (its in-cluster ServiceAccount's kubeconfig put where the control center's belongs).
    const m3 = await startRestrictedManagementCluster(t.dir, 'm3', { user: 'limited', policy: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: nothing\nrules: []\n' });
    const kc = m3.userKubeconfig;
    const m3Admin = m3.adminKubeconfig;
    const s = spawnHcc(['syncer', '--name', 'm3', '--kubeconfig', kc, '--management-kubeconfig', m3Admin, '--heartbeat-interval', '1', '--metrics-port', '0']);
    try {
      const body = await failingReadyz(s, 'does not serve ManagementClusters');
      expect(body).toContain("--kubeconfig must be the control center's kubeconfig; this looks like a management cluster's or another server's");
      expect(body).not.toContain('syncer-policy.yaml');
      // Logged as a warning without a stack trace.
      const line = s.output().split('\n').find((l) => l.includes('does not serve ManagementClusters'));
      expect(line).toBeDefined();
      expect(JSON.parse(line!).err.stack).toBeUndefined();
    } finally {
      await stopProcess(s.proc);
      await stopProcess(m3.proc);
    }
  });
});
