/**
 * The control center's TLS: AES-128-GCM first, as kube-apiserver (Go's crypto/tls) prefers on
 * CPUs with AES instructions, whatever order the client offers; TLS 1.2 clients still connect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import pino from 'pino';
import { allCRDs } from '@hcc/crds';
import { startControlCenter, type RunningControlCenter } from './control-center.js';

describe('TLS', () => {
  let cc: RunningControlCenter;
  let dir: string;
  let ca: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hcc-tls-'));
    const kubeconfigPath = path.join(dir, 'kubeconfig');
    cc = await startControlCenter({ dataDir: dir, crds: allCRDs, kubeconfigPath, logger: pino({ enabled: false }) });
    ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(readFileSync(kubeconfigPath, 'utf8'))![1]!, 'base64').toString();
  });
  afterAll(async () => {
    await cc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const negotiate = async (opts: tls.ConnectionOptions) => {
    const url = new URL(cc.url);
    const s = tls.connect({ host: url.hostname, port: Number(url.port), ca, ...opts });
    await new Promise<void>((resolve, reject) => s.once('secureConnect', () => resolve()).once('error', reject));
    const r = { protocol: s.getProtocol(), cipher: s.getCipher().standardName };
    s.destroy();
    return r;
  };

  it('picks TLS_AES_128_GCM_SHA256 over the AES-256 a Node client offers first', async () => {
    expect(tls.DEFAULT_CIPHERS.split(':')[0]).toBe('TLS_AES_256_GCM_SHA384');
    expect(await negotiate({})).toEqual({ protocol: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256' });
  });

  it('still serves TLS 1.2 clients', async () => {
    expect(await negotiate({ maxVersion: 'TLSv1.2' })).toMatchObject({ protocol: 'TLSv1.2', cipher: expect.stringMatching(/^TLS_ECDHE_\w+_WITH_AES_128_GCM_SHA256$/) });
  });
});
