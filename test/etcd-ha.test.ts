/**
 * Several control centers on one etcd, end to end: a real etcd (the test fails, not skips, when
 * the binary is missing) and two `hcc control-center --storage etcd` processes started at the same
 * moment on different ports, with one shared TLS CA (pre-generated into both data dirs; each
 * replica issues its own serving certificate from it) and one admin token. kubectl 1.35 writes through one replica and reads and watches through the other
 * (also resuming a watch with a resourceVersion the first replica returned); with etcd frozen a
 * replica is not ready and refuses reads that must be the most recent; a third replica started
 * after a chunked list began serves its next pages from etcd; then the first
 * replica is killed with SIGKILL and the second keeps serving, its open watch included.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeconfig, RestClient } from '@hcc/client';
import { ConfigMapResource, type KubeObject } from '@hcc/crds';
import { startTestEtcd, type TestEtcd } from '../packages/control-center/src/storage/etcd/testing-etcd.js';
import { ensureServingCerts } from '../packages/control-center/src/pki.js';
import { startControlCenterProcess, type ControlCenterProcess } from './helpers/processes.js';
import { kubectl, kubectlPath, tempDir, waitFor } from './helpers/tools.js';

const ns = 'ha';

describe('control center: two replicas on one etcd', () => {
  let etcd: TestEtcd;
  let a: ControlCenterProcess;
  let b: ControlCenterProcess;
  let pki: { dir: string; cleanup: () => void };
  let dirs: { dir: string; cleanup: () => void }[] = [];
  let watcher: ChildProcess | undefined;
  let watchOut = '';
  let replicaArgs: string[] = [];
  const ka = (args: string[]) => kubectl('1.35', a.kubeconfig, args);
  const kb = (args: string[]) => kubectl('1.35', b.kubeconfig, args);

  beforeAll(async () => {
    etcd = await startTestEtcd();
    // One CA for both replicas, as a Deployment would mount from a Secret.
    pki = tempDir('hcc-pki-');
    await ensureServingCerts(pki.dir);
    dirs = [tempDir('hcc-cc-a-'), tempDir('hcc-cc-b-')];
    for (const d of dirs) for (const f of ['ca.crt', 'ca.key']) cpSync(path.join(pki.dir, f), path.join(d.dir, 'data', 'pki', f));
    const token = randomBytes(16).toString('hex');
    const schedulerToken = randomBytes(16).toString('hex');
    const args = ['--storage', 'etcd', '--etcd-endpoints', etcd.endpoint, '--etcd-prefix', '/hcc-e2e', '--token', token, '--scheduler-token', schedulerToken];
    replicaArgs = args;
    // Both start at once: each creates the default namespaces and installs the CRDs.
    [a, b] = await Promise.all(dirs.map((d) => startControlCenterProcess({ dir: d.dir, extraArgs: args })));
  });

  afterAll(async () => {
    watcher?.kill();
    await a?.stop();
    await b?.stop();
    for (const d of dirs) d.cleanup(); // given as `dir`, the processes' stop() keeps them
    pki?.cleanup();
    await etcd?.stop();
  });

  it('both replicas came up on the same objects: namespaces and CRDs exist once', async () => {
    for (const k of [ka, kb]) {
      const nss = await k(['get', 'namespaces', '-o', 'name']);
      expect(nss.code, nss.stderr).toBe(0);
      expect(nss.stdout.split('\n').filter(Boolean).sort()).toEqual(['namespace/default', 'namespace/hcc-system', 'namespace/kube-public', 'namespace/kube-system']);
      const crds = await k(['get', 'crd', '-o', 'name']);
      expect(crds.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/hostedclusters.hypershift.openshift.io');
      // Each replica serves the CRDs, also the ones the other replica created first.
      const hcs = await k(['get', 'hostedclusters', '-A']);
      expect(hcs.code, hcs.stderr).toBe(0);
    }
    const uidA = JSON.parse((await ka(['get', 'namespace', 'default', '-o', 'json'])).stdout).metadata.uid;
    const uidB = JSON.parse((await kb(['get', 'namespace', 'default', '-o', 'json'])).stdout).metadata.uid;
    expect(uidA).toBe(uidB);
  });

  it("the scheduler's identity works on every replica given the same --scheduler-token", async () => {
    // A's scheduler kubeconfig pointed at B: the scheduler can fail over to any replica.
    const moved = path.join(path.dirname(a.schedulerKubeconfig), 'scheduler-to-b.kubeconfig');
    writeFileSync(moved, readFileSync(a.schedulerKubeconfig, 'utf8').replace(/server: \S+/, `server: ${b.url}`));
    const who = await kubectl('1.35', moved, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(who.code, who.stderr).toBe(0);
    expect(who.stdout).toBe('system:hcc:scheduler');
  });

  it('writes through one replica are read and watched through the other', async () => {
    expect((await ka(['create', 'namespace', ns])).code).toBe(0);
    // A ConfigMap the watch lists first: once it shows, the watch is on (a cold kubectl's discovery takes a while).
    expect((await ka(['create', 'configmap', 'sentinel', '-n', ns])).code).toBe(0);
    watcher = spawn(kubectlPath('1.35'), ['get', 'configmaps', '-n', ns, '-w', '--output-watch-events', `--cache-dir=${path.join(b.dir, '.kube-cache-watch')}`], {
      env: { PATH: process.env.PATH ?? '', HOME: b.dir, KUBECONFIG: b.kubeconfig },
    });
    watcher.stdout!.on('data', (d) => (watchOut += d));
    watcher.stderr!.on('data', (d) => (watchOut += d));
    await waitFor('the watch on B to start (its list comes first)', () => /ADDED\s+sentinel/.test(watchOut), 30_000);
    expect((await ka(['delete', 'configmap', 'sentinel', '-n', ns])).code).toBe(0);

    const c = await ka(['create', 'configmap', 'settings', '-n', ns, '--from-literal=color=blue']);
    expect(c.code, c.stderr).toBe(0);
    const onA = JSON.parse((await ka(['get', 'configmap', 'settings', '-n', ns, '-o', 'json'])).stdout);
    const onB = await waitFor('B to serve the ConfigMap', async () => {
      const r = await kb(['get', 'configmap', 'settings', '-n', ns, '-o', 'json']);
      return r.code === 0 ? JSON.parse(r.stdout) : undefined;
    });
    expect(onB.metadata.resourceVersion).toBe(onA.metadata.resourceVersion);
    expect(onB.metadata.uid).toBe(onA.metadata.uid);
    expect(onB.data).toEqual({ color: 'blue' });

    expect((await ka(['label', 'configmap', 'settings', '-n', ns, 'tier=gold'])).code).toBe(0);
    expect((await ka(['create', 'configmap', 'scratch', '-n', ns])).code).toBe(0);
    expect((await ka(['delete', 'configmap', 'scratch', '-n', ns])).code).toBe(0);
    await waitFor('B\'s watch to show the events', () => /ADDED\s+settings[\s\S]*MODIFIED\s+settings[\s\S]*ADDED\s+scratch[\s\S]*DELETED\s+scratch/.test(watchOut), 20_000);

    // An update through B with the resourceVersion A returned: one linearizable history.
    const fresh = JSON.parse((await ka(['get', 'configmap', 'settings', '-n', ns, '-o', 'json'])).stdout);
    const stale = { ...fresh, metadata: { ...fresh.metadata, resourceVersion: onA.metadata.resourceVersion } };
    const rest = new RestClient(loadKubeconfig(b.kubeconfig));
    try {
      await expect(rest.update(ConfigMapResource, ns, stale)).rejects.toMatchObject({ code: 409 });
      // A watch on B resumed from a resourceVersion A returned replays what happened since.
      const events: string[] = [];
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), 10_000);
      await rest.watch<KubeObject>(ConfigMapResource, { namespace: ns, resourceVersion: onA.metadata.resourceVersion }, (e) => {
        events.push(`${e.type} ${e.object.metadata.name}`);
        if (e.type === 'DELETED') ac.abort();
      }, ac.signal);
      clearTimeout(timer);
      expect(events[0]).toBe('MODIFIED settings');
      expect(events[1]).toBe('ADDED scratch');
      expect(events.at(-1)).toBe('DELETED scratch');
    } finally {
      rest.close();
    }
  });

  it('a replica that cannot reach etcd is not ready and refuses most-recent reads instead of answering stale ones', async () => {
    const ready = await kb(['get', '--raw', '/readyz?verbose']);
    expect(ready.stdout).toContain('[+]etcd ok');
    // etcd stops answering (frozen: no connection closes, as a network that drops packets).
    etcd.proc.kill('SIGSTOP');
    try {
      const notReady = await kb(['get', '--raw', '/readyz?verbose']);
      expect(notReady.code).not.toBe(0);
      expect(notReady.stdout + notReady.stderr).toMatch(/\[-\]etcd failed/);
      // Without a resourceVersion a read must be the most recent: an error, not the last state seen.
      const get = await kb(['get', 'configmap', 'settings', '-n', ns, '-o', 'json']);
      expect(get.code).not.toBe(0);
      expect(get.stderr).toMatch(/etcd/);
      // So must a watch without one ("start at the most recent"): refused before anything streams.
      const watch = await kb(['get', '--raw', `/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=2`]);
      expect(watch.code).not.toBe(0);
      expect(watch.stderr).toMatch(/etcd/);
      expect(watch.stdout).not.toContain('settings');
      // resourceVersion=0 (any) is still served from the replica's copy, as kube-apiserver's cache does.
      const any = await kb(['get', '--raw', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=0`]);
      expect(any.code, any.stderr).toBe(0);
      expect(JSON.parse(any.stdout).items.map((i: KubeObject) => i.metadata.name)).toContain('settings');
    } finally {
      etcd.proc.kill('SIGCONT');
    }
    await waitFor('B ready again', async () => (await kb(['get', '--raw', '/readyz'])).code === 0, 30_000);
    expect((await kb(['get', 'configmap', 'settings', '-n', ns])).code).toBe(0);
  });

  it('a replica started after a chunked list began serves its next pages, and Exact lists of that revision, from etcd', async () => {
    expect((await ka(['create', 'namespace', 'pages'])).code).toBe(0);
    for (const n of ['page-1', 'page-2', 'page-3']) expect((await ka(['create', 'configmap', n, '-n', 'pages', '--from-literal=v=old'])).code).toBe(0);
    const first = JSON.parse((await ka(['get', '--raw', '/api/v1/namespaces/pages/configmaps?limit=1'])).stdout);
    const rv = first.metadata.resourceVersion;
    expect(first.items.map((i: KubeObject) => i.metadata.name)).toEqual(['page-1']);
    expect((await ka(['delete', 'configmap', 'page-2', '-n', 'pages'])).code).toBe(0);
    expect((await ka(['create', 'configmap', 'page-4', '-n', 'pages'])).code).toBe(0);
    // C has no history of `rv` (it starts after it): etcd has, as for kube-apiserver.
    const d = tempDir('hcc-cc-c-');
    for (const f of ['ca.crt', 'ca.key']) cpSync(path.join(pki.dir, f), path.join(d.dir, 'data', 'pki', f));
    const c = await startControlCenterProcess({ dir: d.dir, extraArgs: replicaArgs });
    try {
      const kc = (args: string[]) => kubectl('1.35', c.kubeconfig, args);
      const seen = [...first.items];
      for (let token = first.metadata.continue; token; ) {
        const page = JSON.parse((await kc(['get', '--raw', `/api/v1/namespaces/pages/configmaps?limit=1&continue=${encodeURIComponent(token)}`])).stdout);
        expect(page.metadata.resourceVersion).toBe(rv);
        seen.push(...page.items);
        token = page.metadata.continue;
      }
      expect(seen.map((i: KubeObject) => i.metadata.name)).toEqual(['page-1', 'page-2', 'page-3']);
      const exact = await kc(['get', '--raw', `/api/v1/namespaces/pages/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`]);
      expect(exact.code, exact.stderr).toBe(0);
      expect(JSON.parse(exact.stdout).items.map((i: KubeObject) => i.metadata.name)).toEqual(['page-1', 'page-2', 'page-3']);
    } finally {
      await c.stop();
      d.cleanup();
    }
  });

  it('keeps serving, watch included, when the other replica is killed', async () => {
    await a.kill('SIGKILL');
    const c = await kb(['create', 'configmap', 'after-failover', '-n', ns, '--from-literal=ok=yes']);
    expect(c.code, c.stderr).toBe(0);
    const got = JSON.parse((await kb(['get', 'configmap', 'after-failover', '-n', ns, '-o', 'json'])).stdout);
    expect(got.data).toEqual({ ok: 'yes' });
    await waitFor('the watch on B to show the new ConfigMap', () => /ADDED\s+after-failover/.test(watchOut), 10_000);
    const list = await kb(['get', 'configmaps', '-n', ns, '-o', 'name']);
    expect(list.stdout.split('\n').filter(Boolean).sort()).toEqual(['configmap/after-failover', 'configmap/settings']);
    const down = await ka(['get', 'namespaces', '--request-timeout=2s']);
    expect(down.code).not.toBe(0);
  });
});
