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

/**
 * Runs stop() once on SIGINT/SIGTERM (or when the parent disconnects), then exits.
 * @param stop - graceful shutdown; the process exits 0 when it resolves, 1 when it throws
 */
export function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    stop()
      .then(() => process.exit(0))
      .catch((err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
  if (process.send) process.on('disconnect', () => handler('parent-exit'));
}
