/**
 * The storage-limit baseline (a child process of the bench): raw classic-level in a fresh
 * directory, keys and values as the control center's LevelStore persists a HostedCluster created
 * by POST (bench/lib/level-value.mjs: `{"c":rev,"m":rev,"o":object}` under
 * `o/<group>/<resource>/<ns>/<name>`, managedFields included), with the durability the control
 * center uses (`sync: true`, an fsync per write or per batch).
 *
 * Cases, each as warm-up then `runs` timed runs of `durationMs`:
 * - put-1:      one put at a time (one fsync per write)
 * - put-C:      C puts in flight, unbatched (LevelDB may merge concurrent writers into one log write)
 * - batch-C:    one chained db.batch() of C puts at a time (what group commit does with C writers)
 * - get-1, get-C: gets of existing keys, one at a time and C in flight
 * - getmany-C:  one db.getMany() of C existing keys at a time (the batched read)
 * (put-C and get-C only when C > 1: else they are put-1 and get-1)
 *
 * Usage: node raw-level.mjs <dir> <object.json> <config json>; prints one JSON result line.
 */
import { readFileSync } from 'node:fs';
import { ClassicLevel } from 'classic-level';
import { levelKey, levelValue } from './level-value.mjs';

const [dir, valueFile, configJson] = process.argv.slice(2);
const cfg = JSON.parse(configJson); // { connections, durationMs, warmupMs, runs }
const object = JSON.parse(readFileSync(valueFile, 'utf8'));
const db = new ClassicLevel(dir, { valueEncoding: 'utf8', keyEncoding: 'utf8' });
await db.open();

let rev = 0;
const keyOf = (i) => levelKey(i);
// Values are serialised before anything is timed (8,192 of them, ~16 MB, used in turn under
// ever new keys): the baseline is the store's limit, not the bench's JSON.stringify.
const ring = Array.from({ length: 8192 }, (_, i) => levelValue(object, i, i + 1));
const valueOf = (i) => {
  rev++;
  return ring[i % ring.length];
};

function pct(sorted, q) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((q / 100) * sorted.length) - 1))];
}

/** Runs `op(i)` with `inflight` concurrent loops for durationMs; latency per op in ms. */
async function timed(durationMs, inflight, writesPerOp, op) {
  const lat = [];
  let n = 0;
  const start = performance.now();
  const end = start + durationMs;
  await Promise.all(
    Array.from({ length: inflight }, async () => {
      while (performance.now() < end) {
        const i = n++;
        const t0 = performance.now();
        await op(i);
        lat.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = performance.now() - start;
  lat.sort((a, b) => a - b);
  return { opsPerSec: (lat.length * writesPerOp * 1000) / elapsed, p50: pct(lat, 50), p99: pct(lat, 99), n: lat.length };
}

let next = 0;
const C = cfg.connections;
const put = () => {
  const i = next++;
  return db.put(keyOf(i), valueOf(i), { sync: true });
};
const get = () => db.get(keyOf(Math.floor(Math.random() * next)));
// With C = 1, put-C and get-C would be put-1 and get-1 again: left out.
const cases = {
  'put-1': () => timed(cfg.durationMs, 1, 1, put),
  ...(C > 1 && { [`put-${C}`]: () => timed(cfg.durationMs, C, 1, put) }),
  [`batch-${C}`]: () =>
    timed(cfg.durationMs, 1, C, () => {
      // A chained batch, as the LevelStore writes its group commits.
      const ops = db.batch();
      for (let k = 0; k < C; k++) {
        const i = next++;
        ops.put(keyOf(i), valueOf(i));
      }
      ops.put('r', String(rev));
      return ops.write({ sync: true });
    }),
  'get-1': () => timed(cfg.durationMs, 1, 1, get),
  ...(C > 1 && { [`get-${C}`]: () => timed(cfg.durationMs, C, 1, get) }),
  [`getmany-${C}`]: () => timed(cfg.durationMs, 1, C, () => db.getMany(Array.from({ length: C }, () => keyOf(Math.floor(Math.random() * next))))),
};

const out = {};
for (const [name, run] of Object.entries(cases)) {
  const save = cfg.durationMs;
  cfg.durationMs = cfg.warmupMs;
  await run(); // warm-up
  cfg.durationMs = save;
  out[name] = [];
  for (let r = 0; r < cfg.runs; r++) {
    out[name].push(await run());
    process.stderr.write(`${name} run ${r + 1}/${cfg.runs}: ${Math.round(out[name].at(-1).opsPerSec)} ops/s\n`);
  }
}
await db.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
