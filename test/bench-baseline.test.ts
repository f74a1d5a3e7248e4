/**
 * The storage baseline scenario (bench/scenarios/baseline.mjs and its raw-level process), run
 * for a few milliseconds per case: one row per case, none twice — with `--connections 1`, "1 in
 * flight" is "1 at a time" and is not repeated — and the bytes of the value it writes.
 */
import { describe, expect, it } from 'vitest';
import { Scope } from '../bench/lib/cleanup.mjs';
import { settings } from '../bench/lib/procs.mjs';
import { run } from '../bench/scenarios/baseline.mjs';
import { tempDir } from './helpers/tools.js';

/** The baseline's rows (case names) and data with C connections, each case 30 ms. */
async function baseline(connections: number): Promise<{ cases: string[]; valueBytes: number }> {
  const t = tempDir('hcc-bench-baseline-');
  settings.dataRoot = t.dir;
  const scope = new Scope();
  try {
    const res = await run({ connections, storageDurationMs: 30, warmupMs: 10, runs: 1, scope });
    return { cases: res.rows.map((r: { case: string }) => r.case), valueBytes: res.data.valueBytes };
  } finally {
    await scope.close();
    t.cleanup();
  }
}

describe('bench storage baseline', () => {
  it('has each case once, with one connection too', async () => {
    const one = await baseline(1);
    expect(one.cases).toEqual(['level put, 1 at a time, sync', 'level batch of 1 put, sync', 'level get, 1 at a time', 'level getMany of 1 key']);
    const four = await baseline(4);
    expect(four.cases).toEqual(['level put, 1 at a time, sync', 'level put, 4 in flight, sync', 'level batch of 4 puts, sync', 'level get, 1 at a time', 'level get, 4 in flight', 'level getMany of 4 keys']);
    expect(four.valueBytes).toBeGreaterThan(2000); // managedFields and all, as the LevelStore persists it
  });
});
