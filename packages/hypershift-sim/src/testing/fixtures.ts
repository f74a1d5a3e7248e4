/**
 * Test fixtures for the sim's steps: plain objects and an in-memory {@link FakeWorld} that backs
 * the steps' getters and writers with maps and a FakeClock (no server, no real timers). Writers
 * behave like an API server where it matters: updates bump resourceVersion, a status update only
 * changes status, an object with `deletionTimestamp` and no finalizers disappears, deleting an
 * object with finalizers only marks it.
 */
import { FakeClock } from '@hcc/client';
import type { HostedCluster, KubeObject, NodePool } from '@hcc/crds';
import type { HostedClusterDeps } from '../controllers/hostedcluster/hostedcluster-reconcile.js';
import type { NodePoolDeps } from '../controllers/nodepool/nodepool-reconcile.js';
import { formatTime } from '../time.js';

/** FakeClock's default start, 2024-01-01T00:00:00Z. */
export const T0 = Date.UTC(2024, 0, 1);
/** RFC 3339 of `T0 + offsetMs`. */
export const at = (offsetMs = 0): string => formatTime(T0 + offsetMs);

export const Image414 = 'quay.io/openshift-release-dev/ocp-release:4.14.0-x86_64';
export const Image415 = 'quay.io/openshift-release-dev/ocp-release:4.15.2-x86_64';

/** A HostedCluster `clusters/example` as the API server returns it; `patch` is merged shallowly per part. */
export function hostedCluster(patch: { metadata?: Partial<HostedCluster['metadata']>; spec?: Partial<HostedCluster['spec']>; status?: HostedCluster['status'] } = {}): HostedCluster {
  const hc: HostedCluster = {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'HostedCluster',
    metadata: { name: 'example', namespace: 'clusters', uid: 'uid-hc', resourceVersion: '1', generation: 1, creationTimestamp: at(), ...patch.metadata },
    spec: {
      release: { image: Image414 },
      pullSecret: { name: 'pull-secret' },
      dns: { baseDomain: 'hcc.example.com' },
      platform: { type: 'None' },
      clusterID: '11111111-2222-4333-8444-555555555555',
      infraID: 'example-abcde',
      ...patch.spec,
    },
  };
  if (patch.status) hc.status = patch.status;
  return hc;
}

/** A NodePool `clusters/workers` of cluster `example`. */
export function nodePool(patch: { metadata?: Partial<NodePool['metadata']>; spec?: Partial<NodePool['spec']>; status?: NodePool['status'] } = {}): NodePool {
  const np: NodePool = {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'NodePool',
    metadata: { name: 'workers', namespace: 'clusters', uid: 'uid-np', resourceVersion: '1', generation: 1, creationTimestamp: at(), ...patch.metadata },
    spec: {
      clusterName: 'example',
      replicas: 2,
      management: { upgradeType: 'Replace' },
      platform: { type: 'None' },
      release: { image: Image414 },
      ...patch.spec,
    },
  };
  if (patch.status) np.status = patch.status;
  return np;
}

export const secret = (namespace: string, name: string, data: Record<string, string> = {}, metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace, uid: `uid-${name}`, ...metadata },
  type: 'Opaque',
  data,
});

export const configMap = (namespace: string, name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, uid: `uid-${name}` },
  data,
});

export const pullSecret = (name = 'pull-secret'): KubeObject => secret('clusters', name, { '.dockerconfigjson': 'e30=' });

export const namespace = (name: string, metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, uid: `uid-${name}`, ...metadata },
});

const keyOf = (o: KubeObject) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name!);

/** An in-memory API: maps of objects, a FakeClock, and the list of writes made (`calls`). */
export class FakeWorld {
  readonly clock = new FakeClock(T0);
  readonly hostedClusters = new Map<string, HostedCluster>();
  readonly nodePools = new Map<string, NodePool>();
  readonly secrets = new Map<string, KubeObject>();
  readonly configMaps = new Map<string, KubeObject>();
  readonly namespaces = new Map<string, KubeObject>();
  /** One line per write: `verb resource key`. */
  readonly calls: string[] = [];
  #rv = 100;

  constructor(objects: KubeObject[] = []) {
    for (const o of objects) this.put(o);
  }

  /** Stores an object in the map its kind belongs to. */
  put(o: KubeObject): void {
    const map = this.#mapOf(o.kind);
    map.set(keyOf(o), structuredClone(o) as never);
  }

  #mapOf(kind: string | undefined): Map<string, KubeObject> {
    switch (kind) {
      case 'HostedCluster':
        return this.hostedClusters as Map<string, KubeObject>;
      case 'NodePool':
        return this.nodePools as Map<string, KubeObject>;
      case 'Secret':
        return this.secrets;
      case 'ConfigMap':
        return this.configMaps;
      case 'Namespace':
        return this.namespaces;
      default:
        throw new Error(`unexpected kind ${kind}`);
    }
  }

  #update<T extends KubeObject>(map: Map<string, T>, resource: string, obj: T, statusOnly: boolean): void {
    const key = keyOf(obj);
    const cur = map.get(key);
    if (!cur) throw Object.assign(new Error(`${resource} ${key} not found`), { code: 404 });
    if (cur.metadata.resourceVersion !== obj.metadata.resourceVersion) throw Object.assign(new Error(`${resource} ${key} conflict`), { code: 409 });
    this.calls.push(`${statusOnly ? 'updateStatus' : 'update'} ${resource} ${key}`);
    const next = structuredClone(statusOnly ? { ...cur, status: obj.status } : { ...obj, status: cur.status });
    next.metadata.resourceVersion = String(++this.#rv);
    if (!statusOnly && JSON.stringify(cur.spec) !== JSON.stringify(obj.spec)) next.metadata.generation = (cur.metadata.generation ?? 1) + 1;
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) map.delete(key);
    else map.set(key, next);
  }

  #delete<T extends KubeObject>(map: Map<string, T>, resource: string, key: string): void {
    this.calls.push(`delete ${resource} ${key}`);
    const cur = map.get(key);
    if (!cur) return;
    if ((cur.metadata.finalizers ?? []).length > 0 || resource === 'namespaces') {
      map.set(key, { ...cur, metadata: { ...cur.metadata, deletionTimestamp: formatTime(this.clock.now()) } });
    } else map.delete(key);
  }

  #create(map: Map<string, KubeObject>, resource: string, obj: KubeObject): void {
    const key = keyOf(obj);
    this.calls.push(`create ${resource} ${key}`);
    if (map.has(key)) return; // AlreadyExists is tolerated by the real writers
    map.set(key, { ...structuredClone(obj), metadata: { ...obj.metadata, uid: `uid-${obj.metadata.name}`, resourceVersion: String(++this.#rv), creationTimestamp: formatTime(this.clock.now()) } });
  }

  /** Removes namespaces marked for deletion (what the namespace controller does). */
  finishNamespaceDeletions(): void {
    for (const [k, ns] of this.namespaces) if (ns.metadata.deletionTimestamp) this.namespaces.delete(k);
  }

  hostedClusterDeps(options: Partial<Pick<HostedClusterDeps, 'availableDelayMs' | 'deleteDelayMs' | 'supportedVersions'>> = {}): HostedClusterDeps {
    let uuids = 0;
    return {
      clock: this.clock,
      availableDelayMs: options.availableDelayMs ?? 2000,
      deleteDelayMs: options.deleteDelayMs ?? 500,
      supportedVersions: options.supportedVersions ?? ['4.18', '4.17', '4.16', '4.15', '4.14'],
      random: () => 0.5,
      newUUID: () => `00000000-0000-4000-8000-${String(++uuids).padStart(12, '0')}`,
      getSecret: (ns, name) => this.secrets.get(`${ns}/${name}`),
      getConfigMap: (ns, name) => this.configMaps.get(`${ns}/${name}`),
      getNamespace: (name) => this.namespaces.get(name),
      listNodePools: (ns, clusterName) => [...this.nodePools.values()].filter((np) => np.metadata.namespace === ns && np.spec.clusterName === clusterName),
      updateHostedCluster: async (hc) => this.#update(this.hostedClusters, 'hostedclusters', hc, false),
      updateHostedClusterStatus: async (hc) => this.#update(this.hostedClusters, 'hostedclusters', hc, true),
      createNamespace: async (ns) => this.#create(this.namespaces, 'namespaces', ns),
      createSecret: async (s) => this.#create(this.secrets, 'secrets', s),
      updateSecret: async (s) => this.#update(this.secrets, 'secrets', s, false),
      deleteNamespace: async (name) => this.#delete(this.namespaces, 'namespaces', name),
      deleteSecret: async (ns, name) => this.#delete(this.secrets, 'secrets', `${ns}/${name}`),
      deleteNodePool: async (ns, name) => this.#delete(this.nodePools, 'nodepools', `${ns}/${name}`),
    };
  }

  nodePoolDeps(options: Partial<Pick<NodePoolDeps, 'availableDelayMs' | 'deleteDelayMs'>> = {}): NodePoolDeps {
    return {
      clock: this.clock,
      availableDelayMs: options.availableDelayMs ?? 2000,
      deleteDelayMs: options.deleteDelayMs ?? 500,
      getHostedCluster: (ns, name) => this.hostedClusters.get(`${ns}/${name}`),
      getConfigMap: (ns, name) => this.configMaps.get(`${ns}/${name}`),
      updateNodePool: async (np) => this.#update(this.nodePools, 'nodepools', np, false),
      updateNodePoolStatus: async (np) => this.#update(this.nodePools, 'nodepools', np, true),
    };
  }
}

/** Polls `fn` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A HostedCluster in namespace `clusters` that a real API server with the HyperShift CRDs takes
 * (the schema's required fields), at release 4.14.0, platform None, naming pull Secret `pullSecret`.
 */
export function servedHostedCluster(name: string, pullSecret: string): HostedCluster {
  return {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'HostedCluster',
    metadata: { name, namespace: 'clusters' },
    spec: {
      release: { image: Image414 },
      pullSecret: { name: pullSecret },
      dns: { baseDomain: 'hcc.example.com' },
      etcd: { managementType: 'Managed', managed: { storage: { type: 'PersistentVolume', persistentVolume: { size: '8Gi' } } } },
      networking: {
        networkType: 'OVNKubernetes',
        clusterNetwork: [{ cidr: '10.132.0.0/14' }],
        serviceNetwork: [{ cidr: '172.31.0.0/16' }],
      },
      platform: { type: 'None' },
      services: [
        { service: 'APIServer', servicePublishingStrategy: { type: 'NodePort', nodePort: { address: '192.168.0.10' } } },
        { service: 'OAuthServer', servicePublishingStrategy: { type: 'Route' } },
        { service: 'Konnectivity', servicePublishingStrategy: { type: 'Route' } },
        { service: 'Ignition', servicePublishingStrategy: { type: 'Route' } },
      ],
    },
  };
}

/** A NodePool in namespace `clusters` that a real API server takes: `replicas` nodes of HostedCluster `clusterName`, release 4.14.0. */
export function servedNodePool(name: string, clusterName: string, replicas: number): NodePool {
  return {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'NodePool',
    metadata: { name, namespace: 'clusters' },
    spec: {
      clusterName,
      replicas,
      management: { upgradeType: 'Replace' },
      platform: { type: 'None' },
      release: { image: Image414 },
    },
  };
}
