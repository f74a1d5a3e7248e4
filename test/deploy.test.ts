/**
 * What ships the syncer into a management cluster, checked without a cluster: the Helm chart
 * (deploy/charts/hcc-syncer) with the real `helm lint` and `helm template` (helm from
 * .tools/kubectl-1.35), the plain manifests (deploy/syncer, rendered with `kubectl kustomize`),
 * the hypershift-sim manifests of the kind demo (deploy/hypershift-sim), the Dockerfile and its
 * .dockerignore, and demo/kind.sh's preflight and cleanup.
 *
 * Kinds the embedded API server serves (Namespace, ConfigMap, Secret) are also sent to a real
 * `hcc management-cluster` with `kubectl apply --dry-run=server`; kinds it does not serve
 * (ServiceAccount, RBAC, apps/v1 Deployment) are parsed and their structure asserted.
 * The RBAC rules are compared with `SyncerRules`, the list of what the syncer calls in its cluster.
 * The container arguments the chart and the manifests build are run with the real `hcc` CLI
 * (kubeconfig paths swapped for local ones), so a renamed flag fails here, not in a cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { loadKubeconfig } from '@hcc/client';
import { PlatformTypes } from '@hcc/crds';
import { hccBin, kubectlPath, repoRoot, tempDir } from './helpers/tools.js';
import { startControlCenterProcess, stopProcess, type ControlCenterProcess } from './helpers/processes.js';

// ---------------------------------------------------------------------------------------------
// What the syncer needs in its management cluster (packages/syncer/src/syncer.ts and
// controllers/): informers list+watch HostedClusters and NodePools (all of them: each counts
// against the budget) and the Secrets/ConfigMaps it labelled; downsync gets, creates, patches
// (JSON merge patch of what hcc manages; no update) and deletes copies; upsync reads status from
// the objects (no status subresource calls) and gets the operator's kubeconfig/kubeadmin Secrets;
// heartbeat lists namespaces (limit 1) and gets hypershift/supported-versions;
// ensureDownstreamNamespace creates, and the namespace clean-up deletes, namespaces (after listing
// every namespaced kind in one, read-only, to keep it when something else lives there).
// The CRD puller (--pull-crds) gets the two HyperShift CRDs by name.
// ---------------------------------------------------------------------------------------------
const SyncerRules = [
  { apiGroups: ['hypershift.openshift.io'], resources: ['hostedclusters', 'nodepools'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
  { apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
  { apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'create', 'delete'] },
  { apiGroups: ['*'], resources: ['*'], verbs: ['list'] },
];
/** The syncer's presence Lease (controllers/presence): get, create and update Leases, in its own namespace only. */
const PresenceRules = [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }];

/** The Role and RoleBinding of the presence Lease, in `namespace`, bound to the syncer's ServiceAccount. */
function checkPresenceRole(objs: { kind: string; metadata: { name?: string; namespace?: string } }[], namespace: string): void {
  const role = objs.find((o) => o.kind === 'Role') as Any;
  expect(role.metadata.namespace).toBe(namespace);
  expect(role.rules).toEqual(PresenceRules);
  const binding = objs.find((o) => o.kind === 'RoleBinding') as Any;
  const sa = objs.find((o) => o.kind === 'ServiceAccount')!;
  expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
  expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace }]);
}

const PullCRDsRule = {
  apiGroups: ['apiextensions.k8s.io'],
  resources: ['customresourcedefinitions'],
  resourceNames: ['hostedclusters.hypershift.openshift.io', 'nodepools.hypershift.openshift.io'],
  verbs: ['get'],
};

const chartDir = path.join(repoRoot, 'deploy', 'charts', 'hcc-syncer');
const ciValues = path.join(chartDir, 'ci', 'test-values.yaml');
const plainDir = path.join(repoRoot, 'deploy', 'syncer');
const simDir = path.join(repoRoot, 'deploy', 'hypershift-sim');
const kindSh = path.join(repoRoot, 'demo', 'kind.sh');
const helmPath = path.join(repoRoot, '.tools', 'kubectl-1.35', 'helm');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program; never throws on a non-zero exit. */
function run(bin: string, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(bin, args, { env: opts.env ?? process.env, cwd: opts.cwd, maxBuffer: 16 * 1024 * 1024, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}

function helm(args: string[]): Promise<Run> {
  if (!existsSync(helmPath)) throw new Error(`${helmPath} is missing: run \`npm run tools\` (npm test does it first)`);
  // Own HOME and cache dirs: nothing from the user's helm setup leaks in.
  const home = path.join(repoRoot, '.tools', 'helm-home');
  return run(helmPath, args, { env: { PATH: process.env.PATH ?? '', HOME: home, HELM_CACHE_HOME: path.join(home, 'cache'), HELM_CONFIG_HOME: path.join(home, 'config'), HELM_DATA_HOME: path.join(home, 'data') } });
}

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length) throw new Error(`invalid YAML: ${d.errors[0]!.message}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

function one(objs: K8sObject[], kind: string): K8sObject {
  const found = objs.filter((o) => o.kind === kind);
  expect(found, `exactly one ${kind}`).toHaveLength(1);
  return found[0]!;
}

type Any = any;

/** Renders the chart with the CI values plus `--set` overrides; throws with helm's stderr on failure. */
async function template(sets: string[] = [], extra: string[] = []): Promise<K8sObject[]> {
  const r = await helm(['template', 'hcc-syncer', chartDir, '--namespace', 'hcc-system', '-f', ciValues, ...sets.flatMap((s) => ['--set', s]), ...extra]);
  if (r.code !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  return parseObjects(r.stdout);
}

/** The parts of a syncer container both the chart and the plain manifests must agree on. */
function checkSyncerPod(dep: K8sObject, want: { secretName: string }) {
  const spec = (dep as Any).spec;
  expect(spec.replicas).toBe(1);
  expect(spec.strategy).toEqual({ type: 'Recreate' });
  expect(spec.selector.matchLabels).toBeTruthy();
  for (const [k, v] of Object.entries(spec.selector.matchLabels)) expect(spec.template.metadata.labels[k]).toBe(v);
  const pod = spec.template.spec;
  expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  expect(pod.containers).toHaveLength(1);
  const c = pod.containers[0];
  const args: string[] = c.args;
  expect(args[0]).toBe('syncer');
  // In a pod the syncer reaches its own cluster with in-cluster credentials.
  expect(args.some((a) => a.startsWith('--management-kubeconfig'))).toBe(false);
  expect(args).toContain('--metrics-host=0.0.0.0');
  const metricsPort = Number(args.find((a) => a.startsWith('--metrics-port='))!.split('=')[1]);
  expect(c.ports).toEqual([{ name: 'metrics', containerPort: metricsPort, protocol: 'TCP' }]);
  expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
  expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
  expect(c.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
  expect(c.resources.limits).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
  expect(c.securityContext).toEqual({
    runAsNonRoot: true,
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ['ALL'] },
  });
  // The control-center kubeconfig: --kubeconfig points into the read-only Secret mount.
  const kubeconfigArg = args.find((a) => a.startsWith('--kubeconfig='))!.split('=')[1]!;
  const mount = c.volumeMounts.find((m: Any) => m.name === 'control-center-kubeconfig');
  expect(mount).toMatchObject({ readOnly: true });
  expect(path.posix.join(mount.mountPath, 'kubeconfig')).toBe(kubeconfigArg);
  const vol = pod.volumes.find((v: Any) => v.name === 'control-center-kubeconfig');
  expect(vol.secret.secretName).toBe(want.secretName);
  expect(vol.secret.items).toEqual([{ key: expect.any(String), path: 'kubeconfig' }]);
  // A read-only root filesystem still gets a writable /tmp.
  expect(c.volumeMounts.find((m: Any) => m.mountPath === '/tmp')).toBeTruthy();
  return { args, container: c, pod };
}

// ---------------------------------------------------------------------------------------------
// An embedded management cluster (`hcc management-cluster`) for server-side dry runs.
// ---------------------------------------------------------------------------------------------
let mc: { proc: ChildProcess; kubeconfig: string; cleanup: () => void } | undefined;

async function startManagementCluster(): Promise<{ proc: ChildProcess; kubeconfig: string; cleanup: () => void }> {
  const { dir, cleanup } = tempDir('hcc-deploy-mc-');
  const kubeconfig = path.join(dir, 'kubeconfig');
  const proc = spawn(process.execPath, [hccBin, 'management-cluster', '--name', 'deploy-test', '--data-dir', path.join(dir, 'data'), '--port', '0', '--kubeconfig', kubeconfig], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d.toString()));
  proc.stderr!.on('data', (d) => (out += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`management cluster did not start:\n${out}`)), 30_000);
    proc.stdout!.on('data', () => {
      if (out.includes('"msg":"management cluster ready"')) {
        clearTimeout(t);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`management cluster exited with ${code}:\n${out}`));
    });
  });
  return { proc, kubeconfig, cleanup };
}

function k(args: string[], input?: string): Promise<Run> {
  const kubeconfig = mc?.kubeconfig ?? '/nonexistent';
  return run(kubectlPath('1.35'), [...args, `--cache-dir=${path.join(path.dirname(kubeconfig), '.kube-cache')}`], {
    input,
    env: { PATH: process.env.PATH ?? '', HOME: path.dirname(kubeconfig), KUBECONFIG: kubeconfig },
  });
}

/** Sends the served kinds of `objs` to the embedded server with a server-side dry run (namespaces for real first). */
async function serverDryRun(objs: K8sObject[]): Promise<void> {
  const served = objs.filter((o) => ['Namespace', 'ConfigMap', 'Secret'].includes(o.kind));
  const namespaces = new Set(served.map((o) => o.metadata.namespace).filter((n): n is string => !!n));
  for (const ns of namespaces) {
    const r = await k(['create', 'namespace', ns]);
    if (r.code !== 0) expect(r.stderr).toContain('AlreadyExists');
  }
  const input = served.map((o) => JSON.stringify(o)).join('\n');
  const r = await k(['apply', '--dry-run=server', '-f', '-'], input);
  expect(r.code, r.stderr).toBe(0);
  for (const o of served) expect(r.stdout).toContain(`${o.kind.toLowerCase()}/${o.metadata.name}`);
  const c = await k(['apply', '--dry-run=client', '-f', '-'], input);
  expect(c.code, c.stderr).toBe(0);
}

beforeAll(async () => {
  mc = await startManagementCluster();
});
afterAll(async () => {
  if (mc) {
    await stopProcess(mc.proc);
    mc.cleanup();
  }
});

// ---------------------------------------------------------------------------------------------
describe('Helm chart deploy/charts/hcc-syncer', () => {
  it('passes helm lint --strict', async () => {
    const r = await helm(['lint', chartDir, '--strict', '-f', ciValues]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('0 chart(s) failed');
  });

  it('renders a ServiceAccount, the control-center Secret, least-privilege RBAC and the Deployment', async () => {
    const objs = await template();
    expect(objs.map((o) => o.kind).sort()).toEqual(['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Role', 'RoleBinding', 'Secret', 'ServiceAccount']);
    for (const o of objs) if (!o.kind.startsWith('Cluster')) expect(o.metadata.namespace, o.kind).toBe('hcc-system');
    checkPresenceRole(objs, 'hcc-system');

    const sa = one(objs, 'ServiceAccount');
    const role = one(objs, 'ClusterRole');
    expect((role as Any).rules).toEqual(SyncerRules);
    const binding = one(objs, 'ClusterRoleBinding') as Any;
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: 'hcc-system' }]);

    const secret = one(objs, 'Secret') as Any;
    const dep = one(objs, 'Deployment') as Any;
    const { args, pod } = checkSyncerPod(dep, { secretName: secret.metadata.name });
    expect(pod.serviceAccountName).toBe(sa.metadata.name);
    expect(args).toEqual([
      'syncer',
      '--name=mgmt-eu-1',
      '--kubeconfig=/etc/hcc/control-center/kubeconfig',
      '--capacity=80',
      '--platforms=AWS,KubeVirt',
      '--labels=provider=aws,region=eu-west-1',
      '--heartbeat-interval=10',
      '--workers=16',
      '--metrics-host=0.0.0.0',
      '--metrics-port=8080',
      '--log-level=info',
    ]);
    expect(dep.spec.template.spec.containers[0].image).toBe('registry.example.com/hcc:0.1.0');
    expect(dep.spec.template.spec.containers[0].resources).toEqual({ requests: { cpu: '50m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } });

    // The Secret holds the kubeconfig from values, readable by the syncer's own loader; the pod
    // restarts when it changes.
    const b64 = secret.data.kubeconfig as string;
    const values = parse(readFileSync(ciValues, 'utf8'));
    expect(Buffer.from(b64, 'base64').toString('utf8')).toBe(values.controlCenter.kubeconfig);
    const { dir, cleanup } = tempDir('hcc-deploy-kc-');
    try {
      writeFileSync(path.join(dir, 'kubeconfig'), Buffer.from(b64, 'base64'));
      expect(loadKubeconfig(path.join(dir, 'kubeconfig'))).toMatchObject({ server: 'https://control-center.example.com:6443', token: 'not-a-real-token' });
    } finally {
      cleanup();
    }
    expect(dep.spec.template.metadata.annotations['checksum/control-center-kubeconfig']).toBe(createHash('sha256').update(b64).digest('hex'));
  });

  it('builds the syncer arguments from values', async () => {
    const objs = await template(
      ['managementCluster.name=kind-1', 'managementCluster.capacity=3', 'managementCluster.platforms=null', 'managementCluster.labels=null', 'syncer.pullCRDs=true', 'syncer.logLevel=debug', 'syncer.metricsPort=9090', 'syncer.extraArgs={--workers=8}', 'syncer.heartbeatIntervalSeconds=2.5'],
    );
    const dep = one(objs, 'Deployment') as Any;
    const c = dep.spec.template.spec.containers[0];
    expect(c.args).toEqual([
      'syncer',
      '--name=kind-1',
      '--kubeconfig=/etc/hcc/control-center/kubeconfig',
      '--capacity=3',
      '--heartbeat-interval=2.5',
      '--workers=16',
      '--metrics-host=0.0.0.0',
      '--metrics-port=9090',
      '--log-level=debug',
      '--pull-crds',
      '--workers=8',
    ]);
    expect(c.ports[0].containerPort).toBe(9090);
    // --pull-crds adds read access to the two HyperShift CRDs, by name, and nothing else.
    expect((one(objs, 'ClusterRole') as Any).rules).toEqual([...SyncerRules, PullCRDsRule]);
  });

  it('renders every argument as a string, also an IPv6 metrics host ending in a colon (`::`, `fd00::`)', async () => {
    for (const host of ['::', 'fd00::']) {
      const objs = await template([`syncer.metricsHost=${host}`]);
      const args = (one(objs, 'Deployment') as Any).spec.template.spec.containers[0].args as unknown[];
      expect(args.every((a) => typeof a === 'string'), JSON.stringify(args)).toBe(true);
      expect(args).toContain(`--metrics-host=${host}`);
    }
  });

  it('takes the kubeconfig base64-encoded, or from an existing Secret (then renders none)', async () => {
    const text = 'apiVersion: v1\nkind: Config\n';
    const b64 = Buffer.from(text).toString('base64');
    const fromB64 = await template(['controlCenter.kubeconfig=', `controlCenter.kubeconfigBase64=${b64}`]);
    expect((one(fromB64, 'Secret') as Any).data.kubeconfig).toBe(b64);

    const existing = await template(['controlCenter.kubeconfig=', 'controlCenter.existingSecret=my-cc', 'controlCenter.existingSecretKey=cfg']);
    expect(existing.some((o) => o.kind === 'Secret')).toBe(false);
    const dep = one(existing, 'Deployment') as Any;
    checkSyncerPod(dep, { secretName: 'my-cc' });
    expect(dep.spec.template.spec.volumes[0].secret.items).toEqual([{ key: 'cfg', path: 'kubeconfig' }]);
    expect(dep.spec.template.metadata.annotations?.['checksum/control-center-kubeconfig']).toBeUndefined();
  });

  it('can narrow the cluster-wide read to Leases (rbac.listAllKinds=false)', async () => {
    const objs = await template(['rbac.listAllKinds=false']);
    const leasesOnly = { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list'] };
    expect((one(objs, 'ClusterRole') as Any).rules).toEqual([...SyncerRules.filter((r) => !r.apiGroups.includes('*')), leasesOnly]);
  });

  it('can leave RBAC and the ServiceAccount to the cluster admin', async () => {
    const objs = await template(['rbac.create=false', 'serviceAccount.create=false', 'serviceAccount.name=preexisting']);
    expect(objs.map((o) => o.kind).sort()).toEqual(['Deployment', 'Secret']);
    expect((one(objs, 'Deployment') as Any).spec.template.spec.serviceAccountName).toBe('preexisting');
  });

  it('can expose /metrics through a Service and a Prometheus Operator ServiceMonitor', async () => {
    // Service alone, on its own port, with annotations for an annotation-driven Prometheus.
    const svcOnly = await template(['metrics.service.enabled=true', 'metrics.service.port=9100'], ['--set-string', 'metrics.service.annotations.prometheus\\.io/scrape=true']);
    expect(svcOnly.some((o) => o.kind === 'ServiceMonitor')).toBe(false);
    const svc = one(svcOnly, 'Service') as Any;
    const dep = one(svcOnly, 'Deployment') as Any;
    expect(svc.metadata).toMatchObject({ name: 'hcc-syncer-metrics', namespace: 'hcc-system', annotations: { 'prometheus.io/scrape': 'true' } });
    expect(svc.spec.type).toBe('ClusterIP');
    // It selects exactly the syncer pod, and targets the container's named port.
    expect(svc.spec.selector).toEqual(dep.spec.selector.matchLabels);
    expect(svc.spec.ports).toEqual([{ name: 'metrics', port: 9100, targetPort: 'metrics', protocol: 'TCP' }]);
    expect(dep.spec.template.spec.containers[0].ports.map((p: Any) => p.name)).toContain('metrics');

    // The ServiceMonitor turns the Service on and scrapes its port in the release namespace.
    const objs = await template(['metrics.serviceMonitor.enabled=true', 'metrics.serviceMonitor.labels.release=kube-prometheus-stack', 'metrics.serviceMonitor.interval=1m']);
    const service = one(objs, 'Service') as Any;
    const sm = one(objs, 'ServiceMonitor') as Any;
    expect(sm.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(sm.metadata.namespace).toBe('hcc-system');
    expect(sm.metadata.labels.release).toBe('kube-prometheus-stack');
    expect(service.spec.ports[0].port).toBe(8080);
    for (const [k, v] of Object.entries(sm.spec.selector.matchLabels)) expect(service.metadata.labels[k]).toBe(v);
    expect(sm.spec.namespaceSelector).toEqual({ matchNames: ['hcc-system'] });
    expect(sm.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', scheme: 'http', interval: '1m', scrapeTimeout: '10s' }]);
    // A label the chart sets already is not written twice (the chart's stays).
    const dup = await helm(['template', 'hcc-syncer', chartDir, '-f', ciValues, '--set', 'metrics.serviceMonitor.enabled=true', '--set', 'metrics.serviceMonitor.labels.app\\.kubernetes\\.io/name=other']);
    expect(dup.code, dup.stderr).toBe(0);
    const smText = dup.stdout.slice(dup.stdout.indexOf('kind: ServiceMonitor')).split('\nspec:')[0]!;
    expect(smText.match(/app\.kubernetes\.io\/name:/g)).toHaveLength(1);
    // An extra argument that only starts like a chart-owned flag is passed on.
    const extra = one(await template(['syncer.extraArgs={--name2=x}']), 'Deployment') as Any;
    expect(extra.spec.template.spec.containers[0].args.at(-1)).toBe('--name2=x');

    // A release name with dots or a leading digit still gives a valid Service name (a DNS-1035 label).
    const r = await helm(['template', '2.eu', chartDir, '-f', ciValues, '--set', 'metrics.service.enabled=true']);
    expect(r.code, r.stderr).toBe(0);
    const dotted = one(parseObjects(r.stdout), 'Service') as Any;
    expect(dotted.metadata.name).toMatch(/^[a-z]([-a-z0-9]*[a-z0-9])?$/);
    expect(dotted.metadata.name.length).toBeLessThanOrEqual(63);
  });

  it.each([
    { name: 'no ManagementCluster name', input: ['managementCluster.name='], want: 'managementCluster.name is required' },
    { name: 'no kubeconfig', input: ['controlCenter.kubeconfig='], want: 'set exactly one of controlCenter.kubeconfig' },
    { name: 'two kubeconfig sources', input: ['controlCenter.existingSecret=x'], want: 'set exactly one of controlCenter.kubeconfig' },
    { name: 'an unknown platform', input: ['managementCluster.platforms={AWS,Moon}'], want: "value must be one of 'AWS'" },
    { name: 'a name that is not a DNS label', input: ['managementCluster.name=Mgmt_1'], want: 'does not match pattern' },
    { name: 'a misspelt value', input: ['managementCluster.capcity=3'], want: "additional properties 'capcity' not allowed" },
    { name: 'a negative capacity', input: ['managementCluster.capacity=-1'], want: 'managementCluster/capacity' },
    { name: 'a capacity past int32', input: ['managementCluster.capacity=100000000000'], want: 'managementCluster/capacity' },
    { name: 'a misspelt top-level value', input: ['podSecurityContexts.runAsUser=1'], want: "additional properties 'podSecurityContexts' not allowed" },
    { name: 'a probe handler (the chart owns /healthz and /readyz)', input: ['livenessProbe.httpGet.port=9090'], want: "additional properties 'httpGet' not allowed" },
    { name: 'a metrics host in brackets (hcc syncer wants a bare address)', input: ['syncer.metricsHost=[::]'], want: 'syncer/metricsHost' },
    { name: 'a metrics host name (the kubelet probes the pod IP)', input: ['syncer.metricsHost=localhost'], want: 'syncer/metricsHost' },
    { name: 'a liveness successThreshold other than 1 (Kubernetes refuses it)', input: ['livenessProbe.successThreshold=2'], want: 'livenessProbe/successThreshold' },
    { name: 'a readiness terminationGracePeriodSeconds (Kubernetes refuses it)', input: ['readinessProbe.terminationGracePeriodSeconds=5'], want: "additional properties 'terminationGracePeriodSeconds' not allowed" },
    { name: 'a heartbeat interval under 0.5 s, as --set passes it (a string)', input: ['syncer.heartbeatIntervalSeconds=0.4'], want: 'syncer/heartbeatIntervalSeconds' },
    { name: 'a heartbeat interval over an hour, as a string', input: ['syncer.heartbeatIntervalSeconds=3600.5'], want: 'syncer/heartbeatIntervalSeconds' },
    { name: 'a heartbeat interval over an hour, as a number', input: ['syncer.heartbeatIntervalSeconds=3601'], want: 'syncer/heartbeatIntervalSeconds' },
    { name: 'a kubeconfig that is not base64', input: ['controlCenter.kubeconfig=', 'controlCenter.kubeconfigBase64=!!notbase64'], want: 'controlCenter/kubeconfigBase64' },
    { name: 'base64 of the wrong length', input: ['controlCenter.kubeconfig=', 'controlCenter.kubeconfigBase64=YWJ'], want: 'controlCenter/kubeconfigBase64' },
    { name: 'base64 with padding in the middle', input: ['controlCenter.kubeconfig=', 'controlCenter.kubeconfigBase64=YWJj==YWJj'], want: 'controlCenter/kubeconfigBase64' },
    { name: 'a metrics host that is no address (hcc syncer would refuse it, and the pod crash-loop)', input: ['syncer.metricsHost=:'], want: 'syncer/metricsHost' },
    { name: 'a metrics host with an octet past 255', input: ['syncer.metricsHost=999.999.999.999'], want: 'syncer/metricsHost' },
    { name: 'a loopback metrics host (the kubelet probes the pod IP)', input: ['syncer.metricsHost=127.0.0.1'], want: 'syncer/metricsHost' },
    { name: 'an extra argument that overrides the ManagementCluster name', input: ['syncer.extraArgs={--name=evil}'], want: "syncer.extraArgs: --name is the chart's own (set from managementCluster.name); set that value instead" },
    { name: 'an extra argument that moves the metrics port from under the probes', input: ['syncer.extraArgs={-metrics-port=9}'], want: "syncer.extraArgs: -metrics-port is the chart's own" },
    { name: 'a scrape timeout longer than the scrape interval (Prometheus refuses it)', input: ['metrics.serviceMonitor.enabled=true', 'metrics.serviceMonitor.interval=10s', 'metrics.serviceMonitor.scrapeTimeout=30s'], want: 'metrics.serviceMonitor.scrapeTimeout 30s is longer than metrics.serviceMonitor.interval 10s' },
    { name: 'a scrape interval that is not a Prometheus duration', input: ['metrics.serviceMonitor.interval=30'], want: 'metrics/serviceMonitor/interval' },
    { name: 'a metrics Service port past 65535', input: ['metrics.service.port=70000'], want: 'metrics/service/port' },
  ])('rejects $name with a clear error', async ({ input, want }) => {
    const r = await helm(['template', 'hcc-syncer', chartDir, '-f', ciValues, ...input.flatMap((s) => ['--set', s])]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(want);
  });

  it('offers exactly the platforms hcc knows (values.schema.json mirrors PlatformTypes)', () => {
    const schema = JSON.parse(readFileSync(path.join(chartDir, 'values.schema.json'), 'utf8'));
    expect(schema.properties.managementCluster.properties.platforms.items.enum).toEqual([...PlatformTypes]);
  });

  it('renders a Secret the API server accepts (server-side dry run)', async () => {
    await serverDryRun(await template());
  });
});

// ---------------------------------------------------------------------------------------------
describe('plain manifests deploy/syncer', () => {
  const kustomize = async (dir: string) => {
    const r = await run(kubectlPath('1.35'), ['kustomize', dir]);
    if (r.code !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${r.stderr}`);
    return parseObjects(r.stdout);
  };

  it('lists every manifest in kustomization.yaml', () => {
    const kust = parse(readFileSync(path.join(plainDir, 'kustomization.yaml'), 'utf8'));
    const files = readdirSync(plainDir).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml');
    expect([...kust.resources].sort()).toEqual(files.sort());
  });

  it('renders the same objects as the chart, with the same RBAC rules, probes and security settings', async () => {
    const objs = await kustomize(plainDir);
    expect(objs.map((o) => o.kind).sort()).toEqual(['ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'Deployment', 'Namespace', 'Role', 'RoleBinding', 'Secret', 'ServiceAccount']);
    const ns = one(objs, 'Namespace');
    checkPresenceRole(objs, ns.metadata.name!);
    expect(ns.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const o of objs) if (!['Namespace', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind)) expect(o.metadata.namespace, o.kind).toBe(ns.metadata.name);

    const sa = one(objs, 'ServiceAccount');
    const role = one(objs, 'ClusterRole') as Any;
    expect(role.rules).toEqual(SyncerRules);
    const binding = one(objs, 'ClusterRoleBinding') as Any;
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: ns.metadata.name }]);

    const secret = one(objs, 'Secret');
    const dep = one(objs, 'Deployment') as Any;
    const { args, container, pod } = checkSyncerPod(dep, { secretName: secret.metadata.name });
    expect(pod.serviceAccountName).toBe(sa.metadata.name);
    expect(container.image).toBe('hcc:0.1.0');

    // Same pod settings as the chart renders by default.
    const chartDep = one(await template(), 'Deployment') as Any;
    const chartC = chartDep.spec.template.spec.containers[0];
    for (const key of ['livenessProbe', 'readinessProbe', 'resources', 'securityContext', 'ports']) expect(container[key], key).toEqual(chartC[key]);
    expect(pod.securityContext).toEqual(chartDep.spec.template.spec.securityContext);

    // Flags come from the ConfigMap: every $(VAR) in args is an env var from one of its keys.
    const cm = one(objs, 'ConfigMap') as Any;
    const env = new Map<string, Any>(container.env.map((e: Any) => [e.name, e.valueFrom.configMapKeyRef]));
    const used = args.flatMap((a) => [...a.matchAll(/\$\(([A-Z_]+)\)/g)].map((m) => m[1]!));
    expect(used.sort()).toEqual([...env.keys()].sort());
    for (const ref of env.values()) {
      expect(ref.name).toBe(cm.metadata.name);
      expect(Object.keys(cm.data)).toContain(ref.key);
    }
    expect(args).toEqual(expect.arrayContaining(['--name=$(HCC_MANAGEMENT_CLUSTER)', '--capacity=$(HCC_CAPACITY)', '--platforms=$(HCC_PLATFORMS)', '--labels=$(HCC_LABELS)']));

    // The same syncer either way: every flag the chart sets by default has the same value in the
    // plain manifests (given, from the ConfigMap, or left to the CLI default `hcc syncer --help` shows).
    const help = (await run(process.execPath, [hccBin, 'syncer', '--help'])).stdout.replace(/\s+/g, ' ');
    const cliDefault = (flag: string) => new RegExp(`${flag} <[^>]+> [^(]*(?:\\([^)]*\\) )*?\\(default: "?([^")]+)"?\\)`).exec(help)?.[1];
    const expand = (a: string) => a.replace(/\$\(([A-Z_]+)\)/g, (_m, v: string) => String(cm.data[env.get(v)!.key]));
    const flags = (list: string[]) => new Map(list.filter((a) => a.startsWith('--')).map((a) => [a.split('=')[0]!, a.includes('=') ? a.slice(a.indexOf('=') + 1) : 'true']));
    const plain = flags(args.map(expand));
    const chart = flags(chartC.args as string[]);
    for (const [flag, value] of chart) {
      if (['--name', '--kubeconfig', '--capacity', '--platforms', '--labels'].includes(flag)) continue; // per cluster
      expect(plain.get(flag) ?? cliDefault(flag), flag).toBe(value);
    }
  });

  it('takes the cluster settings and kubeconfig from an overlay (as the README shows)', async () => {
    const { dir, cleanup } = tempDir('hcc-deploy-overlay-');
    try {
      // A kubeconfig of real length: kustomize writes long values as wrapped base64 ending in a
      // line break, which Go's decoder (and so the API server) takes; its length makes it end in "=".
      let kubeconfigText = 'apiVersion: v1\nkind: Config\nclusters:\n- name: cc\n  cluster: {server: "https://control-center.example.com:6443", certificate-authority-data: "LS0tLS1CRUdJTi"}\nusers:\n- name: syncer\n  user: {token: "0123456789abcdef0123456789abcdef"}\n';
      if (Buffer.byteLength(kubeconfigText) % 3 === 0) kubeconfigText += '#\n';
      writeFileSync(path.join(dir, 'control-center.kubeconfig'), kubeconfigText);
      writeFileSync(
        path.join(dir, 'kustomization.yaml'),
        [
          'apiVersion: kustomize.config.k8s.io/v1beta1',
          'kind: Kustomization',
          'resources:',
          `  - ${path.relative(dir, plainDir)}`,
          'images:',
          '  - name: hcc',
          '    newName: registry.example.com/hcc',
          '    newTag: 0.1.0',
          'configMapGenerator:',
          '  - name: hcc-syncer',
          '    namespace: hcc-system',
          '    behavior: merge',
          '    literals:',
          '      - name=mgmt-eu-1',
          '      - capacity=80',
          '      - platforms=AWS',
          '      - labels=region=eu-west-1,provider=aws',
          'secretGenerator:',
          '  - name: hcc-syncer-control-center',
          '    namespace: hcc-system',
          '    behavior: replace',
          '    files:',
          '      - kubeconfig=control-center.kubeconfig',
          '',
        ].join('\n'),
      );
      const objs = await kustomize(dir);
      const cm = one(objs, 'ConfigMap') as Any;
      expect(cm.data).toMatchObject({ name: 'mgmt-eu-1', capacity: '80', platforms: 'AWS', labels: 'region=eu-west-1,provider=aws', 'heartbeat-interval': '10' });
      const secret = one(objs, 'Secret') as Any;
      expect(secret.data.kubeconfig).toMatch(/=\n$/);
      expect(Buffer.from(secret.data.kubeconfig, 'base64').toString()).toBe(kubeconfigText);
      expect(secret.stringData).toBeUndefined();
      const dep = one(objs, 'Deployment') as Any;
      expect(dep.spec.template.spec.containers[0].image).toBe('registry.example.com/hcc:0.1.0');
      // References follow whatever names kustomize gave the generated objects.
      const c = dep.spec.template.spec.containers[0];
      for (const e of c.env) expect(e.valueFrom.configMapKeyRef.name).toBe(cm.metadata.name);
      expect(dep.spec.template.spec.volumes[0].secret.secretName).toBe(secret.metadata.name);
      await serverDryRun(objs);
    } finally {
      cleanup();
    }
  });

  it('has a Namespace, ConfigMap and Secret the API server accepts (server-side dry run)', async () => {
    await serverDryRun(await kustomize(plainDir));
  });
});

// ---------------------------------------------------------------------------------------------
describe('hypershift-sim manifests deploy/hypershift-sim (kind demo)', () => {
  it('run `hcc hypershift-sim` in-cluster with the rights the sim uses and probes on its metrics port', async () => {
    const r = await run(kubectlPath('1.35'), ['kustomize', simDir]);
    expect(r.code, r.stderr).toBe(0);
    const objs = parseObjects(r.stdout);
    expect(objs.map((o) => o.kind).sort()).toEqual(['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Namespace', 'Role', 'RoleBinding', 'ServiceAccount']);
    // The operator's namespace: where the sim writes the supported-versions ConfigMap the syncer reads.
    expect(one(objs, 'Namespace').metadata.name).toBe('hypershift');
    const dep = one(objs, 'Deployment') as Any;
    const c = dep.spec.template.spec.containers[0];
    expect(c.args[0]).toBe('hypershift-sim');
    expect(c.args.some((a: string) => a.startsWith('--kubeconfig'))).toBe(false);
    const port = Number(c.args.find((a: string) => a.startsWith('--metrics-port=')).split('=')[1]);
    expect(c.ports[0]).toMatchObject({ name: 'metrics', containerPort: port });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(c.image).toBe('hcc:0.1.0');

    const sa = one(objs, 'ServiceAccount');
    expect(dep.spec.template.spec.serviceAccountName).toBe(sa.metadata.name);
    const allows = (rules: Any[], group: string, resource: string, verb: string) =>
      rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
    const cr = (one(objs, 'ClusterRole') as Any).rules;
    for (const [res, verbs] of Object.entries({ hostedclusters: ['list', 'watch', 'update'], nodepools: ['list', 'watch', 'update', 'delete'], 'hostedclusters/status': ['update'], 'nodepools/status': ['update'] })) {
      for (const v of verbs) expect(allows(cr, 'hypershift.openshift.io', res, v), `${res} ${v}`).toBe(true);
    }
    for (const res of ['namespaces', 'secrets']) for (const v of ['list', 'watch', 'create', 'delete']) expect(allows(cr, '', res, v), `${res} ${v}`).toBe(true);
    // The custom kubeconfig is written again when spec.kubeAPIServerDNSName changes.
    expect(allows(cr, '', 'secrets', 'update'), 'secrets update').toBe(true);
    // Referenced ConfigMaps (trust bundles, CAs) are watched in every namespace.
    for (const v of ['list', 'watch']) expect(allows(cr, '', 'configmaps', v), `configmaps ${v}`).toBe(true);
    const role = one(objs, 'Role') as Any;
    expect(role.metadata.namespace).toBe('hypershift');
    for (const v of ['get', 'create', 'update']) expect(allows(role.rules, '', 'configmaps', v), `configmaps ${v}`).toBe(true);
    for (const b of [one(objs, 'ClusterRoleBinding'), one(objs, 'RoleBinding')] as Any[]) {
      expect(b.subjects).toEqual([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: 'hypershift' }]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
/** A free TCP port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Runs `hcc` with a container's arguments, swapping in-pod paths and ports for local ones, and
 * resolves once its ops server answers /readyz with 200. The caller stops the returned process.
 */
async function runContainerArgs(args: string[], swap: { from: string; to: string }[], extra: string[], port: number): Promise<{ proc: ChildProcess; output: () => string }> {
  const local = args.map((a) => swap.reduce((acc, s) => (acc === s.from ? s.to : acc), a));
  let out = '';
  const proc = spawn(process.execPath, [hccBin, ...local, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (d) => (out += d.toString()));
  proc.stderr!.on('data', (d) => (out += d.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`hcc ${local.join(' ')} exited with ${proc.exitCode}:\n${out}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await stopProcess(proc);
      throw new Error(`hcc ${local.join(' ')} not ready within 30 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { proc, output: () => out };
}

describe('the rendered container arguments run the real hcc CLI', () => {
  let cc: ControlCenterProcess;
  const mcObject = async (name: string) => {
    const r = await run(kubectlPath('1.35'), ['get', 'managementcluster', name, '-o', 'json', `--cache-dir=${path.join(cc.dir, '.kube-cache')}`], {
      env: { PATH: process.env.PATH ?? '', HOME: cc.dir, KUBECONFIG: cc.kubeconfig },
    });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Any;
  };
  beforeAll(async () => {
    cc = await startControlCenterProcess();
  });
  afterAll(async () => {
    await cc?.stop();
  });

  it('chart: the syncer registers its ManagementCluster with the capacity, platforms and labels from values', async () => {
    const port = await freePort();
    const dep = one(await template([`syncer.metricsPort=${port}`]), 'Deployment') as Any;
    const args: string[] = dep.spec.template.spec.containers[0].args;
    // In a pod, no --management-kubeconfig means in-cluster credentials; here it is the embedded cluster.
    const s = await runContainerArgs(args, [{ from: '--kubeconfig=/etc/hcc/control-center/kubeconfig', to: `--kubeconfig=${cc.kubeconfig}` }], [`--management-kubeconfig=${mc!.kubeconfig}`], port);
    try {
      const got = await mcObject('mgmt-eu-1');
      expect(got.spec).toMatchObject({ capacity: 80, platforms: ['AWS', 'KubeVirt'], mode: 'Pull' });
      expect(got.metadata.labels).toMatchObject({ region: 'eu-west-1', provider: 'aws' });
      const healthz = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(healthz.status).toBe(200);
    } finally {
      await stopProcess(s.proc);
    }
  });

  it('plain manifests: the same, with the flags the kubelet expands from the ConfigMap', async () => {
    const objs = parseObjects((await run(kubectlPath('1.35'), ['kustomize', plainDir])).stdout);
    const c = (one(objs, 'Deployment') as Any).spec.template.spec.containers[0];
    const data = { ...(one(objs, 'ConfigMap') as Any).data, name: 'mgmt-plain', capacity: '7', platforms: 'None', labels: 'tier=dev' };
    const env = new Map<string, string>(c.env.map((e: Any) => [e.name, data[e.valueFrom.configMapKeyRef.key]]));
    const expanded = (c.args as string[]).map((a) => a.replace(/\$\(([A-Z_]+)\)/g, (_m, v: string) => env.get(v) ?? `$(${v})`));
    const port = await freePort();
    const s = await runContainerArgs(
      expanded,
      [
        { from: '--kubeconfig=/etc/hcc/control-center/kubeconfig', to: `--kubeconfig=${cc.kubeconfig}` },
        { from: '--metrics-port=8080', to: `--metrics-port=${port}` },
      ],
      [`--management-kubeconfig=${mc!.kubeconfig}`],
      port,
    );
    try {
      const got = await mcObject('mgmt-plain');
      expect(got.spec).toMatchObject({ capacity: 7, platforms: ['None'] });
      expect(got.metadata.labels).toMatchObject({ tier: 'dev' });
    } finally {
      await stopProcess(s.proc);
    }
  });

  it('plain manifests with the defaults (no platforms, no labels) are valid flags', async () => {
    const objs = parseObjects((await run(kubectlPath('1.35'), ['kustomize', plainDir])).stdout);
    const c = (one(objs, 'Deployment') as Any).spec.template.spec.containers[0];
    const data = { ...(one(objs, 'ConfigMap') as Any).data, name: 'mgmt-defaults' };
    const env = new Map<string, string>(c.env.map((e: Any) => [e.name, data[e.valueFrom.configMapKeyRef.key]]));
    const expanded = (c.args as string[]).map((a) => a.replace(/\$\(([A-Z_]+)\)/g, (_m, v: string) => env.get(v) ?? `$(${v})`));
    const port = await freePort();
    const s = await runContainerArgs(
      expanded,
      [
        { from: '--kubeconfig=/etc/hcc/control-center/kubeconfig', to: `--kubeconfig=${cc.kubeconfig}` },
        { from: '--metrics-port=8080', to: `--metrics-port=${port}` },
      ],
      [`--management-kubeconfig=${mc!.kubeconfig}`],
      port,
    );
    try {
      const got = await mcObject('mgmt-defaults');
      expect(got.spec.capacity).toBe(50);
      expect(got.spec.platforms ?? []).toEqual([]);
    } finally {
      await stopProcess(s.proc);
    }
  });

  it('hypershift-sim Deployment: `hcc hypershift-sim` starts with its arguments', async () => {
    const objs = parseObjects((await run(kubectlPath('1.35'), ['kustomize', simDir])).stdout);
    const c = (one(objs, 'Deployment') as Any).spec.template.spec.containers[0];
    const port = await freePort();
    // The embedded cluster runs a sim already; a second one for a moment changes nothing there.
    const s = await runContainerArgs(c.args, [{ from: '--metrics-port=8080', to: `--metrics-port=${port}` }], [`--kubeconfig=${mc!.kubeconfig}`], port);
    await stopProcess(s.proc);
  });
});

// ---------------------------------------------------------------------------------------------
/**
 * Which paths of the repository the docker build context holds, per .dockerignore as Docker
 * reads it: patterns in order, the last match wins, `!` re-includes, a pattern that matches a
 * parent directory matches everything below it, `*` stays within one path segment and `**` spans any.
 * @see https://docs.docker.com/build/concepts/context/#dockerignore-files
 */
function dockerContext(): (rel: string) => boolean {
  const toRegExp = (p: string) => {
    let re = '';
    for (let i = 0; i < p.length; i++) {
      const ch = p[i]!;
      if (ch === '*' && p[i + 1] === '*') {
        re += '.*';
        i++;
        if (p[i + 1] === '/') i++;
      } else if (ch === '*') re += '[^/]*';
      else if (ch === '?') re += '[^/]';
      else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    return new RegExp(`^${re}$`);
  };
  const rules = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      return { negate, re: toRegExp(path.posix.normalize((negate ? l.slice(1) : l).replace(/\/+$/, ''))) };
    });
  return (rel) => {
    const parts = rel.split('/');
    let excluded = false;
    for (const r of rules) {
      for (let n = parts.length; n >= 1; n--) {
        if (r.re.test(parts.slice(0, n).join('/'))) {
          excluded = !r.negate;
          break;
        }
      }
    }
    return !excluded;
  };
}

/** Files of the repository (without .git and node_modules), relative, with '/' separators. */
function repoFiles(dir = '', out: string[] = []): string[] {
  for (const e of readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
    if (e.name === '.git' || e.name === 'node_modules') continue;
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) repoFiles(rel, out);
    else out.push(rel);
  }
  return out;
}

/** Bare module specifiers imported by the CLI at run time, following relative and @hcc/* imports from packages/cli/src/main.ts. */
function runtimeImports(): Set<string> {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/(?:^|[\s;])(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('.')) {
        const ts = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
        if (existsSync(ts)) visit(ts);
        else if (existsSync(path.join(ts.replace(/\.ts$/, ''), 'index.ts'))) visit(path.join(ts.replace(/\.ts$/, ''), 'index.ts'));
      } else if (spec.startsWith('@hcc/')) {
        // '@hcc/pkg' or '@hcc/pkg/sub': the file the package's exports map names (its "source").
        const [pkg, ...sub] = spec.slice('@hcc/'.length).split('/');
        const dir = path.join(repoRoot, 'packages', pkg!);
        const exportsMap = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).exports as Record<string, { source: string }>;
        const entry = exportsMap[sub.length ? `./${sub.join('/')}` : '.'];
        if (!entry) throw new Error(`${file} imports ${spec}, which packages/${pkg}/package.json does not export`);
        visit(path.join(dir, entry.source));
      } else if (!spec.startsWith('node:')) {
        bare.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
  };
  visit(path.join(repoRoot, 'packages', 'cli', 'src', 'main.ts'));
  return bare;
}

describe('Dockerfile and .dockerignore', () => {
  const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
  const lines = dockerfile.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const rootPkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

  it('builds on node:20 bookworm-slim in two stages and runs the CLI as a numeric non-root user', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    expect(stages.map((s) => s.split('\n')[0])).toEqual(['${NODE_IMAGE} AS build', '${NODE_IMAGE} AS runtime']);
    const [build, runtime] = stages as [string, string];
    expect(build).toMatch(/RUN npm ci\b/);
    expect(build).toMatch(/npm run build/);
    expect(build).toMatch(/npm prune --omit=dev/);
    expect(runtime).not.toMatch(/npm (ci|install)/);
    const user = /^USER (\S+)$/m.exec(runtime)?.[1];
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/); // numeric, not 0: runAsNonRoot can verify it
    expect(runtime).toMatch(/^ENTRYPOINT \["node", "packages\/cli\/bin\/hcc\.js"\]$/m);
    expect(lines.indexOf(lines.find((l) => l.startsWith('USER'))!)).toBeLessThan(lines.indexOf(lines.find((l) => l.startsWith('ENTRYPOINT'))!));
  });

  it('copies the package.json of every workspace before npm ci', () => {
    const build = stages[0]!;
    const npmCi = build.indexOf('RUN npm ci');
    for (const ws of rootPkg.workspaces as string[]) {
      const at = build.indexOf(`COPY ${ws}/package.json ${ws}/`);
      expect(at, `${ws}/package.json`).toBeGreaterThan(-1);
      expect(at).toBeLessThan(npmCi);
    }
  });

  it('sends only sources and manifests in the build context, and everything the build copies', () => {
    const inContext = dockerContext();
    const files = repoFiles();
    const sent = files.filter(inContext);
    for (const f of ['package.json', 'package-lock.json', '.npmrc', 'tsconfig.json', 'tsconfig.base.json', 'packages/cli/bin/hcc.js', 'packages/crds/manifests/hostedclusters.hypershift.openshift.io.yaml']) {
      expect(sent, f).toContain(f);
    }
    for (const ws of rootPkg.workspaces as string[]) {
      expect(sent).toContain(`${ws}/package.json`);
      expect(sent).toContain(`${ws}/tsconfig.json`);
      const sources = files.filter((f) => f.startsWith(`${ws}/src/`) && !f.endsWith('.test.ts'));
      expect(sources.length).toBeGreaterThan(0);
      for (const s of sources) expect(sent, s).toContain(s);
    }
    // Never: tests, build output, tools, state (kubeconfigs with tokens), VCS, dependencies.
    for (const f of sent) expect(f).not.toMatch(/^(\.git|\.tools|\.hcc|test|testdata|bench|demo|deploy|scripts)\/|(^|\/)(node_modules|dist)\/|\.test\.ts$|\.tsbuildinfo$/);
    for (const f of ['.git/HEAD', 'node_modules/yaml/package.json', 'packages/cli/node_modules/x/index.js', 'packages/cli/dist/main.js', '.hcc/admin.kubeconfig', '.tools/kubectl-1.35/kubectl', 'packages/syncer/src/syncer.test.ts', 'Dockerfile', 'README.md']) {
      expect(inContext(f), f).toBe(false);
    }
    // Every COPY of the build stage reads from the context.
    for (const m of stages[0]!.matchAll(/^COPY (?!--from)(.+)$/gm)) {
      const parts = m[1]!.trim().split(/\s+/);
      for (const src of parts.slice(0, -1)) {
        const rel = src.replace(/\/$/, '');
        const present = sent.some((f) => f === rel || f.startsWith(`${rel}/`));
        expect(present, `COPY ${src}`).toBe(true);
      }
    }
  });

  it('needs no dev dependency at run time (npm prune --omit=dev keeps what the CLI imports)', () => {
    const deps = new Set(Object.keys(rootPkg.dependencies));
    const imports = [...runtimeImports()];
    expect(imports.length).toBeGreaterThan(3);
    for (const spec of imports) expect(deps.has(spec), `${spec} is imported at run time but is not in package.json dependencies`).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
describe('demo/kind.sh', () => {
  const bash = '/bin/bash';
  /** A directory of fake tools (shell scripts) to put on PATH instead of the real ones. */
  const fakeBin = (dir: string, tools: Record<string, string>) => {
    const bin = path.join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const [name, body] of Object.entries(tools)) writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    symlinkSync(process.execPath, path.join(bin, 'node'));
    return bin;
  };
  /** Environment whose PATH holds only the fake tools (and node), with kubectl and helm given explicitly. */
  const isolated = (dir: string, bin: string): NodeJS.ProcessEnv => ({
    PATH: bin,
    HOME: dir,
    HCC_KIND_STATE_DIR: path.join(dir, 'state'),
    KUBECTL: path.join(bin, 'kubectl'),
    HELM: path.join(bin, 'helm'),
  });
  const runKind = (args: string[], env: NodeJS.ProcessEnv) => run(bash, [kindSh, ...args], { env });

  it('is valid bash and executable', async () => {
    expect(statSync(kindSh).mode & 0o111).not.toBe(0);
    const r = await run(bash, ['-n', kindSh]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(kindSh, 'utf8')).toMatch(/^#!\/usr\/bin\/env bash\n[\s\S]*^set -euo pipefail$/m);
  });

  const shellcheck = ['/usr/bin/shellcheck', '/usr/local/bin/shellcheck'].find((p) => existsSync(p));
  // CI (.ci/run installs shellcheck and sets HCC_CI) always runs it; a developer machine without it skips.
  it.runIf(shellcheck || process.env.HCC_CI)('passes shellcheck', async () => {
    if (!shellcheck) throw new Error('shellcheck is not installed (Debian: apt-get install shellcheck)');
    const r = await run(shellcheck, ['-x', kindSh]);
    expect(r.code, r.stdout).toBe(0);
  });

  it('says what is missing when docker and kind are not installed, and does nothing', async () => {
    const { dir, cleanup } = tempDir('hcc-kind-');
    try {
      const bin = fakeBin(dir, { npm: 'exit 0', kubectl: 'exit 0', helm: 'exit 0' });
      const env = isolated(dir, bin);
      const r = await runKind([], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('docker is not installed');
      expect(r.stderr).toContain('https://docs.docker.com/get-docker/');
      expect(r.stderr).toContain('kind is not installed');
      expect(r.stderr).toContain('https://kind.sigs.k8s.io/');
      expect(r.stderr).not.toMatch(/kubectl|helm|node|npm/);
      expect(existsSync(env.HCC_KIND_STATE_DIR!)).toBe(false);
    } finally {
      cleanup();
    }
  });

  it('says so when the Docker daemon is not running', async () => {
    const { dir, cleanup } = tempDir('hcc-kind-');
    try {
      const bin = fakeBin(dir, { docker: 'echo "Cannot connect to the Docker daemon" >&2; exit 1', kind: 'exit 0', npm: 'exit 0', kubectl: 'exit 0', helm: 'exit 0' });
      const r = await runKind([], isolated(dir, bin));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('cannot reach the Docker daemon');
      expect(r.stderr).not.toContain('not installed');
    } finally {
      cleanup();
    }
  });

  it('names only kind when docker is there but kind is not', async () => {
    const { dir, cleanup } = tempDir('hcc-kind-');
    try {
      const bin = fakeBin(dir, { docker: 'exit 0', npm: 'exit 0', kubectl: 'exit 0', helm: 'exit 0' });
      const r = await runKind([], isolated(dir, bin));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('kind is not installed');
      expect(r.stderr).not.toContain('docker');
    } finally {
      cleanup();
    }
  });

  it('takes the bundled kubectl and helm only where they run (they are Linux x86-64 builds), else the ones on PATH', async () => {
    const { dir, cleanup } = tempDir('hcc-kind-');
    try {
      const fn = /^find_tool\(\) \{[\s\S]*?^\}$/m.exec(readFileSync(kindSh, 'utf8'))?.[0];
      expect(fn).toBeTruthy();
      const bin = fakeBin(dir, { kubectl: 'exit 0' });
      // A binary of another platform: executable, but exec fails ("Exec format error").
      const foreign = path.join(dir, 'bundled-kubectl');
      writeFileSync(foreign, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0xb7, 0]), { mode: 0o755 });
      const runs = path.join(dir, 'runs-kubectl');
      writeFileSync(runs, '#!/bin/sh\n[ "$1 $2" = "version --client" ]\n', { mode: 0o755 });
      const pick = async (bundled: string) => (await run(bash, ['-c', `${fn}\nfind_tool kubectl '' '${bundled}' --client`], { env: { PATH: bin } })).stdout.trim();
      expect(await pick(foreign)).toBe(path.join(bin, 'kubectl'));
      expect(await pick(runs)).toBe(runs);
    } finally {
      cleanup();
    }
  });

  it("runs the scheduler with the identity the control center writes for it (the admin one may not place HostedClusters)", () => {
    const script = readFileSync(kindSh, 'utf8').replace(/\\\n\s*/g, ' ');
    const cc = /start_local control-center control-center (.*)/.exec(script)?.[1] ?? '';
    const sched = /start_local scheduler scheduler (.*)/.exec(script)?.[1] ?? '';
    const written = /--scheduler-kubeconfig (\S+)/.exec(cc)?.[1];
    expect(written).toBe('"$STATE/scheduler.kubeconfig"');
    expect(/--kubeconfig (\S+)/.exec(sched)?.[1]).toBe(written);
  });

  it('runs each syncer as its own restricted identity under the shipped syncer policy', () => {
    const script = readFileSync(kindSh, 'utf8').replace(/\\\n\s*/g, ' ');
    const cc = /start_local control-center control-center (.*)/.exec(script)?.[1] ?? '';
    expect(/--token-file (\S+)/.exec(cc)?.[1]).toBe('"$STATE/syncer-tokens.csv"');
    expect(/--authorization-policy (\S+)/.exec(cc)?.[1]).toBe('"$ROOT/deploy/control-center/syncer-policy.yaml"');
    expect(script).toContain(`printf '%s,hcc:syncer:%s,kind-syncer-%s,"hcc:syncers"\\n' "$token" "$c" "$c" >>"$STATE/syncer-tokens.csv"`);
    // macOS's /bin/bash is 3.2: no negative array indices.
    expect(script).not.toMatch(/\$\{[a-z_]+\[-1\]\}/);
    expect(script).toContain('--set-file controlCenter.kubeconfig="$STATE/syncer-$c.kubeconfig"');
    expect(script).toContain('config set-credentials "$user_entry" --token "${tokens[i]}"');
  });

  it('refers only to files and directories of the repository that exist (CRD manifests, deploy/, demo/)', () => {
    // What npm ci and npm run tools make (node_modules, .tools) is not the repository's.
    const refs = [...readFileSync(kindSh, 'utf8').matchAll(/"\$ROOT\/([^"$]+)"/g)].map((m) => m[1]!).filter((r) => !/^(node_modules|\.tools)\b/.test(r));
    expect(refs).toContain('packages/crds/manifests/management-cluster/hostedclusters.hypershift.openshift.io.yaml');
    for (const ref of refs) expect(existsSync(path.join(repoRoot, ref)), ref).toBe(true);
  });

  it("keeps its state beside hcc up's .hcc, not in it, and says why its control center exited", () => {
    const script = readFileSync(kindSh, 'utf8');
    // A running `hcc up` (state dir .hcc) refuses a control center whose kubeconfig lies in it.
    expect(script).toContain('STATE=${HCC_KIND_STATE_DIR:-$ROOT/.hcc-kind}');
    expect(readFileSync(path.join(repoRoot, '.gitignore'), 'utf8').split('\n')).toContain('.hcc-kind/');
    // The reason is the process's own last non-JSON line, not a guess about the port.
    // (Under pipefail a log of JSON lines only, where grep selects nothing, must not end the script silently.)
    expect(script).toContain(`why=$({ grep -v '^{' "$STATE/logs/$name.log" 2>/dev/null || true; } | tail -n 1)`);
    expect(script).not.toContain('taken? set HCC_CONTROL_CENTER_PORT');
  });

  it('rejects an unknown flag with its usage (exit 2)', async () => {
    const r = await runKind(['--bogus'], { PATH: '/usr/bin:/bin' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage: demo/kind.sh');
  });

  it('--cleanup deletes only its own kind clusters and stops only its own processes', async () => {
    const { dir, cleanup } = tempDir('hcc-kind-');
    const bystander = spawn('sleep', ['60']);
    try {
      const log = path.join(dir, 'calls.log');
      const bin = fakeBin(dir, {
        docker: 'exit 0',
        kind: `echo "kind $*" >> '${log}'\nif [ "$1 $2" = "get clusters" ]; then printf 'hcc-mgmt-1\\nsomeone-else\\nhcc-mgmt-2\\n'; fi`,
      });
      const state = path.join(dir, 'state');
      mkdirSync(path.join(state, 'logs'), { recursive: true });
      // A pid file naming a process that is not an hcc one (pid reuse): it must survive.
      writeFileSync(path.join(state, 'control-center.pid'), String(bystander.pid));
      writeFileSync(path.join(state, 'admin.kubeconfig'), 'x');
      const r = await runKind(['--cleanup'], { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, HCC_KIND_STATE_DIR: state });
      expect(r.code, r.stderr).toBe(0);
      const calls = readFileSync(log, 'utf8');
      expect(calls).toContain('kind delete cluster --name hcc-mgmt-1');
      expect(calls).toContain('kind delete cluster --name hcc-mgmt-2');
      expect(calls).not.toContain('someone-else');
      expect(bystander.exitCode).toBeNull();
      expect(bystander.signalCode).toBeNull();
      expect(existsSync(state)).toBe(false);
    } finally {
      bystander.kill();
      cleanup();
    }
  });

  it('--cleanup without a running docker still stops its control center and removes its state, and only files it writes', async () => {
    const { dir, cleanup } = tempDir('hcc-kind-');
    // What the pid file's check recognises as ours: a process whose command line names hcc.js.
    const ours = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'hcc.js']);
    try {
      const bin = fakeBin(dir, { docker: 'echo "Cannot connect to the Docker daemon" >&2; exit 1', kind: 'exit 0' });
      const state = path.join(dir, 'shared');
      mkdirSync(path.join(state, 'logs'), { recursive: true });
      writeFileSync(path.join(state, 'control-center.pid'), String(ours.pid));
      for (const f of ['admin.kubeconfig', 'scheduler.kubeconfig', 'hcc-mgmt-1.kubeconfig', 'logs/control-center.log']) writeFileSync(path.join(state, f), 'x');
      // Someone else's files in a shared state dir.
      for (const f of ['prod-cluster.kubeconfig', 'other-app.pid', 'notes.txt', 'logs/other.log']) writeFileSync(path.join(state, f), 'keep');
      const r = await runKind(['--cleanup'], { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, HCC_KIND_STATE_DIR: state });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('kind or a running Docker is missing, so the kind clusters hcc-mgmt-1 hcc-mgmt-2 (if any) are not deleted');
      await new Promise((res) => (ours.exitCode !== null || ours.signalCode !== null ? res(null) : ours.once('exit', res)));
      expect(ours.signalCode).toBe('SIGTERM');
      expect(readdirSync(state).sort()).toEqual(['logs', 'notes.txt', 'other-app.pid', 'prod-cluster.kubeconfig']);
      expect(readdirSync(path.join(state, 'logs'))).toEqual(['other.log']);
    } finally {
      ours.kill('SIGKILL');
      cleanup();
    }
  });

  it('checks its settings before it builds anything', async () => {
    const { dir, cleanup } = tempDir('hcc-kind-');
    const busy = createServer();
    try {
      const log = path.join(dir, 'calls.log');
      const bin = fakeBin(dir, { docker: `echo "docker $*" >> '${log}'`, kind: `echo "kind $*" >> '${log}'`, npm: `echo "npm $*" >> '${log}'`, kubectl: 'exit 0', helm: 'exit 0' });
      const env = { ...isolated(dir, bin), PATH: `${bin}:/usr/bin:/bin` };
      const bad = async (extra: NodeJS.ProcessEnv, message: string) => {
        const r = await runKind([], { ...env, ...extra });
        expect(r.code, JSON.stringify(extra)).toBe(1);
        expect(r.stderr).toContain(message);
      };
      await bad({ HCC_CAPACITY: '2' }, 'HCC_CAPACITY must be a whole number from 3');
      await bad({ HCC_CAPACITY: 'many' }, 'HCC_CAPACITY must be a whole number from 3');
      // Helm's --set would pass 010 as a string and the chart's int32 stops at 2147483647.
      await bad({ HCC_CAPACITY: '010' }, 'without leading zeros, got "010"');
      await bad({ HCC_CAPACITY: '2147483648' }, 'to 2147483647');
      await bad({ HCC_HOST_ADDRESS: 'not an address' }, 'HCC_HOST_ADDRESS must be an IPv4 or IPv6 address or a lower-case DNS name');
      await bad({ HCC_IMAGE: 'hcc@sha256:' + '0'.repeat(64) }, 'HCC_IMAGE must be a name with a tag');
      await bad({ HCC_CONTROL_CENTER_PORT: '70000' }, 'HCC_CONTROL_CENTER_PORT must be a port number');
      await bad({ KUBECTL: 'no-such-kubectl' }, 'KUBECTL=no-such-kubectl is not an executable file or a command on PATH');
      await bad({ HELM: path.join(dir, 'missing', 'helm') }, 'is not an executable file or a command on PATH');
      // A port something else listens on is found before any cluster is built.
      await new Promise<void>((res) => busy.listen(0, '127.0.0.1', res));
      const port = (busy.address() as { port: number }).port;
      await bad({ HCC_CONTROL_CENTER_PORT: String(port), KUBECTL: 'kubectl', HELM: 'helm' }, `port ${port} on this machine is in use`);
      const calls = readFileSync(log, 'utf8');
      expect(calls).not.toMatch(/docker build|kind create|kind load|npm run build/);
    } finally {
      busy.close();
      cleanup();
    }
  });

  /**
   * Runs the demo with fake docker, kind, npm, kubectl and helm that log their calls, up to the
   * first `kubectl apply` (which the fake refuses, ending the run): what the script did for one
   * kind cluster, and what it said.
   */
  const runToCRDs = async (kubeMinor: string) => {
    const { dir, cleanup } = tempDir('hcc-kind-');
    try {
      const log = path.join(dir, 'calls.log');
      const free = createServer();
      await new Promise<void>((res) => free.listen(0, '127.0.0.1', res));
      const port = (free.address() as { port: number }).port;
      await new Promise((res) => free.close(res));
      const logCall = (tool: string) => `echo "${tool} $*" >> '${log}'`;
      const bin = fakeBin(dir, {
        docker: `${logCall('docker')}\ncase "$*" in\n  "image inspect"*) echo sha256:0123 ;;\n  "version --format"*) echo linux/amd64 ;;\nesac\nexit 0`,
        // kind load docker-image fails as it does under Docker's containerd image store.
        kind: `${logCall('kind')}\ncase "$*" in\n  "create cluster --name "*" --kubeconfig "*) : > "$6" ;;\n  "load docker-image"*) echo 'ERROR: failed to load image: ctr: content digest sha256:82014a: not found' >&2; exit 1 ;;\nesac\nexit 0`,
        npm: 'exit 0',
        kubectl: `${logCall('kubectl')}\ncase "$*" in\n  *" version -o json"*) echo '{"clientVersion":{"minor":"35"},"serverVersion":{"major":"1","minor":"${kubeMinor}"}}' ;;\n  *" apply "*) echo 'fake kubectl: apply refused' >&2; exit 1 ;;\n  *" logs deployment/hcc-syncer"*) echo 'fake syncer log line' ;;\nesac\nexit 0`,
        helm: 'exit 0',
      });
      const env = { ...isolated(dir, bin), PATH: `${bin}:/usr/bin:/bin`, HCC_CONTROL_CENTER_PORT: String(port) };
      const r = await runKind([], env);
      return { ...r, calls: readFileSync(log, 'utf8').split('\n'), state: env.HCC_KIND_STATE_DIR! };
    } finally {
      cleanup();
    }
  };

  it("loads the image as a saved archive when kind load docker-image fails (Docker's containerd image store), and goes on", async () => {
    const r = await runToCRDs('31');
    const at = (prefix: string) => r.calls.findIndex((c) => c.startsWith(prefix));
    const archive = path.join(r.state, 'image.tar');
    const steps = [
      at('kind create cluster --name hcc-mgmt-1'),
      at('kubectl --kubeconfig'),
      at('kind load docker-image hcc:kind-demo --name hcc-mgmt-1'),
      at(`docker image save --platform linux/amd64 -o ${archive} hcc:kind-demo`),
      at(`kind load image-archive ${archive} --name hcc-mgmt-1`),
      r.calls.findIndex((c) => c.includes(' apply --server-side')),
    ];
    expect(steps.every((i) => i >= 0), r.calls.join('\n')).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    expect(r.stdout).toContain('kind load docker-image failed');
    expect(r.stdout).toContain('loading a saved archive instead');
    // The run ended at the fake's refused apply, not at the load.
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('fake kubectl: apply refused');
    // A failed run saves each cluster's syncer and hypershift-sim logs before the clusters are deleted, and shows their last lines.
    expect(r.calls.some((c) => c.includes('-n hcc-system logs deployment/hcc-syncer --tail=200')), r.calls.join('\n')).toBe(true);
    expect(r.calls.some((c) => c.includes('-n hypershift logs deployment/hypershift-sim --tail=200'))).toBe(true);
    expect(r.stderr).toContain(`--- ${path.join(r.state, 'logs', 'hcc-mgmt-1-hcc-syncer.log')}\nfake syncer log line`);
  });

  it('stops before installing anything on a kind cluster older than the HyperShift CRDs need (Kubernetes 1.31, CEL isIP)', async () => {
    const r = await runToCRDs('30');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('kind cluster hcc-mgmt-1 runs Kubernetes 1.30; the HyperShift CRDs need 1.31 or later (their CEL rules use isIP)');
    expect(r.stderr).toContain('HCC_KIND_NODE_IMAGE');
    expect(r.calls.join('\n')).not.toMatch(/kind load|apply/);
  });
});
