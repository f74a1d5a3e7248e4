/**
 * Server-side apply as kubectl users see it: one `hcc control-center` process driven by real
 * kubectl 1.35 and 1.28. Applies the demo's KubeVirt HostedCluster, NodePool and pull Secret with
 * `--server-side`, then checks ownership the way kube-apiserver keeps it: unchanged re-applies
 * write nothing, a field another manager changed conflicts until `--force-conflicts`, fields
 * dropped from the manifest go away, `--show-managed-fields` shows the entries, and an object made
 * with client-side apply moves to server-side apply without conflicts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { kubectl, repoRoot, type KubectlVersion } from './helpers/tools.js';
import { startControlCenterProcess, type ControlCenterProcess } from './helpers/processes.js';

const versions: KubectlVersion[] = ['1.35', '1.28'];
const group = 'hypershift.openshift.io';
const apiVersion = `${group}/v1beta1`;
const LastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, any>;
  subresource?: string;
}
interface Obj {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string>; managedFields?: Entry[] };
  spec: Record<string, any>;
}

/** The demo's KubeVirt manifests (Secret, HostedCluster, NodePool), moved to `ns`. */
function demoObjects(ns: string): Record<string, any>[] {
  const text = readFileSync(path.join(repoRoot, 'demo', 'manifests', '20-kubevirt.yaml'), 'utf8');
  return YAML.parseAllDocuments(text)
    .map((d) => d.toJSON() as Record<string, any>)
    .filter(Boolean)
    .map((o) => ({ ...o, metadata: { ...o.metadata, namespace: ns } }));
}

const toYAML = (objs: unknown[]): string => objs.map((o) => YAML.stringify(o)).join('---\n');

describe('server-side apply with real kubectl', () => {
  let cc: ControlCenterProcess;
  beforeAll(async () => {
    cc = await startControlCenterProcess();
  });
  afterAll(async () => {
    await cc?.stop();
  });

  describe.each(versions)('kubectl %s', (v) => {
    const ns = `ssa-${v.replace('.', '-')}`;
    const k = (args: string[], input?: string) => kubectl(v, cc.kubeconfig, args, { input });
    const get = async (kind: string, name: string): Promise<Obj> => {
      const r = await k(['get', kind, name, '-n', ns, '-o', 'json', '--show-managed-fields']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Obj;
    };
    const entries = (o: Obj) => o.metadata.managedFields ?? [];
    const [secret, hc, np] = demoObjects(ns) as [Record<string, any>, Record<string, any>, Record<string, any>];
    /** The NodePool as first applied: a label and a drain timeout that a later apply drops. */
    const np1 = { ...np, metadata: { ...np.metadata, labels: { tier: 'gold' } }, spec: { ...np.spec, nodeDrainTimeout: '5m' } };
    const manifest = toYAML([secret, hc, np1]);

    beforeAll(async () => {
      const r = await k(['create', 'namespace', ns]);
      expect(r.code, r.stderr).toBe(0);
    });

    it('applies a HostedCluster, a NodePool and a Secret and records the applier', async () => {
      const r = await k(['apply', '--server-side', '-f', '-'], manifest);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`secret/${secret.metadata.name} serverside-applied`);
      expect(r.stdout).toContain(`hostedcluster.${group}/${hc.metadata.name} serverside-applied`);
      expect(r.stdout).toContain(`nodepool.${group}/${np.metadata.name} serverside-applied`);

      const pool = await get('nodepool', np.metadata.name);
      expect(pool.spec.replicas).toBe(2);
      const applied = entries(pool).find((e) => e.manager === 'kubectl');
      expect(applied).toMatchObject({ operation: 'Apply', apiVersion, fieldsType: 'FieldsV1' });
      expect(applied!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(applied!.fieldsV1['f:spec']['f:replicas']).toEqual({});
      expect(applied!.fieldsV1['f:spec']['f:platform']['f:kubevirt']['f:rootVolume']['f:persistent']['f:size']).toEqual({});
      expect(applied!.fieldsV1['f:metadata']['f:labels']).toEqual({ 'f:tier': {} });

      const cluster = await get('hostedcluster', hc.metadata.name);
      const hcEntry = entries(cluster).find((e) => e.manager === 'kubectl')!;
      expect(hcEntry.operation).toBe('Apply');
      expect(hcEntry.fieldsV1['f:spec']['f:release']['f:image']).toEqual({});
      // spec.services is an atomic list in the HostedCluster schema: owned as a whole.
      expect(hcEntry.fieldsV1['f:spec']['f:services']).toEqual({});
      const s = await get('secret', secret.metadata.name);
      expect(entries(s)[0]).toMatchObject({ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsV1: { 'f:data': { 'f:.dockerconfigjson': {} }, 'f:type': {} } });
    });

    it('re-applies an unchanged manifest without writing anything', async () => {
      const before = await Promise.all([get('hostedcluster', hc.metadata.name), get('nodepool', np.metadata.name), get('secret', secret.metadata.name)]);
      const r = await k(['apply', '--server-side', '-f', '-'], manifest);
      expect(r.code, r.stderr).toBe(0);
      const after = await Promise.all([get('hostedcluster', hc.metadata.name), get('nodepool', np.metadata.name), get('secret', secret.metadata.name)]);
      expect(after.map((o) => o.metadata.resourceVersion)).toEqual(before.map((o) => o.metadata.resourceVersion));
      expect(after[1]!.metadata.managedFields).toEqual(before[1]!.metadata.managedFields);
    });

    it('changes nothing with --dry-run=server', async () => {
      const r = await k(['apply', '--server-side', '--dry-run=server', '-f', '-'], toYAML([{ ...np1, spec: { ...np1.spec, replicas: 7 } }]));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('(server dry run)');
      expect((await get('nodepool', np.metadata.name)).spec.replicas).toBe(2);
    });

    it('refuses a field another manager changed, until --force-conflicts takes it over', async () => {
      const p = await k(['patch', 'nodepool', np.metadata.name, '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":3}}']);
      expect(p.code, p.stderr).toBe(0);
      const patched = await get('nodepool', np.metadata.name);
      expect(entries(patched).find((e) => e.manager === 'kubectl-patch')).toMatchObject({ operation: 'Update', apiVersion, fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
      // kubectl no longer owns replicas: the patch took it.
      expect(entries(patched).find((e) => e.manager === 'kubectl')!.fieldsV1['f:spec']['f:replicas']).toBeUndefined();

      const conflict = await k(['apply', '--server-side', '-f', '-'], manifest);
      expect(conflict.code).not.toBe(0);
      expect(conflict.stderr).toContain(`Apply failed with 1 conflict: conflict with "kubectl-patch" using ${apiVersion}: .spec.replicas`);
      expect(conflict.stderr).toContain('--force-conflicts');
      expect((await get('nodepool', np.metadata.name)).spec.replicas).toBe(3);

      const forced = await k(['apply', '--server-side', '--force-conflicts', '-f', '-'], manifest);
      expect(forced.code, forced.stderr).toBe(0);
      const pool = await get('nodepool', np.metadata.name);
      expect(pool.spec.replicas).toBe(2);
      expect(entries(pool).map((e) => e.manager)).not.toContain('kubectl-patch');
      expect(entries(pool).find((e) => e.manager === 'kubectl')!.fieldsV1['f:spec']['f:replicas']).toEqual({});
    });

    it('removes fields dropped from the applied manifest', async () => {
      const r = await k(['apply', '--server-side', '-f', '-'], toYAML([secret, hc, np]));
      expect(r.code, r.stderr).toBe(0);
      const pool = await get('nodepool', np.metadata.name);
      expect(pool.spec.nodeDrainTimeout).toBeUndefined();
      expect(pool.metadata.labels?.tier).toBeUndefined();
      expect(pool.spec.replicas).toBe(2);
      const owned = entries(pool).find((e) => e.manager === 'kubectl')!.fieldsV1;
      expect(owned['f:metadata']).toBeUndefined();
      expect(owned['f:spec']['f:nodeDrainTimeout']).toBeUndefined();
    });

    it('shows managedFields only with --show-managed-fields', async () => {
      const shown = await k(['get', 'nodepool', np.metadata.name, '-n', ns, '-o', 'yaml', '--show-managed-fields']);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain('managedFields:');
      expect(shown.stdout).toMatch(/manager: kubectl\n\s+operation: Apply/);
      expect(shown.stdout).toContain('fieldsType: FieldsV1');
      expect(shown.stdout).toContain('f:replicas: {}');
      const hidden = await k(['get', 'nodepool', np.metadata.name, '-n', ns, '-o', 'yaml']);
      expect(hidden.stdout).not.toContain('managedFields');
    });

    it('moves an object from client-side apply to server-side apply without conflicts', async () => {
      const csa = { ...np, metadata: { name: 'csa', namespace: ns, labels: { owner: 'csa' } }, spec: { ...np.spec, replicas: 1 } };
      const created = await k(['apply', '-f', '-'], toYAML([csa]));
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toContain(`nodepool.${group}/csa created`);
      const before = await get('nodepool', 'csa');
      expect(before.metadata.annotations?.[LastApplied]).toBeDefined();
      expect(entries(before).map((e) => `${e.manager}/${e.operation}`)).toEqual(['kubectl-client-side-apply/Update']);
      expect(entries(before)[0]!.fieldsV1['f:metadata']['f:annotations']).toEqual({ '.': {}, [`f:${LastApplied}`]: {} });

      // replicas was set by client-side apply; the last-applied annotation lets kubectl take it.
      const moved = await k(['apply', '--server-side', '-f', '-'], toYAML([{ ...csa, spec: { ...csa.spec, replicas: 4 } }]));
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stdout).toContain(`nodepool.${group}/csa serverside-applied`);
      const after = await get('nodepool', 'csa');
      expect(after.spec.replicas).toBe(4);
      const managers = entries(after).map((e) => `${e.manager}/${e.operation}`);
      expect(managers).toContain('kubectl/Apply');
      expect(managers).not.toContain('kubectl-client-side-apply/Update');
      expect(JSON.parse(after.metadata.annotations![LastApplied]!).spec.replicas).toBe(4);

      // After the move kubectl owns what client-side apply set: dropping the label removes it.
      const dropped = await k(['apply', '--server-side', '-f', '-'], toYAML([{ ...csa, metadata: { name: 'csa', namespace: ns }, spec: { ...csa.spec, replicas: 4 } }]));
      expect(dropped.code, dropped.stderr).toBe(0);
      const last = await get('nodepool', 'csa');
      expect(last.metadata.labels?.owner).toBeUndefined();
      expect(last.metadata.annotations?.[LastApplied]).toBeDefined();
    });
  });

  it('lets a manifest exported from another placement be fixed by leaving the label out (client-side and server-side apply)', async () => {
    const ns = 'exported';
    const k = (args: string[], input?: string) => kubectl('1.35', cc.kubeconfig, args, { input });
    expect((await k(['create', 'namespace', ns])).code).toBe(0);
    for (const name of ['mgmt-1', 'mgmt-2']) {
      const r = await k(['create', '-f', '-'], JSON.stringify({ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name }, spec: { capacity: 5 } }));
      expect(r.code, r.stderr).toBe(0);
    }
    const [secret, hc] = demoObjects(ns) as [Record<string, any>, Record<string, any>];
    for (const [name, serverSide] of [['restored-csa', false], ['restored-ssa', true]] as const) {
      const apply = (labels: Record<string, string>) =>
        k(['apply', ...(serverSide ? ['--server-side'] : []), '-f', '-'], toYAML([secret, { ...hc, metadata: { ...hc.metadata, name, labels } }]));
      const exported = { 'controlcenter.hcc.dev/management-cluster': 'mgmt-1', team: 'a' };
      const first = await apply(exported);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain('"mgmt-1" ignored: only the scheduler places HostedClusters');
      const created = JSON.parse((await k(['get', 'hc', name, '-n', ns, '-o', 'json', '--show-managed-fields'])).stdout) as Obj;
      expect(created.metadata.labels).toEqual({ team: 'a' });
      // What the create dropped is not recorded as applied, in either record.
      expect(JSON.stringify(created.metadata.managedFields)).not.toContain('management-cluster');
      expect(created.metadata.annotations?.[LastApplied] ?? '').not.toContain('management-cluster');
      // The scheduler places it elsewhere.
      const binding = JSON.stringify({ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'Binding', metadata: { name }, target: { name: 'mgmt-2' } });
      const bound = await kubectl('1.35', cc.schedulerKubeconfig, ['create', '--raw', `/apis/${group}/v1beta1/namespaces/${ns}/hostedclusters/${name}/binding`, '-f', '-'], { input: binding });
      expect(bound.code, bound.stderr).toBe(0);
      // The same file again asks to move it: refused, saying what to do.
      const again = await apply(exported);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toContain('the placement is immutable once set (it is "mgmt-2")');
      expect(again.stderr).toContain('leave this label out of the manifests you apply or replace');
      // Without the label the manifest applies, and the placement stays.
      const fixed = await apply({ team: 'b' });
      expect(fixed.code, fixed.stderr).toBe(0);
      const after = JSON.parse((await k(['get', 'hc', name, '-n', ns, '-o', 'json'])).stdout) as Obj;
      expect(after.metadata.labels).toEqual({ 'controlcenter.hcc.dev/management-cluster': 'mgmt-2', team: 'b' });
      const twice = await apply({ team: 'b' });
      expect(twice.code, twice.stderr).toBe(0);
    }
    // Exported from this control center and applied back: the label is the placement itself, so
    // the apply records it as the applier's; deleting it from the file later keeps the placement.
    for (const [name, serverSide] of [['exported-csa', false], ['exported-ssa', true]] as const) {
      const apply = (labels: Record<string, string>) =>
        k(['apply', ...(serverSide ? ['--server-side'] : []), '-f', '-'], toYAML([{ ...hc, metadata: { ...hc.metadata, name, labels } }]));
      expect((await apply({ team: 'a' })).code).toBe(0);
      const placed = await kubectl('1.35', cc.schedulerKubeconfig, ['create', '--raw', `/apis/${group}/v1beta1/namespaces/${ns}/hostedclusters/${name}/binding`, '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'Binding', metadata: { name }, target: { name: 'mgmt-1' } }),
      });
      expect(placed.code, placed.stderr).toBe(0);
      const withLabel = await apply({ 'controlcenter.hcc.dev/management-cluster': 'mgmt-1', team: 'a' });
      expect(withLabel.code, withLabel.stderr).toBe(0);
      const without = await apply({ team: 'a' });
      expect(without.code, without.stderr).toBe(0);
      expect(without.stderr).toContain('kept as "mgmt-1": the placement is the scheduler\'s');
      const after = JSON.parse((await k(['get', 'hc', name, '-n', ns, '-o', 'json'])).stdout) as Obj;
      expect(after.metadata.labels).toEqual({ 'controlcenter.hcc.dev/management-cluster': 'mgmt-1', team: 'a' });
      expect((await apply({ team: 'a' })).code).toBe(0);
    }
  });
});
