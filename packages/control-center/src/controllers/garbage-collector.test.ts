import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startControlCenter, type RunningControlCenter } from '../control-center.js';
import { createObject, deleteObject } from '../handlers/object-ops.js';
import { configmaps } from '../registry/builtin/configmaps.js';
import { secrets } from '../registry/builtin/secrets.js';
import { storageKey } from '../registry/types.js';

const ctx = () => ({ fieldValidation: 'Ignore' as const, warnings: [], now: new Date() });
const waitUntil = async (fn: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('garbage collector', () => {
  let cc: RunningControlCenter;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hcc-gc-'));
    cc = await startControlCenter({ dataDir: dir, port: 0, tls: false, logger: pino({ enabled: false }) });
  });
  afterAll(async () => {
    await cc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deletes dependents once every owner is gone, and keeps the rest', async () => {
    const owner1 = await createObject(cc.store, configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner-1' } }, ctx(), { dryRun: false });
    const owner2 = await createObject(cc.store, configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner-2' } }, ctx(), { dryRun: false });
    const ref = (o: typeof owner1) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name!, uid: o.metadata.uid! });
    for (const [name, owners] of [['only-1', [ref(owner1)]], ['both', [ref(owner1), ref(owner2)]], ['free', []]] as const) {
      await createObject(cc.store, secrets, 'default', { apiVersion: 'v1', kind: 'Secret', metadata: { name, ownerReferences: [...owners] } }, ctx(), { dryRun: false });
    }
    const exists = (n: string) => !!cc.store.get(storageKey(secrets, 'default', n));
    await deleteObject(cc.store, configmaps, 'default', 'owner-1', ctx(), { dryRun: false });
    await waitUntil(() => !exists('only-1'));
    expect(exists('both')).toBe(true);
    expect(exists('free')).toBe(true);
    await deleteObject(cc.store, configmaps, 'default', 'owner-2', ctx(), { dryRun: false });
    await waitUntil(() => !exists('both'));
    expect(exists('free')).toBe(true);
  });
});
