/**
 * The HostedCluster controller: wiring only. HostedCluster events enqueue their key; Secret events
 * enqueue the HostedClusters that reference them (index: pull secret, SSH key, encryption keys, ...)
 * or that own them (annotation); ConfigMap events enqueue the HostedClusters that reference them
 * (index: trust bundles, CAs, ...); control-plane Namespace events enqueue their HostedCluster
 * (annotation). Workers run
 * {@link reconcileHostedCluster} with deps built on the informer caches and the REST client.
 */
import type { Logger } from 'pino';
import {
  deletedObject,
  isAlreadyExists,
  isConflict,
  isNotFound,
  keyOf,
  OwnWrites,
  WorkQueue,
  type Clock,
  type DeletedFinalStateUnknown,
  type Informer,
  type KubeObject,
  type RestClient,
} from '@hcc/client';
import type { HostedCluster, NodePool } from '@hcc/crds';
import { ignore } from '../../errors.js';
import { FieldManager } from '../../names.js';
import { hostedClustersRef, namespacesRef, nodePoolsRef, secretsRef } from '../../resources.js';
import { NodePoolsByHostedCluster } from '../nodepool/nodepool-indexes.js';
import { HostedClustersByReference, hostedClusterKeyOf, hostedClustersByReference, referenceKey } from './hostedcluster-indexes.js';
import { reconcileHostedCluster, type HostedClusterDeps } from './hostedcluster-reconcile.js';
import { withoutEmptySpec, withSpec } from '../../zero-spec.js';

/** Options of a {@link HostedClusterController}. */
export interface HostedClusterControllerOptions {
  client: RestClient;
  hostedClusters: Informer<HostedCluster>;
  /** Must carry the {@link NodePoolsByHostedCluster} index (sim.ts adds it). */
  nodePools: Informer<NodePool>;
  secrets: Informer<KubeObject>;
  /** All ConfigMaps (cluster-wide): the ones HostedClusters reference are looked up here. */
  configMaps: Informer<KubeObject>;
  namespaces: Informer<KubeObject>;
  logger: Logger;
  clock: Clock;
  availableDelayMs: number;
  deleteDelayMs: number;
  supportedVersions: readonly string[];
  random: () => number;
  newUUID: () => string;
}


/**
 * The HostedCluster controller (see above): construct it before the informers start, then
 * {@link HostedClusterController.run} its workers until the signal aborts. Writes go through `client` as
 * {@link FieldManager}; a 404 on the HostedCluster's own update ends the pass quietly.
 */
export class HostedClusterController {
  readonly queue: WorkQueue;
  readonly #o: HostedClusterControllerOptions;
  readonly #deps: HostedClusterDeps;
  /** The HostedClusters this controller wrote, remembered until the informer shows them: a pass woken before the watch brought its last write (by another object's event) starts from that write, not from an older version that would only earn a 409. */
  readonly #written = new OwnWrites<HostedCluster>();

  /** Registers the referenced-objects index and the event handlers; call before the informers start. */
  constructor(o: HostedClusterControllerOptions) {
    this.#o = o;
    this.queue = new WorkQueue({ clock: o.clock, baseDelayMs: 100, maxDelayMs: 30_000 });
    o.hostedClusters.addIndexer(HostedClustersByReference, hostedClustersByReference);

    const enqueue = (obj: HostedCluster | DeletedFinalStateUnknown<HostedCluster>) => this.queue.add(keyOf(obj));
    o.hostedClusters.addEventHandler({ onAdd: enqueue, onUpdate: (_old, obj) => enqueue(obj), onDelete: enqueue });

    const referencing = (kind: 'Secret' | 'ConfigMap', obj: KubeObject) => {
      const { namespace, name } = obj.metadata;
      if (!namespace || !name) return;
      for (const hc of o.hostedClusters.lister.byIndex(HostedClustersByReference, referenceKey(kind, namespace, name))) this.queue.add(keyOf(hc));
    };
    const fromSecret = (obj: KubeObject | DeletedFinalStateUnknown) => {
      const secret = deletedObject(obj);
      const owner = hostedClusterKeyOf(secret);
      if (owner) this.queue.add(owner);
      referencing('Secret', secret);
    };
    o.secrets.addEventHandler({ onAdd: fromSecret, onUpdate: (_old, obj) => fromSecret(obj), onDelete: fromSecret });
    const fromConfigMap = (obj: KubeObject | DeletedFinalStateUnknown) => referencing('ConfigMap', deletedObject(obj));
    o.configMaps.addEventHandler({ onAdd: fromConfigMap, onUpdate: (_old, obj) => fromConfigMap(obj), onDelete: fromConfigMap });

    const fromNamespace = (obj: KubeObject | DeletedFinalStateUnknown) => {
      const owner = hostedClusterKeyOf(deletedObject(obj));
      if (owner) this.queue.add(owner);
    };
    o.namespaces.addEventHandler({ onAdd: fromNamespace, onUpdate: (_old, obj) => fromNamespace(obj), onDelete: fromNamespace });

    const { client } = o;
    const write = { fieldManager: FieldManager };
    this.#deps = {
      clock: o.clock,
      availableDelayMs: o.availableDelayMs,
      deleteDelayMs: o.deleteDelayMs,
      supportedVersions: o.supportedVersions,
      random: o.random,
      newUUID: o.newUUID,
      getSecret: (ns, name) => o.secrets.lister.get(`${ns}/${name}`),
      getConfigMap: (ns, name) => o.configMaps.lister.get(`${ns}/${name}`),
      getNamespace: (name) => o.namespaces.lister.get(name),
      listNodePools: (ns, clusterName) => o.nodePools.lister.byIndex(NodePoolsByHostedCluster, `${ns}/${clusterName}`),
      // A 404 on our own object means it is gone (its deletion event is on the way): finish quietly.
      updateHostedCluster: (hc) => client.update(hostedClustersRef, hc.metadata.namespace, withoutEmptySpec(hc), write).then((o) => this.#written.record(keyOf(hc), hc, withSpec(o)), ignore(isNotFound)),
      updateHostedClusterStatus: (hc) => client.updateStatus(hostedClustersRef, hc.metadata.namespace, hc, write).then((o) => this.#written.record(keyOf(hc), hc, withSpec(o)), ignore(isNotFound)),
      createNamespace: (ns) => client.create(namespacesRef, undefined, ns, write).then(() => undefined, ignore(isAlreadyExists)),
      createSecret: (s) => client.create(secretsRef, s.metadata.namespace, s, write).then(() => undefined, ignore(isAlreadyExists)),
      updateSecret: (s) => client.update(secretsRef, s.metadata.namespace, s, write).then(() => undefined, ignore(isNotFound)),
      // A 409: its deletion is under way already (the informer lags): done.
      deleteNamespace: (name) => client.delete(namespacesRef, undefined, name).then(() => undefined, ignore((e) => isNotFound(e) || isConflict(e))),
      deleteSecret: (ns, name) => client.delete(secretsRef, ns, name).then(() => undefined, ignore(isNotFound)),
      deleteNodePool: (ns, name) => client.delete(nodePoolsRef, ns, name).then(() => undefined, ignore(isNotFound)),
    };
  }

  /** Runs `workers` workers until `signal` aborts; resolves once they have drained. */
  run(signal: AbortSignal, workers = 2): Promise<void> {
    const log = this.#o.logger;
    return this.queue.runWorkers(
      workers,
      async (key) => {
        const { result, stoppedAt } = await reconcileHostedCluster(this.#written.freshest(key, this.#o.hostedClusters.lister.get(key)), this.#deps);
        log.debug({ controller: 'hostedcluster', key, stoppedAt }, 'pass done');
        return result;
      },
      { signal, logger: log, name: 'hostedcluster' },
    );
  }
}
