/**
 * The NodePool controller: wiring only. NodePool events enqueue their key; HostedCluster events
 * enqueue the NodePools that name it (index), so a NodePool waiting for its cluster, or for it to
 * become Available, is looked at again; ConfigMap events enqueue the NodePools whose `spec.config`
 * or `spec.tuningConfig` name it (index). Workers run {@link reconcileNodePool}.
 */
import type { Logger } from 'pino';
import { isNotFound, keyOf, OwnWrites, WorkQueue, type Clock, type DeletedFinalStateUnknown, type Informer, type RestClient } from '@hcc/client';
import type { HostedCluster, KubeObject, NodePool } from '@hcc/crds';
import { nodePoolsRef } from '../../resources.js';
import { ignore } from '../../errors.js';
import { FieldManager } from '../../names.js';
import { NodePoolsByConfigMap, NodePoolsByHostedCluster, nodePoolsByConfigMap } from './nodepool-indexes.js';
import { reconcileNodePool, type NodePoolDeps } from './nodepool-reconcile.js';
import { withoutEmptySpec, withSpec } from '../../zero-spec.js';

/** Options of a {@link NodePoolController}. */
export interface NodePoolControllerOptions {
  client: RestClient;
  hostedClusters: Informer<HostedCluster>;
  /** Must carry the {@link NodePoolsByHostedCluster} index (shared with the HostedCluster controller; sim.ts adds it). */
  nodePools: Informer<NodePool>;
  /** ConfigMaps: the ones NodePools name in `spec.config` and `spec.tuningConfig` (ValidMachineConfig, ValidTuningConfig). */
  configMaps: Informer<KubeObject>;
  logger: Logger;
  clock: Clock;
  availableDelayMs: number;
  deleteDelayMs: number;
}

/**
 * The NodePool controller (see above): construct it before the informers start, then {@link NodePoolController.run}
 * its workers until the signal aborts. Writes go through `client` as {@link FieldManager}; a 404 on the NodePool's own
 * update ends the pass quietly.
 */
export class NodePoolController {
  readonly queue: WorkQueue;
  readonly #o: NodePoolControllerOptions;
  readonly #deps: NodePoolDeps;
  /** The NodePools this controller wrote, remembered until the informer shows them: a pass woken before the watch brought its last write (by another object's event) starts from that write, not from an older version that would only earn a 409. */
  readonly #written = new OwnWrites<NodePool>();

  /** Registers the event handlers; call before the informers start. */
  constructor(o: NodePoolControllerOptions) {
    this.#o = o;
    this.queue = new WorkQueue({ clock: o.clock, baseDelayMs: 100, maxDelayMs: 30_000 });

    const enqueue = (obj: NodePool | DeletedFinalStateUnknown<NodePool>) => this.queue.add(keyOf(obj));
    o.nodePools.addEventHandler({ onAdd: enqueue, onUpdate: (_old, obj) => enqueue(obj), onDelete: enqueue });
    const fromHostedCluster = (obj: HostedCluster | DeletedFinalStateUnknown<HostedCluster>) => {
      for (const np of o.nodePools.lister.byIndex(NodePoolsByHostedCluster, keyOf(obj))) this.queue.add(keyOf(np));
    };
    o.hostedClusters.addEventHandler({ onAdd: fromHostedCluster, onUpdate: (_old, obj) => fromHostedCluster(obj), onDelete: fromHostedCluster });
    o.nodePools.addIndexer(NodePoolsByConfigMap, nodePoolsByConfigMap);
    const fromConfigMap = (obj: KubeObject | DeletedFinalStateUnknown<KubeObject>) => {
      for (const np of o.nodePools.lister.byIndex(NodePoolsByConfigMap, keyOf(obj))) this.queue.add(keyOf(np));
    };
    o.configMaps.addEventHandler({ onAdd: fromConfigMap, onUpdate: (_old, obj) => fromConfigMap(obj), onDelete: fromConfigMap });

    const { client } = o;
    const write = { fieldManager: FieldManager };
    this.#deps = {
      clock: o.clock,
      availableDelayMs: o.availableDelayMs,
      deleteDelayMs: o.deleteDelayMs,
      getHostedCluster: (ns, name) => o.hostedClusters.lister.get(`${ns}/${name}`),
      getConfigMap: (ns, name) => o.configMaps.lister.get(`${ns}/${name}`),
      // A 404 on our own object means it is gone (its deletion event is on the way): finish quietly.
      updateNodePool: (np) => client.update(nodePoolsRef, np.metadata.namespace, withoutEmptySpec(np), write).then((o) => this.#written.record(keyOf(np), np, withSpec(o)), ignore(isNotFound)),
      updateNodePoolStatus: (np) => client.updateStatus(nodePoolsRef, np.metadata.namespace, np, write).then((o) => this.#written.record(keyOf(np), np, withSpec(o)), ignore(isNotFound)),
    };
  }

  /** Runs `workers` workers until `signal` aborts; resolves once they have drained. */
  run(signal: AbortSignal, workers = 2): Promise<void> {
    const log = this.#o.logger;
    return this.queue.runWorkers(
      workers,
      async (key) => {
        const { result, stoppedAt } = await reconcileNodePool(this.#written.freshest(key, this.#o.nodePools.lister.get(key)), this.#deps);
        log.debug({ controller: 'nodepool', key, stoppedAt }, 'pass done');
        return result;
      },
      { signal, logger: log, name: 'nodepool' },
    );
  }
}
