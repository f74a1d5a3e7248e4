import { describe, expect, it } from 'vitest';
import { ApiError, type KubeObject } from '@hcc/client';
import { SyncerReadRefusalEnd } from '@hcc/crds';
import { StillReferenced } from './still-referenced.js';
import type { ReferencingObject, SyncKind } from './types.js';

const ns = 'team';
const forbidden = (message: string) => new ApiError(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, reason: 'Forbidden', message });
const obj = (kind: string, name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ apiVersion: 'v1', kind, metadata: { name, namespace: ns, ...extra } });

/** A fixture: what the upstream informers show, the copies referencing the Secret, a clock. */
function fixture() {
  const upstream = new Map<string, KubeObject>();
  const copies: ReferencingObject[] = [];
  let now = 1_000_000;
  let live: KubeObject | undefined | Error;
  const check = new StillReferenced({
    upstreamNow: (kind: SyncKind, namespace, name) => upstream.get(`${kind}/${namespace}/${name}`),
    copiesReferencing: () => copies,
    answersFor: (o) => o.metadata.labels?.mine === 'true',
    referencedHere: () => upstream.has(`HostedCluster/${ns}/hc`),
    readUpstream: async () => {
      if (live instanceof Error) throw live;
      return live;
    },
    graceMs: 10_000,
    now: () => now,
  });
  return {
    check,
    upstream,
    advance: (ms: number) => (now += ms),
    setLive: (v: KubeObject | undefined | Error) => (live = v),
    stillReferenced: () => check.check('Secret', ns, 'pull'),
    /** HostedCluster hc upstream, as the informer shows it. */
    hostedClusterUpstream: (extra: Partial<KubeObject['metadata']> = {}) => upstream.set(`HostedCluster/${ns}/hc`, obj('HostedCluster', 'hc', extra)),
    /** Its copy in the management cluster, referencing the Secret: this syncer's (`mine`) or not. */
    copyReferencing: (mine = true) => copies.push({ kind: 'HostedCluster', obj: obj('HostedCluster', 'hc', { labels: { mine: String(mine) } }) }),
  };
}

describe('StillReferenced', () => {
  it('keeps the Secret a live HostedCluster copy uses for the grace after its deletion is first seen, then lets it go', async () => {
    const f = fixture();
    f.hostedClusterUpstream();
    f.copyReferencing();
    expect(await f.stillReferenced()).toBe(true);
    f.advance(9_999);
    expect(await f.stillReferenced()).toBe(true);
    f.advance(1);
    f.setLive(undefined);
    expect(await f.stillReferenced()).toBe(false);
  });

  it('keeps it for a whole teardown: the copy, or its object upstream, being deleted or gone', async () => {
    const f = fixture();
    f.copyReferencing();
    f.advance(60_000);
    expect(await f.stillReferenced(), 'its HostedCluster gone upstream').toBe(true);
    f.hostedClusterUpstream({ deletionTimestamp: '2026-12-06T00:00:00Z' });
    f.advance(60_000);
    expect(await f.stillReferenced(), 'its HostedCluster being deleted upstream').toBe(true);
  });

  it('starts no grace while the object is in view again: a deletion minutes later still gets the whole grace', async () => {
    // A reconcile that saw the Secret gone (a replace without hcc's label) asks after the Secret came
    // back (the reconcile waited on a live read meanwhile): that is no deletion, so no grace starts.
    const f = fixture();
    f.hostedClusterUpstream();
    f.copyReferencing();
    f.upstream.set(`Secret/${ns}/pull`, obj('Secret', 'pull'));
    expect(await f.stillReferenced()).toBe(true);
    f.advance(5 * 60_000);
    f.upstream.delete(`Secret/${ns}/pull`);
    f.setLive(undefined);
    expect(await f.stillReferenced(), 'right after the deletion').toBe(true);
    f.advance(3_000);
    expect(await f.stillReferenced(), '3 s after the deletion').toBe(true);
    f.advance(7_000);
    expect(await f.stillReferenced(), 'after the grace').toBe(false);
  });

  it('ends a grace when the object is seen again, so its next deletion gets a whole one', async () => {
    const f = fixture();
    f.hostedClusterUpstream();
    f.copyReferencing();
    expect(await f.stillReferenced()).toBe(true);
    f.advance(8_000);
    f.check.seen('Secret', ns, 'pull');
    f.advance(8_000);
    expect(await f.stillReferenced()).toBe(true);
  });

  it('without a live copy of its own, keeps it only while a HostedCluster placed here uses it and a live read finds it', async () => {
    const f = fixture();
    f.copyReferencing(false);
    expect(await f.stillReferenced(), 'nothing placed here uses it').toBe(false);
    f.hostedClusterUpstream();
    f.setLive(obj('Secret', 'pull'));
    expect(await f.stillReferenced(), 'still there upstream (out of view by a label change)').toBe(true);
    f.setLive(obj('Secret', 'pull', { deletionTimestamp: '2026-12-06T00:00:00Z' }));
    expect(await f.stillReferenced(), 'being deleted upstream').toBe(false);
    f.setLive(forbidden(`secrets "pull" is forbidden: ${SyncerReadRefusalEnd}`));
    expect(await f.stillReferenced(), "the syncer authorizer's refusal").toBe(false);
    f.setLive(forbidden('secrets "pull" is forbidden: something else'));
    await expect(f.stillReferenced()).rejects.toThrow('something else');
  });
});
