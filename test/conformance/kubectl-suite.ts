/**
 * The kubectl half of the API conformance suite (issue 3): every operation a HyperShift user
 * runs, driven with one real kubectl version against one `hcc control-center` process, each
 * check asserting what kubectl prints against kube-apiserver. `kubectl-<version>.test.ts` calls
 * {@link kubectlConformance} once per version, so versions run in parallel files. Results feed
 * the README's compatibility table (see results.ts).
 *
 * Tests in one file share the control center and run in order; each group uses its own
 * namespace so one group's objects never show up in another's listings.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { kubectl, kubectlPath, tempDir, waitFor, type KubectlVersion, type Run } from '../helpers/tools.js';
import { startControlCenterProcess, type ControlCenterProcess } from '../helpers/processes.js';
import { loadKubeconfig, RestClient } from '@hcc/client';
import { EventResource, HostedClusterResource } from '@hcc/crds';
import { configMap, hostedCluster, managementCluster, nodePool, pullSecret, releaseImage, widgetCRD, yamlDocs } from './fixtures.js';
import { ok, Results, type Client } from './results.js';

const HC = 'hostedcluster.hypershift.openshift.io';
/** What kube-apiserver answers to a strategic merge patch of a custom resource. */
const crStrategicRefusal = 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

/** A kubectl left running (watch, blocking delete/wait); `done` resolves when it exits. */
interface Background {
  output(): string;
  done: Promise<Run>;
  kill(): void;
}

export function kubectlConformance(v: KubectlVersion): void {
  const minor = Number(v.split('.')[1]);
  const results = new Results(`kubectl-${v}` as Client);

  describe(`kubectl ${v} against the control center`, () => {
    let cc: ControlCenterProcess;
    let rest: RestClient | undefined;
    const scratch = tempDir('hcc-conformance-');
    const editor = path.join(scratch.dir, 'editor.sh');
    const api = () => (rest ??= new RestClient(loadKubeconfig(cc.kubeconfig)));
    const k = (args: string[], input?: string, env?: Record<string, string>) => kubectl(v, cc.kubeconfig, args, { input, env });
    const json = async <T = Record<string, any>>(args: string[]): Promise<T> => JSON.parse(ok(await k([...args, '-o', 'json'])).stdout) as T;
    // kubectl ≥ 1.21 hides managedFields unless asked.
    const withManagedFields = minor >= 21 ? ['--show-managed-fields'] : [];
    const names = async (args: string[]) => ok(await k([...args, '-o', 'name'])).stdout.split('\n').filter(Boolean);
    const background = (args: string[]): Background => {
      const child = spawn(kubectlPath(v), [...args, `--cache-dir=${path.join(cc.dir, `.kube-cache-${v}`)}`], {
        env: { PATH: process.env.PATH ?? '', HOME: cc.dir, KUBECONFIG: cc.kubeconfig },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      // 'close', not 'exit': the process can exit before its stdout has been read to the end.
      const done = new Promise<Run>((r) => child.once('close', (code) => r({ code: code ?? 1, stdout, stderr })));
      return { output: () => stdout, done, kill: () => child.kill() };
    };

    beforeAll(async () => {
      cc = await startControlCenterProcess();
      // KUBE_EDITOR: rewrites the file kubectl hands it with the sed program in $EDIT_SED.
      writeFileSync(editor, '#!/bin/sh\nexec sed -i -e "$EDIT_SED" "$1"\n');
      chmodSync(editor, 0o755);
    });
    afterAll(async () => {
      results.write();
      rest?.close();
      await cc?.stop();
      scratch.cleanup();
    });

    results.test('creates namespaces, secrets and configmaps (and dry-runs a create on the server)', async (check) => {
      await check('create namespace', async () => {
        const r = ok(await k(['create', 'namespace', 'conf']));
        expect(r.stdout.trim()).toBe('namespace/conf created');
        const ns = await json(['get', 'namespace', 'conf']);
        expect(ns.status.phase).toBe('Active');
        expect(ns.metadata.labels?.['kubernetes.io/metadata.name']).toBe('conf');
      });
      await check('create secret generic', async () => {
        const r = ok(await k(['create', 'secret', 'generic', 'pull-secret', '-n', 'conf', '--type=kubernetes.io/dockerconfigjson', '--from-literal=.dockerconfigjson={"auths":{}}']));
        expect(r.stdout.trim()).toBe('secret/pull-secret created');
        const s = await json(['get', 'secret', 'pull-secret', '-n', 'conf']);
        expect(s.type).toBe('kubernetes.io/dockerconfigjson');
        expect(Buffer.from(s.data['.dockerconfigjson'], 'base64').toString()).toBe('{"auths":{}}');
        const bad = await k(['create', 'secret', 'generic', 'broken', '-n', 'conf', '--type=kubernetes.io/dockerconfigjson', '--from-literal=other=x']);
        expect(bad.code).not.toBe(0);
        expect(bad.stderr).toContain('Secret "broken" is invalid: data[.dockerconfigjson]: Required value');
      });
      await check('create configmap', async () => {
        const r = ok(await k(['create', 'configmap', 'settings', '-n', 'conf', '--from-literal=a=1', '--from-literal=b=2']));
        expect(r.stdout.trim()).toBe('configmap/settings created');
        expect((await json(['get', 'configmap', 'settings', '-n', 'conf'])).data).toEqual({ a: '1', b: '2' });
      });
      await check('create --dry-run=server', async () => {
        const r = ok(await k(['create', 'configmap', 'dry', '-n', 'conf', '--from-literal=x=y', '--dry-run=server', '-o', 'json']));
        const obj = JSON.parse(r.stdout);
        expect(obj.metadata.uid).toBeTruthy();
        expect(obj.data).toEqual({ x: 'y' });
        const gone = await k(['get', 'configmap', 'dry', '-n', 'conf']);
        expect(gone.stderr).toContain('configmaps "dry" not found');
      });
    });

    results.test('creates and replaces from files: AlreadyExists, and 409 Conflict for a stale resourceVersion', async (check) => {
      await check('create -f (custom resource)', async () => {
        const r = ok(await k(['create', '-f', '-'], yamlDocs(hostedCluster('conf', 'created', { labels: { env: 'test' } }))));
        expect(r.stdout.trim()).toBe(`${HC}/created created`);
        const dup = await k(['create', '-f', '-'], yamlDocs(hostedCluster('conf', 'created')));
        expect(dup.code).not.toBe(0);
        expect(dup.stderr.trim()).toBe('Error from server (AlreadyExists): error when creating "STDIN": hostedclusters.hypershift.openshift.io "created" already exists');
      });
      await check('update with a stale resourceVersion (409)', async () => {
        const cur = await json(['get', 'hc', 'created', '-n', 'conf']);
        ok(await k(['label', 'hc', 'created', '-n', 'conf', 'moved=on']));
        const stale = await k(['replace', '-f', '-'], JSON.stringify({ ...cur, metadata: { ...cur.metadata, labels: { env: 'stale' } } }));
        expect(stale.code).not.toBe(0);
        expect(stale.stderr.trim()).toBe('Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on hostedclusters.hypershift.openshift.io "created": the object has been modified; please apply your changes to the latest version and try again');
        const fresh = await json(['get', 'hc', 'created', '-n', 'conf']);
        const replaced = ok(await k(['replace', '-f', '-'], JSON.stringify({ ...fresh, metadata: { ...fresh.metadata, labels: { env: 'replaced' } } })));
        expect(replaced.stdout.trim()).toBe(`${HC}/created replaced`);
        expect((await json(['get', 'hc', 'created', '-n', 'conf'])).metadata.labels).toEqual({ env: 'replaced' });
      });
    });

    results.test('applies client-side: create, unchanged, a three-way merge, and refuses unknown fields', async (check) => {
      await check('apply (client-side)', async () => {
        const first = ok(await k(['apply', '-f', '-'], yamlDocs(hostedCluster('conf', 'applied', { labels: { env: 'prod', tier: 'gold' } }), nodePool('conf', 'applied', 'applied'))));
        expect(first.stdout).toContain(`${HC}/applied created`);
        expect(first.stdout).toContain('nodepool.hypershift.openshift.io/applied created');
        const again = ok(await k(['apply', '-f', '-'], yamlDocs(hostedCluster('conf', 'applied', { labels: { env: 'prod', tier: 'gold' } }))));
        expect(again.stdout.trim()).toBe(`${HC}/applied unchanged`);
        // Someone else adds a label; the next apply drops `tier` (it was applied before) and keeps theirs.
        ok(await k(['label', 'hc', 'applied', '-n', 'conf', 'owner=ops']));
        const changed = ok(await k(['apply', '-f', '-'], yamlDocs(hostedCluster('conf', 'applied', { labels: { env: 'prod' }, release: '4.14.39' }))));
        expect(changed.stdout.trim()).toBe(`${HC}/applied configured`);
        const hc = await json(['get', 'hc', 'applied', '-n', 'conf']);
        expect(hc.metadata.labels).toEqual({ env: 'prod', owner: 'ops' });
        expect(hc.spec.release.image).toBe(releaseImage('4.14.39'));
        expect(hc.metadata.generation).toBe(2);
        expect(JSON.parse(hc.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).metadata.labels).toEqual({ env: 'prod' });
      });
      await check('apply: unknown field refused', async () => {
        const r = await k(['apply', '-f', '-'], yamlDocs(hostedCluster('conf', 'applied', { labels: { env: 'prod' }, dnsExtra: { baseDomainTypo: 'x' } })));
        expect(r.code).not.toBe(0);
        // kubectl 1.20 refuses it from /openapi/v2 (client-side); newer kubectl asks the server (fieldValidation=Strict).
        if (minor < 25) expect(r.stderr).toContain('ValidationError(HostedCluster.spec.dns): unknown field "baseDomainTypo" in io.openshift.hypershift.v1beta1.HostedCluster.spec.dns');
        else expect(r.stderr).toContain('strict decoding error: unknown field "spec.dns.baseDomainTypo"');
        expect((await json(['get', 'hc', 'applied', '-n', 'conf'])).spec.dns).toEqual({ baseDomain: 'example.com' });
      });
    });

    results.test('diffs and dry-runs an apply on the server', async (check) => {
      await check('diff', async () => {
        const same = await k(['diff', '-f', '-'], yamlDocs(hostedCluster('conf', 'applied', { labels: { env: 'prod' }, release: '4.14.39' })));
        expect(same.code, same.stderr).toBe(0);
        const d = await k(['diff', '-f', '-'], yamlDocs(hostedCluster('conf', 'applied', { labels: { env: 'staging' }, release: '4.14.39' })));
        expect(d.code, d.stderr).toBe(1);
        expect(d.stdout).toContain('-    env: prod');
        expect(d.stdout).toContain('+    env: staging');
      });
      await check('apply --dry-run=server', async () => {
        const r = ok(await k(['apply', '--dry-run=server', '-f', '-'], yamlDocs(hostedCluster('conf', 'applied', { labels: { env: 'staging' }, release: '4.14.39' }))));
        expect(r.stdout.trim()).toBe(`${HC}/applied configured (server dry run)`);
        expect((await json(['get', 'hc', 'applied', '-n', 'conf'])).metadata.labels.env).toBe('prod');
      });
    });

    results.test('applies server-side: field managers, conflicts, forced ownership, removal of fields no longer applied', async (check) => {
      ok(await k(['create', 'namespace', 'ssa']));
      const hc = (labels: Record<string, string>, release?: string) => yamlDocs(hostedCluster('ssa', 'ssa', { labels, release }));
      await check('apply --server-side', async () => {
        const r = ok(await k(['apply', '--server-side', '-f', '-'], hc({ env: 'prod', tier: 'gold' })));
        expect(r.stdout.trim()).toBe(`${HC}/ssa serverside-applied`);
        const obj = await json(['get', 'hc', 'ssa', '-n', 'ssa', ...withManagedFields]);
        expect(obj.metadata.labels).toEqual({ env: 'prod', tier: 'gold' });
        const mf = (obj.metadata.managedFields ?? []) as { manager: string; operation: string; fieldsV1?: Record<string, any> }[];
        const mine = mf.find((m) => m.manager === 'kubectl' && m.operation === 'Apply');
        expect(mine, `no managedFields entry of manager "kubectl", operation Apply (managedFields: ${JSON.stringify(mf)})`).toBeTruthy();
        expect(mine!.fieldsV1?.['f:spec']?.['f:release']?.['f:image']).toEqual({});
      });
      await check('apply --server-side: conflicts and --force-conflicts', async () => {
        // Another manager applies only the release image (a partial object: kubectl 1.20 would refuse it client-side without --validate=false).
        const bump = yamlDocs({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name: 'ssa', namespace: 'ssa' }, spec: { release: { image: releaseImage('4.15.1') } } });
        const conflict = await k(['apply', '--server-side', '--validate=false', '--field-manager=release-bot', '-f', '-'], bump);
        expect(conflict.code).not.toBe(0);
        expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.release.image');
        expect((await json(['get', 'hc', 'ssa', '-n', 'ssa'])).spec.release.image).toBe(releaseImage());
        const forced = ok(await k(['apply', '--server-side', '--validate=false', '--force-conflicts', '--field-manager=release-bot', '-f', '-'], bump));
        expect(forced.stdout.trim()).toBe(`${HC}/ssa serverside-applied`);
        const obj = await json(['get', 'hc', 'ssa', '-n', 'ssa', ...withManagedFields]);
        expect(obj.spec.release.image).toBe(releaseImage('4.15.1'));
        const managers = (obj.metadata.managedFields ?? []) as { manager: string; fieldsV1?: Record<string, any> }[];
        expect(managers.find((m) => m.manager === 'release-bot')?.fieldsV1?.['f:spec']?.['f:release']?.['f:image'], 'release-bot owns .spec.release.image').toEqual({});
        expect(managers.find((m) => m.manager === 'kubectl')?.fieldsV1?.['f:spec']?.['f:release'], 'kubectl no longer owns .spec.release').toBeUndefined();
      });
      await check('apply --server-side: fields no longer applied are removed', async () => {
        // kubectl's manager stops applying `tier` (it owned it alone): the label goes.
        ok(await k(['apply', '--server-side', '-f', '-'], hc({ env: 'prod' }, '4.15.1')));
        const obj = await json(['get', 'hc', 'ssa', '-n', 'ssa']);
        expect(obj.metadata.labels).toEqual({ env: 'prod' });
        ok(await k(['apply', '--server-side', '-f', '-'], yamlDocs(configMap('ssa', 'cfg', { a: '1', b: '2' }))));
        ok(await k(['apply', '--server-side', '-f', '-'], yamlDocs(configMap('ssa', 'cfg', { a: '1' }))));
        expect((await json(['get', 'configmap', 'cfg', '-n', 'ssa'])).data).toEqual({ a: '1' });
      });
    });

    describe('get', () => {
      const ns = 'listing';
      beforeAll(async () => {
        ok(await k(['create', 'namespace', ns]));
        ok(await k(['create', 'secret', 'generic', 'pull-secret', '-n', ns, '--from-literal=.dockerconfigjson={}']));
        ok(await k(['apply', '-f', '-'], yamlDocs(
          hostedCluster(ns, 'hc-a', { labels: { env: 'prod', tier: 'gold' } }),
          hostedCluster(ns, 'hc-b', { labels: { env: 'dev', tier: 'silver' } }),
          hostedCluster(ns, 'hc-c', { labels: { env: 'staging' } }),
          nodePool(ns, 'np-a', 'hc-a', 3),
        )));
      });

      results.test('-o wide, yaml and json', async (check) => {
        await check('get -o wide', async () => {
          const r = ok(await k(['get', 'hc', '-n', ns, '-o', 'wide']));
          const lines = r.stdout.trim().split('\n');
          expect(lines[0]).toMatch(/^NAME\s+VERSION\s+KUBECONFIG\s+PROGRESS\s+AVAILABLE\s+PROGRESSING\s+MESSAGE\s+MANAGEMENT CLUSTER/);
          expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(['hc-a', 'hc-b', 'hc-c']);
          const np = ok(await k(['get', 'np', '-n', ns, '-o', 'wide']));
          expect(np.stdout).toMatch(/np-a\s+hc-a\s+3\s/);
        });
        await check('get -o yaml', async () => {
          const one = ok(await k(['get', 'hc', 'hc-a', '-n', ns, '-o', 'yaml']));
          expect(one.stdout).toMatch(/^apiVersion: hypershift\.openshift\.io\/v1beta1\nkind: HostedCluster\nmetadata:/);
          expect(one.stdout).toContain('  uid: ');
          const list = ok(await k(['get', 'hc', '-n', ns, '-o', 'yaml']));
          expect(list.stdout).toMatch(/^apiVersion: v1\nitems:\n- apiVersion: hypershift\.openshift\.io\/v1beta1/);
          expect(list.stdout).toMatch(/\nkind: List\nmetadata:\n  resourceVersion: ""\n/);
        });
        await check('get -o json', async () => {
          const list = await json(['get', 'hc,np', '-n', ns]);
          expect(list.kind).toBe('List');
          expect(list.items.map((i: any) => `${i.kind}/${i.metadata.name}`)).toEqual(['HostedCluster/hc-a', 'HostedCluster/hc-b', 'HostedCluster/hc-c', 'NodePool/np-a']);
          const one = await json(['get', 'hc', 'hc-b', '-n', ns]);
          expect(one.metadata).toMatchObject({ name: 'hc-b', namespace: ns, labels: { env: 'dev', tier: 'silver' }, generation: 1 });
          expect(one.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        });
      });

      results.test('-o jsonpath and custom-columns, --sort-by', async (check) => {
        await check('get -o jsonpath', async () => {
          const r = ok(await k(['get', 'hc', '-n', ns, '-o', 'jsonpath={range .items[*]}{.metadata.name}={.metadata.labels.env}{"\\n"}{end}']));
          expect(r.stdout).toBe('hc-a=prod\nhc-b=dev\nhc-c=staging\n');
          const one = ok(await k(['get', 'hc', 'hc-a', '-n', ns, '-o', 'jsonpath={.spec.services[?(@.service=="OAuthServer")].servicePublishingStrategy.type}']));
          expect(one.stdout).toBe('NodePort');
        });
        await check('get -o custom-columns', async () => {
          const r = ok(await k(['get', 'hc', '-n', ns, '-o', 'custom-columns=NAME:.metadata.name,TIER:.metadata.labels.tier,PLATFORM:.spec.platform.type']));
          expect(r.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/))).toEqual([
            ['NAME', 'TIER', 'PLATFORM'],
            ['hc-a', 'gold', 'None'],
            ['hc-b', 'silver', 'None'],
            ['hc-c', '<none>', 'None'],
          ]);
        });
        await check('get --sort-by', async () => {
          expect(await names(['get', 'hc', '-n', ns, '--sort-by=.metadata.labels.env'])).toEqual([`${HC}/hc-b`, `${HC}/hc-a`, `${HC}/hc-c`]);
          const table = ok(await k(['get', 'hc', '-n', ns, '--sort-by=.metadata.labels.tier', '--no-headers']));
          expect(table.stdout.trim().split('\n').map((l) => l.split(/\s+/)[0])).toEqual(['hc-c', 'hc-a', 'hc-b']);
        });
      });

      results.test('-l with =, !=, in, notin, exists and !key; --field-selector', async (check) => {
        await check('get -l (in, notin, !key)', async () => {
          const sel = async (s: string) => (await names(['get', 'hc', '-n', ns, '-l', s])).map((n) => n.split('/')[1]);
          expect(await sel('env in (prod,dev)')).toEqual(['hc-a', 'hc-b']);
          expect(await sel('env notin (prod)')).toEqual(['hc-b', 'hc-c']);
          expect(await sel('!tier')).toEqual(['hc-c']);
          expect(await sel('tier')).toEqual(['hc-a', 'hc-b']);
          expect(await sel('env!=dev,tier')).toEqual(['hc-a']);
          expect(await sel('env==staging')).toEqual(['hc-c']);
          const bad = await k(['get', 'hc', '-n', ns, '-l', 'env in prod']);
          expect(bad.code).not.toBe(0);
        });
        await check('get --field-selector', async () => {
          expect(await names(['get', 'hc', '-n', ns, '--field-selector', 'metadata.name=hc-b'])).toEqual([`${HC}/hc-b`]);
          expect(await names(['get', 'hc', '-n', ns, '--field-selector', 'metadata.name!=hc-b'])).toEqual([`${HC}/hc-a`, `${HC}/hc-c`]);
          expect(await names(['get', 'hc', '-A', '--field-selector', `metadata.namespace=${ns},metadata.name=hc-c`])).toEqual([`${HC}/hc-c`]);
          const bad = await k(['get', 'hc', '-n', ns, '--field-selector', 'spec.nope=1']);
          expect(bad.code).not.toBe(0);
          expect(bad.stderr).toContain('field label not supported: spec.nope');
        });
      });

      results.test('-w with a label selector: objects entering and leaving the selection', async (check) => {
        await check('get -w', async () => {
          const w = background(['get', 'hc', '-n', ns, '-w', '-l', 'tier', '--output-watch-events']);
          try {
            await waitFor('the initial listing', () => /ADDED\s+hc-a/.test(w.output()) && /ADDED\s+hc-b/.test(w.output()), 15_000);
            expect(w.output()).not.toContain('hc-c');
            ok(await k(['label', 'hc', 'hc-c', '-n', ns, 'tier=bronze']));
            await waitFor('hc-c entering the selection (ADDED)', () => /ADDED\s+hc-c/.test(w.output()), 15_000);
            ok(await k(['annotate', 'hc', 'hc-a', '-n', ns, 'touched=yes']));
            await waitFor('a MODIFIED event for hc-a', () => /MODIFIED\s+hc-a/.test(w.output()), 15_000);
            ok(await k(['label', 'hc', 'hc-c', '-n', ns, 'tier-']));
            await waitFor('hc-c leaving the selection (DELETED)', () => /DELETED\s+hc-c/.test(w.output()), 15_000);
          } finally {
            w.kill();
          }
        });
      });
    });

    results.test('describes custom resources, namespaces, secrets and configmaps, with events', async (check) => {
      await check('describe', async () => {
        const hc = await json(['get', 'hc', 'applied', '-n', 'conf']);
        await api().create(EventResource, 'conf', {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'applied.scheduled', namespace: 'conf' },
          involvedObject: { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', namespace: 'conf', name: 'applied', uid: hc.metadata.uid },
          reason: 'Scheduled',
          message: 'placed on mgmt-1',
          type: 'Normal',
          source: { component: 'hcc-scheduler' },
          firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          count: 1,
        });
        const d = ok(await k(['describe', 'hc', 'applied', '-n', 'conf']));
        expect(d.stdout).toMatch(/^Name:\s+applied\nNamespace:\s+conf\nLabels:\s+env=prod\n\s+owner=ops\n/);
        expect(d.stdout).toMatch(/API Version:\s+hypershift\.openshift\.io\/v1beta1/);
        expect(d.stdout).toMatch(/Kind:\s+HostedCluster/);
        expect(d.stdout).toMatch(/Base Domain:\s+example\.com/);
        expect(d.stdout).toMatch(/Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n\s+----.*\n\s+Normal\s+Scheduled\s+\S+\s+hcc-scheduler\s+placed on mgmt-1/);
        const ns = ok(await k(['describe', 'namespace', 'conf']));
        expect(ns.stdout).toMatch(/Name:\s+conf\n/);
        expect(ns.stdout).toMatch(/Status:\s+Active/);
        const s = ok(await k(['describe', 'secret', 'pull-secret', '-n', 'conf']));
        expect(s.stdout).toMatch(/Type:\s+kubernetes\.io\/dockerconfigjson/);
        expect(s.stdout).toMatch(/\.dockerconfigjson:\s+12 bytes/);
        const c = ok(await k(['describe', 'configmap', 'settings', '-n', 'conf']));
        // (kubectl prints the keys in map order, which varies)
        expect(c.stdout).toMatch(/\nData\n====\n/);
        expect(c.stdout).toMatch(/\na:\n----\n1\n/);
        expect(c.stdout).toMatch(/\nb:\n----\n2\n/);
      });
    });

    results.test('edits through KUBE_EDITOR, and reports invalid edits', async (check) => {
      await check('edit', async () => {
        const env = { KUBE_EDITOR: editor, EDIT_SED: `s#${releaseImage('4.14.39')}#${releaseImage('4.14.40')}#` };
        const r = ok(await k(['edit', 'hc', 'applied', '-n', 'conf'], undefined, env));
        expect(r.stdout.trim()).toBe(`${HC}/applied edited`);
        const hc = await json(['get', 'hc', 'applied', '-n', 'conf']);
        expect(hc.spec.release.image).toBe(releaseImage('4.14.40'));
        expect(hc.metadata.generation).toBe(3);
        const cm = ok(await k(['edit', 'configmap', 'settings', '-n', 'conf'], undefined, { KUBE_EDITOR: editor, EDIT_SED: 's/^  b: "2"$/  b: "22"/' }));
        expect(cm.stdout.trim()).toBe('configmap/settings edited');
        expect((await json(['get', 'configmap', 'settings', '-n', 'conf'])).data).toEqual({ a: '1', b: '22' });
        // baseDomain is immutable (a CEL rule in the CRD): kubectl shows the server's message and keeps nothing.
        const bad = await k(['edit', 'hc', 'applied', '-n', 'conf'], undefined, { KUBE_EDITOR: editor, EDIT_SED: 's/baseDomain: example.com/baseDomain: other.example.com/' });
        expect(bad.code).not.toBe(0);
        expect(bad.stderr).toContain(`hostedclusters.hypershift.openshift.io "applied" is invalid`);
        expect((await json(['get', 'hc', 'applied', '-n', 'conf'])).spec.dns.baseDomain).toBe('example.com');
      });
      if (minor >= 27) {
        await check('edit adding an unknown field (kubectl edit --validate=strict): reopened with the 422', async () => {
          // kubectl edit patches with fieldValidation=Strict; kube-apiserver answers a patched object
          // it cannot decode with 422 Invalid (field `patch`), so kubectl reopens the editor with the
          // cause in its header rather than giving up with "could not be patched".
          const log = path.join(scratch.dir, 'edit-unknown.log');
          const logging = path.join(scratch.dir, 'editor-log.sh');
          writeFileSync(logging, `#!/bin/sh\nsed -i -e 's/^data:$/bogus: x\\ndata:/' "$1"\ncat "$1" >> ${JSON.stringify(log)}\necho ---EDIT--- >> ${JSON.stringify(log)}\n`);
          chmodSync(logging, 0o755);
          const r = await k(['edit', 'configmap', 'settings', '-n', 'conf'], undefined, { KUBE_EDITOR: logging });
          expect(r.code).not.toBe(0);
          expect(r.stderr).toContain('error: configmaps "settings" is invalid');
          expect(r.stderr).not.toContain('could not be patched');
          const runs = readFileSync(log, 'utf8').split('---EDIT---\n').filter(Boolean);
          expect(runs.length).toBe(2);
          expect(runs[1]).toMatch(/# configmaps "settings" was not valid:\n# \* patch: Invalid value: .*strict decoding error: unknown field \\?"bogus\\?"/);
          expect((await json(['get', 'configmap', 'settings', '-n', 'conf'])).bogus).toBeUndefined();
        });
      }
    });

    results.test('patches: strategic, merge and JSON on built-ins; merge and JSON on custom resources; strategic on a custom resource is refused', async (check) => {
      await check('patch --type=strategic (ConfigMap, Secret)', async () => {
        ok(await k(['patch', 'configmap', 'settings', '-n', 'conf', '-p', '{"data":{"c":"3"},"metadata":{"finalizers":["example.com/a"]}}']));
        // finalizers merge under a strategic merge patch (patchStrategy "merge"; patched items first, as
        // apimachinery's mergeSortedSlice orders them), and $deleteFromPrimitiveList removes one.
        ok(await k(['patch', 'configmap', 'settings', '-n', 'conf', '-p', '{"metadata":{"finalizers":["example.com/b"]}}']));
        expect((await json(['get', 'configmap', 'settings', '-n', 'conf'])).metadata.finalizers).toEqual(['example.com/b', 'example.com/a']);
        ok(await k(['patch', 'configmap', 'settings', '-n', 'conf', '-p', '{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/a"]}}']));
        expect((await json(['get', 'configmap', 'settings', '-n', 'conf'])).metadata.finalizers).toEqual(['example.com/b']);
        const s = ok(await k(['patch', 'secret', 'pull-secret', '-n', 'conf', '-p', '{"stringData":{"token":"abc"}}']));
        expect(s.stdout.trim()).toBe('secret/pull-secret patched');
        const got = await json(['get', 'secret', 'pull-secret', '-n', 'conf']);
        expect(Buffer.from(got.data.token, 'base64').toString()).toBe('abc');
        expect(got.stringData).toBeUndefined();
      });
      await check('patch --type=merge', async () => {
        ok(await k(['patch', 'configmap', 'settings', '-n', 'conf', '--type=merge', '-p', '{"data":{"a":null},"metadata":{"finalizers":null}}']));
        expect((await json(['get', 'configmap', 'settings', '-n', 'conf'])).data).toEqual({ b: '22', c: '3' });
        const r = ok(await k(['patch', 'hc', 'applied', '-n', 'conf', '--type=merge', '-p', '{"spec":{"release":{"image":"' + releaseImage('4.14.41') + '"}}}']));
        expect(r.stdout.trim()).toBe(`${HC}/applied patched`);
        const hc = await json(['get', 'hc', 'applied', '-n', 'conf']);
        expect(hc.spec.release.image).toBe(releaseImage('4.14.41'));
        expect(hc.metadata.generation).toBe(4);
        const same = ok(await k(['patch', 'hc', 'applied', '-n', 'conf', '--type=merge', '-p', '{"spec":{"release":{"image":"' + releaseImage('4.14.41') + '"}}}']));
        expect(same.stdout.trim()).toBe(`${HC}/applied patched (no change)`);
      });
      await check('patch --type=json', async () => {
        ok(await k(['patch', 'secret', 'pull-secret', '-n', 'conf', '--type=json', '-p', '[{"op":"remove","path":"/data/token"},{"op":"add","path":"/metadata/labels","value":{"kind":"pull"}}]']));
        const s = await json(['get', 'secret', 'pull-secret', '-n', 'conf']);
        expect(Object.keys(s.data)).toEqual(['.dockerconfigjson']);
        expect(s.metadata.labels).toEqual({ kind: 'pull' });
        ok(await k(['patch', 'hc', 'applied', '-n', 'conf', '--type=json', '-p', '[{"op":"add","path":"/metadata/annotations/reviewed","value":"yes"}]']));
        expect((await json(['get', 'hc', 'applied', '-n', 'conf'])).metadata.annotations.reviewed).toBe('yes');
        const failed = await k(['patch', 'hc', 'applied', '-n', 'conf', '--type=json', '-p', '[{"op":"replace","path":"/spec/nope/x","value":1}]']);
        expect(failed.code).not.toBe(0);
      });
      await check('patch --type=strategic on a custom resource (refused)', async () => {
        const r = await k(['patch', 'hc', 'applied', '-n', 'conf', '-p', '{"metadata":{"labels":{"x":"y"}}}']);
        expect(r.code).not.toBe(0);
        // kubectl ≥ 1.28 wraps the server's 415 in its own words; 1.20 prints the Status as it is.
        const prefix = minor >= 28 ? 'error: application/strategic-merge-patch+json is not supported by hypershift.openshift.io/v1beta1, Kind=HostedCluster: ' : 'Error from server (UnsupportedMediaType): ';
        expect(r.stderr.startsWith(prefix), r.stderr).toBe(true);
        expect(r.stderr.slice(prefix.length).trim(), 'server message').toBe(crStrategicRefusal);
        expect((await json(['get', 'hc', 'applied', '-n', 'conf'])).metadata.labels.x).toBeUndefined();
      });
    });

    results.test('labels and annotates, namespaced and cluster-scoped', async (check) => {
      ok(await k(['apply', '-f', '-'], yamlDocs(managementCluster('mgmt-1'))));
      await check('label', async () => {
        expect(ok(await k(['label', 'hc', 'applied', '-n', 'conf', 'team=blue'])).stdout.trim()).toBe(`${HC}/applied labeled`);
        const refused = await k(['label', 'hc', 'applied', '-n', 'conf', 'team=red']);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain("'team' already has a value (blue), and --overwrite is false");
        ok(await k(['label', 'hc', 'applied', '-n', 'conf', 'team=red', '--overwrite']));
        expect((await json(['get', 'hc', 'applied', '-n', 'conf'])).metadata.labels.team).toBe('red');
        ok(await k(['label', 'hc', 'applied', '-n', 'conf', 'team-']));
        expect((await json(['get', 'hc', 'applied', '-n', 'conf'])).metadata.labels.team).toBeUndefined();
        ok(await k(['label', 'mc', 'mgmt-1', 'region=eu-west-1']));
        ok(await k(['label', 'namespace', 'conf', 'purpose=conformance']));
        expect(await names(['get', 'mc', '-l', 'region=eu-west-1'])).toEqual(['managementcluster.controlcenter.hcc.dev/mgmt-1']);
        expect(await names(['get', 'ns', '-l', 'purpose'])).toEqual(['namespace/conf']);
        ok(await k(['label', 'configmap', '--all', '-n', 'conf', 'audited=yes']));
        expect((await json(['get', 'configmap', 'settings', '-n', 'conf'])).metadata.labels).toEqual({ audited: 'yes' });
      });
      await check('annotate', async () => {
        expect(ok(await k(['annotate', 'hc', 'applied', '-n', 'conf', 'note=first'])).stdout.trim()).toBe(`${HC}/applied annotated`);
        const refused = await k(['annotate', 'hc', 'applied', '-n', 'conf', 'note=second']);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain("--overwrite is false but found the following declared annotation(s): 'note' already has a value (first)");
        ok(await k(['annotate', 'hc', 'applied', '-n', 'conf', 'note=second', '--overwrite']));
        expect((await json(['get', 'hc', 'applied', '-n', 'conf'])).metadata.annotations.note).toBe('second');
        ok(await k(['annotate', 'hc', 'applied', '-n', 'conf', 'note-']));
        expect((await json(['get', 'hc', 'applied', '-n', 'conf'])).metadata.annotations.note).toBeUndefined();
        ok(await k(['annotate', 'mc', 'mgmt-1', 'owner=platform-team']));
        expect((await json(['get', 'mc', 'mgmt-1'])).metadata.annotations.owner).toBe('platform-team');
      });
    });

    results.test('waits for conditions (and jsonpath on kubectl ≥ 1.23)', async (check) => {
      ok(await k(['apply', '-f', '-'], yamlDocs(hostedCluster('conf', 'waited'))));
      const setStatus = async (conditions: Record<string, unknown>[], extra: Record<string, unknown> = {}) => {
        const cur = await json(['get', 'hc', 'waited', '-n', 'conf']);
        const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        await api().patch(HostedClusterResource, 'conf', 'waited', { status: { conditions: conditions.map((c) => ({ reason: 'AsExpected', message: '', lastTransitionTime: now, observedGeneration: cur.metadata.generation, ...c })), ...extra } }, 'merge', { subresource: 'status' });
      };
      await check('wait --for=condition', async () => {
        const available = background(['wait', '--for=condition=Available', 'hc/waited', '-n', 'conf', '--timeout=30s']);
        const degraded = background(['wait', '--for=condition=Degraded=false', 'hc/waited', '-n', 'conf', '--timeout=30s']);
        await new Promise((r) => setTimeout(r, 700));
        await setStatus([{ type: 'Available', status: 'True' }, { type: 'Degraded', status: 'False' }]);
        const [a, d] = await Promise.all([available.done, degraded.done]);
        expect(a.code, a.stderr).toBe(0);
        expect(a.stdout.trim()).toBe(`${HC}/waited condition met`);
        expect(d.code, d.stderr).toBe(0);
        const timeout = await k(['wait', '--for=condition=Progressing', 'hc/waited', '-n', 'conf', '--timeout=1s']);
        expect(timeout.code).not.toBe(0);
        expect(timeout.stderr).toContain('timed out waiting for the condition on hostedclusters/waited');
      });
      const row = 'wait --for=jsonpath';
      if (minor < 23) {
        results.notApplicable(row, 'kubectl < 1.23 has no --for=jsonpath');
        const r = await k(['wait', '--for=jsonpath={.spec.platform.type}=None', 'hc/waited', '-n', 'conf', '--timeout=5s']);
        expect(r.stderr).toContain('unrecognized condition');
        return;
      }
      await check(row, async () => {
        const w = background(['wait', '--for=jsonpath={.status.kubeconfig.name}=waited-admin-kubeconfig', 'hc/waited', '-n', 'conf', '--timeout=30s']);
        await new Promise((r) => setTimeout(r, 700));
        await setStatus([{ type: 'Available', status: 'True' }], { kubeconfig: { name: 'waited-admin-kubeconfig' } });
        const r = await w.done;
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout.trim()).toBe(`${HC}/waited condition met`);
      });
    });

    results.test('deletes: finalizers hold an object until removed, --wait blocks, wait --for=delete, not found', async (check) => {
      ok(await k(['apply', '-f', '-'], yamlDocs(hostedCluster('conf', 'held', { finalizers: ['example.com/hold'] }), configMap('conf', 'doomed', { a: '1' }))));
      await check('delete (finalizers, --wait)', async () => {
        const del = background(['delete', 'hc', 'held', '-n', 'conf', '--timeout=30s']);
        const held = await waitFor('deletionTimestamp on the held object', async () => {
          const o = await json(['get', 'hc', 'held', '-n', 'conf']);
          return o.metadata.deletionTimestamp ? o : undefined;
        }, 15_000);
        expect(held.metadata.finalizers).toEqual(['example.com/hold']);
        // kubectl waits while the finalizer is there.
        let exited = false;
        void del.done.then(() => (exited = true));
        await new Promise((r) => setTimeout(r, 500));
        expect(exited, 'kubectl delete returned while a finalizer held the object').toBe(false);
        ok(await k(['patch', 'hc', 'held', '-n', 'conf', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']));
        const r = await del.done;
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^${HC.replace(/\./g, '\\.')} "held" deleted`));
        const quick = ok(await k(['delete', 'configmap', 'doomed', '-n', 'conf', '--wait=false']));
        expect(quick.stdout).toMatch(/^configmap "doomed" deleted/);
        const missing = await k(['delete', 'hc', 'nope', '-n', 'conf']);
        expect(missing.code).not.toBe(0);
        expect(missing.stderr.trim()).toBe(`Error from server (NotFound): hostedclusters.hypershift.openshift.io "nope" not found`);
        ok(await k(['delete', 'hc', 'nope', '-n', 'conf', '--ignore-not-found']));
      });
      await check('wait --for=delete', async () => {
        ok(await k(['apply', '-f', '-'], yamlDocs(hostedCluster('conf', 'held2', { finalizers: ['example.com/hold'] }))));
        ok(await k(['delete', 'hc', 'held2', '-n', 'conf', '--wait=false']));
        const w = background(['wait', '--for=delete', 'hc/held2', '-n', 'conf', '--timeout=30s']);
        await new Promise((r) => setTimeout(r, 500));
        ok(await k(['patch', 'hc', 'held2', '-n', 'conf', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']));
        const r = await w.done;
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout.trim()).toBe(`${HC}/held2 condition met`);
      });
      await check('delete --cascade=orphan, =foreground', async () => {
        const owner = await json(['create', 'configmap', 'cascade-owner', '-n', 'conf']);
        const dep = (name: string, uid: string) => ({ ...configMap('conf', name, {}), metadata: { name, namespace: 'conf', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cascade-owner', uid, blockOwnerDeletion: true }] } });
        ok(await k(['apply', '-f', '-'], yamlDocs(dep('cascade-kept', owner.metadata.uid))));
        const o = ok(await k(['delete', 'configmap', 'cascade-owner', '-n', 'conf', '--cascade=orphan', '--timeout=30s']));
        expect(o.stdout).toMatch(/^configmap "cascade-owner" deleted/);
        expect((await json(['get', 'configmap', 'cascade-kept', '-n', 'conf'])).metadata.ownerReferences).toBeUndefined();
        const owner2 = await json(['create', 'configmap', 'cascade-owner', '-n', 'conf']);
        ok(await k(['apply', '-f', '-'], yamlDocs(dep('cascade-gone', owner2.metadata.uid))));
        ok(await k(['delete', 'configmap', 'cascade-owner', '-n', 'conf', '--cascade=foreground', '--timeout=30s']));
        // Foreground: kubectl returned once the owner went, and the owner went after its dependent.
        expect((await k(['get', 'configmap', 'cascade-gone', '-n', 'conf'])).code).not.toBe(0);
        ok(await k(['delete', 'configmap', 'cascade-kept', '-n', 'conf']));
      });
    });

    results.test('scales a NodePool through the scale subresource, with --current-replicas', async (check) => {
      await check('scale nodepool', async () => {
        const r = ok(await k(['scale', 'nodepool', 'applied', '-n', 'conf', '--current-replicas=2', '--replicas=4']));
        expect(r.stdout.trim()).toBe('nodepool.hypershift.openshift.io/applied scaled');
        const np = await json(['get', 'np', 'applied', '-n', 'conf']);
        expect(np.spec.replicas).toBe(4);
        const stale = await k(['scale', 'nodepool', 'applied', '-n', 'conf', '--current-replicas=2', '--replicas=6']);
        expect(stale.code).not.toBe(0);
        expect(stale.stderr).toContain('Expected replicas to be 2, was 4');
        expect((await json(['get', 'np', 'applied', '-n', 'conf'])).spec.replicas).toBe(4);
      });
    });

    results.test('explains a HostedCluster field from the published OpenAPI', async (check) => {
      await check('explain hostedcluster.spec.platform', async () => {
        const r = ok(await k(['explain', 'hostedcluster.spec.platform']));
        expect(r.stdout).toMatch(/KIND:\s+HostedCluster/);
        expect(r.stdout).toContain('platform specifies the underlying infrastructure provider for the cluster');
        expect(r.stdout).toMatch(/\n\s+aws\s+<Object>/);
        expect(r.stdout).toMatch(/\n\s+type\s+<string>( -required-)?/);
        const secret = ok(await k(['explain', 'secret.data']));
        expect(secret.stdout).toContain('Data contains the secret data.');
        // The review kinds discovery lists are published too (kubectl explain finds every listed kind).
        expect(ok(await k(['explain', 'selfsubjectaccessreview.spec.resourceAttributes'])).stdout).toMatch(/\n\s+verb\s+<string>/);
        expect(ok(await k(['explain', 'selfsubjectrulesreview.spec'])).stdout).toMatch(/\n\s+namespace\s+<string>/);
        expect(ok(await k(['explain', 'selfsubjectreview.status.userInfo'])).stdout).toMatch(/\n\s+username\s+<string>/);
      });
    });

    results.test('lists api-resources and api-versions, and follows a new CRD', async (check) => {
      await check('api-resources', async () => {
        const r = ok(await k(['api-resources', '--api-group=hypershift.openshift.io', '-o', 'name']));
        expect(r.stdout.trim().split('\n').sort()).toEqual(['hostedclusters.hypershift.openshift.io', 'nodepools.hypershift.openshift.io']);
        const cluster = ok(await k(['api-resources', '--namespaced=false', '-o', 'name']));
        expect(cluster.stdout.trim().split('\n')).toEqual(expect.arrayContaining(['namespaces', 'customresourcedefinitions.apiextensions.k8s.io', 'managementclusters.controlcenter.hcc.dev']));
        const wide = ok(await k(['api-resources', '-o', 'wide']));
        // CRD-defined resources list their verbs in apiextensions-apiserver's order.
        expect(wide.stdout).toMatch(/nodepools\s+np,nps\s+hypershift\.openshift\.io\/v1beta1\s+true\s+NodePool\s+\[?delete[ ,]deletecollection[ ,]get[ ,]list[ ,]patch[ ,]create[ ,]update[ ,]watch\]?/);
        expect(wide.stdout).toMatch(/\nconfigmaps\s+cm\s+v1\s+true\s+ConfigMap\s+\[?create[ ,]delete[ ,]deletecollection[ ,]get[ ,]list[ ,]patch[ ,]update[ ,]watch\]?/);
      });
      await check('api-versions', async () => {
        const r = ok(await k(['api-versions']));
        expect(r.stdout.trim().split('\n')).toEqual(expect.arrayContaining(['v1', 'apiextensions.k8s.io/v1', 'coordination.k8s.io/v1', 'controlcenter.hcc.dev/v1alpha1', 'hypershift.openshift.io/v1beta1']));
      });
      await check('CRD: create, use, delete', async () => {
        ok(await k(['apply', '-f', '-'], yamlDocs(widgetCRD())));
        ok(await k(['wait', '--for=condition=Established', 'crd/widgets.conformance.hcc.dev', '--timeout=20s']));
        const created = ok(await k(['apply', '-f', '-'], yamlDocs({ apiVersion: 'conformance.hcc.dev/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'conf' }, spec: { size: 3 } })));
        expect(created.stdout.trim()).toBe('widget.conformance.hcc.dev/w1 created');
        // The server's Table has Name and the CRD's columns only (no Age: the CRD names its columns); kubectl 1.35 adds AGE itself.
        expect(ok(await k(['get', 'wg', '-n', 'conf'])).stdout).toMatch(/^NAME\s+SIZE(\s+AGE)?\nw1\s+3\s/);
        expect(ok(await k(['api-versions'])).stdout).toContain('conformance.hcc.dev/v1');
        ok(await k(['delete', 'crd', 'widgets.conformance.hcc.dev']));
        await waitFor('widgets to leave discovery', async () => !(await k(['api-versions'])).stdout.includes('conformance.hcc.dev/v1'), 15_000);
      });
    });

    results.test('deletes a namespace and everything in it, after finalizers of its objects are removed', async (check) => {
      await check('delete namespace', async () => {
        ok(await k(['create', 'namespace', 'doomed']));
        ok(await k(['apply', '-f', '-'], yamlDocs(pullSecret('doomed'), configMap('doomed', 'c', { a: '1' }), hostedCluster('doomed', 'gone'), hostedCluster('doomed', 'held', { finalizers: ['example.com/hold'] }), nodePool('doomed', 'gone', 'gone'))));
        ok(await k(['delete', 'namespace', 'doomed', '--wait=false']));
        const terminating = await waitFor('the namespace to hold only the finalized object', async () => {
          const ns = await json(['get', 'namespace', 'doomed']);
          const left = await names(['get', 'hc,np,secrets,configmaps', '-n', 'doomed']);
          return ns.status.phase === 'Terminating' && left.length === 1 ? left : undefined;
        }, 20_000);
        expect(terminating).toEqual([`${HC}/held`]);
        ok(await k(['patch', 'hc', 'held', '-n', 'doomed', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']));
        await waitFor('the namespace to be gone', async () => (await k(['get', 'namespace', 'doomed'])).stderr.includes('namespaces "doomed" not found'), 20_000);
        const created = await k(['create', 'configmap', 'late', '-n', 'doomed', '--from-literal=a=1']);
        expect(created.code).not.toBe(0);
        expect(created.stderr).toContain('namespaces "doomed" not found');
        // `kubectl delete namespace` waits until it is gone by default.
        ok(await k(['create', 'namespace', 'doomed2']));
        ok(await k(['apply', '-f', '-'], yamlDocs(configMap('doomed2', 'c', { a: '1' }), pullSecret('doomed2'), hostedCluster('doomed2', 'x'))));
        const del = ok(await k(['delete', 'namespace', 'doomed2', '--timeout=30s']));
        expect(del.stdout.trim()).toBe('namespace "doomed2" deleted');
        expect((await k(['get', 'namespace', 'doomed2'])).code).not.toBe(0);
      });
    });
  });
}
