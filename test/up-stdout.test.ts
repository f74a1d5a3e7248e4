/**
 * `hcc up | head -2`: once its stdout is gone (the reader exited: EPIPE), `hcc up` stops every
 * process it started and exits, as on SIGPIPE, instead of crashing with an unhandled `write
 * EPIPE` and leaving its state dir claiming processes that are gone.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hccBin, tempDir, waitFor } from './helpers/tools.js';

/** Pids of live processes whose command line mentions `needle`. */
function processesMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle)) pids.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe('hcc up with its stdout closed', () => {
  const t = tempDir('hcc-up-stdout-');
  const stateDir = path.join(t.dir, 'state');
  afterAll(() => {
    for (const pid of processesMentioning(stateDir)) process.kill(pid, 'SIGKILL');
    t.cleanup();
  });

  it('stops everything it started and exits cleanly when the reader goes away', async () => {
    const proc = spawn(process.execPath, [hccBin, 'up', '--state-dir', stateDir, '--management-clusters', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((res) => proc.on('exit', (code) => res(code)));
    // Read the first line, then close the pipe as `head -1` does.
    await new Promise<void>((res) => proc.stdout!.once('data', () => res()));
    proc.stdout!.destroy();
    const code = await Promise.race([exited, new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), 60_000))]);
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Unhandled|Error:/);
    expect(existsSync(path.join(stateDir, 'processes.json'))).toBe(false);
    await waitFor('every child process gone', () => processesMentioning(stateDir).length === 0, 20_000);
  });
});
