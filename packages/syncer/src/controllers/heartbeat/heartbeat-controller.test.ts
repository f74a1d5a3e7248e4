import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { ApiError, FakeClock, RequestError, type RestClient } from '@hcc/client';
import type { ManagementCluster } from '@hcc/crds';
import { registerWithRetries, type HeartbeatOptions } from './heartbeat-controller.js';

/** An upstream whose GET of the ManagementCluster fails `failures` times below HTTP, then says 404; create succeeds. */
function flakyUpstream(failures: number) {
  const calls: string[] = [];
  let left = failures;
  const upstream = {
    get: async () => {
      calls.push('get');
      if (left > 0) {
        left--;
        throw new RequestError('GET https://127.0.0.1:1/apis/controlcenter.hcc.dev/v1alpha1/managementclusters/mgmt-1: connect ECONNREFUSED');
      }
      throw new ApiError(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'not found' });
    },
    create: async (_r: unknown, _ns: unknown, obj: ManagementCluster) => {
      calls.push('create');
      return obj;
    },
  } as unknown as RestClient;
  return { upstream, calls };
}

function options(upstream: RestClient, clock: FakeClock, signal: AbortSignal, lines: unknown[]): HeartbeatOptions {
  const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  return {
    cluster: 'mgmt-1',
    upstream,
    observe: async () => ({ namespaces: 0, hostedClusters: 0, supportedVersions: [] }),
    initialSpec: { capacity: 5 },
    identity: 'test',
    syncerVersion: 'test',
    intervalMs: 10_000,
    leaseDurationSeconds: 40,
    logger,
    signal,
    clock,
  };
}

describe('registerWithRetries', () => {
  it('keeps trying while the control center is unreachable, backing off, and registers once it answers', async () => {
    const clock = new FakeClock();
    const { upstream, calls } = flakyUpstream(3);
    const lines: { msg?: string; retryInMs?: number }[] = [];
    const done = registerWithRetries(options(upstream, clock, new AbortController().signal, lines));
    for (let i = 0; i < 3; i++) {
      await clock.waitForWaiters(1);
      clock.step(60_000);
    }
    expect(await done).toBe(true);
    expect(calls).toEqual(['get', 'get', 'get', 'get', 'create']);
    expect(lines.map((l) => l.msg)).toEqual(Array(3).fill('registering the ManagementCluster failed; retrying'));
    const delays = lines.map((l) => l.retryInMs!);
    // 200 ms doubling, up to 20% jitter each.
    expect(delays[0]).toBeGreaterThanOrEqual(200);
    expect(delays[0]).toBeLessThanOrEqual(240);
    expect(delays[1]).toBeGreaterThanOrEqual(400);
    expect(delays[2]).toBeGreaterThanOrEqual(800);
  });

  it('gives up quietly when the syncer is stopped while waiting (resolves false)', async () => {
    const clock = new FakeClock();
    const { upstream, calls } = flakyUpstream(100);
    const ac = new AbortController();
    const done = registerWithRetries(options(upstream, clock, ac.signal, []));
    await clock.waitForWaiters(1);
    ac.abort();
    expect(await done).toBe(false);
    expect(calls).toEqual(['get']);
  });
});
