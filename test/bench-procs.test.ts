/**
 * The bench's processes (bench/lib/procs.mjs startProcess) do not outlive it: each has an IPC
 * channel to the bench and stops (SIGTERM) when that channel closes, so a SIGKILLed bench, whose
 * exit-time kill never runs, leaves no process behind; a helper that is done still exits by itself.
 */
import { describe, expect, it } from 'vitest';
import { closeAllScopes, Scope } from '../bench/lib/cleanup.mjs';
import { failOnUnexpectedExit, failureLine, settings, startProcess } from '../bench/lib/procs.mjs';
import { openFileLimit } from '../bench/scenarios/watch.mjs';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot, tempDir, waitFor } from './helpers/tools.js';

const procs = pathToFileURL(path.join(repoRoot, 'bench', 'lib', 'procs.mjs')).href;

/** Whether a process with this pid runs (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Starts a stand-in bench that starts `script` with startProcess and prints the child's pid. */
function benchStandIn(dir: string, script: string): Promise<{ bench: ReturnType<typeof spawn>; child: number }> {
  const code = `
    import { Scope } from ${JSON.stringify(pathToFileURL(path.join(repoRoot, 'bench', 'lib', 'cleanup.mjs')).href)};
    import { startProcess } from ${JSON.stringify(procs)};
    const p = await startProcess(new Scope(), { name: 'helper', script: ${JSON.stringify(script)}, args: [], logFile: ${JSON.stringify(path.join(dir, 'helper.log'))}, ready: 'ready', timeoutMs: 20000 });
    process.stdout.write(p.pid + '\\n');
    setInterval(() => {}, 1000);
  `;
  const bench = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    bench.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve({ bench, child: Number(out.trim()) });
    });
    bench.once('exit', (code) => reject(new Error(`stand-in exited with ${code}`)));
  });
}

describe('bench processes', () => {
  it('stop when the bench is SIGKILLed', async () => {
    const t = tempDir('hcc-bench-procs-');
    try {
      const script = path.join(t.dir, 'forever.mjs');
      // Like bare-fastify or `hcc up`: serves until told to stop.
      writeFileSync(script, "console.log('ready'); setInterval(() => {}, 1000);\n");
      const { bench, child } = await benchStandIn(t.dir, script);
      expect(alive(child)).toBe(true);
      bench.kill('SIGKILL');
      await waitFor('the helper to stop', () => !alive(child), 10_000, 100);
    } finally {
      t.cleanup();
    }
  });

  it('clean up on SIGHUP (a closed terminal) as on Ctrl-C: exit 130, temp dir removed', async () => {
    const t = tempDir('hcc-bench-procs-');
    try {
      const temp = path.join(t.dir, 'hcc-bench-api-x');
      mkdirSync(temp);
      const code = `
        import { rmSync } from 'node:fs';
        import { closeOnSignals } from ${JSON.stringify(pathToFileURL(path.join(repoRoot, 'bench', 'lib', 'cleanup.mjs')).href)};
        closeOnSignals(() => rmSync(${JSON.stringify(temp)}, { recursive: true, force: true }));
        process.stdout.write('ready\\n');
        setInterval(() => {}, 1000);
      `;
      const bench = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      bench.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      await new Promise<void>((resolve) => bench.stdout!.once('data', () => resolve()));
      const exited = new Promise<number | null>((resolve) => bench.once('exit', (c) => resolve(c)));
      bench.kill('SIGHUP');
      expect(await exited).toBe(130);
      expect(stderr).toContain('SIGHUP: stopping processes and removing temp dirs');
      expect(existsSync(temp)).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  it('lets a helper that is done exit by itself', async () => {
    const t = tempDir('hcc-bench-procs-');
    try {
      const script = path.join(t.dir, 'once.mjs');
      writeFileSync(script, "console.log('ready');\n");
      const { bench, child } = await benchStandIn(t.dir, script);
      try {
        await waitFor('the helper to exit', () => !alive(child), 10_000, 100);
      } finally {
        bench.kill('SIGKILL');
      }
    } finally {
      t.cleanup();
    }
  });
  it('stop every open scope on a signal, the per-run ones first, so that a process is stopped before its temp dir goes', async () => {
    const order: string[] = [];
    const scenario = new Scope();
    scenario.defer(() => void order.push('scenario dir'));
    const run = new Scope();
    run.defer(() => void order.push('run dir'));
    run.defer(async () => {
      await new Promise((r) => setTimeout(r, 20));
      order.push('run process');
    });
    await closeAllScopes();
    expect(order).toEqual(['run process', 'run dir', 'scenario dir']);
    // Closed scopes are left: closing again does nothing.
    await closeAllScopes();
    expect(order).toHaveLength(3);
  });

  it('fail the scenario at once when one of its processes dies, naming it and why; not when the bench stops it', async () => {
    const t = tempDir('hcc-bench-procs-');
    const scope = new Scope();
    try {
      const dies = path.join(t.dir, 'dies.mjs');
      writeFileSync(dies, "console.log('ready'); setTimeout(() => { console.error('Error: ENOSPC: no space left on device, write'); process.exit(3); }, 300);\n");
      const serves = path.join(t.dir, 'serves.mjs');
      writeFileSync(serves, "console.log('ready'); setInterval(() => {}, 1000);\n");
      const stopped = await startProcess(scope, { name: 'stopped-one', script: serves, args: [], logFile: path.join(t.dir, 'stopped.log'), ready: 'ready' });
      await stopped.stop();
      await startProcess(scope, { name: 'scheduler', script: dies, args: [], logFile: path.join(t.dir, 'dies.log'), ready: 'ready' });
      const started = Date.now();
      // A wait for placements that would last a minute.
      await expect(failOnUnexpectedExit(new Promise((r) => setTimeout(r, 60_000)))).rejects.toThrow(/^scheduler \(pid \d+\) exited unexpectedly \(code 3\): Error: ENOSPC: no space left on device, write; its log .*dies\.log is removed with the temp dir \(--keep keeps it\)/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await scope.close();
      t.cleanup();
    }
  });

  it('start nothing in a scope already closed (a failed scenario still running on after its clean-up)', async () => {
    const scope = new Scope();
    await scope.close();
    expect(scope.closed).toBe(true);
    await expect(startProcess(scope, { name: 'late', script: '/nonexistent.mjs', args: [], logFile: '/nonexistent/late.log', ready: 'ready' })).rejects.toThrow('scope already closed: late not started');
  });

  it('name the line of a failed process that says why, and the open-file limit', () => {
    expect(failureLine('starting\nput-1 run 1/2\nError: ENOSPC: no space left on device\n    at write\n')).toBe('Error: ENOSPC: no space left on device');
    expect(failureLine('a\nlast words\n\n')).toBe('last words');
    expect(failureLine('')).toBe('(no output)');
    expect(settings.keep).toBe(false);
    expect(openFileLimit('Limit                     Soft Limit           Hard Limit           Units\nMax open files            800                  800                  files\n')).toBe(800);
    expect(openFileLimit('Max open files            unlimited            unlimited            files\n')).toBe(Infinity);
    expect(openFileLimit()).toBeGreaterThan(0);
  });
});
