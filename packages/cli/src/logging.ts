/**
 * Process-wide logging: pino JSON to stdout (or a file), level from `--log-level` or HCC_LOG_LEVEL.
 */
import pino, { type Logger } from 'pino';

/** Creates the root logger of an hcc process. */
export function createLogger(name: string, level?: string): Logger {
  return pino({ name, level: level ?? process.env.HCC_LOG_LEVEL ?? 'info', base: { pid: process.pid, component: name } });
}
