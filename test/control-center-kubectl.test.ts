/**
 * The control center as kubectl users see it: one `hcc control-center` process driven by real
 * kubectl 1.35, 1.28 and 1.20 (each with its own cache dir). Covers what a HyperShift user does
 * daily: namespaces and secrets (protobuf bodies from newer kubectl), apply, get in every output,
 * label selectors, describe, wait, watch, conflicts, finalizers and errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import { kubectl, kubectlPath, testdata, waitFor, type KubectlVersion } from './helpers/tools.js';
import { startControlCenterProcess, type ControlCenterProcess } from './helpers/processes.js';
import { noneHostedCluster } from './helpers/manifests.js';
import { ApiError, loadKubeconfig, RestClient } from '@hcc/client';
import { ConfigMapResource, HostedClusterResource, NodePoolResource } from '@hcc/crds';

const versions: KubectlVersion[] = ['1.35', '1.28', '1.20'];

describe('control center with real kubectl', () => {
  let cc: ControlCenterProcess;
  let rest: RestClient | undefined;
  const client = () => (rest ??= new RestClient(loadKubeconfig(cc.kubeconfig)));
  beforeAll(async () => {
    cc = await startControlCenterProcess();
  });
  afterAll(async () => {
    rest?.close();
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
      const manifest = (await import('node:fs')).readFileSync(path.join(testdata, '08-kubevirt-v1beta1-cli-render-storage-tolerations-nads.yaml'), 'utf8').replaceAll('namespace: clusters', `namespace: ${ns}`).replace(/name: clusters\n/, `name: ${ns}\n`).replace(/\nstatus:\n  controlPlaneEndpoint:\n    host: ""\n    port: 0\n/, '\n').replace(/\nstatus:\n  replicas: 0\n/, '\n');
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
      // HostedClusters and NodePools are in the `all` category: `kubectl get all` lists them.
      const everything = await k(['get', 'all', '-n', ns, '-o', 'name']);
      expect(everything.code, everything.stderr).toBe(0);
      expect(everything.stdout.trim().split('\n').sort()).toEqual(['hostedcluster.hypershift.openshift.io/test1', 'nodepool.hypershift.openshift.io/test1']);
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

    it('scales a NodePool through the scale subresource', async () => {
      const sc = await k(['scale', 'nodepool', 'test1', '-n', ns, '--replicas=5']);
      expect(sc.code, sc.stderr).toBe(0);
      expect(sc.stdout).toContain('nodepool.hypershift.openshift.io/test1 scaled');
      const np = JSON.parse((await k(['get', 'np', 'test1', '-n', ns, '-o', 'json'])).stdout);
      expect(np.spec.replicas).toBe(5);
      expect(np.metadata.generation).toBe(2);
      // `kubectl get --subresource=scale` (kubectl 1.24+) prints the scale columns, as apiextensions-apiserver serves them.
      if (v === '1.20') return;
      const table = await k(['get', 'np', 'test1', '-n', ns, '--subresource=scale']);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+DESIRED\s+AVAILABLE\s+AGE$/);
      expect(table.stdout.split('\n')[1]).toMatch(/^test1\s+5\s+\d+\s+\S+$/);
      const scale = JSON.parse((await k(['get', 'np', 'test1', '-n', ns, '--subresource=scale', '-o', 'json'])).stdout);
      expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 5 } });
    });

    it('lists api-resources from discovery', async () => {
      const r = await k(['api-resources']);
      expect(r.code, r.stderr).toBe(0);
      // The review APIs are listed too, so a review manifest resolves through discovery.
      expect(r.stdout).toMatch(/selfsubjectaccessreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectAccessReview/);
      expect(r.stdout).toMatch(/selfsubjectreviews\s+authentication\.k8s\.io\/v1\s+false\s+SelfSubjectReview/);
      const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'list', resource: 'secrets', namespace: ns } } };
      const created = await k(['create', '-f', '-', '-o', 'jsonpath={.status.allowed}'], JSON.stringify(review));
      expect([created.code, created.stdout, created.stderr]).toEqual([0, 'true', '']);
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
      const patched = await client().patch<{ status: typeof status }>(HostedClusterResource, ns, 'test1', { status }, 'merge', { subresource: 'status' });
      expect(patched.status.conditions[0]!.type).toBe('Available');
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
    it('finalizes a Terminating namespace held by its own finalizer with replace --raw .../finalize', async () => {
      const name = `${ns}-fin`;
      const c = await k(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: ['example.com/hold'] } }));
      expect(c.code, c.stderr).toBe(0);
      expect((await k(['delete', 'namespace', name, '--wait=false'])).code).toBe(0);
      await waitFor(`${name} emptied`, async () => JSON.parse((await k(['get', 'namespace', name, '-o', 'json'])).stdout).spec.finalizers.join() === 'example.com/hold', 10_000);
      const held = JSON.parse((await k(['get', 'namespace', name, '-o', 'json'])).stdout);
      expect(held.status.phase).toBe('Terminating');
      const f = await k(['replace', '--raw', `/api/v1/namespaces/${name}/finalize`, '-f', '-'], JSON.stringify({ ...held, spec: { finalizers: [] } }));
      expect(f.code, f.stderr).toBe(0);
      const gone = await k(['get', 'namespace', name]);
      expect(gone.stderr).toContain(`namespaces "${name}" not found`);
    });

    it('deletes with --cascade=orphan, foreground and background as the garbage collector defines them', async () => {
      const json = async (args: string[]) => {
        const r = await k([...args, '-o', 'json']);
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout);
      };
      const gone = async (kind: string, name: string) => (await k(['get', kind, name, '-n', ns])).code !== 0;
      const owned = async (owner: string, deps: { name: string; block?: boolean; finalizers?: string[] }[]) => {
        const o = await json(['create', 'configmap', owner, '-n', ns]);
        for (const d of deps) {
          const dep = {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: d.name,
              namespace: ns,
              ...(d.finalizers && { finalizers: d.finalizers }),
              ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: o.metadata.uid, ...(d.block && { blockOwnerDeletion: true }) }],
            },
          };
          const c = await k(['create', '-f', '-'], JSON.stringify(dep));
          expect(c.code, c.stderr).toBe(0);
        }
        return o.metadata.uid as string;
      };

      // Orphan: the owner goes, dependents stay and no longer name it.
      await owned('orphan-owner', [{ name: 'orphan-dep' }]);
      const o = await k(['delete', 'configmap', 'orphan-owner', '-n', ns, '--cascade=orphan', '--timeout=20s']);
      expect(o.code, o.stderr).toBe(0);
      expect(await gone('configmap', 'orphan-owner')).toBe(true);
      const kept = await json(['get', 'configmap', 'orphan-dep', '-n', ns]);
      expect(kept.metadata.ownerReferences).toBeUndefined();

      // Foreground: the owner waits, with deletionTimestamp and foregroundDeletion, until its blocking dependent is gone.
      await owned('fg-owner', [{ name: 'fg-dep', block: true, finalizers: ['example.com/hold'] }, { name: 'fg-free' }]);
      const f = await k(['delete', 'configmap', 'fg-owner', '-n', ns, '--cascade=foreground', '--wait=false']);
      expect(f.code, f.stderr).toBe(0);
      await waitFor('fg-free collected', () => gone('configmap', 'fg-free'));
      const waiting = await json(['get', 'configmap', 'fg-owner', '-n', ns]);
      expect(waiting.metadata.deletionTimestamp).toBeTruthy();
      expect(waiting.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect((await json(['get', 'configmap', 'fg-dep', '-n', ns])).metadata.deletionTimestamp).toBeTruthy();
      await k(['patch', 'configmap', 'fg-dep', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
      await waitFor('fg-owner deleted after its dependent', () => gone('configmap', 'fg-owner'));
      expect(await gone('configmap', 'fg-dep')).toBe(true);

      // Background (kubectl's default): the owner goes at once, dependents after it.
      await owned('bg-owner', [{ name: 'bg-dep' }]);
      const b = await k(['delete', 'configmap', 'bg-owner', '-n', ns]);
      expect(b.code, b.stderr).toBe(0);
      await waitFor('bg-dep collected', () => gone('configmap', 'bg-dep'));
    });
  });

  it('`kubectl delete -f` of a file that lists its Namespace first deletes the objects after it itself (the namespace controller waits 5 s first, as kube\'s)', async () => {
    const k = (args: string[], input?: string) => kubectl('1.35', cc.kubeconfig, args, { input });
    const file = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'nsfirst' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pull', namespace: 'nsfirst' }, stringData: { a: 'b' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bundle', namespace: 'nsfirst' }, data: { a: 'b' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'etcd-key', namespace: 'nsfirst' }, stringData: { a: 'b' } },
    ].map((o) => JSON.stringify(o)).join('\n---\n');
    const a = await k(['apply', '-f', '-'], file);
    expect(a.code, a.stderr).toBe(0);
    const d = await k(['delete', '-f', '-', '--timeout=60s'], file);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toContain('secret "etcd-key" deleted');
    expect((await k(['get', 'namespace', 'nsfirst', '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
  });

  it('expires Events after --event-ttl, as kube-apiserver does', async () => {
    // 5 s: an Event may go ~1 s after its TTL (stamps have whole seconds, the sweep runs every
    // TTL/4), so a 2 s TTL could take it before a kubectl on a loaded machine looked.
    const short = await startControlCenterProcess({ extraArgs: ['--event-ttl', '5s'] });
    try {
      const k = (args: string[], input?: string) => kubectl('1.35', short.kubeconfig, args, { input });
      const ev = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'hc-1.placed', namespace: 'default' }, involvedObject: { kind: 'HostedCluster', name: 'hc-1', namespace: 'default' }, reason: 'Scheduled', message: 'placed', type: 'Normal' };
      const c = await k(['create', '-f', '-'], JSON.stringify(ev));
      expect(c.code, c.stderr).toBe(0);
      expect((await k(['get', 'events', '-n', 'default'])).stdout).toContain('Scheduled');
      await waitFor('the Event to expire', async () => (await k(['get', 'event', 'hc-1.placed', '-n', 'default'])).code !== 0, 20_000);
      const cm = await k(['create', 'configmap', 'stays', '-n', 'default']);
      expect(cm.code, cm.stderr).toBe(0);
      await new Promise((r) => setTimeout(r, 6000));
      expect((await k(['get', 'configmap', 'stays', '-n', 'default'])).code).toBe(0);
    } finally {
      await short.stop();
    }
  });

  it('answers a DELETE as kube-apiserver does: a Success Status for built-in kinds, the object for custom resources and while finalizers hold it', async () => {
    const c = client();
    const cm = await c.create(ConfigMapResource, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'del-status' } });
    expect(await c.delete(ConfigMapResource, 'default', 'del-status')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'del-status', kind: 'configmaps', uid: cm.metadata.uid },
    });
    await c.create(ConfigMapResource, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'del-held', finalizers: ['example.com/hold'] } });
    const held = (await c.delete(ConfigMapResource, 'default', 'del-held')) as { kind?: string; metadata?: { deletionTimestamp?: string } };
    expect(held.kind).toBe('ConfigMap');
    expect(held.metadata?.deletionTimestamp).toBeTruthy();
    await c.patch(ConfigMapResource, 'default', 'del-held', { metadata: { finalizers: null } }, 'merge');
    const np = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'del-np' }, spec: { clusterName: 'x', replicas: 0, management: { upgradeType: 'Replace' }, release: { image: 'quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64' }, platform: { type: 'None' } } };
    await c.create(NodePoolResource, 'default', np);
    expect(await c.delete(NodePoolResource, 'default', 'del-np')).toMatchObject({ kind: 'NodePool', metadata: { name: 'del-np' } });
  });

  it('validates and deduplicates ownerReferences, and answers 202 to a cascading delete that waits', async () => {
    const k = (args: string[], input?: string) => kubectl('1.35', cc.kubeconfig, args, { input });
    const owner = JSON.parse((await k(['create', 'configmap', 'refs-owner', '-n', 'default', '-o', 'json'])).stdout);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'refs-owner', uid: owner.metadata.uid };
    const cm = (name: string, refs: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', ownerReferences: refs, ...extra } });
    const dup = await k(['create', '-f', '-'], cm('refs-dup', [ref, ref]));
    expect(dup.code, dup.stderr).toBe(0);
    expect(dup.stderr).toContain('Warning: metadata.ownerReferences contains duplicate entries');
    expect(JSON.parse((await k(['get', 'configmap', 'refs-dup', '-n', 'default', '-o', 'json'])).stdout).metadata.ownerReferences).toHaveLength(1);
    const bad = await k(['create', '-f', '-'], cm('refs-bad', [{ ...ref, uid: '' }]));
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('metadata.ownerReferences.uid: Invalid value: "": must not be empty');
    const twoControllers = await k(['create', '-f', '-'], cm('refs-two', [{ ...ref, controller: true }, { ...ref, name: 'b', uid: 'u2', controller: true }]));
    expect(twoControllers.code).not.toBe(0);
    expect(twoControllers.stderr).toContain('Only one reference can have Controller set to true');
    expect((await k(['get', 'configmap', 'refs-bad', 'refs-two', '-n', 'default'])).code).not.toBe(0);
    // orphanDependents: false on an object its finalizer holds: 202 Accepted, as kube-apiserver answers.
    await k(['create', '-f', '-'], cm('refs-held', [], { finalizers: ['example.com/hold'] }));
    const conn = loadKubeconfig(cc.kubeconfig);
    const del = await new Promise<{ code: number; body: { kind?: string; metadata?: { deletionTimestamp?: string } } }>((resolve, reject) => {
      const body = JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false });
      // Node sends a DELETE body only with an explicit length.
      const headers = { authorization: `Bearer ${conn.token}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
      const req = httpsRequest(new URL('/api/v1/namespaces/default/configmaps/refs-held', conn.server), { method: 'DELETE', ca: conn.ca, headers }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(del.code, JSON.stringify(del.body)).toBe(202);
    expect(del.body.kind).toBe('ConfigMap');
    expect(del.body.metadata?.deletionTimestamp).toBeTruthy();
    await client().patch(ConfigMapResource, 'default', 'refs-held', { metadata: { finalizers: null } }, 'merge');
  });

  it('apply --prune works with an explicit allowlist or an ApplySet (kubectl\'s default list names kinds hcc does not serve)', async () => {
    const ns = 'prune-team';
    const k = (args: string[], input?: string, env?: Record<string, string>) => kubectl('1.35', cc.kubeconfig, args, { input, ...(env ? { env } : {}) });
    expect((await k(['create', 'namespace', ns])).code).toBe(0);
    const dir = (await import('node:fs')).mkdtempSync(path.join((await import('node:os')).tmpdir(), 'hcc-prune-'));
    const fs = await import('node:fs');
    try {
      const write = (name: string) => fs.writeFileSync(path.join(dir, `${name}.yaml`), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  labels: {app: prunetest}\ndata: {x: "1"}\n`);
      write('one');
      write('two');
      const allow = ['--prune-allowlist=core/v1/ConfigMap', '--prune-allowlist=hypershift.openshift.io/v1beta1/HostedCluster'];
      expect((await k(['apply', '-f', dir, '-l', 'app=prunetest', '--prune', ...allow])).code).toBe(0);
      fs.rmSync(path.join(dir, 'two.yaml'));
      const pruned = await k(['apply', '-f', dir, '-l', 'app=prunetest', '--prune', ...allow]);
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(pruned.stdout).toContain('configmap/two pruned');
      // ApplySets (KUBECTL_APPLYSET=true) record what they applied in a parent Secret and prune only those kinds.
      write('three');
      const env = { KUBECTL_APPLYSET: 'true' };
      expect((await k(['apply', '-n', ns, '-f', dir, '--prune', '--applyset=set1'], undefined, env)).code).toBe(0);
      fs.rmSync(path.join(dir, 'three.yaml'));
      const set = await k(['apply', '-n', ns, '-f', dir, '--prune', '--applyset=set1'], undefined, env);
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).toContain('configmap/three pruned');
      expect((await k(['get', 'configmap', 'one', '-n', ns])).code).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores an empty YAML value (`KEY:`, JSON null) of labels, annotations and data as "", as kube-apiserver decodes it, never dropping the key', async () => {
    const k = (args: string[], input?: string) => kubectl('1.35', cc.kubeconfig, args, { input });
    const ns = 'null-values';
    expect((await k(['create', 'namespace', ns])).code).toBe(0);
    const cm = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nullv\n  namespace: ${ns}\n  labels:\n    l1:\n  annotations:\n    a1:\ndata:\n  EMPTY:\n  FULL: x\n`;
    const created = await k(['create', '-f', '-'], cm);
    expect(created.code, created.stderr).toBe(0);
    const got = JSON.parse((await k(['get', 'configmap', 'nullv', '-n', ns, '-o', 'json'])).stdout);
    expect(got.data).toEqual({ EMPTY: '', FULL: 'x' });
    expect(got.metadata.labels).toEqual({ l1: '' });
    expect(got.metadata.annotations).toEqual({ a1: '' });
    // The label selects it, as a label with an empty value does.
    expect((await k(['get', 'configmaps', '-n', ns, '-l', 'l1=', '-o', 'name'])).stdout.trim()).toBe('configmap/nullv');
    // A JSON patch adding null, a replace with a null value, server-side apply: the same.
    const patched = await k(['patch', 'configmap', 'nullv', '-n', ns, '--type=json', '-p', '[{"op":"add","path":"/data/nl","value":null}]']);
    expect(patched.code, patched.stderr).toBe(0);
    expect(patched.stdout).toContain('configmap/nullv patched');
    expect(JSON.parse((await k(['get', 'configmap', 'nullv', '-n', ns, '-o', 'json'])).stdout).data).toEqual({ EMPTY: '', FULL: 'x', nl: '' });
    const current = JSON.parse((await k(['get', 'configmap', 'nullv', '-n', ns, '-o', 'json'])).stdout);
    const replaced = await k(['replace', '-f', '-'], JSON.stringify({ ...current, data: { k1: null } }));
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(JSON.parse((await k(['get', 'configmap', 'nullv', '-n', ns, '-o', 'json'])).stdout).data).toEqual({ k1: '' });
    const applied = await k(['apply', '--server-side', '-f', '-'], cm.replace('name: nullv', 'name: ssa'));
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse((await k(['get', 'configmap', 'ssa', '-n', ns, '-o', 'json'])).stdout).data).toEqual({ EMPTY: '', FULL: 'x' });
    const secret = await k(['create', '-f', '-'], `apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: ${ns}\ndata:\n  k:\nstringData:\n  s:\n`);
    expect(secret.code, secret.stderr).toBe(0);
    expect(JSON.parse((await k(['get', 'secret', 's', '-n', ns, '-o', 'json'])).stdout).data).toEqual({ k: '', s: '' });
    // A custom resource's metadata is ObjectMeta as well: accepted, not a 422 "must be a string".
    const hc = noneHostedCluster('nulls', ns).replace(`metadata: {name: nulls, namespace: ${ns}}`, `metadata:\n  name: nulls\n  namespace: ${ns}\n  labels:\n    l1:\n  annotations:\n    a1:`);
    const hcCreated = await k(['create', '-f', '-'], hc);
    expect(hcCreated.code, hcCreated.stderr).toBe(0);
    const hcGot = JSON.parse((await k(['get', 'hostedcluster', 'nulls', '-n', ns, '-o', 'json'])).stdout);
    expect(hcGot.metadata.labels).toEqual({ l1: '' });
    expect(hcGot.metadata.annotations).toEqual({ a1: '' });
    const hcPatched = await k(['patch', 'hostedcluster', 'nulls', '-n', ns, '--type=json', '-p', '[{"op":"add","path":"/metadata/labels/nl","value":null}]']);
    expect(hcPatched.code, hcPatched.stderr).toBe(0);
    expect(JSON.parse((await k(['get', 'hostedcluster', 'nulls', '-n', ns, '-o', 'json'])).stdout).metadata.labels).toEqual({ l1: '', nl: '' });
  });

  it('`kubectl get events -o wide` shows upstream\'s wide Event columns (SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME)', async () => {
    const k = (args: string[], input?: string) => kubectl('1.35', cc.kubeconfig, args, { input });
    const ns = 'wide-events';
    expect((await k(['create', 'namespace', ns])).code).toBe(0);
    const ev = `apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\n  namespace: ${ns}\ninvolvedObject:\n  kind: ConfigMap\n  name: c\n  namespace: ${ns}\n  fieldPath: data.k\nreason: Test\nmessage: hello\ntype: Normal\nsource:\n  component: me\n  host: h1\ncount: 3\nfirstTimestamp: "2026-01-01T00:00:00Z"\nlastTimestamp: "2026-01-01T00:00:00Z"\n`;
    expect((await k(['create', '-f', '-'], ev)).code).toBe(0);
    const narrow = (await k(['get', 'events', '-n', ns])).stdout.split('\n');
    expect(narrow[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    const wide = (await k(['get', 'events', '-n', ns, '-o', 'wide'])).stdout.split('\n');
    expect(wide[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME$/);
    expect(wide[1]).toMatch(/\s+Normal\s+Test\s+configmap\/c\s+data\.k\s+me, h1\s+hello\s+\S+\s+3\s+e1$/);
  });

  it('answers a stale resourceVersion with 409 Conflict', async () => {
    const c = client();
    const created = await c.create(ConfigMapResource, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '1' } });
    await c.update(ConfigMapResource, 'default', { ...created, data: { a: '2' } });
    const err = await c.update(ConfigMapResource, 'default', { ...created, data: { a: '3' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect((err as ApiError).message).toContain('the object has been modified');
  });

  it('rejects invalid objects with 422 and field causes, writing nothing', async () => {
    const c = client();
    const err = await c
      .create(NodePoolResource, 'default', { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'np1' }, spec: { replicas: 'two', management: { upgradeType: 'Replace' }, platform: { type: 'None' }, release: { image: 'x' } } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const st = (err as ApiError).status;
    expect(st.code).toBe(422);
    expect(st.reason).toBe('Invalid');
    expect(st.details!.causes!.map((x) => x.field)).toEqual(expect.arrayContaining(['spec.replicas', 'spec.clusterName']));
    expect(await c.get(NodePoolResource, 'default', 'np1').catch((e: unknown) => (e as ApiError).code)).toBe(404);
  });
});
