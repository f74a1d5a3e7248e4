/** Every built-in plugin name, as used in scheduler configuration files. */
export const PluginNames = {
  Ready: 'Ready',
  Unschedulable: 'Unschedulable',
  Budget: 'Budget',
  PlatformSupported: 'PlatformSupported',
  ClusterSelector: 'ClusterSelector',
  MostBudget: 'MostBudget',
} as const;
