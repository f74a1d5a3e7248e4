#!/usr/bin/env node
/**
 * Profiles the control center under one kind of HostedCluster request alone: starts
 * `hcc control-center` with --cpu-prof, runs creates (or PUTs of whole objects, or PUTs of
 * .../status, or GETs of random objects, as the api scenario does) with the bench's load generator
 * for N seconds, stops it, and prints where the time went (bench/tools/cpuprofile-top.mjs).
 *
 * Usage: node bench/tools/profile-writes.mjs [--op create|update|status|get] [--seconds N]
 *        [--connections C] [--no-tls] [--out DIR]
 */
import path from 'node:path';
import os from 'node:os';
import { readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { toolArgs, usageOf } from '../lib/args.mjs';
import { closeAllScopes, closeOnSignals, Scope } from '../lib/cleanup.mjs';
import { settings, startControlCenter } from '../lib/procs.mjs';
import { endpointOf, ensureNamespace, HC_PATH, hostedCluster, poolFor } from '../lib/kube.mjs';
import { closedLoop } from '../lib/load.mjs';

const { values: a } = toolArgs('profile-writes', {
  op: { default: 'create', choices: ['create', 'update', 'status', 'get'] },
  seconds: { default: 8, number: { min: 0, minExclusive: true } },
  connections: { default: 32, number: { integer: true, min: 0, minExclusive: true, max: 4096 } },
  'no-tls': { type: 'boolean', default: false },
  out: { default: path.join(os.tmpdir(), `hcc-profile-${Date.now()}`), dir: true },
}, { usage: usageOf(import.meta.url) });
const { seconds, connections: C, op, out } = a;
const tls = !a['no-tls'];
const scope = new Scope();
// As bench.mjs: Ctrl-C stops the processes and removes the temp dir, and nothing is printed after it.
const interrupted = closeOnSignals(closeAllScopes);
settings.cpuProfDir = out;
try {
  const cc = await startControlCenter(scope, { tls });
  const ep = endpointOf(cc.kubeconfig);
  const pool = poolFor(ep, C);
  scope.defer(() => pool.destroy());
  await ensureNamespace(pool, ep, 'create');
  const headers = { ...ep.headers, 'content-type': 'application/json' };
  let n = 0;
  let next = () => ({ method: 'POST', path: HC_PATH('create'), headers, body: JSON.stringify(hostedCluster('create', `hc-${n++}`)) });
  let onBody;
  if (op !== 'create') {
    // Each connection owns 8 objects and PUTs them in turn with the resourceVersion of its last answer.
    const objs = new Map();
    for (let i = 0; i < C * 8; i++) {
      const res = await pool.request({ method: 'POST', path: HC_PATH('create'), headers, body: JSON.stringify(hostedCluster('create', `rmw-${i}`)) });
      const o = JSON.parse(await res.body.text());
      objs.set(o.metadata.name, o);
    }
    const names = [...objs.keys()];
    const cursor = new Array(C).fill(0);
    if (op === 'get') next = () => ({ method: 'GET', path: `${HC_PATH('create')}/${names[Math.floor(Math.random() * names.length)]}`, headers: ep.headers });
    else next = (i, w) => {
      const name = names[w * 8 + (cursor[w]++ % 8)];
      const o = structuredClone(objs.get(name));
      if (op === 'update') o.metadata.annotations = { ...o.metadata.annotations, 'bench.hcc.dev/seq': String(i) };
      else o.status = { conditions: [{ type: 'Available', status: 'False', reason: 'Bench', message: `update ${i}`, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), observedGeneration: 1 }] };
      return { method: 'PUT', path: `${HC_PATH('create')}/${name}${op === 'status' ? '/status' : ''}`, headers, body: JSON.stringify(o), name };
    };
    if (op !== 'get') onBody = (text, _i, _w, req) => objs.set(req.name, JSON.parse(text));
  }
  const res = await closedLoop({ pool, connections: C, durationMs: seconds * 1000, next, onBody, stop: interrupted });
  if (interrupted()) await new Promise(() => {}); // closeOnSignals exits once the scope is closed
  console.log(`${op}: ${res.requests} requests (${Math.round(res.rps)}/s), ${res.errors} errors${res.firstError ? ` (first: ${res.firstError})` : ''}`);
  await cc.stop();
} finally {
  if (!interrupted()) await scope.close();
}
if (interrupted()) await new Promise(() => {});
const prof = readdirSync(out).find((f) => f.endsWith('.cpuprofile'));
console.log(execFileSync(process.execPath, [path.join(import.meta.dirname, 'cpuprofile-top.mjs'), path.join(out, prof), '--top', '40'], { encoding: 'utf8' }));
