/**
 * Cleanup that runs even when a scenario fails: a Scope collects undo functions (stop a
 * process, remove a temp dir) and runs them in reverse order on close(). As a last resort,
 * every child process still alive is SIGKILLed and every registered temp dir removed when the
 * bench process exits, whatever the reason (uncaught error, SIGINT).
 */
import { rmSync } from 'node:fs';

/** Children and directories that must not outlive the bench. */
const liveChildren = new Set();
const liveDirs = new Set();

/** Registers a child process for the exit-time kill; unregisters itself when it exits. */
export function trackChild(proc) {
  liveChildren.add(proc);
  proc.once('exit', () => liveChildren.delete(proc));
}

/** Registers a directory for the exit-time removal. */
export function trackDir(dir) {
  liveDirs.add(dir);
  return () => {
    liveDirs.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  };
}

process.on('exit', () => {
  for (const p of liveChildren) {
    try {
      p.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const d of liveDirs) rmSync(d, { recursive: true, force: true });
});

/**
 * Stops on SIGINT/SIGTERM/SIGHUP: says so, runs `close()` (stop the processes, remove the temp dirs) and
 * exits 130; a second signal exits 130 at once (the exit-time kill above still runs).
 * @param close - what to undo (sync or async; may return undefined)
 * @param say - where the one line goes (default stderr)
 * @returns () → whether a signal came
 */
export function closeOnSignals(close, say = (line) => process.stderr.write(`${line}\n`)) {
  let interrupted = false;
  const onSignal = (sig) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    say(`${sig}: stopping processes and removing temp dirs`);
    Promise.resolve()
      .then(close)
      .finally(() => process.exit(130));
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  // A closed terminal or a dropped ssh session: the same clean-up (its processes would stop with
  // the bench anyway, its temp dirs would stay).
  process.on('SIGHUP', () => onSignal('SIGHUP'));
  return () => interrupted;
}

/** Scopes created and not yet closed, oldest first (closeAllScopes). */
const openScopes = [];

/**
 * Closes every open Scope, newest first (a scenario's per-run scopes before the scenario's own):
 * what a signal handler calls, so that processes are stopped gracefully (`hcc up` stops its fleet)
 * before their temp dirs are removed. Never throws.
 */
export async function closeAllScopes() {
  while (openScopes.length) await openScopes.at(-1).close();
}

/** Undo functions run last-in first-out; a failing one is reported and the rest still run. */
export class Scope {
  #fns = [];
  #closed = false;

  constructor() {
    openScopes.push(this);
  }

  /** Whether close() was called: nothing may be started in it any more. */
  get closed() {
    return this.#closed;
  }

  /** Adds an undo function (sync or async). */
  defer(fn) {
    if (this.#closed) throw new Error('scope already closed');
    this.#fns.push(fn);
  }

  /** Runs every undo function, newest first. Never throws. */
  async close() {
    this.#closed = true;
    const i = openScopes.indexOf(this);
    if (i >= 0) openScopes.splice(i, 1);
    while (this.#fns.length) {
      const fn = this.#fns.pop();
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`cleanup failed: ${err?.stack ?? err}\n`);
      }
    }
  }
}
