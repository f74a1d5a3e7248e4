/**
 * The control center's own guard of a ManagementCluster's capacity: how many HostedClusters each
 * cluster holds (the placement label `controlcenter.hcc.dev/management-cluster`, kept from the
 * store's watch) plus the binds to it in flight, so the binding subresource refuses a bind that
 * would put more HostedClusters on a cluster than its `spec.capacity`.
 *
 * The scheduler already never binds past capacity from its own view (its cache counts the binds it
 * made and has not seen yet). This guard holds when two views meet: a leader that lost its Lease
 * with binds in flight and the new leader binding beside them, or a custom binder. kube-apiserver
 * leaves that to the kubelet's admission, which refuses a Pod that does not fit its Node; a
 * HostedCluster refused after its bind would be stranded, so hcc refuses the bind instead.
 * With two control centers on one etcd each counts what its own copy of etcd shows plus its own
 * binds in flight: a bind on one replica and a bind on the other in the same few milliseconds can
 * still both pass.
 */
import { HostedClusterResource, LabelManagementCluster, ManagementClusterResource, type KubeObject } from '@hcc/crds';
import { storageKey, storagePrefix } from '../registry/types.js';
import type { Store, StoreWatch } from '../storage/store.js';

/** Adds `by` to the count of `key`, dropping a count that reaches 0. */
function add(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/** A ManagementCluster's `spec.capacity` when it is a non-negative integer, else undefined (no limit). */
export function capacityOf(mc: KubeObject | undefined): number | undefined {
  const c = (mc?.spec as { capacity?: unknown } | undefined)?.capacity;
  return typeof c === 'number' && Number.isInteger(c) && c >= 0 ? c : undefined;
}

/**
 * Per ManagementCluster name: how many HostedClusters carry its placement label in the store, and
 * how many binds to it are in flight. Start it once the store is open; stop it with the server.
 */
export class PlacementCounts {
  /** HostedCluster storage key → the cluster it is placed on (placed ones only). */
  private readonly placedOn = new Map<string, string>();
  private readonly placed = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private watch: StoreWatch | undefined;

  constructor(private readonly store: Store) {}

  /** Lists the HostedClusters and follows the store's events from the list's revision on. */
  start(): void {
    const prefix = storagePrefix(HostedClusterResource);
    const { items, revision } = this.store.list(prefix);
    for (const it of items) this.set(it.key, it.object);
    this.watch = this.store.watch(prefix, revision, (ev) => this.set(ev.key, ev.type === 'DELETED' ? undefined : ev.object));
  }

  /** Stops following the store. */
  stop(): void {
    this.watch?.stop();
    this.watch = undefined;
  }

  /** HostedClusters placed on `cluster`, those stored and those whose bind is in flight (a count). */
  held(cluster: string): number {
    return (this.placed.get(cluster) ?? 0) + (this.inFlight.get(cluster) ?? 0);
  }

  /**
   * Checks that `cluster` has room for one more HostedCluster and counts one bind to it in flight.
   * @returns the release function (call it once the bind's write settled, whatever its outcome),
   *   or the refusal: the cluster's capacity and what it holds
   */
  reserve(cluster: string): { release: () => void } | { capacity: number; held: number } {
    const capacity = capacityOf(this.store.get(storageKey(ManagementClusterResource, '', cluster))?.object);
    const held = this.held(cluster);
    if (capacity !== undefined && held >= capacity) return { capacity, held };
    add(this.inFlight, cluster, 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        add(this.inFlight, cluster, -1);
      },
    };
  }

  /** Records where the HostedCluster at `key` is placed now (undefined: deleted). */
  private set(key: string, obj: KubeObject | undefined): void {
    const now = obj?.metadata.labels?.[LabelManagementCluster] || undefined;
    const before = this.placedOn.get(key);
    if (now === before) return;
    if (before !== undefined) add(this.placed, before, -1);
    if (now === undefined) this.placedOn.delete(key);
    else {
      this.placedOn.set(key, now);
      add(this.placed, now, 1);
    }
  }
}
