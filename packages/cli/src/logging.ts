/**
 * Process-wide logging: pino JSON to stdout (or a file), level from `--log-level` or HCC_LOG_LEVEL.
 */
import { openSync } from 'node:fs';
import { InvalidArgumentError, Option } from 'commander';
import pino, { type Logger } from 'pino';
import { ApiError, ConfigError, RequestError } from '@hcc/client';

/** The levels pino knows, as `--log-level` accepts them. */
export const LogLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The `--log-level <level>` option every command takes: one of {@link LogLevels} (anything else is
 * refused by commander with the list), from the HCC_LOG_LEVEL environment variable when the flag
 * is not given, else `info`.
 */
export function logLevelOption(description = 'pino log level'): Option {
  const option = new Option('--log-level <level>', description).choices(LogLevels).env('HCC_LOG_LEVEL').default('info');
  // Any case (`WARN`, `Debug`), as the lowercase level pino takes.
  return option.argParser((value: string) => {
    const level = value.toLowerCase();
    if (!(LogLevels as readonly string[]).includes(level)) throw new InvalidArgumentError(`Allowed choices are ${LogLevels.join(', ')}.`);
    return level;
  });
}

/**
 * Creates the root logger of an hcc process. Lines go to stdout through an asynchronous
 * destination: writes leave the event loop and coalesce while one is in flight (a synchronous
 * write per line cost a busy management cluster ~5% of its CPU); pino flushes it when the
 * process exits (https://github.com/pinojs/pino/blob/main/docs/asynchronous.md).
 * @param file - append the lines to this file instead (`hcc up` keeps stdout for its progress lines)
 */
export function createLogger(name: string, level?: string, file?: string): Logger {
  return pino(
    { name, level: (level ?? process.env.HCC_LOG_LEVEL ?? 'info').toLowerCase(), base: { pid: process.pid, component: name }, serializers: { err: serializeError } },
    // A file is opened here, synchronously: a destination still opening its file cannot be
    // flushed, and a process that exits at once (a signal during start) would fail on exit.
    pino.destination({ dest: file === undefined ? 1 : openSync(file, 'a'), sync: false }),
  );
}

/**
 * An error's message followed by the messages of its causes, each only when the text so far does
 * not already hold it: hcc's errors quote their cause (`GET /api/...: unable to verify the first
 * certificate`), and pino's own err serializer would append it once more.
 */
export function errorMessage(err: Error): string {
  let message = err.message ?? '';
  const seen = new Set<unknown>([err]);
  for (let c = err.cause; c instanceof Error && !seen.has(c); c = c.cause) {
    seen.add(c);
    if (c.message && !message.includes(c.message)) message += `: ${c.message}`;
  }
  return message;
}

/**
 * pino's err serializer with {@link errorMessage} as the message. An API server's answer (an
 * ApiError: code, reason and Status are kept) and a request that got none (a RequestError: a
 * timeout, a refused or reset connection, with its cause in the message) have no stack, nor has a
 * configuration that cannot work (a ConfigError: a kubeconfig that does not parse, or points at the
 * wrong server): where in hcc it was found says nothing about a 403, a 409, a timeout or a file,
 * and a stack trace in a log reads as a crash.
 */
export function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error);
  if (err instanceof Error && out && typeof out === 'object') {
    out.message = errorMessage(err);
    if (err instanceof ApiError || err instanceof RequestError || err instanceof ConfigError) delete (out as { stack?: string }).stack;
  }
  return out;
}
