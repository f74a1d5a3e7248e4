/**
 * A small process supervisor for `hcc up`: forks hcc subcommands as child processes with an IPC
 * channel, sends their output to one log file each, waits for their `ready` message, restarts a
 * child that dies unexpectedly (with backoff, reusing the port it had), and stops them all.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, fstatSync, readSync, statSync, unlinkSync } from 'node:fs';
import { writeFileAtomic } from '@hcc/client';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ReadyMessage } from './lifecycle.js';

/** One supervised process. */
export interface ChildSpec {
  name: string;
  /** hcc subcommand and its arguments. */
  args: string[];
  /** Rewrites args for a restart (e.g. to pin the port the first run got). */
  restartArgs?: (ready: ReadyMessage) => string[];
}

interface Running {
  spec: ChildSpec;
  proc: ChildProcess;
  ready?: ReadyMessage;
  /** Restarts since the child last ran {@link StableMs} or longer (the crash loop being counted). */
  restarts: number;
  /** When the current process was spawned (Date.now()). */
  startedAt: number;
}

/**
 * A child that ran this long before it exited was not crash-looping: its restart count and
 * backoff start over, as the kubelet resets a container's crash-loop backoff once it has run a
 * while. In milliseconds.
 */
export const StableMs = 60_000;
/** Restarts in a row, each after a run shorter than {@link StableMs}, after which a child is given up. */
export const MaxRestarts = 10;

/**
 * The restart decision for a child that exited on its own.
 * @param restarts - restarts counted so far in this crash loop
 * @param ranMs - how long the process that exited ran, in milliseconds
 * @returns the new count and the delay before the restart (250 ms doubling per restart, at most
 *   10 s; a run of {@link StableMs} or more starts the count over), or `'give-up'` after
 *   {@link MaxRestarts} short runs in a row
 */
export function nextRestart(restarts: number, ranMs: number): { restarts: number; delayMs: number } | 'give-up' {
  const n = ranMs >= StableMs ? 0 : restarts;
  if (n >= MaxRestarts) return 'give-up';
  return { restarts: n + 1, delayMs: Math.min(10_000, 250 * 2 ** (n + 1)) };
}

/** How long a child whose start timed out gets to stop after SIGTERM before SIGKILL, in milliseconds. */
export const StartTimeoutGraceMs = 5_000;

/** How long after a child's exit the supervisor decides whether to restart it, in milliseconds (see Supervisor.onExit). */
const ExitSettleMs = 300;

/**
 * The supervisor above: {@link Supervisor.start} each child (resolves when it is ready), then {@link Supervisor.stopAll}
 * once at the end; nothing starts or restarts after that. Writes `<logDir>/<name>.log` per child and
 * `<logDir>/../processes.json`; `onEvent` gets one line per restart or give-up, for the terminal.
 */
export class Supervisor {
  private readonly children = new Map<string, Running>();
  private stopping = false;

  /**
   * @param entry - the hcc CLI entry module (bin/hcc.js)
   * @param logDir - one `<name>.log` per child
   */
  constructor(
    private readonly entry: string,
    private readonly logDir: string,
    private readonly log: Logger,
    private readonly onEvent: (line: string) => void = () => {},
    /** Called once a child is given up (it crashed {@link MaxRestarts} times in a row). */
    private readonly onGiveUp: (name: string) => void = () => {},
  ) {}

  /**
   * Starts a child and resolves with its ready message.
   * @param timeoutMs - how long it may take to say it is ready, in milliseconds; past it the child
   *   is stopped (SIGTERM, SIGKILL {@link StartTimeoutGraceMs} later) and the start fails
   * @throws when it exits before it is ready or takes longer than timeoutMs, or when
   *   {@link stopAll} has been called (nothing starts once stopping has begun)
   */
  start(spec: ChildSpec, timeoutMs = 60_000): Promise<ReadyMessage> {
    return new Promise((resolve, reject) => {
      if (this.stopping) {
        reject(new Error(`not starting ${spec.name}: stopping`));
        return;
      }
      const logFrom = fileSize(this.logFile(spec.name)); // this start's output comes after it
      const r: Running = { spec, proc: this.spawn(spec, spec.args), restarts: 0, startedAt: Date.now() };
      this.children.set(spec.name, r);
      let timedOut = false;
      const timer = setTimeout(() => {
        // Not left running until stopAll: a child that never got ready holds its port and data dir.
        timedOut = true;
        this.log.error({ child: spec.name, childPid: r.proc.pid, timeoutMs, log: this.logFile(spec.name) }, 'child did not become ready in time: stopping it');
        void this.stopChild(r, StartTimeoutGraceMs);
        reject(new Error(`${spec.name} did not become ready within ${timeoutMs / 1000}s; see ${this.logFile(spec.name)}`));
      }, timeoutMs);
      const onMsg = (m: unknown) => {
        if ((m as ReadyMessage)?.type === 'ready') {
          clearTimeout(timer);
          r.ready = m as ReadyMessage;
          this.log.info({ child: spec.name, childPid: r.proc.pid, url: r.ready.url, ms: Date.now() - r.startedAt }, 'child ready');
          resolve(r.ready);
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        if (r.ready) return;
        clearTimeout(timer);
        if (timedOut) {
          this.log.info({ child: spec.name, code, signal }, 'child stopped after its start timed out');
          return;
        }
        if (this.stopping) {
          // Stopped by stopAll (Ctrl-C during startup), not a failure: no error line in up.log.
          this.log.info({ child: spec.name, code, signal }, 'child stopped before it was ready');
          reject(new Error(`${spec.name} stopped before it was ready`));
          return;
        }
        const why = lastErrorLine(this.logFile(spec.name), logFrom);
        this.log.error({ child: spec.name, code, why, log: this.logFile(spec.name) }, 'child exited before it was ready');
        reject(new Error(`${spec.name} exited with code ${code} before it was ready${why ? `: ${why}` : ''}; see ${this.logFile(spec.name)}`));
      };
      r.proc.on('message', onMsg);
      r.proc.once('exit', onExit);
    });
  }

  /** Path of a child's log file. */
  logFile(name: string): string {
    return path.join(this.logDir, `${name}.log`);
  }

  /** The running process of a child (tests and the demo kill them to show recovery). */
  pid(name: string): number | undefined {
    return this.children.get(name)?.proc.pid;
  }

  private spawn(spec: ChildSpec, args: string[]): ChildProcess {
    const fd = openSync(this.logFile(spec.name), 'a');
    const proc = fork(this.entry, args, { stdio: ['ignore', fd, fd, 'ipc'], env: { ...process.env } });
    closeSync(fd);
    proc.on('exit', (code, signal) => this.onExit(spec.name, proc, code, signal));
    this.pids.set(spec.name, proc.pid ?? 0);
    this.writePids();
    this.log.info({ child: spec.name, childPid: proc.pid, args, log: this.logFile(spec.name) }, 'child started');
    return proc;
  }

  private readonly pids = new Map<string, number>();

  /** `<logDir>/../processes.json`: name → pid of each running child, `up` for the supervisor itself. */
  private get pidsFile(): string {
    return path.join(this.logDir, '..', 'processes.json');
  }

  /**
   * Writes `<logDir>/../processes.json` (name → pid) so operators and tests can find each process;
   * `up` is the supervisor itself (SIGINT or SIGTERM to it stops everything).
   */
  private writePids(): void {
    try {
      // Whole or not at all: operators and tests read it while children start.
      writeFileAtomic(this.pidsFile, `${JSON.stringify({ up: process.pid, ...Object.fromEntries(this.pids) }, null, 2)}\n`);
    } catch {
      // informational only
    }
  }

  private onExit(name: string, proc: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    const r = this.children.get(name);
    if (!r || r.proc !== proc || this.stopping) return;
    this.log.warn({ child: name, code, signal }, 'child exited');
    if (!r.ready) {
      // Its start fails (start's own handler says why); its pid names nothing now.
      this.pids.delete(name);
      this.writePids();
      return;
    }
    // A Ctrl-C in a terminal reaches the whole process group: a child may exit before `hcc up`
    // hears its own SIGINT and stops everything. Decide a moment later, so a stop is not
    // announced as a restart.
    setTimeout(() => {
      if (!this.stopping && r.proc === proc) this.restart(name, r, code, signal);
    }, ExitSettleMs);
  }

  /**
   * Restarts a child that exited on its own, with backoff (250 ms doubling, at most 10 s); one that
   * ran {@link StableMs} or longer starts the count over. After {@link MaxRestarts} short runs in a
   * row it is given up: its pid leaves `processes.json` and `onGiveUp` is called.
   */
  private restart(name: string, r: Running, code: number | null, signal: NodeJS.Signals | null): void {
    const next = nextRestart(r.restarts, Date.now() - r.startedAt);
    if (next === 'give-up') {
      this.onEvent(`✗ ${name} keeps failing; not restarting it (see ${this.logFile(name)})`);
      this.log.error({ child: name, restarts: r.restarts, log: this.logFile(name) }, 'child keeps failing: not restarting it');
      this.pids.delete(name);
      this.writePids();
      this.onGiveUp(name);
      return;
    }
    r.restarts = next.restarts;
    const delay = next.delayMs;
    this.onEvent(`! ${name} exited (${signal ?? `code ${code}`}); restarting in ${delay} ms`);
    this.log.warn({ child: name, code, signal, restarts: r.restarts, delayMs: delay }, 'restarting child');
    setTimeout(() => {
      if (this.stopping) return;
      const args = r.spec.restartArgs ? r.spec.restartArgs(r.ready!) : r.spec.args;
      r.proc = this.spawn(r.spec, args);
      r.startedAt = Date.now();
      r.proc.on('message', (m: unknown) => {
        if ((m as ReadyMessage)?.type === 'ready') {
          this.onEvent(`✓ ${name} is back`);
          this.log.info({ child: name, childPid: r.proc.pid }, 'child ready again');
        }
      });
    }, delay);
  }

  /**
   * Stops every child (SIGTERM, then SIGKILL after graceMs), in reverse start order, then removes
   * `processes.json` (its pids would name nothing, or someone else's process once reused).
   * @param reason - why, for the log line (`SIGINT`, the start's error, a child that kept crashing)
   */
  async stopAll(graceMs = 10_000, reason?: string): Promise<void> {
    this.stopping = true;
    const list = [...this.children.values()].reverse();
    this.log.info({ children: list.map((r) => r.spec.name), graceMs, ...(reason ? { reason } : {}) }, 'stopping every child');
    await Promise.all(list.map((r) => this.stopChild(r, graceMs, true)));
    try {
      unlinkSync(this.pidsFile);
    } catch {
      // never written, or already gone
    }
  }

  /**
   * Stops one child: SIGTERM, then SIGKILL after graceMs (milliseconds); resolves once it has exited
   * (at once when it already had). `logStopped` logs its exit as `child stopped` (stopAll's line).
   */
  private stopChild(r: Running, graceMs: number, logStopped = false): Promise<void> {
    return new Promise<void>((resolve) => {
      const p = r.proc;
      if (p.exitCode !== null || p.signalCode !== null) return resolve();
      const kill = setTimeout(() => {
        this.log.warn({ child: r.spec.name, childPid: p.pid, graceMs }, 'child did not stop in time: SIGKILL');
        p.kill('SIGKILL');
      }, graceMs);
      p.once('exit', (code, signal) => {
        clearTimeout(kill);
        if (logStopped) this.log.info({ child: r.spec.name, code, signal }, 'child stopped');
        resolve();
      });
      p.kill('SIGTERM');
    });
  }
}

/** A file's size in bytes, 0 when it does not exist. */
function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * The one-line error an hcc process printed last before it exited (`hcc: <why>`, see main.ts,
 * `hcc <command>: <why>`, a command's own refusal to start, or `error: <why>`, a refused flag), from
 * its log file after byte `from` (where this start's output begins; at most the last 64 KiB of it);
 * '' when there is none or the file cannot be read.
 */
export function lastErrorLine(file: string, from = 0): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const start = Math.max(from, size - 64 * 1024);
      if (size <= start) return '';
      const buf = Buffer.alloc(size - start);
      readSync(fd, buf, 0, buf.length, start);
      // `hcc: <why>` (main.ts), `hcc scheduler: <why>` (a command's own refusal to start), or
      // `error: <why>` (a flag's or commander's refusal).
      const prefix = /^(?:hcc(?: [a-z][a-z-]*)?|error): /;
      const last = buf.toString('utf8').split('\n').filter((l) => prefix.test(l)).at(-1);
      return last === undefined ? '' : last.replace(prefix, '');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}
