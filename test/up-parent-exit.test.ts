/**
 * `hcc up` stops every process it started, leaving nothing running, when what started it goes
 * away: a parent with an IPC channel (a benchmark, a test harness) that dies, even by SIGKILL, as
 * every other hcc process does; npm (`npx hcc up`, `npm run`) killed outright; and SIGHUP (the
 * terminal went away).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hccBin, tempDir, waitFor } from './helpers/tools.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Starts a parent process that starts `hcc up` on `state` and relays its output, as `how` says:
 * `ipc` forks it with an IPC channel (a harness); `npm` runs it as npm exec runs a bin: through
 * `sh -c` (npm → sh → hcc up), with no IPC and `npm_command` in the environment, from a script
 * named like npm's own (`npm-cli.mjs`). Resolves once hcc is up, with the pids it wrote.
 */
async function startUnderParent(dir: string, state: string, how: 'ipc' | 'npm'): Promise<{ parent: ChildProcess; out: () => string; pids: Record<string, number> }> {
  const script = path.join(dir, how === 'npm' ? 'npm-cli.mjs' : 'parent-ipc.mjs');
  const hccArgs = [hccBin, 'up', '--state-dir', state, '--management-clusters', '1'];
  const shellLine = [process.execPath, ...hccArgs].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const start =
    how === 'ipc'
      ? `fork(${JSON.stringify(hccArgs[0])}, ${JSON.stringify(hccArgs.slice(1))}, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })`
      : `spawn('/bin/sh', ['-c', ${JSON.stringify(`${shellLine}; true`)}], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_command: 'exec' } })`;
  writeFileSync(script, `import { fork, spawn } from 'node:child_process';\nconst up = ${start};\nup.stdout.pipe(process.stdout);\nup.stderr.pipe(process.stderr);\nsetInterval(() => {}, 1000);\n`);
  let out = '';
  const parent = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
  parent.stdout!.on('data', (d) => (out += d.toString()));
  parent.stderr!.on('data', (d) => (out += d.toString()));
  try {
    await waitFor('hcc is up', () => out.includes('hcc is up'), 90_000);
  } catch (err) {
    parent.kill('SIGKILL');
    throw err;
  }
  return { parent, out: () => out, pids: JSON.parse(readFileSync(path.join(state, 'processes.json'), 'utf8')) as Record<string, number> };
}

describe('hcc up when what started it goes away', () => {
  it('stops itself and every process it started when the parent is SIGKILLed', async () => {
    const t = tempDir('hcc-up-parent-');
    try {
      const state = path.join(t.dir, 'state');
      const { parent, pids } = await startUnderParent(t.dir, state, 'ipc');
      try {
        expect(Object.keys(pids).sort()).toEqual(['control-center', 'mgmt-1', 'scheduler', 'syncer-mgmt-1', 'up']);
        parent.kill('SIGKILL');
        await waitFor('every process to stop', () => Object.values(pids).every((pid) => !alive(pid)), 30_000);
        expect(existsSync(path.join(state, 'processes.json'))).toBe(false);
      } finally {
        parent.kill('SIGKILL');
      }
    } finally {
      t.cleanup();
    }
  });

  it('stops with npm when started by `npx hcc up` and npm is SIGKILLed; and on SIGHUP stops everything gracefully', async () => {
    const t = tempDir('hcc-up-npx-');
    try {
      const state = path.join(t.dir, 'state');
      const first = await startUnderParent(t.dir, state, 'npm');
      try {
        first.parent.kill('SIGKILL');
        await waitFor('every process to stop after npm died', () => Object.values(first.pids).every((pid) => !alive(pid)), 30_000);
        expect(existsSync(path.join(state, 'processes.json'))).toBe(false);
      } finally {
        first.parent.kill('SIGKILL');
      }
      const second = await startUnderParent(t.dir, state, 'npm');
      try {
        process.kill(second.pids.up!, 'SIGHUP');
        await waitFor('every process to stop after SIGHUP', () => Object.values(second.pids).every((pid) => !alive(pid)), 30_000);
        expect(second.out()).toContain('• SIGHUP: stopping every process');
        expect(existsSync(path.join(state, 'processes.json'))).toBe(false);
        expect(existsSync(path.join(state, 'up.lock'))).toBe(false);
      } finally {
        second.parent.kill('SIGKILL');
      }
    } finally {
      t.cleanup();
    }
  }, 240_000);
});

describe('any hcc command under npm (`npx hcc control-center`)', () => {
  it('stops when npm is stopped: npm passes no SIGTERM on through the shell it runs the bin with', async () => {
    const t = tempDir('hcc-npx-parent-');
    let parent: ChildProcess | undefined;
    let pid = 0;
    try {
      const script = path.join(t.dir, 'npm-cli.mjs');
      const log = path.join(t.dir, 'cc.log');
      const args = [hccBin, 'control-center', '--data-dir', path.join(t.dir, 'data'), '--kubeconfig', path.join(t.dir, 'admin.kubeconfig'), '--port', '0', '--host', '127.0.0.1'];
      const shellLine = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
      // As npm exec: npm → sh -c → hcc, no IPC, npm_command set; this "npm" dies on SIGTERM without
      // passing it on. The log goes to a file, not through npm: a broken pipe must not be what stops it.
      writeFileSync(script, `import { spawn } from 'node:child_process';\nspawn('/bin/sh', ['-c', ${JSON.stringify(`${shellLine} > '${log}' 2>&1; true`)}], { stdio: 'ignore', env: { ...process.env, npm_command: 'exec' } });\nsetInterval(() => {}, 1000);\n`);
      parent = spawn(process.execPath, [script], { stdio: 'ignore' });
      const text = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
      await waitFor('the control center to serve', () => text().includes('"msg":"control center serving"'), 60_000);
      pid = Number(/"pid":(\d+)/.exec(text())![1]);
      expect(alive(pid)).toBe(true);
      parent.kill('SIGTERM');
      await waitFor('the control center to stop', () => !alive(pid), 20_000);
      expect(text()).toMatch(/"signal":"parent-exit"/);
    } finally {
      parent?.kill('SIGKILL');
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL'); // left running when the test fails
      t.cleanup();
    }
  }, 120_000);
});
