/**
 * A control center in the test's own process, for unit tests that talk to it over HTTP: a fresh
 * data directory, plain HTTP on a free port, logs off, removed again on close; and a request
 * helper that sends JSON with the admin token and reads the answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { startControlCenter, type ControlCenterOptions, type RunningControlCenter } from '../control-center.js';

/** Options of a test control center: those of startControlCenter but the data directory. */
export type TestControlCenterOptions = Omit<ControlCenterOptions, 'dataDir'>;

/**
 * Starts a control center (plain HTTP, port 0, no logs unless `opts` say otherwise) on a new
 * temporary data directory; its `close()` also removes the directory.
 */
export async function startTestControlCenter(opts: TestControlCenterOptions = {}): Promise<RunningControlCenter> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hcc-unit-'));
  try {
    const cc = await startControlCenter({ tls: false, logger: pino({ enabled: false }), ...opts, dataDir: dir });
    return {
      ...cc,
      close: async () => {
        try {
          await cc.close();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Starts a test control center before the tests of the enclosing `describe` and closes it after
 * them. @returns a getter for it (valid inside tests and later hooks)
 */
export function useTestControlCenter(opts: TestControlCenterOptions = {}): () => RunningControlCenter {
  let cc: RunningControlCenter | undefined;
  beforeAll(async () => {
    cc = await startTestControlCenter(opts);
  });
  afterAll(async () => {
    await cc?.close();
  });
  return () => {
    if (!cc) throw new Error('the test control center is not started (use it inside a test)');
    return cc;
  };
}

/** An answer: HTTP status, headers, and the body parsed as JSON (the text when it is not JSON). */
export interface Reply<T = any> {
  code: number;
  headers: Headers;
  body: T;
}

/**
 * Sends one request to a test control center.
 * @param body - a string or Buffer is sent as is, anything else as JSON; undefined sends none
 * @param opts.token - bearer token (default the admin's); opts.contentType (default application/json)
 */
export async function request<T = any>(
  cc: Pick<RunningControlCenter, 'url' | 'adminToken'>,
  method: string,
  url: string,
  body?: unknown,
  opts: { token?: string; contentType?: string } = {},
): Promise<Reply<T>> {
  const payload = body === undefined || typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const res = await fetch(cc.url + url, {
    method,
    headers: { authorization: `Bearer ${opts.token ?? cc.adminToken}`, 'content-type': opts.contentType ?? 'application/json' },
    body: payload as string | Buffer | undefined,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { code: res.status, headers: res.headers, body: parsed as T };
}
