/**
 * API conformance with @kubernetes/client-node: typed and generic (KubernetesObjectApi) calls,
 * server-side apply, and informers (`makeInformer`: list, then watch from the list's
 * resourceVersion; and recovery when that version has left the watch history: the server answers
 * an ERROR event with a 410 Expired Status, the informer relists and watches again). One
 * `hcc control-center --watch-history 20`, so a few writes are enough to compact a version.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import {
  CONNECT,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
  makeInformer,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { waitFor } from '../helpers/tools.js';
import { startControlCenterProcess, type ControlCenterProcess } from '../helpers/processes.js';
import { hostedCluster } from './fixtures.js';
import { Results } from './results.js';

const group = 'hypershift.openshift.io';
const version = 'v1beta1';
const plural = 'hostedclusters';
const ns = 'informers';
type HC = KubernetesObject & { spec?: Record<string, unknown> };

describe('@kubernetes/client-node against the control center', () => {
  const results = new Results('client-node');
  let cc: ControlCenterProcess;
  let kc: KubeConfig;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;
  let objects: KubernetesObjectApi;
  const listHCs = () => custom.listNamespacedCustomObject({ group, version, namespace: ns, plural }) as Promise<KubernetesListObject<HC>>;
  const createHC = (name: string, labels?: Record<string, string>) => custom.createNamespacedCustomObject({ group, version, namespace: ns, plural, body: hostedCluster(ns, name, { labels }) }) as Promise<HC>;
  const mergePatch = (name: string, patch: object) =>
    objects.patch({ apiVersion: `${group}/${version}`, kind: 'HostedCluster', metadata: { name, namespace: ns }, ...patch } as HC, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);

  beforeAll(async () => {
    cc = await startControlCenterProcess({ extraArgs: ['--watch-history', '20'] });
    kc = new KubeConfig();
    kc.loadFromFile(cc.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
    custom = kc.makeApiClient(CustomObjectsApi);
    objects = KubernetesObjectApi.makeApiClient(kc);
  });
  afterAll(async () => {
    results.write();
    await cc?.stop();
  });

  results.test('creates, reads, lists with selectors, patches and deletes', async (check) => {
    await check('create namespace', async () => {
      const created = await core.createNamespace({ body: { metadata: { name: ns } } });
      expect(created.status?.phase).toBe('Active');
    });
    await check('create secret generic', async () => {
      const s = await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'pull-secret' }, type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{}' } } });
      expect(s.data?.['.dockerconfigjson']).toBe(Buffer.from('{}').toString('base64'));
    });
    await check('create configmap', async () => {
      const c = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'settings' }, data: { a: '1' } } });
      expect(c.data).toEqual({ a: '1' });
    });
    await check('create -f (custom resource)', async () => {
      const a = await createHC('hc-a', { env: 'prod', tier: 'gold' });
      expect(a.metadata?.uid).toBeTruthy();
      const b = (await objects.create(hostedCluster(ns, 'hc-b', { labels: { env: 'dev' } }) as HC)) as HC;
      expect(b.metadata?.generation).toBe(1);
    });
    await check('get -o json', async () => {
      const got = (await objects.read({ apiVersion: `${group}/${version}`, kind: 'HostedCluster', metadata: { name: 'hc-a', namespace: ns } })) as HC;
      expect(got.metadata?.labels).toEqual({ env: 'prod', tier: 'gold' });
      const err = await custom.getNamespacedCustomObject({ group, version, namespace: ns, plural, name: 'nope' }).catch((e: unknown) => e as { code?: number; body?: string });
      expect((err as { code?: number }).code).toBe(404);
      expect(JSON.parse(String((err as { body?: string }).body)).message).toBe('hostedclusters.hypershift.openshift.io "nope" not found');
    });
    await check('get -l (in, notin, !key)', async () => {
      const sel = async (labelSelector: string) => ((await custom.listNamespacedCustomObject({ group, version, namespace: ns, plural, labelSelector })) as KubernetesListObject<HC>).items.map((i) => i.metadata?.name);
      expect(await sel('env in (prod,dev)')).toEqual(['hc-a', 'hc-b']);
      expect(await sel('env notin (prod)')).toEqual(['hc-b']);
      expect(await sel('!tier')).toEqual(['hc-b']);
    });
    await check('get --field-selector', async () => {
      const l = (await custom.listNamespacedCustomObject({ group, version, namespace: ns, plural, fieldSelector: 'metadata.name=hc-b' })) as KubernetesListObject<HC>;
      expect(l.items.map((i) => i.metadata?.name)).toEqual(['hc-b']);
    });
    await check('patch --type=merge', async () => {
      const p = (await mergePatch('hc-a', { metadata: { name: 'hc-a', namespace: ns, labels: { patched: 'yes' } } })) as HC;
      expect(p.metadata?.labels).toEqual({ env: 'prod', tier: 'gold', patched: 'yes' });
    });
    await check('patch --type=json', async () => {
      // CustomObjectsApi's patch sends application/json-patch+json, its first declared content type.
      const jp = (await custom.patchNamespacedCustomObject({ group, version, namespace: ns, plural, name: 'hc-a', body: [{ op: 'add', path: '/metadata/annotations', value: { by: 'client-node' } }] })) as HC;
      expect(jp.metadata?.annotations).toEqual({ by: 'client-node' });
    });
    await check('update with a stale resourceVersion (409)', async () => {
      const cur = (await custom.getNamespacedCustomObject({ group, version, namespace: ns, plural, name: 'hc-b' })) as HC;
      await custom.replaceNamespacedCustomObject({ group, version, namespace: ns, plural, name: 'hc-b', body: { ...cur, metadata: { ...cur.metadata, labels: { env: 'dev', step: '1' } } } });
      const err = (await custom
        .replaceNamespacedCustomObject({ group, version, namespace: ns, plural, name: 'hc-b', body: { ...cur, metadata: { ...cur.metadata, labels: { env: 'dev', step: '2' } } } })
        .catch((e: unknown) => e)) as { code?: number; body?: string };
      expect(err.code).toBe(409);
      expect(JSON.parse(String(err.body))).toMatchObject({ kind: 'Status', reason: 'Conflict', message: 'Operation cannot be fulfilled on hostedclusters.hypershift.openshift.io "hc-b": the object has been modified; please apply your changes to the latest version and try again' });
    });
    await check('apply --server-side', async () => {
      const applied = (await objects.patch(hostedCluster(ns, 'hc-ssa', { labels: { env: 'prod' } }) as HC, undefined, undefined, 'client-node-script', true, PatchStrategy.ServerSideApply)) as HC;
      const mf = applied.metadata?.managedFields ?? [];
      expect(mf.find((m) => m.manager === 'client-node-script' && m.operation === 'Apply'), `no managedFields entry of manager client-node-script, operation Apply (${JSON.stringify(mf)})`).toBeTruthy();
    });
    await check('delete (finalizers, --wait)', async () => {
      await mergePatch('hc-b', { metadata: { name: 'hc-b', namespace: ns, finalizers: ['example.com/hold'] } });
      await custom.deleteNamespacedCustomObject({ group, version, namespace: ns, plural, name: 'hc-b' });
      const held = (await custom.getNamespacedCustomObject({ group, version, namespace: ns, plural, name: 'hc-b' })) as HC;
      expect(held.metadata?.deletionTimestamp).toBeTruthy();
      await mergePatch('hc-b', { metadata: { name: 'hc-b', namespace: ns, finalizers: null } });
      const gone = await custom.getNamespacedCustomObject({ group, version, namespace: ns, plural, name: 'hc-b' }).catch((e: { code?: number }) => e.code);
      expect(gone).toBe(404);
    });
  });

  results.test('informer: list, then watch from the list; adds, updates and deletes arrive', async (check) => {
    await check('informer (list+watch)', async () => {
      const informer = makeInformer<HC>(kc, `/apis/${group}/${version}/namespaces/${ns}/${plural}`, listHCs);
      const events: string[] = [];
      informer.on('add', (o) => events.push(`add ${o.metadata?.name}`));
      informer.on('update', (o) => events.push(`update ${o.metadata?.name} ${o.metadata?.labels?.phase ?? ''}`.trim()));
      informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
      const errors: unknown[] = [];
      informer.on('error', (e) => errors.push(e));
      await informer.start();
      try {
        await waitFor('the initial list', () => events.includes('add hc-a'), 10_000);
        await createHC('hc-c');
        await waitFor('an add from the watch', () => events.includes('add hc-c'), 10_000);
        await mergePatch('hc-c', { metadata: { name: 'hc-c', namespace: ns, labels: { phase: 'two' } } });
        await waitFor('an update from the watch', () => events.includes('update hc-c two'), 10_000);
        await custom.deleteNamespacedCustomObject({ group, version, namespace: ns, plural, name: 'hc-c' });
        await waitFor('a delete from the watch', () => events.includes('delete hc-c'), 10_000);
        expect(informer.list(ns).map((o) => o.metadata?.name).sort()).toEqual((await listHCs()).items.map((o) => o.metadata?.name).sort());
        expect(errors).toEqual([]);
      } finally {
        await informer.stop();
      }
    });
  });

  results.test('informer: a resourceVersion older than the watch history gets 410 Expired, and the informer relists', async (check) => {
    await check('informer: 410 Expired → relist', async () => {
      const informer = makeInformer<HC>(kc, `/apis/${group}/${version}/namespaces/${ns}/${plural}`, listHCs);
      let connects = 0;
      const events: string[] = [];
      informer.on(CONNECT, () => connects++);
      informer.on('add', (o) => events.push(`add ${o.metadata?.name}`));
      informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
      await informer.start();
      await waitFor('the initial list', () => events.includes('add hc-a'), 10_000);
      const staleVersion = informer.latestResourceVersion();
      await informer.stop();
      // While the informer is away: more writes than the history keeps, one new object, one deleted.
      for (let i = 0; i < 25; i++) await core.patchNamespacedConfigMap({ namespace: ns, name: 'settings', body: [{ op: 'add', path: '/data/i', value: String(i) }] });
      await createHC('hc-d');
      await custom.deleteNamespacedCustomObject({ group, version, namespace: ns, plural, name: 'hc-ssa' });

      // What the server says to a watch from the stale version: one ERROR event carrying a 410 Expired Status.
      const seen: { phase: string; obj: { code?: number; reason?: string } }[] = [];
      await new Promise<void>((resolve, reject) => {
        void new Watch(kc)
          .watch(`/apis/${group}/${version}/namespaces/${ns}/${plural}`, { resourceVersion: staleVersion }, (phase, obj) => seen.push({ phase, obj }), (err) => (err ? reject(err as Error) : resolve()))
          .catch(reject);
      });
      expect(seen.map((e) => [e.phase, e.obj.code, e.obj.reason])).toEqual([['ERROR', 410, 'Expired']]);

      connects = 0;
      await informer.start(); // resumes from staleVersion: 410, then a relist
      try {
        await waitFor('the relist after 410', () => events.includes('add hc-d') && events.includes('delete hc-ssa'), 15_000);
        expect(connects, 'the informer connected once with the stale version and once after relisting').toBe(2);
        expect(informer.list(ns).map((o) => o.metadata?.name).sort()).toEqual(['hc-a', 'hc-d']);
        await createHC('hc-e');
        await waitFor('watch events after the relist', () => events.includes('add hc-e'), 10_000);
      } finally {
        await informer.stop();
      }
    });
  });
});
