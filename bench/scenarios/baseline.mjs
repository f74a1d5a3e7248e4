/**
 * `baseline`, the storage limit: raw classic-level (bench/lib/raw-level.mjs, its own process)
 * puts and gets of the value the LevelStore persists for a HostedCluster created by POST
 * (bench/lib/level-value.mjs: the same shape and size, managedFields included), one at a time, C in
 * flight, and batched by C, all with `sync: true` (the durability the control center uses); gets one
 * at a time, C in flight and C per `getMany` (the batched read).
 *
 * The HTTP limit (bare fastify answering GET and POST with the same HostedCluster JSON) is
 * measured inside the `api` scenario, interleaved run by run with the control center's get and
 * create, so both see the same background load; its rows appear there.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess, tempDir } from '../lib/procs.mjs';
import { levelValue, storedHostedCluster } from '../lib/level-value.mjs';
import { aggregate } from '../lib/measure.mjs';
import { progress } from '../lib/progress.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const description = 'raw classic-level puts and gets with sync: true (the storage limit; the HTTP limit is measured within api)';

export async function run(ctx) {
  const dir = tempDir(ctx.scope, 'baseline');
  const docFile = path.join(dir, 'hostedcluster.json');
  const object = storedHostedCluster();
  writeFileSync(docFile, JSON.stringify(object));
  progress('baseline raw classic-level: puts and gets with sync: true');
  const lvl = await startProcess(ctx.scope, {
    name: 'raw-level',
    script: path.join(here, '../lib/raw-level.mjs'),
    args: [path.join(dir, 'raw-level'), docFile, JSON.stringify({ connections: ctx.connections, durationMs: ctx.storageDurationMs, warmupMs: ctx.warmupMs, runs: ctx.runs })],
    logFile: path.join(dir, 'raw-level.log'),
    ready: /^\{"put-1".*\n/m,
    timeoutMs: 600_000,
    onOutput: (t) => t.split('\n').filter((l) => / run \d/.test(l)).forEach((l) => progress(`baseline level ${l.trim()}`)),
  });
  const raw = JSON.parse(lvl.matched.split('\n').find((l) => l.startsWith('{"put-1"')));
  const storage = Object.fromEntries(Object.entries(raw).map(([k, runs]) => [k, aggregate(runs.map((r) => ({ rate: r.opsPerSec, p50: r.p50, p99: r.p99, n: r.n })))]));
  const C = ctx.connections;
  const row = (name, key, unit, note) => ({ case: name, rate: storage[key].rate, unit, p50: storage[key].p50, p99: storage[key].p99, ...(note && { note }) });
  return {
    // With --connections 1, "C in flight" is "1 at a time": those rows are not repeated.
    rows: [
      row('level put, 1 at a time, sync', 'put-1', 'puts/s'),
      C > 1 && row(`level put, ${C} in flight, sync`, `put-${C}`, 'puts/s'),
      row(`level batch of ${C} put${C === 1 ? '' : 's'}, sync`, `batch-${C}`, 'puts/s', 'latency per batch'),
      row('level get, 1 at a time', 'get-1', 'gets/s'),
      C > 1 && row(`level get, ${C} in flight`, `get-${C}`, 'gets/s'),
      row(`level getMany of ${C} key${C === 1 ? '' : 's'}`, `getmany-${C}`, 'gets/s', 'latency per getMany'),
    ].filter(Boolean),
    // The bytes of one value as persisted (the first object at revision 9, as a control center's first create).
    data: { valueBytes: Buffer.byteLength(levelValue(object, 1, 9)), storage },
  };
}
