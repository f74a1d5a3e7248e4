import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { RestClient } from '@hcc/client';
import { defaultSchedulerConfig } from './config/config.js';
import { runScheduler } from './scheduler.js';

describe('runScheduler', () => {
  it.each(['', '  '])('refuses the identity %j at once: an election that can never start is not retried in a loop', (identity) => {
    const ac = new AbortController();
    // No request may be made: the client throws if touched.
    const client = new Proxy({}, { get: () => { throw new Error('the client was used'); } }) as unknown as RestClient;
    expect(() => runScheduler({ client, logger: pino({ enabled: false }), signal: ac.signal, config: defaultSchedulerConfig(), identity })).toThrow('identity must not be empty');
  });
});
