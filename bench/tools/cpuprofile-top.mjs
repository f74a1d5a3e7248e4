#!/usr/bin/env node
/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench -- --cpu-prof`):
 * the functions with the most self time, and with the most total (inclusive) time, each with
 * its share of the sampled time and its file:line.
 *
 * Usage: node bench/tools/cpuprofile-top.mjs FILE.cpuprofile [--top N] [--filter SUBSTRING]
 *   --filter keeps only functions whose URL contains SUBSTRING in the total-time list (e.g. /packages/).
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const top = Number(args[args.indexOf('--top') + 1]) || 25;
const filter = args.includes('--filter') ? args[args.indexOf('--filter') + 1] : undefined;
if (!file) {
  console.error('usage: cpuprofile-top.mjs FILE.cpuprofile [--top N] [--filter SUBSTRING]');
  process.exit(2);
}
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Time per sample: the deltas (microseconds).
const selfUs = new Map();
prof.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

const keyOf = (n) => {
  const cf = n.callFrame;
  const url = cf.url.replace(/^file:\/\//, '').replace(/.*\/(packages|node_modules)\//, '$1/');
  return `${cf.functionName || '(anonymous)'} ${url}${url ? `:${cf.lineNumber + 1}` : ''}`;
};

const self = new Map();
const total = new Map();
for (const [id, us] of selfUs) {
  const n = byId.get(id);
  self.set(keyOf(n), (self.get(keyOf(n)) ?? 0) + us);
  // Inclusive: every distinct function on the stack gets the sample once.
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = keyOf(byId.get(cur));
    if (seen.has(k)) continue;
    seen.add(k);
    total.set(k, (total.get(k) ?? 0) + us);
  }
}
const show = (title, m, keep = () => true) => {
  console.log(`\n${title}`);
  [...m]
    .filter(([k]) => keep(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, us]) => console.log(`${((us / totalUs) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`));
};
console.log(`${file}: ${(totalUs / 1e6).toFixed(1)} s sampled`);
show('self time', self);
show(`total time${filter ? ` (functions in *${filter}*)` : ''}`, total, (k) => !filter || k.includes(filter));
