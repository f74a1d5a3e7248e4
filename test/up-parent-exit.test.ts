/**
 * `hcc up` started by a parent with an IPC channel (a benchmark, a test harness) stops every process
 * when that parent dies, even by SIGKILL, as every other hcc process does: nothing is left running.
 */
import { spawn } from 'node:child_process';
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

describe('hcc up under a parent that dies', () => {
  it('stops itself and every process it started when the parent is SIGKILLed', async () => {
    const t = tempDir('hcc-up-parent-');
    try {
      const state = path.join(t.dir, 'state');
      const parentScript = path.join(t.dir, 'parent.mjs');
      // The parent forks hcc up with an IPC channel, relays its output, and waits to be killed.
      writeFileSync(
        parentScript,
        `import { fork } from 'node:child_process';
const up = fork(${JSON.stringify(hccBin)}, ['up', '--state-dir', ${JSON.stringify(state)}, '--management-clusters', '1'], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
up.stdout.pipe(process.stdout);
up.stderr.pipe(process.stderr);
setInterval(() => {}, 1000);
`,
      );
      let out = '';
      const parent = spawn(process.execPath, [parentScript], { stdio: ['ignore', 'pipe', 'pipe'] });
      parent.stdout!.on('data', (d) => (out += d.toString()));
      parent.stderr!.on('data', (d) => (out += d.toString()));
      try {
        await waitFor('hcc is up', () => out.includes('hcc is up'), 90_000);
        const pids = JSON.parse(readFileSync(path.join(state, 'processes.json'), 'utf8')) as Record<string, number>;
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
      const npmLike = path.join(t.dir, 'npm-like.mjs');
      // As npm exec runs a bin: no IPC channel, stdio relayed, npm_command in the environment.
      writeFileSync(
        npmLike,
        `import { spawn } from 'node:child_process';
const up = spawn(process.execPath, [${JSON.stringify(hccBin)}, 'up', '--state-dir', ${JSON.stringify(state)}, '--management-clusters', '1'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_command: 'exec' } });
up.stdout.pipe(process.stdout);
up.stderr.pipe(process.stderr);
setInterval(() => {}, 1000);
`,
      );
      const start = async () => {
        let out = '';
        const npm = spawn(process.execPath, [npmLike], { stdio: ['ignore', 'pipe', 'pipe'] });
        npm.stdout!.on('data', (d) => (out += d.toString()));
        npm.stderr!.on('data', (d) => (out += d.toString()));
        await waitFor('hcc is up', () => out.includes('hcc is up'), 90_000);
        return { npm, out: () => out, pids: JSON.parse(readFileSync(path.join(state, 'processes.json'), 'utf8')) as Record<string, number> };
      };
      const first = await start();
      try {
        first.npm.kill('SIGKILL');
        await waitFor('every process to stop after npm died', () => Object.values(first.pids).every((pid) => !alive(pid)), 30_000);
        expect(existsSync(path.join(state, 'processes.json'))).toBe(false);
      } finally {
        first.npm.kill('SIGKILL');
      }
      const second = await start();
      try {
        process.kill(second.pids.up!, 'SIGHUP');
        await waitFor('every process to stop after SIGHUP', () => Object.values(second.pids).every((pid) => !alive(pid)), 30_000);
        expect(second.out()).toContain('• SIGHUP: stopping every process');
        expect(existsSync(path.join(state, 'processes.json'))).toBe(false);
        expect(existsSync(path.join(state, 'up.lock'))).toBe(false);
      } finally {
        second.npm.kill('SIGKILL');
      }
    } finally {
      t.cleanup();
    }
  }, 240_000);
});
