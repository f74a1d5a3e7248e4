import net from 'node:net';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError, ConfigError, RequestError, RestClient } from '@hcc/client';
import { errorMessage, serializeError } from './logging.js';

describe('errorMessage', () => {
  it.each([
    { name: 'a cause the message already quotes is not repeated', input: new Error('GET /api: unable to verify the first certificate', { cause: new Error('unable to verify the first certificate') }), want: 'GET /api: unable to verify the first certificate' },
    { name: 'a cause it does not quote is appended', input: new Error('registering failed', { cause: new Error('ECONNREFUSED') }), want: 'registering failed: ECONNREFUSED' },
    { name: 'a chain, each new cause once', input: new Error('a', { cause: new Error('b', { cause: new Error('a') }) }), want: 'a: b' },
    { name: 'no cause', input: new Error('plain'), want: 'plain' },
  ])('$name', ({ input, want }) => {
    expect(errorMessage(input)).toBe(want);
  });
});

describe('serializeError', () => {
  it("logs an API server's answer, a request that got none and a configuration that cannot work without a stack (code, reason and message kept), other errors with theirs", () => {
    const api = serializeError(new ApiError(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, reason: 'Forbidden', message: 'secrets is forbidden' })) as Record<string, unknown>;
    expect(api).toMatchObject({ type: 'ApiError', message: 'secrets is forbidden', code: 403, reason: 'Forbidden' });
    expect(api.stack).toBeUndefined();
    const timeout = serializeError(new RequestError('POST https://cc/binding: timed out after 30000 ms', { cause: new Error('socket hang up') })) as Record<string, unknown>;
    expect(timeout).toMatchObject({ type: 'RequestError', message: 'POST https://cc/binding: timed out after 30000 ms: socket hang up' });
    expect(timeout.stack).toBeUndefined();
    const config = serializeError(new ConfigError('kubeconfig /k is not valid YAML: Nested mappings are not allowed in compact mappings at line 6, column 12')) as Record<string, unknown>;
    expect(config).toMatchObject({ type: 'ConfigError', message: 'kubeconfig /k is not valid YAML: Nested mappings are not allowed in compact mappings at line 6, column 12' });
    expect(config.stack).toBeUndefined();
    const plain = serializeError(new Error('boom')) as Record<string, unknown>;
    expect(plain.stack).toContain('Error: boom');
  });
});

describe("the client's debug line for a request that got no answer", () => {
  it('carries the RequestError the caller gets (its cause in the message), without a stack', async () => {
    // A port nothing listens on: connection refused.
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'debug', serializers: { err: serializeError } }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const client = new RestClient({ server: `http://127.0.0.1:${port}` }, { logger });
    await expect(client.list({ group: '', version: 'v1', resource: 'namespaces', namespaced: false })).rejects.toBeInstanceOf(RequestError);
    const line = lines.find((l) => l.msg === 'request failed') as { err: Record<string, unknown> } | undefined;
    expect(line?.err).toMatchObject({ type: 'RequestError' });
    expect(line?.err.message).toMatch(/ECONNREFUSED/);
    expect(line?.err.stack).toBeUndefined();
  });
});
