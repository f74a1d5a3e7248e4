/**
 * The `up.lock` of an `hcc up` state directory: which live `hcc up` owns a directory, so that no
 * other command writes into it (a standalone `hcc control-center` with its default flags would
 * otherwise point `.hcc/admin.kubeconfig` and `.hcc/scheduler.kubeconfig` of a running `hcc up`
 * at itself, and its scheduler would lose the control center for good).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Name of the lock file in a state directory; it holds the pid of the `hcc up` that owns it. */
export const UpLockFile = 'up.lock';

/**
 * Whether `pid` is a zombie: a process that has exited but that its parent has not reaped yet (a
 * SIGKILLed `hcc up` whose shell has not waited for it). It answers `kill(pid, 0)` like a live one.
 * Linux only (`/proc/<pid>/stat`, state after the command name); false where that cannot be read.
 * @see https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html
 */
export function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself hold spaces or parentheses: the state
    // follows the last `) `.
    return stat[stat.lastIndexOf(')') + 2] === 'Z';
  } catch {
    return false;
  }
}

/**
 * The pid of the live process holding `dir/up.lock`, or undefined (no lock, an unreadable one,
 * one left by a process that no longer runs or has exited unreaped, or one this process holds).
 */
export function upLockHolder(dir: string): number | undefined {
  const lock = path.join(dir, UpLockFile);
  if (!existsSync(lock)) return undefined;
  let pid: number;
  try {
    pid = Number(readFileSync(lock, 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!(pid > 0) || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return isZombie(pid) ? undefined : pid;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

/**
 * The running `hcc up` whose state directory is or holds `p`, at any depth (`.hcc/admin.kubeconfig`,
 * `.hcc/management-clusters/mgmt-1.kubeconfig`, the data dir `.hcc/data/control-center`), symlinks
 * resolved, unless that `hcc up` started this process (its children write there).
 * @param p - a file or directory this process writes
 * @returns the state directory and the pid of its `hcc up`, or undefined
 */
export function runningUpOwning(p: string): { dir: string; pid: number } | undefined {
  for (const start of new Set([path.resolve(p), realDir(path.resolve(p))])) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const pid = upLockHolder(dir);
      if (pid !== undefined && pid !== process.ppid) return { dir, pid };
      if (path.dirname(dir) === dir) break;
    }
  }
  return undefined;
}

/** `dir` with symlinks resolved: its deepest existing ancestor's real path, and the rest as given. */
function realDir(dir: string): string {
  const rest: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      return path.join(realpathSync(d), ...rest);
    } catch {
      if (path.dirname(d) === d) return dir;
      rest.unshift(path.basename(d));
    }
  }
}

/**
 * Refuses to start when any of `paths` (flag name → file or directory this command writes) lies in the state
 * directory of a running `hcc up` that did not start it.
 * @returns the one-line error naming the flag, the directory and the pid, or undefined
 */
export function stateDirConflict(paths: Record<string, string>): string | undefined {
  for (const [flag, p] of Object.entries(paths)) {
    const owner = runningUpOwning(p);
    if (owner) {
      return `error: ${flag} ${p} is in ${owner.dir}, the state directory of the running hcc up (pid ${owner.pid}); it would be overwritten under it: pass ${flag} outside it, or stop that hcc up`;
    }
  }
  return undefined;
}
