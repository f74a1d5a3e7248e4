/**
 * Process lifecycle helpers shared by the long-running commands: report readiness to a parent
 * (`hcc up` forks children with an IPC channel) and stop cleanly on SIGINT/SIGTERM.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';

/** Message a child sends its parent when it is serving. */
export interface ReadyMessage {
  type: 'ready';
  name: string;
  url?: string;
  kubeconfig?: string;
}

/** Tells the parent process (if any) that this process is ready. */
export function notifyReady(msg: ReadyMessage): void {
  if (process.send) process.send(msg);
}

/** Handle returned by {@link catchShutdown}. */
export interface Shutdown {
  /**
   * Hands over the graceful stop once the process serves. A signal that came during startup
   * runs it now.
   * @param stop - graceful shutdown; the process exits 0 when it resolves, 1 when it throws
   */
  serving(stop: () => Promise<void>): void;
  /**
   * Stops the process because it cannot go on (its storage failed): logs `err` at fatal with
   * `msg`, runs the graceful stop (at once, or as soon as startup has handed it over) and exits 1,
   * or after {@link ShutdownTimeoutMs} anyway. A supervisor (`hcc up`, the kubelet) then restarts it.
   */
  fail(err: unknown, msg: string): void;
}

/** What bin/hcc.js leaves on globalThis: the signal handlers it installs before loading the command. */
interface EarlySignals {
  /** Removes them; the signal that came meanwhile, if any. */
  takeOver(): string | undefined;
  takenOver?: boolean;
}

/**
 * Removes the signal handlers bin/hcc.js installs before it loads the command, once the command
 * has installed its own: call it right after them.
 * @returns the signal (`SIGINT`, `SIGTERM`) that came while the modules loaded, to act on now
 */
export function takeOverEarlySignals(): string | undefined {
  const early = (globalThis as Record<symbol, EarlySignals | undefined>)[Symbol.for('hcc.earlySignals')];
  if (!early || early.takenOver) return undefined;
  early.takenOver = true;
  return early.takeOver();
}

/** A process's parent pid, start time (clock ticks since boot) and command line, from /proc (Linux); undefined when gone or elsewhere. */
function procInfo(pid: number): { ppid: number; start: string; cmd: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ... starttime": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmd = readFileSync(`/proc/${pid}/cmdline`).toString('utf8').split('\0').join(' ');
    return { ppid: Number(fields[1]), start: fields[19] ?? '', cmd };
  } catch {
    return undefined;
  }
}

/**
 * Under `npx hcc ...` or `npm run` (npm sets `npm_command`), stops with npm: npm does not pass a
 * SIGTERM on through the shell it runs the bin with (`npm` → `sh -c` → `hcc ...`), and when it is
 * killed outright (SIGKILL, an OOM kill) the hcc process would keep running, reparented, with
 * nothing left to stop it. The process watched is the nearest ancestor whose command line is
 * npm's (found in /proc; else the parent), checked once a second: gone, or its pid reused, means
 * npm is gone. Not done for a shell parent: `setsid hcc ... &` must outlive the shell that
 * started it.
 * @param onExit - called once, when npm is gone
 */
export function watchNpmParent(onExit: () => void): void {
  if (!process.env.npm_command) return;
  let watched = { pid: process.ppid, start: procInfo(process.ppid)?.start };
  for (let pid = process.ppid, depth = 0; pid > 1 && depth < 4; depth++) {
    const info = procInfo(pid);
    if (!info) break;
    if (/(^|[\s/])(npm|npx)(-cli\.[cm]?js)?(\s|$)/.test(info.cmd)) {
      watched = { pid, start: info.start };
      break;
    }
    pid = info.ppid;
  }
  const gone = () => {
    if (watched.start !== undefined) return procInfo(watched.pid)?.start !== watched.start;
    return process.ppid !== watched.pid; // no /proc: the parent, as far as it can be told
  };
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    onExit();
  }, 1_000);
  timer.unref();
}

/** Longest graceful stop, in milliseconds, before the process exits 1 anyway. */
export const ShutdownTimeoutMs = 10_000;

/**
 * Installs SIGINT/SIGTERM handlers (and parent-exit: under `hcc up`, or under npm, see
 * {@link watchNpmParent}) at once, at the start of a
 * command, so a signal during startup is not the default kill: it stops the process as soon as
 * startup has finished (exit 0), or exits 1 after {@link ShutdownTimeoutMs}. Call
 * {@link Shutdown.serving} when the process serves.
 */
export function catchShutdown(log: Logger): Shutdown {
  let stop: (() => Promise<void>) | undefined;
  let signalled: string | undefined;
  let stopping = false;
  let exitCode = 0;
  const run = () => {
    if (stopping || !stop) return;
    stopping = true;
    stop()
      .then(() => process.exit(exitCode))
      .catch((err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  const handler = (signal: string) => {
    if (signalled) return;
    signalled = signal;
    log.info({ signal, starting: !stop }, 'shutting down');
    const force = setTimeout(() => process.exit(1), ShutdownTimeoutMs);
    force.unref();
    run();
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
  if (process.send) process.on('disconnect', () => handler('parent-exit'));
  else watchNpmParent(() => handler('parent-exit'));
  const early = takeOverEarlySignals();
  if (early) handler(early);
  return {
    serving(s) {
      stop = s;
      if (signalled) run();
    },
    fail(err, msg) {
      exitCode = 1;
      log.fatal({ err }, msg);
      handler('fatal');
    },
  };
}
