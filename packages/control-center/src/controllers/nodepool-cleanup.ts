/**
 * NodePool cleanup (control center only): when a HostedCluster goes, its NodePools
 * (`spec.clusterName` = its name, same namespace) are deleted, as the HyperShift operator deletes
 * them with their HostedCluster. For a placed HostedCluster the syncer does so before letting it
 * go; this covers one that was never placed (no operator, and no syncer, ever saw it), which
 * otherwise left its NodePools behind for a later HostedCluster of the same name.
 *
 * A delete of such a HostedCluster while NodePools name it leaves it Terminating with the
 * finalizer `controlcenter.hcc.dev/nodepools` (the HostedCluster strategy adds it); this
 * controller deletes the NodePools, then removes the finalizer. Level-triggered: at start it
 * sweeps every HostedCluster that carries the finalizer, so a restart in between loses nothing;
 * then it follows the store's watch. A HostedCluster that went without the finalizer (deleted
 * before it existed) has its NodePools deleted on its DELETED event (tried again with backoff while
 * some cannot be deleted, until the process stops): only those created
 * before the delete's revision (a NodePool created later names a later HostedCluster of the same
 * name, even when this process learns of the delete late, e.g. from an etcd re-list). A NodePool
 * already being deleted, or gone, is left as it is.
 */
import type { Logger } from 'pino';
import { Skipped, WorkQueue, type ReconcileResult } from '@hcc/client';
import { FinalizerNodePools, HostedClusterResource, NodePoolResource, type KubeObject } from '@hcc/crds';
import type { Store, StoreEvent, StoreWatch } from '../storage/store.js';
import type { Registry } from '../registry/registry.js';
import { storagePrefix, systemContext } from '../registry/types.js';
import { deleteObject, updateObject } from '../handlers/object-ops.js';
import * as apierrors from '../apierrors/status.js';

/**
 * How long after this controller first sees a HostedCluster waiting for its NodePools it starts
 * deleting them, in milliseconds: about an operator's reaction time. `kubectl delete -f` of a file
 * with the HostedCluster and its NodePools deletes them in file order; deleting the NodePools at
 * once would answer kubectl's own NodePool deletes 404, and fail the command.
 */
export const NodePoolDeleteDelayMs = 2_000;

/** Workers of the controller's queue (kube-controller-manager's controllers run 5 by default). */
const Workers = 5;

/**
 * The controller above, over one store: {@link NodePoolCleanup.start} sweeps, then follows the store's watch of
 * HostedClusters; {@link NodePoolCleanup.stop} ends the watch and the queue. Work is reconciled on the keyed work queue
 * of @hcc/client (client-go's workqueue): `f:<storage key>` finalizes a Terminating HostedCluster, `d:<before>:<namespace>/<name>`
 * deletes the NodePools of one that went without the finalizer (created before store revision `before`). One pass at a
 * time per item; one that fails is logged (warn) and tried again with per-item backoff (5 ms doubling up to 1,000 s,
 * client-go's controller defaults), or sooner when its HostedCluster changes.
 */
export class NodePoolCleanup {
  private watch?: StoreWatch;
  private readonly queue = new WorkQueue();
  private readonly stopping = new AbortController();
  /** When each HostedCluster key was first seen waiting for its NodePools (ms since the epoch). */
  private readonly waitingSince = new Map<string, number>();

  /** @param deleteDelayMs - see {@link NodePoolDeleteDelayMs} */
  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly log: Logger,
    private readonly deleteDelayMs = NodePoolDeleteDelayMs,
  ) {}

  /** Sweeps the HostedClusters waiting for their NodePools to go, then follows changes. */
  start(): void {
    const prefix = storagePrefix(HostedClusterResource);
    const { items, revision } = this.store.list(prefix);
    this.watch = this.store.watch(prefix, revision, (ev) => {
      const { namespace, name } = ev.object.metadata;
      if (!namespace || !name) return;
      if (ev.type === 'DELETED') this.queue.add(`d:${existedBefore(ev)}:${namespace}/${name}`);
      else if (waitsForNodePools(ev.object)) this.queue.add(`f:${ev.key}`);
    });
    for (const it of items) if (waitsForNodePools(it.object)) this.queue.add(`f:${it.key}`);
    void this.queue.runWorkers(Workers, (item) => this.reconcile(item), { signal: this.stopping.signal, logger: this.log, name: 'nodepool-cleanup', successLogLevel: 'debug' });
  }

  /** Ends the watch and the queue (pending retries are dropped). */
  stop(): void {
    this.watch?.stop();
    this.stopping.abort();
  }

  /** One queue item (see the class comment); throws while some NodePool cannot be deleted, to be tried again. */
  private async reconcile(item: string): Promise<ReconcileResult | typeof Skipped> {
    if (item.startsWith('f:')) return this.finalize(item.slice(2));
    const m = /^d:(\d+|Infinity):([^/]+)\/(.+)$/.exec(item);
    if (!m) return Skipped;
    const failed = await this.deleteNodePools(m[2], m[3], Number(m[1]));
    if (failed) throw new Error(`${failed} NodePool(s) of deleted HostedCluster ${m[2]}/${m[3]} could not be deleted`);
  }

  /**
   * Deletes the NodePools of the Terminating HostedCluster at storage key `key`, then removes its finalizer; waits
   * {@link NodePoolDeleteDelayMs} from when it first saw it waiting (a requeue). Throws while a NodePool cannot be
   * deleted or the finalizer cannot be removed (a conflict included).
   */
  private async finalize(key: string): Promise<ReconcileResult | typeof Skipped> {
    const hc = this.store.get(key)?.object;
    if (!hc || !waitsForNodePools(hc)) {
      this.waitingSince.delete(key);
      return Skipped;
    }
    const since = this.waitingSince.get(key) ?? Date.now();
    this.waitingSince.set(key, since);
    const wait = since + this.deleteDelayMs - Date.now();
    if (wait > 0) return { requeueAfterMs: wait };
    const { namespace, name, uid } = hc.metadata;
    const failed = await this.deleteNodePools(namespace!, name!);
    if (failed) throw new Error(`${failed} NodePool(s) could not be deleted`);
    // waitingSince stays until the finalizer is off: a conflict retried does not wait again.
    const info = this.registry.lookup(HostedClusterResource.group, HostedClusterResource.version, HostedClusterResource.resource);
    if (!info) return Skipped;
    try {
      await updateObject(
        this.store,
        info,
        namespace!,
        name!,
        (cur) => {
          if (!cur || cur.metadata.uid !== uid) throw apierrors.notFound({ group: info.group, resource: info.resource }, name!);
          cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== FinalizerNodePools);
          return cur;
        },
        systemContext(),
        { dryRun: false, subresource: '' },
      );
    } catch (err) {
      if (apierrors.isNotFound(err)) {
        this.waitingSince.delete(key);
        return Skipped;
      }
      throw err; // a conflict included: tried again
    }
    this.waitingSince.delete(key);
  }

  /** The NodePools naming HostedCluster namespace/name, not being deleted, created before revision `before` (store revisions). */
  private nodePoolsOf(namespace: string, name: string, before: number): KubeObject[] {
    return this.store
      .list(storagePrefix(NodePoolResource, namespace))
      .items.filter((it) => it.createRevision < before)
      .map((it) => it.object)
      .filter((np) => (np.spec as { clusterName?: unknown } | undefined)?.clusterName === name && !np.metadata.deletionTimestamp);
  }

  /**
   * Deletes the NodePools of HostedCluster namespace/name that are not being deleted yet and were
   * created before store revision `before` (all of them when omitted).
   * @returns how many deletions failed (other than already gone or replaced)
   */
  private async deleteNodePools(namespace: string, name: string, before = Infinity): Promise<number> {
    const info = this.registry.lookup(NodePoolResource.group, NodePoolResource.version, NodePoolResource.resource);
    if (!info) return 0;
    let deleted = 0;
    let failed = 0;
    for (const np of this.nodePoolsOf(namespace, name, before)) {
      try {
        await deleteObject(this.store, info, namespace, np.metadata.name!, systemContext(), { dryRun: false, preconditions: { uid: np.metadata.uid } });
        deleted++;
      } catch (err) {
        if (apierrors.isNotFound(err) || apierrors.isConflict(err)) continue;
        failed++;
        this.log.warn({ err, controller: 'nodepool-cleanup', namespace, nodePool: np.metadata.name }, 'could not delete a NodePool of a deleted HostedCluster');
      }
    }
    if (deleted) this.log.info({ controller: 'nodepool-cleanup', namespace, hostedCluster: name, deleted }, 'deleted the NodePools of a deleted HostedCluster');
    return failed;
  }
}

/**
 * The store revision before which a NodePool belonged to the HostedCluster a DELETED event removed:
 * the delete's revision; for an event made up by a re-list (`relisted`, whose revision is only an
 * upper bound: the delete happened somewhere in the gap, maybe before a HostedCluster of the same
 * name was created again), the revision after the last state this store saw of it, a lower bound.
 * A NodePool created in the gap is then left (the finalizer path, or the replica that saw the
 * delete itself, deletes it).
 */
export function existedBefore(ev: StoreEvent): number {
  if (!ev.relisted) return ev.revision;
  const seen = Number(ev.prevObject?.metadata.resourceVersion);
  return Number.isFinite(seen) ? Math.min(seen + 1, ev.revision) : 0;
}

/** A HostedCluster being deleted that still carries {@link FinalizerNodePools}. */
const waitsForNodePools = (hc: KubeObject): boolean => !!hc.metadata.deletionTimestamp && (hc.metadata.finalizers ?? []).includes(FinalizerNodePools);
