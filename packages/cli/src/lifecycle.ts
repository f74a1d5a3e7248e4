/**
 * Process lifecycle helpers shared by the long-running commands: report readiness to a parent
 * (`hcc up` forks children with an IPC channel) and stop cleanly on SIGINT/SIGTERM.
 */
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

/** Longest graceful stop, in milliseconds, before the process exits 1 anyway. */
export const ShutdownTimeoutMs = 10_000;

/**
 * Installs SIGINT/SIGTERM handlers (and, under `hcc up`, parent-exit) at once, at the start of a
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
