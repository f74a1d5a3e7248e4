#!/usr/bin/env node
/**
 * Profiles the control center under HostedCluster creates alone: starts `hcc control-center`
 * with --cpu-prof, runs creates with the bench's load generator for N seconds, stops it, and
 * prints where the time went (bench/tools/cpuprofile-top.mjs).
 *
 * Usage: node bench/tools/profile-create.mjs [--seconds N] [--connections C] [--no-tls] [--out DIR]
 */
import path from 'node:path';
import os from 'node:os';
import { readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { Scope } from '../lib/cleanup.mjs';
import { settings, startControlCenter } from '../lib/procs.mjs';
import { endpointOf, ensureNamespace, HC_PATH, hostedCluster, poolFor } from '../lib/kube.mjs';
import { closedLoop } from '../lib/load.mjs';

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const seconds = Number(opt('--seconds', 8));
const C = Number(opt('--connections', 32));
const tls = !args.includes('--no-tls');
const out = opt('--out', path.join(os.tmpdir(), `hcc-profile-${Date.now()}`));
const scope = new Scope();
settings.cpuProfDir = out;
try {
  const cc = await startControlCenter(scope, { tls });
  const ep = endpointOf(cc.kubeconfig);
  const pool = poolFor(ep, C);
  scope.defer(() => pool.destroy());
  await ensureNamespace(pool, ep, 'create');
  const headers = { ...ep.headers, 'content-type': 'application/json' };
  let n = 0;
  const res = await closedLoop({
    pool,
    connections: C,
    durationMs: seconds * 1000,
    next: () => ({ method: 'POST', path: HC_PATH('create'), headers, body: JSON.stringify(hostedCluster('create', `hc-${n++}`)) }),
  });
  console.log(`creates: ${res.ok ?? res.count ?? JSON.stringify(Object.keys(res))} in ${seconds} s`, JSON.stringify({ ...res, latencies: undefined }).slice(0, 300));
  await cc.stop();
} finally {
  await scope.close();
}
const prof = readdirSync(out).find((f) => f.endsWith('.cpuprofile'));
console.log(execFileSync(process.execPath, [path.join(import.meta.dirname, 'cpuprofile-top.mjs'), path.join(out, prof), '--top', '40'], { encoding: 'utf8' }));
