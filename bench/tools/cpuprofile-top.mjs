#!/usr/bin/env node
/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench -- --cpu-prof`):
 * the functions with the most self time, and with the most total (inclusive) time, each with
 * its share of the sampled time and its file:line.
 *
 * Usage: node bench/tools/cpuprofile-top.mjs FILE.cpuprofile... [--top N] [--filter SUBSTRING]
 *   (several files: each is summarised in turn)
 *   --filter keeps only functions whose URL contains SUBSTRING in the total-time list (e.g. /packages/).
 */
import { readFileSync } from 'node:fs';
import { toolArgs, usageOf } from '../lib/args.mjs';

const {
  values: { top, filter },
  positionals: files,
} = toolArgs('cpuprofile-top', { top: { default: 25, number: { integer: true, min: 0, minExclusive: true } }, filter: {} }, { positionals: [1, Infinity], usage: usageOf(import.meta.url) });

const keyOf = (n) => {
  const cf = n.callFrame;
  const url = cf.url.replace(/^file:\/\//, '').replace(/.*\/(packages|node_modules)\//, '$1/');
  return `${cf.functionName || '(anonymous)'} ${url}${url ? `:${cf.lineNumber + 1}` : ''}`;
};

/** Reads a .cpuprofile; a file that is not one: one line and exit code 2. */
function readProfile(file) {
  try {
    const prof = JSON.parse(readFileSync(file, 'utf8'));
    if (!Array.isArray(prof?.nodes) || !Array.isArray(prof.samples) || !Array.isArray(prof.timeDeltas)) throw new Error('not a V8 .cpuprofile (no nodes, samples and timeDeltas)');
    return prof;
  } catch (err) {
    process.stderr.write(`cpuprofile-top: ${file}: ${err.message.split('\n')[0]}\n`);
    process.exit(2);
  }
}

/** Prints one profile's functions by self time and by total time. */
function summarise(file, prof) {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // Time per sample: the deltas (microseconds).
  const selfUs = new Map();
  prof.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

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
}

// Every file is read before anything is printed: a bad one is refused alone.
const profiles = files.map((f) => [f, readProfile(f)]);
profiles.forEach(([f, prof], i) => {
  if (i > 0) console.log('');
  summarise(f, prof);
});
