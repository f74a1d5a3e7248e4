/**
 * The plugin registry: every built-in plugin name → a factory that validates the plugin's `args`
 * and returns the plugin. Profiles from the configuration file are built from it; the default
 * profile is what runs without a configuration file.
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/scheduler/framework/plugins/registry.go
 */
import { isBindPlugin, isFilterPlugin, isScorePlugin, type Plugin, type Profile } from '../framework/types.js';
import { noArgs } from './args.js';
import { budget } from './budget/budget.js';
import { clusterSelector } from './cluster-selector/cluster-selector.js';
import { controlPlaneNamespace } from './control-plane-namespace/control-plane-namespace.js';
import { defaultBinder } from './default-binder/default-binder.js';
import { leastAllocated } from './least-allocated/least-allocated.js';
import { mostBudget } from './most-budget/most-budget.js';
import { PluginNames, type PluginName } from './names.js';
import { pack } from './pack/pack.js';
import { platformSupported } from './platform-supported/platform-supported.js';
import { ready } from './ready/ready.js';
import { releaseSupported } from './release-supported/release-supported.js';
import { spreadByLabel, spreadByLabelArgs } from './spread-by-label/spread-by-label.js';
import { taintToleration } from './taint-toleration/taint-toleration.js';
import { unschedulable } from './unschedulable/unschedulable.js';

/**
 * Builds a plugin from its `args` (the `pluginConfig` entry of its profile; undefined when none).
 * @throws ArgsError when the args are invalid
 */
export type PluginFactory = (args: Record<string, unknown> | undefined) => Plugin;

const fixed =
  (p: Plugin): PluginFactory =>
  (args) => (noArgs(args), p);

/** Name → factory for every built-in plugin. */
export const registry: Readonly<Record<PluginName, PluginFactory>> = {
  [PluginNames.Ready]: fixed(ready),
  [PluginNames.Unschedulable]: fixed(unschedulable),
  [PluginNames.Budget]: fixed(budget),
  [PluginNames.PlatformSupported]: fixed(platformSupported),
  [PluginNames.ClusterSelector]: fixed(clusterSelector),
  [PluginNames.TaintToleration]: fixed(taintToleration),
  [PluginNames.ReleaseSupported]: fixed(releaseSupported),
  [PluginNames.ControlPlaneNamespace]: fixed(controlPlaneNamespace),
  [PluginNames.MostBudget]: fixed(mostBudget),
  [PluginNames.LeastAllocated]: fixed(leastAllocated),
  [PluginNames.Pack]: fixed(pack),
  [PluginNames.SpreadByLabel]: (args) => spreadByLabel(spreadByLabelArgs(args)),
  [PluginNames.DefaultBinder]: fixed(defaultBinder),
};

/**
 * The args of each plugin that takes some, validated and with defaults filled (what
 * `--print-config` shows, as kube-scheduler prints defaulted plugin args).
 * @throws ArgsError as the plugin's factory
 */
export const argsWithDefaults: Readonly<Partial<Record<PluginName, (args: Record<string, unknown> | undefined) => Record<string, unknown>>>> = {
  [PluginNames.SpreadByLabel]: (args) => ({ ...spreadByLabelArgs(args) }),
};

/** Whether `name` is a registered plugin. */
export const isPluginName = (name: string): name is PluginName => Object.hasOwn(registry, name);

/** Names of the registered plugins that have a given extension point, sorted (for error messages). */
export function pluginsWith(point: 'filter' | 'score' | 'bind'): PluginName[] {
  const has = point === 'filter' ? isFilterPlugin : point === 'score' ? isScorePlugin : isBindPlugin;
  return (Object.keys(registry) as PluginName[]).filter((n) => has(registry[n](undefined))).sort();
}

/** Filters of the default profile, in the order they run (Budget last, so its reason names clusters that fit otherwise). */
export const DefaultFilters: readonly PluginName[] = [
  PluginNames.Ready,
  PluginNames.Unschedulable,
  PluginNames.PlatformSupported,
  PluginNames.ClusterSelector,
  PluginNames.TaintToleration,
  PluginNames.ReleaseSupported,
  PluginNames.ControlPlaneNamespace,
  PluginNames.Budget,
];

/** Scores of the default profile: most budget, with PreferNoSchedule taints as a penalty. */
export const DefaultScores: readonly { name: PluginName; weight: number }[] = [
  { name: PluginNames.MostBudget, weight: 1 },
  { name: PluginNames.TaintToleration, weight: 1 },
];

/**
 * Filters every profile must enable: no placements on lost clusters (Ready), no two HostedClusters
 * sharing one control-plane namespace on a cluster (ControlPlaneNamespace: HyperShift names it
 * `<namespace>-<name>`, so `a-b/c` and `a/b-c` collide), capacity safety (Budget).
 */
export const RequiredFilters: readonly PluginName[] = [PluginNames.Ready, PluginNames.ControlPlaneNamespace, PluginNames.Budget];

/** Name of the profile used when a configuration names none. */
export const DefaultProfileName = 'default';

/** The default profile: {@link DefaultFilters}, {@link DefaultScores}, DefaultBinder. */
export const defaultProfile = (): Profile => ({
  name: DefaultProfileName,
  filters: DefaultFilters.map((n) => registry[n](undefined)).filter(isFilterPlugin),
  scores: DefaultScores.map(({ name, weight }) => ({ plugin: registry[name](undefined), weight })).flatMap(({ plugin, weight }) =>
    isScorePlugin(plugin) ? [{ plugin, weight }] : [],
  ),
  bind: defaultBinder,
});
