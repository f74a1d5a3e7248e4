/**
 * Every built-in plugin name, as scheduler configuration files spell them. A name may stand for
 * several extension points (TaintToleration is a filter and a score, like kube-scheduler's).
 */
export const PluginNames = {
  // filters
  Ready: 'Ready',
  Unschedulable: 'Unschedulable',
  Budget: 'Budget',
  PlatformSupported: 'PlatformSupported',
  ClusterSelector: 'ClusterSelector',
  TaintToleration: 'TaintToleration',
  ReleaseSupported: 'ReleaseSupported',
  ControlPlaneNamespace: 'ControlPlaneNamespace',
  // scores
  MostBudget: 'MostBudget',
  LeastAllocated: 'LeastAllocated',
  Pack: 'Pack',
  SpreadByLabel: 'SpreadByLabel',
  // bind
  DefaultBinder: 'DefaultBinder',
} as const;

/** One of {@link PluginNames}. */
export type PluginName = (typeof PluginNames)[keyof typeof PluginNames];
