/**
 * The deletion controller works each Namespace on its own: one whose contents cannot be deleted
 * (here a storage write that keeps failing) reports it in its conditions and is tried again, while
 * another Namespace deleted beside it is emptied and removed.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import type { KubeObject } from '@hcc/crds';
import type { RunningControlCenter } from '../control-center.js';
import { startTestControlCenter } from '../testing/in-process.js';
import { createObject, deleteObject } from '../handlers/object-ops.js';
import { storageKey } from '../registry/types.js';
import { DeletionController } from './namespace-lifecycle.js';

const ctx = () => ({ fieldValidation: 'Ignore' as const, warnings: [], now: new Date() });

describe('DeletionController', () => {
  let cc: RunningControlCenter;
  beforeAll(async () => {
    cc = await startTestControlCenter({ namespaces: ['a-stuck', 'b-free'] });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await cc?.close();
  });

  it('removes a deleted Namespace while another one before it keeps failing to empty', async () => {
    const nsInfo = cc.registry.lookup('', 'v1', 'namespaces')!;
    const cmInfo = cc.registry.lookup('', 'v1', 'configmaps')!;
    const cm = (ns: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns }, data: { a: 'b' } });
    for (const ns of ['a-stuck', 'b-free']) await createObject(cc.store, cmInfo, ns, cm(ns), ctx(), { dryRun: false });
    const stuckKey = storageKey(cmInfo, 'a-stuck', 'cm');
    const transact = cc.store.transact.bind(cc.store);
    vi.spyOn(cc.store, 'transact').mockImplementation((key, fn, opts) => (key === stuckKey ? Promise.reject(new Error('disk on fire')) : transact(key, fn, opts)));
    for (const ns of ['a-stuck', 'b-free']) await deleteObject(cc.store, nsInfo, '', ns, ctx(), { dryRun: false });

    const warnings: { key?: string; msg?: string }[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
    // No grace: the control center's own controller waits 5 s before it deletes contents.
    const controller = new DeletionController(cc.store, cc.registry, log, 20, 0);
    controller.start();
    try {
      for (let i = 0; i < 200 && cc.store.get(storageKey(nsInfo, '', 'b-free')); i++) await new Promise((r) => setTimeout(r, 10));
      expect(cc.store.get(storageKey(nsInfo, '', 'b-free'))).toBeUndefined();
      expect(cc.store.get(storageKey(cmInfo, 'b-free', 'cm'))).toBeUndefined();
      const stuck = cc.store.get(storageKey(nsInfo, '', 'a-stuck'))?.object;
      expect(stuck?.metadata.deletionTimestamp).toBeDefined();
      expect((stuck?.status as { conditions?: unknown[] }).conditions).toContainEqual(
        expect.objectContaining({ type: 'NamespaceDeletionContentFailure', status: 'True', message: expect.stringContaining('disk on fire') }),
      );
      expect(cc.store.get(stuckKey)).toBeDefined();
      expect(warnings).toContainEqual(expect.objectContaining({ key: 'a-stuck', msg: 'deletion failed; retrying' }));
    } finally {
      controller.stop();
      vi.restoreAllMocks();
    }
  });
});
