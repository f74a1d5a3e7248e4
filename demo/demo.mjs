#!/usr/bin/env node
// `npm run demo`: the main job of hcc on one machine, end to end, with real kubectl.
// 1. `hcc up` with two embedded management clusters (capacity 3 each) in a temporary state dir;
// 2. apply realistic HostedClusters, NodePools and their Secrets for five platforms to the
//    control center; show where each was placed and the budgets before and after;
// 3. wait until every HostedCluster is Available and every NodePool Ready, read through the
//    control center;
// 4. upgrade one (release image) and watch the new version roll out;
// 5. show a malformed manifest being rejected with a clear error and nothing written;
// 6. delete one and show it gone from its management cluster;
// 7. stop everything and exit 0 (non-zero on any failure).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const kubectlBin = process.env.KUBECTL ?? path.join(root, '.tools', 'kubectl-1.35', 'kubectl');
const stateDir = mkdtempSync(path.join(tmpdir(), 'hcc-demo-'));
const adminKubeconfig = path.join(stateDir, 'admin.kubeconfig');
const started = Date.now();

const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const step = (s) => console.log(`\n${bold(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${s}`)}`);
const info = (s) => console.log(`         ${s}`);

function kubectl(args, { kubeconfig = adminKubeconfig, allowFail = false, input } = {}) {
  try {
    return execFileSync(kubectlBin, args, { env: { ...process.env, KUBECONFIG: kubeconfig }, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], input });
  } catch (e) {
    if (allowFail) return `${e.stdout ?? ''}${e.stderr ?? ''}`;
    throw new Error(`kubectl ${args.join(' ')} failed:\n${e.stderr ?? e.message}`);
  }
}
const getJSON = (args, opts) => JSON.parse(kubectl([...args, '-o', 'json'], opts));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, fn, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(500);
  }
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const r of rows) info(r.map((c, i) => String(c).padEnd(widths[i])).join('   '));
}

const budgets = () =>
  getJSON(['get', 'managementclusters']).items.map((mc) => [mc.metadata.name, mc.status?.budget ?? '?', mc.status?.hostedClusters ?? '?', mc.spec?.capacity ?? '?']);

let up;
async function main() {
  if (!existsSync(kubectlBin)) execFileSync(process.execPath, [path.join(root, 'scripts', 'fetch-kubectl.mjs')], { stdio: 'inherit' });
  step(`Starting hcc (control center, scheduler, 2 embedded management clusters, 2 syncers) in ${stateDir}`);
  up = spawn(process.execPath, [path.join(root, 'packages/cli/bin/hcc.js'), 'up', '--state-dir', stateDir, '--management-clusters', '2', '--capacity', '3',
    '--heartbeat-interval', '2', '--available-delay', '1500'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let upOutput = '';
  await new Promise((resolve, reject) => {
    up.stdout.on('data', (d) => {
      const text = d.toString();
      upOutput += text;
      for (const line of text.split('\n')) if (line.trim() && !line.startsWith('hcc is up') && !/^\s/.test(line) && !line.startsWith('Logs:')) info(`hcc up: ${line}`);
      if (upOutput.includes('hcc is up')) resolve();
    });
    up.once('exit', (code) => reject(new Error(`hcc up exited with code ${code}:\n${upOutput}`)));
  });

  step('Management clusters before (kubectl get managementclusters -o wide; an empty PLATFORMS takes every platform)');
  console.log(kubectl(['get', 'managementclusters', '-o', 'wide']).replace(/^/gm, '         '));

  step('Applying demo/manifests/ to the control center with kubectl (AWS, KubeVirt, Agent, None, Azure)');
  console.log(kubectl(['apply', '-f', path.join(root, 'demo', 'manifests')]).replace(/^/gm, '         '));

  step('Waiting until every HostedCluster is placed');
  const hcs = await waitFor('placements', () => {
    const items = getJSON(['get', 'hostedclusters', '-n', 'clusters']).items;
    return items.length === 5 && items.every((h) => h.metadata.labels?.['controlcenter.hcc.dev/management-cluster']) ? items : undefined;
  }, 60_000);
  const placement = Object.fromEntries(hcs.map((h) => [h.metadata.name, h.metadata.labels['controlcenter.hcc.dev/management-cluster']]));
  table([['HOSTEDCLUSTER', 'PLATFORM', 'MANAGEMENT CLUSTER'], ...hcs.map((h) => [h.metadata.name, h.spec.platform.type, placement[h.metadata.name]])]);
  const perCluster = {};
  for (const c of Object.values(placement)) perCluster[c] = (perCluster[c] ?? 0) + 1;
  for (const [c, n] of Object.entries(perCluster)) if (n > 3) throw new Error(`${c} holds ${n} HostedClusters, more than its capacity 3`);

  step('Management clusters after: budgets went down by what each now hosts');
  await waitFor('heartbeats to report the placements', () => budgets().reduce((n, b) => n + Number(b[2]), 0) === 5, 30_000);
  table([['MANAGEMENT CLUSTER', 'BUDGET', 'HOSTED', 'CAPACITY'], ...budgets()]);

  step('Waiting until each is Available (kubectl wait --for=condition=Available, against the control center)');
  console.log(kubectl(['wait', '--for=condition=Available', 'hostedclusters', '--all', '-n', 'clusters', '--timeout=120s']).replace(/^/gm, '         '));
  console.log(kubectl(['get', 'hostedclusters', '-n', 'clusters']).replace(/^/gm, '         '));
  // A NodePool's machines come up once its HostedCluster is Available (the operator's
  // --available-delay later), so its table is read once they are Ready and rolled out.
  info('NodePools: their machines come up once the HostedCluster is Available (kubectl wait --for=condition=Ready, then UpdatingVersion=False and UpdatingConfig=False)');
  for (const cond of ['Ready', 'UpdatingVersion=False', 'UpdatingConfig=False']) kubectl(['wait', `--for=condition=${cond}`, 'nodepools', '--all', '-n', 'clusters', '--timeout=120s']);
  console.log(kubectl(['get', 'nodepools', '-n', 'clusters']).replace(/^/gm, '         '));

  const target = 'demo-aws';
  const where = placement[target];
  const mgmtKubeconfig = path.join(stateDir, 'management-clusters', `${where}.kubeconfig`);
  step(`What ${where} holds for ${target} (kubectl against the management cluster itself)`);
  console.log(kubectl(['get', 'hostedclusters,nodepools,secrets', '-n', 'clusters', '-l', 'controlcenter.hcc.dev/synced-by'], { kubeconfig: mgmtKubeconfig }).replace(/^/gm, '         '));
  console.log(kubectl(['get', 'namespace', `clusters-${target}`], { kubeconfig: mgmtKubeconfig }).replace(/^/gm, '         '));

  step(`Upgrading ${target} to 4.17.3 (a release image change through the control center)`);
  const newImage = 'quay.io/openshift-release-dev/ocp-release:4.17.3-x86_64';
  kubectl(['patch', 'hostedcluster', target, '-n', 'clusters', '--type=merge', '-p', JSON.stringify({ spec: { release: { image: newImage } } })]);
  await waitFor('the upgrade to complete', () => {
    const h = getJSON(['get', 'hostedcluster', target, '-n', 'clusters']);
    const latest = h.status?.version?.history?.[0];
    return latest?.image === newImage && latest.state === 'Completed' && h.status.version.observedGeneration === h.metadata.generation;
  }, 60_000);
  console.log(kubectl(['get', 'hostedcluster', target, '-n', 'clusters']).replace(/^/gm, '         '));
  info(`downstream copy on ${where}: ${kubectl(['get', 'hostedcluster', target, '-n', 'clusters', '-o', 'jsonpath={.spec.release.image}'], { kubeconfig: mgmtKubeconfig })}`);

  step('A malformed manifest is rejected with a clear error, and nothing is written');
  const bad = `apiVersion: hypershift.openshift.io/v1beta1
kind: HostedCluster
metadata:
  name: demo-broken
  namespace: clusters
spec:
  release:
    image: quay.io/openshift-release-dev/ocp-release:4.16.12-x86_64
  platform:
    type: Moon
`;
  console.log(kubectl(['apply', '-f', '-'], { input: bad, allowFail: true }).trim().replace(/^/gm, '         '));
  const found = kubectl(['get', 'hostedcluster', 'demo-broken', '-n', 'clusters', '--ignore-not-found'], { allowFail: true }).trim();
  if (found) throw new Error('the malformed HostedCluster was stored');
  info('kubectl get hostedcluster demo-broken: not found (nothing was written)');

  step(`Deleting ${target}; the syncer removes it from ${where} and waits for the operator's teardown`);
  console.log(kubectl(['delete', 'hostedcluster', target, '-n', 'clusters', '--timeout=60s']).replace(/^/gm, '         '));
  await waitFor(`${target} to leave ${where}`, () => {
    const left = kubectl(['get', 'hostedcluster', target, '-n', 'clusters', '--ignore-not-found', '-o', 'name'], { kubeconfig: mgmtKubeconfig }).trim();
    const ns = kubectl(['get', 'namespace', `clusters-${target}`, '--ignore-not-found', '-o', 'name'], { kubeconfig: mgmtKubeconfig }).trim();
    return !left && !ns;
  }, 60_000);
  info(`${target}: gone from the control center, from ${where}, and its control-plane namespace clusters-${target} is gone`);
  await waitFor('budgets to reflect the deletion', () => budgets().reduce((n, b) => n + Number(b[2]), 0) === 4, 30_000);
  table([['MANAGEMENT CLUSTER', 'BUDGET', 'HOSTED', 'CAPACITY'], ...budgets()]);

  step(`Done in ${((Date.now() - started) / 1000).toFixed(1)}s. Stopping hcc.`);
}

async function stop() {
  if (up && up.exitCode === null) {
    const exited = new Promise((r) => up.once('exit', r));
    up.kill('SIGINT');
    await Promise.race([exited, sleep(15_000)]);
    if (up.exitCode === null) up.kill('SIGKILL');
  }
  if (!keep) rmSync(stateDir, { recursive: true, force: true });
  else info(`state kept in ${stateDir}`);
}

// Ctrl-C (or a SIGTERM) part way: stop hcc up (in a terminal it has the SIGINT too) and remove the
// temporary state dir as a finished run does (kept with --keep), then exit as a shell expects.
let interrupted = false;
for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${sig}: stopping hcc`);
    stop().finally(() => process.exit(code));
  });
}

main().then(
  async () => {
    await stop();
    process.exit(0);
  },
  async (err) => {
    console.error(`\ndemo failed: ${err.message}`);
    console.error(`logs: ${path.join(stateDir, 'logs')} (kept)`);
    if (up && up.exitCode === null) up.kill('SIGINT');
    await sleep(2000);
    process.exit(1);
  },
);
