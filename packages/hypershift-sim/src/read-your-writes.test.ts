/**
 * The sim's controllers start each pass from their own last write, not from an informer cache
 * that has not seen it yet (OwnWrites, @hcc/client): with every watch event held back, as on a loaded
 * management cluster, a HostedCluster and a NodePool go from creation to Available and Ready
 * without a single 409 Conflict. Reading the bare cache, each pass woken by another object's
 * event before the watch brought the last write would write from the older version and lose.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { isConflict, RestClient, type CreateOptions, type KubeObject, type ResourceRef, type WatchEvent, type WatchOptions } from '@hcc/client';
import { hyperShiftCRDs, type HostedCluster, type NodePool } from '@hcc/crds';
import { startControlCenter, type RunningControlCenter } from '@hcc/control-center';
import { findCondition } from './conditions.js';
import { hostedClustersRef, namespacesRef, nodePoolsRef, secretsRef } from './resources.js';
import { startHyperShiftSim, type HyperShiftSim } from './sim.js';
import type { NodePoolStatus } from './types.js';
import { eventually, servedHostedCluster, servedNodePool } from './testing/fixtures.js';

const ns = 'clusters';
const silent = pino({ level: process.env.HCC_TEST_LOG_LEVEL ?? 'silent' });
/** How long each watch event is held back, in milliseconds. */
const watchLagMs = 150;

/** A RestClient whose watch events arrive `watchLagMs` late (in order) and which counts 409s of updates. */
class LaggingClient extends RestClient {
  conflicts: string[] = [];
  override watch<T = KubeObject>(ref: ResourceRef, options: WatchOptions, onEvent: (event: WatchEvent<T>) => void, signal?: AbortSignal): Promise<void> {
    return super.watch<T>(ref, options, (e) => void setTimeout(() => onEvent(e), watchLagMs), signal);
  }
  override update<T extends KubeObject = KubeObject>(ref: ResourceRef, n: string | undefined, obj: T, options?: CreateOptions): Promise<T> {
    return this.#counted(`update ${ref.resource}/${obj.metadata.name}`, super.update(ref, n, obj, options));
  }
  override updateStatus<T extends KubeObject = KubeObject>(ref: ResourceRef, n: string | undefined, obj: T, options?: CreateOptions): Promise<T> {
    return this.#counted(`status ${ref.resource}/${obj.metadata.name}`, super.updateStatus(ref, n, obj, options));
  }
  #counted<T>(what: string, p: Promise<T>): Promise<T> {
    return p.catch((err: unknown) => {
      if (isConflict(err)) this.conflicts.push(what);
      throw err;
    });
  }
}

describe('hypershift-sim with a lagging watch', () => {
  let dir: string;
  let cc: RunningControlCenter;
  let client: RestClient;
  let simClient: LaggingClient;
  let sim: HyperShiftSim;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcc-sim-ryw-'));
    cc = await startControlCenter({ dataDir: dir, port: 0, crds: hyperShiftCRDs, logger: silent, tls: false });
    client = new RestClient({ server: cc.url, token: cc.adminToken });
    simClient = new LaggingClient({ server: cc.url, token: cc.adminToken });
    sim = await startHyperShiftSim({ client: simClient, logger: silent, availableDelayMs: 300, deleteDelayMs: 200 });
    await client.create(namespacesRef, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });

  afterAll(async () => {
    await sim?.stop();
    simClient?.close();
    client?.close();
    await cc?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('brings a HostedCluster and its NodePool up without a 409 of its own making', { timeout: 30_000 }, async () => {
    await client.create(secretsRef, ns, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ps', namespace: ns },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': '{"auths":{"quay.io":{"auth":"ZmFrZTpmYWtl"}}}' },
    });
    const hc = servedHostedCluster('ryw', 'ps');
    const np = servedNodePool('ryw-workers', 'ryw', 2);
    await client.create(hostedClustersRef, ns, hc);
    await client.create(nodePoolsRef, ns, np);

    await eventually('HostedCluster Available', async () => {
      const h = await client.get<HostedCluster>(hostedClustersRef, ns, 'ryw');
      return findCondition((h.status as { conditions?: [] } | undefined)?.conditions, 'Available')?.status === 'True';
    });
    const ready = await eventually('NodePool Ready with its version', async () => {
      const n = await client.get<NodePool>(nodePoolsRef, ns, 'ryw-workers');
      const s = n.status as NodePoolStatus | undefined;
      return findCondition(s?.conditions, 'Ready')?.status === 'True' && s?.version ? n : undefined;
    });
    const h = await client.get<KubeObject>(hostedClustersRef, ns, 'ryw');
    // The steps that take one write each all happened (finalizer, IDs, owner reference, config hash).
    expect(h.metadata.finalizers).toContain('hypershift.openshift.io/finalizer');
    expect((h.spec as { infraID?: string }).infraID).toMatch(/^ryw-/);
    expect(ready.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'HostedCluster', name: 'ryw' })]);
    expect(ready.metadata.annotations?.['hypershift.openshift.io/nodePoolCurrentConfig']).toBeTruthy();
    expect(simClient.conflicts).toEqual([]);
  });
});
