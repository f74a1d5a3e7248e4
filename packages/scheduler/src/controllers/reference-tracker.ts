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

export class ReferenceTracker {
  private readonly entries = new Map<string, Entry>();
  private readonly counts = new Map<string, Map<string, number>>();

  /**
   * Records the current state of an object (undefined: deleted).
   * @param cluster - where it is placed ('' when not placed)
   * @returns reference keys whose set of clusters may have changed
   */
  observe(kind: Kind, key: string, obj: HostedCluster | NodePool | undefined, cluster: string): string[] {
    const id = `${kind}/${key}`;
    const prev = this.entries.get(id);
    if (!obj) {
      if (!prev) return [];
      this.entries.delete(id);
      this.apply(prev, -1);
      return prev.refs;
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
    if (prev) this.apply(prev, -1);
    this.apply(next, +1);
    this.entries.set(id, next);
    return prev ? [...new Set([...prev.refs, ...refs])] : refs;
  }

  /** Clusters that need the referenced object `Secret/ns/name` or `ConfigMap/ns/name`. */
  clustersFor(refKey: string): Set<string> {
    const m = this.counts.get(refKey);
    return new Set(m ? [...m.entries()].filter(([, n]) => n > 0).map(([c]) => c) : []);
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
