/**
 * ClusterSelector filter: the HostedCluster annotation
 * `controlcenter.hcc.dev/management-cluster-selector` holds a label selector (Kubernetes selector
 * syntax, e.g. `region=us-east-1,env in (prod)`) that the ManagementCluster's labels must match.
 * A selector that does not parse rules out every cluster, with its own reason. Parsed selectors
 * are memoised by string (the result depends only on the string, so the plugin stays pure).
 * @see https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors
 */
import { AnnotationManagementClusterSelector } from '@hcc/crds';
import { parseSelector, type Selector } from '@hcc/client';
import { Status, type FilterPlugin } from '../../framework/types.js';
import { PluginNames } from '../names.js';

/** Plugin name in configuration files. */
export const Name = PluginNames.ClusterSelector;
/** Reason for a cluster whose labels do not match the selector. */
export const ErrReasonSelectorMismatch = "didn't match management cluster selector";
/** Reason when the annotation does not parse as a selector. */
export const ErrReasonBadSelector = 'invalid management cluster selector';

const cache = new Map<string, Selector | Error>();
function compile(s: string): Selector | Error {
  let v = cache.get(s);
  if (!v) {
    try {
      v = parseSelector(s);
    } catch (e) {
      v = e as Error;
    }
    if (cache.size > 1000) cache.clear();
    cache.set(s, v);
  }
  return v;
}

/** The ClusterSelector filter plugin. */
export const clusterSelector = {
  name: Name,
  filter: (hc, cluster) => {
    const s = hc.metadata.annotations?.[AnnotationManagementClusterSelector];
    if (!s || !s.trim()) return Status.success();
    const sel = compile(s);
    if (sel instanceof Error) return Status.unschedulable(ErrReasonBadSelector);
    return sel.matches(cluster.cluster.metadata.labels ?? {}) ? Status.success() : Status.unschedulable(ErrReasonSelectorMismatch);
  },
} satisfies FilterPlugin;
