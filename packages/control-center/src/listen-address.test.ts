/** The URL a control center writes into its kubeconfigs for the address it listens on. */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningControlCenter } from './control-center.js';
import { startTestControlCenter } from './testing/in-process.js';

describe('the served URL', () => {
  let cc: RunningControlCenter | undefined;
  afterEach(async () => {
    await cc?.close();
    cc = undefined;
  });

  it.each([
    { host: '::1', want: /^http:\/\/\[::1\]:\d+$/ },
    { host: '::', want: /^http:\/\/\[::1\]:\d+$/ },
    { host: '0.0.0.0', want: /^http:\/\/127\.0\.0\.1:\d+$/ },
    { host: '127.0.0.1', want: /^http:\/\/127\.0\.0\.1:\d+$/ },
  ])('listening on $host: a URL clients can parse and reach', async ({ host, want }) => {
    cc = await startTestControlCenter({ host });
    expect(cc.url).toMatch(want);
    expect(new URL(cc.url).port).not.toBe('');
    expect((await fetch(`${cc.url}/healthz`)).status).toBe(200);
  });
});
