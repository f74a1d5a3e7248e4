/**
 * An object whose value in etcd cannot be read (something other than a control center wrote the
 * key): what the API answers, as kube-apiserver does with AllowUnsafeMalformedObjectDeletion
 * (KEP-3926): GET, writes and a plain DELETE get 500 `StorageError: corrupt object`; a DELETE with
 * `ignoreStoreReadErrorWithClusterBreakingPotential` removes it for a user who may also do
 * `unsafe-delete-ignore-read-errors`, skipping finalizers; the option refuses dryRun and the other
 * deletion options it cannot honour (422); on a readable object it deletes normally.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEtcd, type TestEtcd } from '../storage/etcd/testing-etcd.js';
import { request, startTestControlCenter } from '../testing/in-process.js';
import type { RunningControlCenter } from '../control-center.js';
import type { Authorizer } from '../pipeline/authorize.js';

describe('corrupt objects in etcd', () => {
  let etcd: TestEtcd;
  let raw: Etcd3;
  let cc: RunningControlCenter;
  let tokenDir: string;
  const prefix = '/hcc-corrupt';
  const secret = (name: string) => `/api/v1/namespaces/default/secrets/${name}`;
  const bob = { token: 'bob-token' };
  // bob may do everything but the unsafe delete.
  const authorizer: Authorizer = (user, ri) => (user.name === 'bob' && ri.verb === 'unsafe-delete-ignore-read-errors' ? { allowed: false, reason: 'not for bob' } : { allowed: true });

  beforeAll(async () => {
    etcd = await startTestEtcd();
    raw = new Etcd3({ hosts: etcd.endpoint });
    tokenDir = mkdtempSync(path.join(tmpdir(), 'hcc-corrupt-tokens-'));
    writeFileSync(path.join(tokenDir, 'tokens.csv'), 'bob-token,bob,u-bob\n');
    cc = await startTestControlCenter({ etcd: { endpoints: [etcd.endpoint], prefix }, tokenFile: path.join(tokenDir, 'tokens.csv'), authorizer });
  });
  afterAll(async () => {
    await cc?.close();
    raw?.close();
    await etcd?.stop();
    rmSync(tokenDir, { recursive: true, force: true });
  });

  const corrupt = async (name: string) => {
    await raw.put(`${prefix}/core/secrets/default/${name}`).value('\x00not json');
    // The control center's mirror sees it through its etcd watch.
    for (let i = 0; i < 200 && (await request(cc, 'GET', secret(name))).code !== 500; i++) await new Promise((r) => setTimeout(r, 25));
  };

  it('answers GET, writes and a plain DELETE with 500 StorageError: corrupt object, naming the key and the way out', async () => {
    await corrupt('junk');
    const get = await request(cc, 'GET', secret('junk'));
    expect(get.code).toBe(500);
    expect(get.body).toMatchObject({ kind: 'Status', reason: 'InternalError' });
    expect(get.body.message).toContain(`Internal error occurred: StorageError: corrupt object, key: ${prefix}/core/secrets/default/junk`);
    expect(get.body.message).toContain('ignoreStoreReadErrorWithClusterBreakingPotential=true');
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'junk', namespace: 'default' }, data: {} };
    expect((await request(cc, 'PUT', secret('junk'), body)).code).toBe(500);
    expect((await request(cc, 'POST', '/api/v1/namespaces/default/secrets', body)).code).toBe(500);
    expect((await request(cc, 'PATCH', secret('junk'), { data: {} }, { contentType: 'application/merge-patch+json' })).code).toBe(500);
    expect((await request(cc, 'DELETE', secret('junk'))).code).toBe(500);
    // The rest of the collection is still served.
    expect((await request(cc, 'GET', '/api/v1/namespaces/default/secrets')).code).toBe(200);
    expect((await request(cc, 'GET', '/metrics')).body).toMatch(/^hcc_storage_corrupt_objects 1$/m);
  });

  it('refuses the option with dryRun, propagationPolicy, orphanDependents, preconditions or a grace period (422)', async () => {
    for (const [opts, field] of [
      [{ dryRun: ['All'] }, 'dryRun'],
      [{ propagationPolicy: 'Foreground' }, 'propagationPolicy'],
      [{ orphanDependents: false }, 'orphanDependents'],
      [{ preconditions: { uid: 'x' } }, 'preconditions'],
      [{ gracePeriodSeconds: 30 }, 'gracePeriodSeconds'],
    ] as const) {
      const r = await request(cc, 'DELETE', secret('junk'), { kind: 'DeleteOptions', apiVersion: 'v1', ignoreStoreReadErrorWithClusterBreakingPotential: true, ...opts });
      expect(r.code, field).toBe(422);
      expect(r.body.details.causes[0].field).toBe(field);
    }
    const typed = await request(cc, 'DELETE', secret('junk'), { kind: 'DeleteOptions', apiVersion: 'v1', ignoreStoreReadErrorWithClusterBreakingPotential: 'yes' });
    expect(typed.code).toBe(400);
    expect(typed.body.message).toBe('ignoreStoreReadErrorWithClusterBreakingPotential: must be a boolean, got "yes"');
    expect((await request(cc, 'GET', secret('junk'))).code).toBe(500); // still there
  });

  it('needs the unsafe-delete-ignore-read-errors verb besides delete (403)', async () => {
    const r = await request(cc, 'DELETE', `${secret('junk')}?ignoreStoreReadErrorWithClusterBreakingPotential=true`, undefined, bob);
    expect(r.code).toBe(403);
    expect(r.body.message).toBe('secrets "junk" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: not for bob');
  });

  it('removes the corrupt value with the option, finalizers or not, after which the name can be used again', async () => {
    const r = await request(cc, 'DELETE', `${secret('junk')}?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(r.code).toBe(200);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'junk', kind: 'secrets' } }); // no empty message or reason, as kube's finalizeDelete
    expect(await raw.get(`${prefix}/core/secrets/default/junk`).string()).toBeNull();
    expect((await request(cc, 'GET', secret('junk'))).code).toBe(404);
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'junk', namespace: 'default' }, stringData: { a: 'b' } };
    expect((await request(cc, 'POST', '/api/v1/namespaces/default/secrets', body)).code).toBe(201);
    expect((await request(cc, 'GET', '/metrics')).body).toMatch(/^hcc_storage_corrupt_objects 0$/m);
  });

  it('a replica that never read the owner does not garbage-collect the dependents of a corrupt owner', async () => {
    const owner = await request(cc, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
    expect(owner.code).toBe(201);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.body.metadata.uid };
    expect((await request(cc, 'POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'owned', namespace: 'default', ownerReferences: [ref] } })).code).toBe(201);
    await raw.put(`${prefix}/core/configmaps/default/owner`).value('garbage');
    // A second replica starts after the owner turned corrupt: it has no last object of it.
    const second = await startTestControlCenter({ etcd: { endpoints: [etcd.endpoint], prefix } });
    try {
      expect((await request(second, 'GET', '/api/v1/namespaces/default/configmaps/owner')).code).toBe(500);
      await new Promise((r) => setTimeout(r, 1500));
      expect((await request(second, 'GET', secret('owned'))).code).toBe(200);
      expect(await raw.get(`${prefix}/core/secrets/default/owned`).string()).not.toBeNull();
    } finally {
      await second.close();
    }
  });

  it('deletes a readable object the normal way with the option: finalizers still hold it', async () => {
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'held', namespace: 'default', finalizers: ['example.com/hold'] } };
    expect((await request(cc, 'POST', '/api/v1/namespaces/default/secrets', body)).code).toBe(201);
    const r = await request(cc, 'DELETE', `${secret('held')}?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(r.code).toBe(200);
    expect(r.body.metadata.deletionTimestamp).toBeDefined();
    expect((await request(cc, 'GET', secret('held'))).code).toBe(200);
    expect((await request(cc, 'PATCH', secret('held'), { metadata: { finalizers: null } }, { contentType: 'application/merge-patch+json' })).code).toBe(200);
  });

  it('pages a list past values written under a key their name does not lead back to (bytes that are not UTF-8): no loop, nothing skipped', async () => {
    const ns = '/api/v1/namespaces/kube-public/configmaps';
    for (const name of ['b', 'd']) expect((await request(cc, 'POST', ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })).code).toBe(201);
    const value = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'kube-public', uid: `u-${name.length}` } });
    const at = (...bytes: number[]) => Buffer.concat([Buffer.from(`${prefix}/core/configmaps/kube-public/c`), Buffer.from(bytes)]);
    await raw.put(at(0xc3)).value(value('c-c3')); // its name sorts after its key
    await raw.put(at(0xff)).value(value('c\uFFFD'));
    await raw.put(at(0xef, 0xbf, 0xbd)).value(value('c\uFFFD')); // the real U+FFFD key, holding the same name
    let full: string[] = [];
    for (let i = 0; i < 100 && full.length < 5; i++) {
      full = (await request(cc, 'GET', ns)).body.items.map((o: { metadata: { name: string } }) => o.metadata.name);
      if (full.length < 5) await new Promise((r) => setTimeout(r, 25));
    }
    expect(full).toHaveLength(5);
    const paged: string[] = [];
    let token = '';
    for (let page = 0; page < 10; page++) {
      const res = await request(cc, 'GET', `${ns}?limit=1${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      expect(res.code).toBe(200);
      paged.push(...res.body.items.map((o: { metadata: { name: string } }) => o.metadata.name));
      token = res.body.metadata.continue ?? '';
      if (!token) break;
    }
    expect(token).toBe('');
    expect(paged).toEqual(full);
  });
});
