/**
 * The control center as kubectl users see it: one `hcc control-center` process driven by real
 * kubectl 1.35, 1.28 and 1.20 (each with its own cache dir). Covers what a HyperShift user does
 * daily: namespaces and secrets (protobuf bodies from newer kubectl), apply, get in every output,
 * label selectors, describe, wait, watch, conflicts, finalizers and errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { kubectl, kubectlPath, testdata, waitFor, type KubectlVersion } from './helpers/tools.js';
import { startControlCenterProcess, type ControlCenterProcess } from './helpers/processes.js';

const versions: KubectlVersion[] = ['1.35', '1.28', '1.20'];

describe('control center with real kubectl', () => {
  let cc: ControlCenterProcess;
  beforeAll(async () => {
    cc = await startControlCenterProcess();
  });
  afterAll(async () => {
    await cc?.stop();
  });

  describe.each(versions)('kubectl %s', (v) => {
    const ns = `team-${v.replace('.', '-')}`;
    const k = (args: string[], input?: string) => kubectl(v, cc.kubeconfig, args, { input });

    it('creates a namespace and a generic secret, and reads them back', async () => {
      const c = await k(['create', 'namespace', ns]);
      expect(c.code, c.stderr).toBe(0);
      expect(c.stdout).toContain(`namespace/${ns} created`);
      const s = await k(['create', 'secret', 'generic', 'pull-secret', '-n', ns, '--from-literal=.dockerconfigjson={"auths":{}}']);
      expect(s.code, s.stderr).toBe(0);
      const got = JSON.parse((await k(['get', 'secret', 'pull-secret', '-n', ns, '-o', 'json'])).stdout);
      expect(Buffer.from(got.data['.dockerconfigjson'], 'base64').toString()).toBe('{"auths":{}}');
      expect(got.metadata.namespace).toBe(ns);
      expect(got.metadata.resourceVersion).toMatch(/^\d+$/);
      const nsObj = JSON.parse((await k(['get', 'namespace', ns, '-o', 'json'])).stdout);
      expect(nsObj.status.phase).toBe('Active');
      const dup = await k(['create', 'namespace', ns]);
      expect(dup.code).not.toBe(0);
      expect(dup.stderr).toContain(`namespaces "${ns}" already exists`);
    });

    it('applies a real HyperShift manifest and shows printer columns', async () => {
      const manifest = (await import('node:fs')).readFileSync(path.join(testdata, '08-kubevirt-v1beta1-cli-render-storage-tolerations-nads.yaml'), 'utf8').replaceAll('namespace: clusters', `namespace: ${ns}`).replace(/name: clusters\n/, `name: ${ns}\n`);
      const a = await k(['apply', '-f', '-'], manifest);
      expect(a.code, a.stderr).toBe(0);
      expect(a.stdout).toContain('hostedcluster.hypershift.openshift.io/test1 created');
      const again = await k(['apply', '-f', '-'], manifest);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain('hostedcluster.hypershift.openshift.io/test1 unchanged');
      const table = await k(['get', 'hostedclusters', '-n', ns]);
      expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+VERSION\s+KUBECONFIG\s+PROGRESS\s+AVAILABLE\s+PROGRESSING\s+MESSAGE\s+MANAGEMENT CLUSTER/);
      const np = await k(['get', 'np', '-n', ns, '-o', 'wide']);
      expect(np.stdout).toMatch(/test1\s+test1\s+2/);
      const yaml = await k(['get', 'hc', 'test1', '-n', ns, '-o', 'yaml']);
      expect(yaml.stdout).toContain('kind: HostedCluster');
      expect(yaml.stdout).toContain('type: KubeVirt');
      const all = await k(['get', 'hc', '-A']);
      expect(all.stdout).toMatch(new RegExp(`${ns}\\s+test1`));
    });

    it('filters by label and describes', async () => {
      expect((await k(['label', 'hc', 'test1', '-n', ns, 'tier=gold'])).code).toBe(0);
      const sel = await k(['get', 'hc', '-n', ns, '-l', 'tier=gold', '-o', 'name']);
      expect(sel.stdout.trim()).toBe('hostedcluster.hypershift.openshift.io/test1');
      const none = await k(['get', 'hc', '-n', ns, '-l', 'tier in (silver)', '-o', 'name']);
      expect(none.stdout.trim()).toBe('');
      const d = await k(['describe', 'hc', 'test1', '-n', ns]);
      expect(d.code, d.stderr).toBe(0);
      expect(d.stdout).toMatch(/Name:\s+test1/);
      expect(d.stdout).toContain('tier=gold');
    });

    it('lists api-resources from discovery', async () => {
      const r = await k(['api-resources']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/hostedclusters\s+hc,hcs\s+hypershift\.openshift\.io\/v1beta1\s+true\s+HostedCluster/);
      expect(r.stdout).toMatch(/managementclusters\s+mc\s+controlcenter\.hcc\.dev\/v1alpha1\s+false\s+ManagementCluster/);
    });

    it('waits for a condition set through the status subresource', async () => {
      const wait = spawn(kubectlPath(v), ['wait', '--for=condition=Available', 'hc/test1', '-n', ns, '--timeout=30s', `--cache-dir=${path.join(cc.dir, `.kube-cache-${v}`)}`], {
        env: { PATH: process.env.PATH ?? '', HOME: cc.dir, KUBECONFIG: cc.kubeconfig },
      });
      let out = '';
      wait.stdout.on('data', (d) => (out += d));
      const done = new Promise<number>((r) => wait.once('exit', (c) => r(c ?? 1)));
      await new Promise((r) => setTimeout(r, 500));
      const cur = JSON.parse((await k(['get', 'hc', 'test1', '-n', ns, '-o', 'json'])).stdout);
      const status = { conditions: [{ type: 'Available', status: 'True', reason: 'AsExpected', message: 'ok', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z/, 'Z'), observedGeneration: cur.metadata.generation }] };
      const res = await fetch(`${cc.url}/apis/hypershift.openshift.io/v1beta1/namespaces/${ns}/hostedclusters/test1/status`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ status }),
      });
      expect(res.status).toBe(200);
      expect(await done).toBe(0);
      expect(out).toContain('condition met');
    });

    it('streams changes with get -w', async () => {
      const w = spawn(kubectlPath(v), ['get', 'hc', '-n', ns, '-w', '--output-watch-events', `--cache-dir=${path.join(cc.dir, `.kube-cache-${v}`)}`], {
        env: { PATH: process.env.PATH ?? '', HOME: cc.dir, KUBECONFIG: cc.kubeconfig },
      });
      let out = '';
      w.stdout.on('data', (d) => (out += d));
      try {
        await waitFor('the initial listing', () => out.includes('test1'), 10_000);
        await k(['annotate', 'hc', 'test1', '-n', ns, `touched=${Date.now()}`]);
        await waitFor('a MODIFIED event', () => /MODIFIED\s+test1/.test(out), 10_000);
      } finally {
        w.kill();
      }
    });

    it('deletes with finalizers: deletionTimestamp first, gone when the last finalizer is removed', async () => {
      await k(['patch', 'hc', 'test1', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);
      const d = await k(['delete', 'hc', 'test1', '-n', ns, '--wait=false']);
      expect(d.code, d.stderr).toBe(0);
      const held = JSON.parse((await k(['get', 'hc', 'test1', '-n', ns, '-o', 'json'])).stdout);
      expect(held.metadata.deletionTimestamp).toBeTruthy();
      await k(['patch', 'hc', 'test1', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
      const gone = await k(['get', 'hc', 'test1', '-n', ns]);
      expect(gone.code).not.toBe(0);
      expect(gone.stderr).toContain('hostedclusters.hypershift.openshift.io "test1" not found');
    });
  });

  it('answers a stale resourceVersion with 409 Conflict', async () => {
    const base = `${cc.url}/api/v1/namespaces/default/configmaps`;
    const created = await (await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '1' } }) })).json();
    const first = await fetch(`${base}/c1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...created, data: { a: '2' } }) });
    expect(first.status).toBe(200);
    const stale = await fetch(`${base}/c1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...created, data: { a: '3' } }) });
    expect(stale.status).toBe(409);
    const body = await stale.json();
    expect(body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(body.message).toContain('the object has been modified');
  });

  it('rejects invalid objects with 422 and field causes, writing nothing', async () => {
    const res = await fetch(`${cc.url}/apis/hypershift.openshift.io/v1beta1/namespaces/default/nodepools`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'np1' }, spec: { replicas: 'two', management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'x' } } }),
    });
    expect(res.status).toBe(422);
    const st = await res.json();
    expect(st.reason).toBe('Invalid');
    const fields = st.details.causes.map((c: { field: string }) => c.field);
    expect(fields).toEqual(expect.arrayContaining(['spec.replicas', 'spec.clusterName']));
    const after = await fetch(`${cc.url}/apis/hypershift.openshift.io/v1beta1/namespaces/default/nodepools/np1`);
    expect(after.status).toBe(404);
  });
});
