/**
 * SpreadByLabel score: spread one tenant's HostedClusters — those in the same namespace — across
 * the values of a topology label on ManagementClusters (default `topology.kubernetes.io/region`),
 * so losing one region loses as few of a tenant's control planes as possible. A cluster scores
 * higher the fewer of the namespace's HostedClusters (bound or assumed) sit on clusters with the
 * same label value, counted over the whole fleet; a cluster without the label scores 0. After
 * kube-scheduler's PodTopologySpread scoring, with the namespace as the selector.
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/
 */
import { isQualifiedName } from '@hcc/client';
import { defaultNormalizeScore } from '../../framework/runtime.js';
import type { ClusterInfo, ScorePlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';
import { ArgsError } from '../args.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.SpreadByLabel;
/** Default `topologyKey`. */
export const DefaultTopologyKey = 'topology.kubernetes.io/region';

/** Arguments (`args:` in the configuration file). */
export interface SpreadByLabelArgs {
  /** ManagementCluster label whose values are the domains to spread across. */
  topologyKey: string;
}

/**
 * Validates `args` and fills defaults.
 * @throws ArgsError naming the field (e.g. `topologyKey: must be a qualified name`)
 */
export function spreadByLabelArgs(args: Record<string, unknown> | undefined): SpreadByLabelArgs {
  const errors: string[] = [];
  for (const k of Object.keys(args ?? {})) if (k !== 'topologyKey') errors.push(`${k}: Unknown field`);
  const key = args?.topologyKey ?? DefaultTopologyKey;
  if (typeof key !== 'string') errors.push(`topologyKey: Invalid value: ${JSON.stringify(key)}: must be a string`);
  else for (const e of isQualifiedName(key)) errors.push(`topologyKey: Invalid value: ${JSON.stringify(key)}: ${e}`);
  if (errors.length) throw new ArgsError(errors);
  return { topologyKey: key as string };
}

/** How many of the namespace's HostedClusters sit in each label value, over every cluster. */
type DomainCounts = Map<string, number>;

/** Creates a SpreadByLabel score plugin for one topology label. */
export function spreadByLabel(args: SpreadByLabelArgs): ScorePlugin {
  const valueOf = (c: ClusterInfo): string | undefined => c.cluster.metadata.labels?.[args.topologyKey];
  return {
    name: Name,
    preScore: (hc, _feasible, all): DomainCounts => {
      const ns = hc.metadata.namespace ?? '';
      const counts: DomainCounts = new Map();
      for (const c of all) {
        const v = valueOf(c);
        if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + (c.namespaces.get(ns) ?? 0));
      }
      return counts;
    },
    score: (_hc, cluster, state) => {
      const v = valueOf(cluster);
      return v === undefined ? -1 : ((state as DomainCounts).get(v) ?? 0);
    },
    normalizeScore: (scores) => {
      const labelled = scores.filter((s) => s >= 0);
      const norm = defaultNormalizeScore(labelled, true);
      let i = 0;
      return scores.map((s) => (s < 0 ? 0 : norm[i++]!));
    },
  };
}
