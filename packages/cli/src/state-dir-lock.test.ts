import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isZombie, runningUpOwning, stateDirConflict, upLockHolder } from './state-dir-lock.js';

describe('the up.lock of a state directory', () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    for (const f of cleanup.splice(0)) f();
  });
  const stateDir = (holder: number | string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hcc-lock-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(path.join(dir, 'data', 'mgmt-1'), { recursive: true });
    writeFileSync(path.join(dir, 'up.lock'), `${holder}\n`);
    return dir;
  };
  const liveProcess = () => {
    const p = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    cleanup.push(() => p.kill());
    return p.pid!;
  };

  it('refuses a path in the state directory of a live hcc up, naming the flag, the directory and the pid', () => {
    const pid = liveProcess();
    const dir = stateDir(pid);
    expect(upLockHolder(dir)).toBe(pid);
    for (const p of [path.join(dir, 'admin.kubeconfig'), path.join(dir, 'management-clusters', 'mgmt-1.kubeconfig'), path.join(dir, 'data', 'mgmt-1', 'x')]) {
      expect(runningUpOwning(p), p).toEqual({ dir, pid });
    }
    expect(stateDirConflict({ '--kubeconfig': path.join(dir, 'admin.kubeconfig') })).toBe(
      `error: --kubeconfig ${path.join(dir, 'admin.kubeconfig')} is in ${dir}, the state directory of the running hcc up (pid ${pid}); it would be overwritten under it: pass --kubeconfig outside it, or stop that hcc up`,
    );
    expect(stateDirConflict({ '--kubeconfig': path.join(os.tmpdir(), 'elsewhere', 'admin.kubeconfig') })).toBeUndefined();
    // Deeper, and through a symlink.
    expect(runningUpOwning(path.join(dir, 'data', 'control-center', 'sub', 'x'))).toEqual({ dir, pid });
    const link = path.join(mkdtempSync(path.join(os.tmpdir(), 'hcc-link-')), 'state');
    cleanup.push(() => rmSync(path.dirname(link), { recursive: true, force: true }));
    symlinkSync(dir, link);
    expect(runningUpOwning(path.join(link, 'admin.kubeconfig'))?.pid).toBe(pid);
  });

  it('ignores a lock whose process has exited but is not reaped yet (a zombie: a SIGKILLed hcc up its shell has not waited for)', async () => {
    // `sleep 0 &` becomes a child of the `sleep` that sh execs into, which never reaps it.
    const p = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    cleanup.push(() => p.kill());
    const zombie = Number((await new Promise<Buffer>((resolve) => p.stdout.once('data', resolve))).toString().trim());
    const deadline = Date.now() + 5000;
    while (!isZombie(zombie) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(isZombie(zombie)).toBe(true);
    expect(() => process.kill(zombie, 0)).not.toThrow(); // what a plain liveness check would take for running
    expect(upLockHolder(stateDir(zombie))).toBeUndefined();
    expect(isZombie(p.pid!)).toBe(false);
    expect(upLockHolder(stateDir(p.pid!))).toBe(p.pid);
  });

  it("lets that hcc up's own children write there, and ignores a lock whose process is gone", () => {
    expect(runningUpOwning(path.join(stateDir(process.ppid), 'admin.kubeconfig'))).toBeUndefined();
    expect(runningUpOwning(path.join(stateDir(2 ** 22 + 12345), 'admin.kubeconfig'))).toBeUndefined();
    expect(runningUpOwning(path.join(stateDir('garbage'), 'admin.kubeconfig'))).toBeUndefined();
  });
});
