/**
 * Watch fan-out at scale, with @kubernetes/client-node watchers against a real `hcc control-center`:
 * with more than 100 streams open the control center coalesces the events of several group commits
 * into one write per stream and hands watchers that got the same events one shared buffer. Every
 * watcher must still see every event exactly once, in resourceVersion order, with its own selector
 * applied, and a watcher whose selector matches nothing of a batch must not get other watchers'
 * bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, CustomObjectsApi, KubeConfig, KubernetesObjectApi, PatchStrategy, Watch, type KubernetesObject } from '@kubernetes/client-node';
import { waitFor } from './helpers/tools.js';
import { startControlCenterProcess, type ControlCenterProcess } from './helpers/processes.js';
import { hostedCluster } from './conformance/fixtures.js';

const group = 'hypershift.openshift.io';
const version = 'v1beta1';
const plural = 'hostedclusters';
const ns = 'fanout';

interface Seen {
  type: string;
  name: string;
  rv: number;
}

describe('watch fan-out with 160 watchers', () => {
  let cc: ControlCenterProcess;
  let kc: KubeConfig;
  const aborts: AbortController[] = [];

  beforeAll(async () => {
    cc = await startControlCenterProcess();
    kc = new KubeConfig();
    kc.loadFromFile(cc.kubeconfig);
  });
  afterAll(async () => {
    for (const a of aborts) a.abort();
    await cc?.stop();
  });

  it('delivers every event once, in order, to each watcher, with its own selector', async () => {
    const custom = kc.makeApiClient(CustomObjectsApi);
    const core = kc.makeApiClient(CoreV1Api);
    const objects = KubernetesObjectApi.makeApiClient(kc);
    await core.createNamespace({ body: { metadata: { name: ns } } });
    const start = await custom.listNamespacedCustomObject({ group, version, namespace: ns, plural });
    const fromRV = (start as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

    const watch = new Watch(kc);
    const open = async (labelSelector?: string): Promise<Seen[]> => {
      const seen: Seen[] = [];
      const ctrl = await watch.watch(
        `/apis/${group}/${version}/namespaces/${ns}/${plural}`,
        { resourceVersion: fromRV, ...(labelSelector ? { labelSelector } : {}) },
        (type: string, obj: KubernetesObject) => seen.push({ type, name: obj.metadata!.name!, rv: Number(obj.metadata!.resourceVersion) }),
        () => undefined,
      );
      aborts.push(ctrl);
      return seen;
    };
    const all = await Promise.all(Array.from({ length: 150 }, () => open()));
    const even = await Promise.all(Array.from({ length: 10 }, () => open('parity=even')));

    // Concurrent creates (several per group commit), then label changes that move objects in and
    // out of the `parity=even` selection, then deletes.
    const N = 40;
    const names = Array.from({ length: N }, (_, i) => `hc-${i}`);
    await Promise.all(names.map((n, i) => custom.createNamespacedCustomObject({ group, version, namespace: ns, plural, body: hostedCluster(ns, n, { labels: { parity: i % 2 ? 'odd' : 'even' } }) })));
    await Promise.all(
      names.map((n, i) =>
        objects.patch(
          { apiVersion: `${group}/${version}`, kind: 'HostedCluster', metadata: { name: n, namespace: ns, labels: { parity: i % 4 === 0 ? 'odd' : i % 2 ? 'odd' : 'even', step: 'two' } } },
          undefined,
          undefined,
          undefined,
          undefined,
          PatchStrategy.MergePatch,
        ),
      ),
    );
    await Promise.all(names.map((n) => custom.deleteNamespacedCustomObject({ group, version, namespace: ns, plural, name: n })));

    const want = 3 * N;
    await waitFor('every unfiltered watcher saw every event', () => all.every((s) => s.length >= want), 60_000, 100);
    const reference = all[0]!;
    expect(reference.map((e) => e.type).filter((t) => t === 'ADDED')).toHaveLength(N);
    expect(reference.map((e) => e.type).filter((t) => t === 'MODIFIED')).toHaveLength(N);
    expect(reference.map((e) => e.type).filter((t) => t === 'DELETED')).toHaveLength(N);
    for (let i = 1; i < reference.length; i++) expect(reference[i]!.rv).toBeGreaterThan(reference[i - 1]!.rv);
    for (const s of all) expect(s).toEqual(reference);

    // parity=even: created even (i even: 20 ADDED); the patch keeps i ≡ 2 (mod 4) even (MODIFIED)
    // and moves i ≡ 0 (mod 4) out (DELETED); the deletes remove the 10 still even.
    const evenWant: Seen[] = [];
    for (const e of reference) {
      const i = Number(e.name.slice(3));
      if (e.type === 'ADDED' && i % 2 === 0) evenWant.push(e);
      if (e.type === 'MODIFIED' && i % 2 === 0) evenWant.push({ ...e, type: i % 4 === 0 ? 'DELETED' : 'MODIFIED' });
      if (e.type === 'DELETED' && i % 4 === 2) evenWant.push(e);
    }
    await waitFor('every selective watcher saw its events', () => even.every((s) => s.length >= evenWant.length), 30_000, 100);
    for (const s of even) expect(s).toEqual(evenWant);
  }, 120_000);
});
