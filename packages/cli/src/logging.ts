/**
 * Process-wide logging: pino JSON to stdout (or a file), level from `--log-level` or HCC_LOG_LEVEL.
 */
import pino, { type Logger } from 'pino';

/**
 * Creates the root logger of an hcc process. Lines go to stdout through an asynchronous
 * destination: writes leave the event loop and coalesce while one is in flight (a synchronous
 * write per line cost a busy management cluster ~5% of its CPU); pino flushes it when the
 * process exits (https://github.com/pinojs/pino/blob/main/docs/asynchronous.md).
 * @param file - append the lines to this file instead (`hcc up` keeps stdout for its progress lines)
 */
export function createLogger(name: string, level?: string, file?: string): Logger {
  return pino(
    { name, level: level ?? process.env.HCC_LOG_LEVEL ?? 'info', base: { pid: process.pid, component: name } },
    pino.destination({ dest: file ?? 1, sync: false, append: true }),
  );
}
