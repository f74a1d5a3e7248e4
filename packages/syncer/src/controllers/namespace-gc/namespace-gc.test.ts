import { describe, expect, it } from 'vitest';
import type { RestClient } from '@hcc/client';
import type { KubeObject } from '@hcc/crds';
import pino from 'pino';
import { controlCenterStamp, namespaceSealSubject } from '../../control-center-identity.js';
import { foreignObjectIn, isClusterOwned, namespacedKinds, sweepNamespaces, type KeptBy } from './namespace-gc.js';

/** A fake management cluster: discovery documents and the objects of one namespace by resource. */
function fakeCluster(objects: Record<string, KubeObject[]>, forbidden = new Set<string>()): RestClient {
  const discovery: Record<string, unknown> = {
    '/api/v1': {
      resources: [
        { name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['list'] },
        { name: 'secrets', kind: 'Secret', namespaced: true, verbs: ['list'] },
        { name: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, verbs: ['list'] },
        { name: 'serviceaccounts/token', kind: 'TokenRequest', namespaced: true, verbs: ['create'] },
        { name: 'events', kind: 'Event', namespaced: true, verbs: ['list'] },
        { name: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['list'] },
      ],
    },
    '/apis': { groups: [{ name: 'rbac.authorization.k8s.io', preferredVersion: { version: 'v1' } }, { name: 'agent-install.openshift.io', preferredVersion: { version: 'v1beta1' } }] },
    '/apis/rbac.authorization.k8s.io/v1': { resources: [{ name: 'rolebindings', kind: 'RoleBinding', namespaced: true, verbs: ['list'] }] },
    '/apis/agent-install.openshift.io/v1beta1': { resources: [{ name: 'infraenvs', kind: 'InfraEnv', namespaced: true, verbs: ['list'] }] },
  };
  return {
    raw: async (_m: string, path: string) => discovery[path],
    list: async (ref: { resource: string }) => {
      if (forbidden.has(ref.resource)) throw Object.assign(new Error(`infraenvs is forbidden`), { code: 403 });
      return { items: objects[ref.resource] ?? [], metadata: {} };
    },
  } as unknown as RestClient;
}

const obj = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({ metadata: { name, namespace: 'clusters' }, ...extra }) as KubeObject;

describe('namespace clean-up: what keeps a namespace hcc created', () => {
  const openShiftDefaults = {
    configmaps: [obj('kube-root-ca.crt'), obj('openshift-service-ca.crt'), obj('pull', { metadata: { name: 'pull', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' } } })],
    secrets: [
      obj('builder-dockercfg-abc', { type: 'kubernetes.io/dockercfg', metadata: { name: 'builder-dockercfg-abc', annotations: { 'kubernetes.io/service-account.name': 'builder' } } }),
      // The legacy tokens controller's (kube < 1.24, OpenShift < 4.16).
      obj('default-token-x7k2q', { type: 'kubernetes.io/service-account-token', metadata: { name: 'default-token-x7k2q', annotations: { 'kubernetes.io/service-account.name': 'default' } } }),
      obj('deployer-token-9zt4m', { type: 'kubernetes.io/service-account-token', metadata: { name: 'deployer-token-9zt4m', annotations: { 'kubernetes.io/service-account.name': 'deployer' } } }),
    ],
    serviceaccounts: [obj('default'), obj('builder'), obj('deployer')],
    rolebindings: [obj('system:image-pullers'), obj('system:image-builders'), obj('system:deployers')],
    events: [obj('hc.1234')],
  };

  it('lists every namespaced, listable kind from discovery (no subresources, no Events)', async () => {
    const kinds = await namespacedKinds(fakeCluster({}));
    expect(kinds.map((k) => k.kind)).toEqual(['ConfigMap', 'Secret', 'ServiceAccount', 'RoleBinding', 'InfraEnv']);
  });

  it("does not count Kubernetes' and OpenShift's per-namespace defaults, hcc's copies or Events", async () => {
    const c = fakeCluster(openShiftDefaults);
    expect(await foreignObjectIn(c, { cluster: 'mgmt-1' }, 'clusters', await namespacedKinds(c))).toBeUndefined();
  });

  it.each([
    ['an InfraEnv of the Agent platform', { infraenvs: [obj('my-env')] }, 'InfraEnv/my-env'],
    ['a RoleBinding of the user', { rolebindings: [obj('team-admins')] }, 'RoleBinding/team-admins'],
    ['a ServiceAccount of the user', { serviceaccounts: [obj('ci-bot')] }, 'ServiceAccount/ci-bot'],
    ['a token Secret a user made for the default ServiceAccount', { secrets: [obj('ci-token', { type: 'kubernetes.io/service-account-token', metadata: { name: 'ci-token', annotations: { 'kubernetes.io/service-account.name': 'default' } } })] }, 'Secret/ci-token'],
    ['a token Secret of a user ServiceAccount', { secrets: [obj('ci-bot-token-abcde', { type: 'kubernetes.io/service-account-token', metadata: { name: 'ci-bot-token-abcde', annotations: { 'kubernetes.io/service-account.name': 'ci-bot' } } })] }, 'Secret/ci-bot-token-abcde'],
    ['a dockercfg Secret of a user ServiceAccount', { secrets: [obj('ci-bot-dockercfg-x', { type: 'kubernetes.io/dockercfg', metadata: { name: 'ci-bot-dockercfg-x', annotations: { 'kubernetes.io/service-account.name': 'ci-bot' } } })] }, 'Secret/ci-bot-dockercfg-x'],
    ['an InfraEnv labelled as if this syncer made it (it makes no InfraEnvs)', { infraenvs: [obj('e', { metadata: { name: 'e', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' } } })] }, 'InfraEnv/e'],
    ['a ConfigMap another syncer copied', { configmaps: [obj('c', { metadata: { name: 'c', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-2' } } })] }, 'ConfigMap/c'],
  ])('keeps it for %s', async (_what, extra, want) => {
    const c = fakeCluster({ ...openShiftDefaults, ...extra });
    expect((await foreignObjectIn(c, { cluster: 'mgmt-1' }, 'clusters', await namespacedKinds(c)))?.what).toBe(want);
  });

  it('keeps it when a kind cannot be listed (it cannot tell)', async () => {
    const c = fakeCluster(openShiftDefaults, new Set(['infraenvs']));
    expect((await foreignObjectIn(c, { cluster: 'mgmt-1' }, 'clusters', await namespacedKinds(c)))?.what).toMatch(/^InfraEnv \(cannot list infraenvs\.agent-install\.openshift\.io: .*kept to be safe\)$/);
  });

  it('isClusterOwned knows only the defaults', () => {
    expect(isClusterOwned('ServiceAccount', obj('deployer'))).toBe(true);
    expect(isClusterOwned('ServiceAccount', obj('deployer-2'))).toBe(false);
    expect(isClusterOwned('Role', obj('system:image-pullers'))).toBe(false);
  });
});

describe('namespace clean-up: sweeps', () => {
  /** A management cluster with one namespace hcc created, counting the calls the sweep makes. */
  function cluster(objects: Record<string, KubeObject[]>, nsAnnotations?: Record<string, string>, forbidden?: Set<string>) {
    const calls = { discovery: 0, list: 0, byName: 0, deleted: [] as string[] };
    const base = fakeCluster(objects, forbidden);
    const namespaces = [{ metadata: { name: 'clusters', uid: 'u1', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }, ...(nsAnnotations ? { annotations: nsAnnotations } : {}) } }];
    const client = {
      raw: async (m: string, path: string) => {
        calls.discovery++;
        return base.raw(m, path);
      },
      list: async (ref: { resource: string }, opts: { fieldSelector?: string }) => {
        if (ref.resource === 'namespaces') return { items: namespaces.filter((n) => !calls.deleted.includes(n.metadata.name)), metadata: {} };
        const byName = /^metadata\.name=(.*)$/.exec(opts.fieldSelector ?? '')?.[1];
        if (byName === undefined) {
          calls.list++;
          return base.list(ref as never, opts as never);
        }
        calls.byName++;
        return { items: (objects[ref.resource] ?? []).filter((x) => x.metadata.name === byName), metadata: {} };
      },
      delete: async (_ref: unknown, _ns: unknown, name: string) => {
        calls.deleted.push(name);
      },
    } as unknown as RestClient;
    return { client, calls };
  }
  const log = pino({ level: 'silent' });

  it('re-checks a kept namespace with one list of what kept it, by name, and searches again once it is gone', async () => {
    const objects: Record<string, KubeObject[]> = { infraenvs: [obj('my-env')] };
    const { client, calls } = cluster(objects);
    const kept = new Map<string, KeptBy>();
    const sweep = () => sweepNamespaces({ cluster: 'mgmt-1', downstream: client, inUse: () => false, kept, log });

    expect(await sweep()).toEqual([]);
    expect(kept.get('clusters')).toMatchObject({ name: 'my-env', kind: { kind: 'InfraEnv' } });
    const first = { ...calls };
    expect(first.list).toBe(5); // every namespaced kind until the InfraEnv

    expect(await sweep()).toEqual([]);
    expect(calls.discovery).toBe(first.discovery); // no discovery,
    expect(calls.list).toBe(first.list); // no lists,
    expect(calls.byName).toBe(1); // one list by name

    objects.infraenvs = [];
    expect(await sweep()).toEqual(['clusters']);
    expect(kept.size).toBe(0);
  });

  it('says at info why it keeps a namespace, once per reason (a kind it cannot list is looked at again every sweep)', async () => {
    const { client } = cluster({}, undefined, new Set(['infraenvs']));
    const lines: { level: number; msg: string; object?: string }[] = [];
    const capture = pino({ level: 'debug' }, { write: (l: string) => lines.push(JSON.parse(l)) });
    const keptReasons = new Map<string, string>();
    const sweep = () => sweepNamespaces({ cluster: 'mgmt-1', downstream: client, inUse: () => false, kept: new Map(), keptReasons, log: capture });
    expect(await sweep()).toEqual([]);
    expect(await sweep()).toEqual([]);
    const said = lines.filter((l) => l.msg === 'kept a namespace hcc created: something else lives there');
    expect(said.map((l) => l.level)).toEqual([30, 20]);
    expect(said[0]!.object).toMatch(/^InfraEnv \(cannot list infraenvs\.agent-install\.openshift\.io/);
  });

  it('searches again when the object that kept it is now an hcc copy of this cluster', async () => {
    const cm = obj('c');
    const { client } = cluster({ configmaps: [cm] });
    const kept = new Map<string, KeptBy>();
    const sweep = () => sweepNamespaces({ cluster: 'mgmt-1', downstream: client, inUse: () => false, kept, log });
    expect(await sweep()).toEqual([]);
    cm.metadata.labels = { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' };
    expect(await sweep()).toEqual(['clusters']);
  });

  it("leaves a namespace another control center's syncer created under this cluster's name, and counts that one's copies as foreign", async () => {
    const cc = { id: 'cc-ours' };
    const theirs = cluster({}, controlCenterStamp('cc-other', namespaceSealSubject('clusters')));
    expect(await sweepNamespaces({ cluster: 'mgmt-1', controlCenter: cc, downstream: theirs.client, inUse: () => false, log })).toEqual([]);
    expect(theirs.calls.deleted).toEqual([]);
    // In a namespace of this control center's: a copy of the other's keeps it; its own (or an older, unstamped) one does not.
    const copy = obj('c', { metadata: { name: 'c', labels: { 'controlcenter.hcc.dev/synced-by': 'mgmt-1' }, annotations: { 'controlcenter.hcc.dev/upstream-uid': 'u-c', ...controlCenterStamp('cc-other', 'u-c') } } });
    const mixed = cluster({ configmaps: [copy] }, controlCenterStamp('cc-ours', namespaceSealSubject('clusters')));
    expect(await sweepNamespaces({ cluster: 'mgmt-1', controlCenter: cc, downstream: mixed.client, inUse: () => false, log })).toEqual([]);
    copy.metadata.annotations = { 'controlcenter.hcc.dev/upstream-uid': 'u-c', ...controlCenterStamp('cc-ours', 'u-c') };
    expect(await sweepNamespaces({ cluster: 'mgmt-1', controlCenter: cc, downstream: mixed.client, inUse: () => false, log })).toEqual(['clusters']);
  });
});
