/**
 * Which management clusters need each Secret and ConfigMap, kept incrementally: for every
 * HostedCluster and NodePool the tracker remembers its references and its cluster (a NodePool's
 * own label, else its HostedCluster's), and counts, per referenced object, the placed objects on
 * each cluster that reference it. An update that changes neither the spec (generation) nor the
 * placement costs a map lookup — status updates never recompute references — and a Secret shared
 * by thousands of HostedClusters is never scanned.
 */
import { LabelManagementCluster, type HostedCluster, type KubeObject, type NodePool } from '@hcc/crds';
import { referencedKeys } from './placement-propagation.js';

interface Entry {
  uid: string;
  generation: number | undefined;
  cluster: string;
  /** Reference keys `Secret/ns/name`, `ConfigMap/ns/name`. */
  refs: string[];
}

type Kind = 'HostedCluster' | 'NodePool';

/**
 * The index above, in memory and empty at construction: every HostedCluster and NodePool event goes to
 * {@link ReferenceTracker.observe}, and {@link ReferenceTracker.clustersFor} answers which clusters need a Secret or
 * ConfigMap. Keys are the objects' `namespace/name`; reference keys `Secret/ns/name` and `ConfigMap/ns/name`.
 */
export class ReferenceTracker {
  private readonly entries = new Map<string, Entry>();
  private readonly counts = new Map<string, Map<string, number>>();

  /**
   * Records the current state of an object (undefined: deleted).
   * @param cluster - where it is placed ('' when not placed)
   * @returns reference keys whose set of clusters changed: a cluster gained its first placed
   *   object referencing it, or lost its last one. Placing the 500th HostedCluster that shares a
   *   pull secret on a cluster that already has one returns nothing, so the shared Secret is not
   *   reconciled once per placement.
   */
  observe(kind: Kind, key: string, obj: HostedCluster | NodePool | undefined, cluster: string): string[] {
    const id = `${kind}/${key}`;
    const prev = this.entries.get(id);
    if (!obj) {
      if (!prev) return [];
      this.entries.delete(id);
      return this.changed(prev, undefined);
    }
    const uid = obj.metadata.uid ?? '';
    const generation = obj.metadata.generation;
    const sameSpec = prev !== undefined && prev.uid === uid && prev.generation === generation && generation !== undefined;
    if (sameSpec && prev.cluster === cluster) return [];
    // Placed or moved without a spec change (a binding): same references, other cluster.
    let refs: string[];
    if (sameSpec) refs = prev.refs;
    else {
      const r = referencedKeys(obj, kind);
      refs = [...r.secrets.map((k) => `Secret/${k}`), ...r.configMaps.map((k) => `ConfigMap/${k}`)];
    }
    const next: Entry = { uid, generation, cluster, refs };
    this.entries.set(id, next);
    return this.changed(prev, next);
  }

  /** Moves the counts from `prev` to `next` (either may be absent); returns the refs whose cluster set changed. */
  private changed(prev: Entry | undefined, next: Entry | undefined): string[] {
    const refs = new Set([...(prev?.refs ?? []), ...(next?.refs ?? [])]);
    // Only the clusters of prev and next can enter or leave a ref's set.
    const clusters = [...new Set([prev?.cluster ?? '', next?.cluster ?? ''])].filter((c) => c !== '');
    if (clusters.length === 0) return [];
    const members = (ref: string) => clusters.map((c) => (this.counts.get(ref)?.get(c) ?? 0) > 0);
    const before = new Map([...refs].map((r) => [r, members(r)]));
    if (prev) this.apply(prev, -1);
    if (next) this.apply(next, +1);
    return [...refs].filter((r) => members(r).some((m, i) => m !== before.get(r)![i]));
  }

  /** Clusters that need the referenced object `Secret/ns/name` or `ConfigMap/ns/name`. */
  clustersFor(refKey: string): Set<string> {
    // apply() keeps only positive counts.
    return new Set(this.counts.get(refKey)?.keys());
  }

  private apply(e: Entry, delta: number): void {
    if (!e.cluster) return;
    for (const ref of e.refs) {
      let m = this.counts.get(ref);
      if (!m) this.counts.set(ref, (m = new Map()));
      const n = (m.get(e.cluster) ?? 0) + delta;
      if (n > 0) m.set(e.cluster, n);
      else m.delete(e.cluster);
      if (m.size === 0) this.counts.delete(ref);
    }
  }
}

/** The cluster of a placed object: its own placement label. */
export const clusterLabel = (o: KubeObject | undefined): string => o?.metadata.labels?.[LabelManagementCluster] ?? '';
