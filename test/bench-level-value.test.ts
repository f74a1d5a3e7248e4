/**
 * The storage baseline writes what the control center stores (bench/lib/level-value.mjs): a
 * HostedCluster created by POST, as the bench's own clients create it, read back raw from a real
 * control center's LevelDB, has the same key, the same JSON shape (every path, managedFields
 * included, and the `{"c","m","o"}` wrapping) and about the same size as the baseline's value.
 */
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Scope } from '../bench/lib/cleanup.mjs';
import { startControlCenter, settings } from '../bench/lib/procs.mjs';
import { call, endpointOf, ensureNamespace, HC_PATH, hostedCluster, poolFor } from '../bench/lib/kube.mjs';
import { levelKey, levelValue, storedHostedCluster } from '../bench/lib/level-value.mjs';
import { tempDir } from './helpers/tools.js';

/** Every path of a JSON value (object keys and array indexes), without the values. */
function paths(v: unknown, at = ''): string[] {
  if (Array.isArray(v)) return [at, ...v.flatMap((x, i) => paths(x, `${at}[${i}]`))];
  if (v && typeof v === 'object') return [at, ...Object.entries(v).flatMap(([k, x]) => paths(x, `${at}.${k}`))];
  return [at];
}

describe('the storage baseline value', () => {
  it('is what a control center persists for a HostedCluster created by POST', async () => {
    const t = tempDir('hcc-bench-level-value-');
    const scope = new Scope();
    settings.dataRoot = t.dir;
    let stored: string | undefined;
    try {
      const cc = await startControlCenter(scope, { tls: false });
      const ep = endpointOf(cc.kubeconfig);
      const pool = poolFor(ep, 1);
      await ensureNamespace(pool, ep, 'bench');
      await call(pool, ep, 'POST', HC_PATH('bench'), hostedCluster('bench', 'hc-000001'));
      await pool.destroy();
      await cc.stop();
      const db = new ClassicLevel<string, string>(path.join(cc.dir, 'data'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
      await db.open();
      try {
        stored = await db.get(levelKey(1));
      } finally {
        await db.close();
      }
    } finally {
      await scope.close();
      t.cleanup();
    }
    expect(stored, `no value under ${levelKey(1)}`).toBeTypeOf('string');
    const real = JSON.parse(stored!) as { c: number; m: number; o: unknown };
    const rev = real.m;
    const ours = levelValue(storedHostedCluster(), 1, rev);
    expect(paths(JSON.parse(ours))).toEqual(paths(real));
    // Only uid, timestamps and the like differ, at the same lengths.
    expect(Math.abs(Buffer.byteLength(ours) - Buffer.byteLength(stored!))).toBeLessThanOrEqual(8);
  });
});
