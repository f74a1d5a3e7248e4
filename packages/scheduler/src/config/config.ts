/**
 * The scheduler configuration file (YAML; `hcc scheduler --config FILE`, `hcc up
 * --scheduler-config FILE`): profiles — which filters run, in which order, which scores with
 * which weights, plugin args — and the optional scale-out signal. After kube-scheduler's
 * KubeSchedulerConfiguration, flattened:
 *
 * ```yaml
 * apiVersion: controlcenter.hcc.dev/v1alpha1
 * kind: SchedulerConfiguration
 * defaultProfile: default                 # used when a HostedCluster names none
 * profiles:
 * - name: default
 *   filters: [Ready, Unschedulable, PlatformSupported, ClusterSelector, TaintToleration, ReleaseSupported, ControlPlaneNamespace, Budget]
 *   scores:
 *   - {name: MostBudget, weight: 1}
 *   - {name: SpreadByLabel, weight: 2}
 *   pluginConfig:
 *   - {name: SpreadByLabel, args: {topologyKey: topology.kubernetes.io/region}}
 * scaleOut:
 *   webhook: https://autoscaler.example.com/hcc   # POST, JSON body
 *   command: [/usr/local/bin/add-cluster, --region, eu-west-1]   # env HCC_MISSING_SLOTS, JSON on stdin
 *   minIntervalSeconds: 300
 * ```
 *
 * Contract: loading either returns a complete, validated configuration (defaults filled) or throws
 * {@link SchedulerConfigError} listing every problem with its path, worded like the API server's
 * field errors (`profiles[0].scores[1].name: Unsupported value: "Packk": supported values: ...`).
 * Omitted `filters` or `scores` mean the defaults; a given list is the complete list. Every
 * profile must keep the Ready, ControlPlaneNamespace and Budget filters, Budget last. A HostedCluster picks a profile with the
 * annotation `controlcenter.hcc.dev/scheduler-profile`.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { HostedCluster } from '@hcc/crds';
import { goYAMLOptions, MaxTimerSeconds } from '@hcc/client';
import { isBindPlugin, isFilterPlugin, isScorePlugin, type Plugin, type Profile } from '../framework/types.js';
import { ArgsError } from '../plugins/args.js';
import { PluginNames, type PluginName } from '../plugins/names.js';
import { argsWithDefaults, DefaultFilters, DefaultProfileName, DefaultScores, isPluginName, pluginsWith, registry, RequiredFilters } from '../plugins/registry.js';

/** `apiVersion` of the configuration file (optional in the file; checked when present). */
export const SchedulerConfigAPIVersion = 'controlcenter.hcc.dev/v1alpha1';
/** `kind` of the configuration file (optional in the file; checked when present). */
export const SchedulerConfigKind = 'SchedulerConfiguration';

/** HostedCluster annotation naming the profile that schedules it. */
export { AnnotationSchedulerProfile } from '@hcc/crds';
import { AnnotationSchedulerProfile } from '@hcc/crds';

/** Where and how often to say that the fleet is out of budget. */
export interface ScaleOutSettings {
  /** POSTed a JSON {@link ScaleOutRequest}-shaped body. */
  webhook?: string;
  /** Run with env `HCC_MISSING_SLOTS` and `HCC_PENDING_HOSTEDCLUSTERS` and the JSON body on stdin. */
  command?: string[];
  /** At most one signal (webhook, command and Event) per this many seconds. Default 300. */
  minIntervalSeconds: number;
  /** Slots must have been missing for this long before the first signal, in seconds. Default 10. */
  debounceSeconds: number;
  /** A webhook call or command running longer fails, in seconds. Default 30. */
  timeoutSeconds: number;
}

/** A loaded configuration: built profiles and scale-out settings. */
export interface SchedulerConfig {
  profiles: Profile[];
  /** Name of the profile for HostedClusters without the profile annotation. */
  defaultProfile: string;
  scaleOut: ScaleOutSettings;
  /** The configuration as data (defaults filled), for `--print-config` and logs. */
  effective: Record<string, unknown>;
}

/** An invalid configuration; `problems` are `path: message` lines. */
export class SchedulerConfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`invalid scheduler configuration ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SchedulerConfigError';
  }
}

const ScaleOutDefaults = { minIntervalSeconds: 300, debounceSeconds: 10, timeoutSeconds: 30 } as const;
const profileNameRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const show = (v: unknown): string => JSON.stringify(v) ?? String(v);
const quoteList = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

/** Collects field errors while walking the document. */
class Problems {
  readonly list: string[] = [];
  add(path: string, msg: string): void {
    this.list.push(path ? `${path}: ${msg}` : msg);
  }
  unknownFields(path: string, o: Obj, known: readonly string[]): void {
    for (const k of Object.keys(o)) if (!known.includes(k)) this.add(path ? `${path}.${k}` : k, 'Unknown field');
  }
}

function buildProfile(raw: unknown, path: string, p: Problems): Profile | undefined {
  if (!isObj(raw)) {
    p.add(path, `Invalid value: ${show(raw)}: must be an object`);
    return undefined;
  }
  p.unknownFields(path, raw, ['name', 'filters', 'scores', 'pluginConfig']);
  const name = raw.name ?? DefaultProfileName;
  if (typeof name !== 'string' || !profileNameRe.test(name) || name.length > 63) {
    p.add(`${path}.name`, `Invalid value: ${show(name)}: must be a DNS label (lowercase letters, digits and '-', at most 63 characters)`);
  }

  // pluginConfig: args per plugin name, one instance per plugin per profile.
  const args = new Map<string, { index: number; args: Obj }>();
  if (raw.pluginConfig !== undefined) {
    if (!Array.isArray(raw.pluginConfig)) p.add(`${path}.pluginConfig`, 'Invalid value: must be a list of {name, args}');
    else
      raw.pluginConfig.forEach((pc, i) => {
        const at = `${path}.pluginConfig[${i}]`;
        if (!isObj(pc)) return p.add(at, 'Invalid value: must be an object with name and args');
        p.unknownFields(at, pc, ['name', 'args']);
        // Args go to a filter or score plugin a profile enables (the binder takes none and is not enabled so).
        const configurable = [...new Set([...pluginsWith('filter'), ...pluginsWith('score')])].sort();
        if (typeof pc.name !== 'string' || !isPluginName(pc.name) || !configurable.includes(pc.name)) return p.add(`${at}.name`, `Unsupported value: ${show(pc.name)}: supported values: ${quoteList(configurable)}`);
        if (args.has(pc.name)) return p.add(`${at}.name`, `Duplicate value: ${show(pc.name)}`);
        if (pc.args !== undefined && !isObj(pc.args)) return p.add(`${at}.args`, 'Invalid value: must be an object');
        args.set(pc.name, { index: i, args: (pc.args as Obj | undefined) ?? {} });
      });
  }
  const instances = new Map<string, Plugin | null>();
  const instance = (n: PluginName): Plugin | undefined => {
    if (!instances.has(n)) {
      try {
        instances.set(n, registry[n](args.get(n)?.args));
      } catch (e) {
        const at = `${path}.pluginConfig[${args.get(n)?.index ?? 0}].args`;
        // `field: message` problems are said at the field's path, as every other problem is.
        if (e instanceof ArgsError) {
          for (const m of e.problems) {
            const cut = m.indexOf(': ');
            if (cut > 0) p.add(`${at}.${m.slice(0, cut)}`, m.slice(cut + 2));
            else p.add(at, m);
          }
        } else p.add(at, (e as Error).message);
        instances.set(n, null);
      }
    }
    return instances.get(n) ?? undefined;
  };

  // filters: names, in order.
  const filterNames = raw.filters === undefined ? [...DefaultFilters] : raw.filters;
  const filters: Profile['filters'] = [];
  if (!Array.isArray(filterNames)) p.add(`${path}.filters`, 'Invalid value: must be a list of plugin names');
  else {
    const seen = new Set<string>();
    filterNames.forEach((n, i) => {
      const at = `${path}.filters[${i}]`;
      if (typeof n !== 'string' || !isPluginName(n) || !isFilterPlugin(registry[n](undefined))) {
        return p.add(at, `Unsupported value: ${show(n)}: supported values: ${quoteList(pluginsWith('filter'))}`);
      }
      if (seen.has(n)) return p.add(at, `Duplicate value: ${show(n)}`);
      seen.add(n);
      const plugin = instance(n);
      if (plugin && isFilterPlugin(plugin)) filters.push(plugin);
    });
    for (const r of RequiredFilters) {
      if (!seen.has(r)) {
        const why =
          r === PluginNames.Budget
            ? 'without it nothing keeps a management cluster under its capacity'
            : r === PluginNames.ControlPlaneNamespace
              ? 'without it two HostedClusters whose control-plane namespaces are the same (a-b/c and a/b-c are both a-b-c) could share a management cluster'
              : 'without it clusters whose syncer is gone would get new placements';
        p.add(`${path}.filters`, `Required value: must include "${r}" (${why})`);
      }
    }
    // A HostedCluster stopped by Budget counts as waiting for room (the scale-out signal, its
    // "no budget" message): true only when every filter before it passed.
    // Checked against the list as given (less repeated entries), unknown entries included, so both
    // errors show at once.
    const firsts = filterNames.filter((n, i) => filterNames.indexOf(n) === i);
    const budgetAt = filterNames.indexOf(PluginNames.Budget);
    if (budgetAt >= 0 && firsts.at(-1) !== PluginNames.Budget) {
      p.add(`${path}.filters[${budgetAt}]`, `Invalid value: "${PluginNames.Budget}": must be the last filter (a HostedCluster it stops is counted as waiting for room, which holds only when every other filter let the cluster through)`);
    }
  }

  // scores: {name, weight}.
  const scoreEntries = raw.scores === undefined ? DefaultScores.map((s) => ({ ...s })) : raw.scores;
  const scores: Profile['scores'] = [];
  if (!Array.isArray(scoreEntries)) p.add(`${path}.scores`, 'Invalid value: must be a list of {name, weight}');
  else {
    const seen = new Set<string>();
    scoreEntries.forEach((s, i) => {
      const at = `${path}.scores[${i}]`;
      const entry: Obj = typeof s === 'string' ? { name: s } : isObj(s) ? s : {};
      if (typeof s !== 'string' && !isObj(s)) return p.add(at, `Invalid value: ${show(s)}: must be {name, weight}`);
      p.unknownFields(at, entry, ['name', 'weight']);
      // Every bad field of the entry is reported (kube's validation returns the whole ErrorList), not the first.
      const n = entry.name;
      let ok = true;
      if (n === undefined || n === null || n === '') {
        p.add(`${at}.name`, 'Required value');
        ok = false;
      } else if (typeof n !== 'string' || !isPluginName(n) || !isScorePlugin(registry[n](undefined))) {
        p.add(`${at}.name`, `Unsupported value: ${show(n)}: supported values: ${quoteList(pluginsWith('score'))}`);
        ok = false;
      } else if (seen.has(n)) {
        p.add(`${at}.name`, `Duplicate value: ${show(n)}`);
        ok = false;
      } else seen.add(n);
      const weight = entry.weight ?? 1;
      if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 1 || weight > 100) {
        p.add(`${at}.weight`, `Invalid value: ${show(weight)}: must be an integer from 1 to 100`);
        ok = false;
      }
      if (!ok || typeof n !== 'string' || !isPluginName(n) || typeof weight !== 'number') return;
      const plugin = instance(n);
      if (plugin && isScorePlugin(plugin)) scores.push({ plugin, weight });
    });
  }
  // Every plugin's args are checked, also where an entry that enables it has problems of its own
  // (a bad weight) or nothing enables it: the file's problems are listed all at once.
  for (const n of args.keys()) instance(n as PluginName);
  for (const n of args.keys()) {
    const used = (Array.isArray(filterNames) && filterNames.includes(n)) || (Array.isArray(scoreEntries) && scoreEntries.some((s) => s === n || (isObj(s) && s.name === n)));
    if (!used) p.add(`${path}.pluginConfig`, `Invalid value: "${n}": has args but is not enabled in filters or scores`);
  }
  const bind = instance(PluginNames.DefaultBinder);
  if (typeof name !== 'string' || !bind || !isBindPlugin(bind)) return undefined;
  return { name, filters, scores, bind };
}

function buildScaleOut(raw: unknown, p: Problems): ScaleOutSettings {
  const out: ScaleOutSettings = { ...ScaleOutDefaults };
  if (raw === undefined || raw === null) return out;
  if (!isObj(raw)) {
    p.add('scaleOut', 'Invalid value: must be an object');
    return out;
  }
  p.unknownFields('scaleOut', raw, ['webhook', 'command', 'minIntervalSeconds', 'debounceSeconds', 'timeoutSeconds']);
  if (raw.webhook !== undefined) {
    let ok = false;
    if (typeof raw.webhook === 'string') {
      try {
        ok = ['http:', 'https:'].includes(new URL(raw.webhook).protocol);
      } catch {
        ok = false;
      }
    }
    if (ok) out.webhook = raw.webhook as string;
    else p.add('scaleOut.webhook', `Invalid value: ${show(raw.webhook)}: must be an http or https URL`);
  }
  if (raw.command !== undefined) {
    const c = raw.command;
    if (Array.isArray(c) && c.length > 0 && c.every((a) => typeof a === 'string') && (c[0] as string).length > 0) out.command = c as string[];
    else p.add('scaleOut.command', `Invalid value: ${show(c)}: must be a non-empty list of strings (argv, no shell)`);
  }
  for (const f of ['minIntervalSeconds', 'debounceSeconds', 'timeoutSeconds'] as const) {
    const v = raw[f];
    if (v === undefined) continue;
    const min = f === 'debounceSeconds' ? 0 : 0.001;
    // Each becomes a timer: Node fires one longer than 2^31−1 ms after 1 ms.
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > MaxTimerSeconds) {
      p.add(`scaleOut.${f}`, `Invalid value: ${show(v)}: must be a number ${f === 'debounceSeconds' ? '>= 0' : '> 0'} and <= ${MaxTimerSeconds} (about 24.8 days)`);
    } else out[f] = v;
  }
  return out;
}

/**
 * The configuration as data, with defaults filled: every enabled plugin that takes args has a
 * `pluginConfig` entry with its args defaulted (`SpreadByLabel`'s `topologyKey`), as
 * kube-scheduler's printed configuration has.
 */
function effectiveOf(profiles: Profile[], defaultProfile: string, scaleOut: ScaleOutSettings, raw: Obj): Record<string, unknown> {
  const rawProfiles = Array.isArray(raw.profiles) ? (raw.profiles as Obj[]) : [];
  return {
    apiVersion: SchedulerConfigAPIVersion,
    kind: SchedulerConfigKind,
    defaultProfile,
    profiles: profiles.map((pr) => {
      const rp = rawProfiles.find((r) => isObj(r) && (r.name ?? DefaultProfileName) === pr.name);
      const configured = rp && Array.isArray(rp.pluginConfig) ? (rp.pluginConfig as Obj[]) : [];
      const enabled = [...new Set([...pr.filters.map((f) => f.name), ...pr.scores.map((s) => s.plugin.name)])] as PluginName[];
      const pluginConfig = enabled.flatMap((n) => {
        const defaulted = argsWithDefaults[n];
        if (!defaulted) return [];
        const given = configured.find((c) => isObj(c) && c.name === n)?.args;
        return [{ name: n, args: defaulted(isObj(given) ? given : undefined) }];
      });
      return {
        name: pr.name,
        filters: pr.filters.map((f) => f.name),
        scores: pr.scores.map((s) => ({ name: s.plugin.name, weight: s.weight })),
        ...(pluginConfig.length ? { pluginConfig } : {}),
      };
    }),
    scaleOut,
  };
}

/**
 * Parses and validates a configuration document.
 * @param text - YAML (or JSON) text; empty text means the defaults
 * @param source - file name for error messages
 * @throws SchedulerConfigError listing every problem
 */
export function parseSchedulerConfig(text: string, source = '<config>'): SchedulerConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text, goYAMLOptions);
  } catch (e) {
    throw new SchedulerConfigError(source, [`YAML: ${(e as Error).message.split('\n')[0]}`]);
  }
  doc ??= {};
  const p = new Problems();
  if (!isObj(doc)) throw new SchedulerConfigError(source, ['Invalid value: the document must be a mapping']);
  p.unknownFields('', doc, ['apiVersion', 'kind', 'defaultProfile', 'profiles', 'scaleOut']);
  if (doc.apiVersion !== undefined && doc.apiVersion !== SchedulerConfigAPIVersion) p.add('apiVersion', `Unsupported value: ${show(doc.apiVersion)}: supported values: "${SchedulerConfigAPIVersion}"`);
  if (doc.kind !== undefined && doc.kind !== SchedulerConfigKind) p.add('kind', `Unsupported value: ${show(doc.kind)}: supported values: "${SchedulerConfigKind}"`);
  const rawProfiles = doc.profiles ?? [{ name: DefaultProfileName }];
  const profiles: Profile[] = [];
  if (!Array.isArray(rawProfiles) || rawProfiles.length === 0) p.add('profiles', 'Required value: must list at least one profile');
  else {
    const names = new Set<string>();
    rawProfiles.forEach((rp, i) => {
      const pr = buildProfile(rp, `profiles[${i}]`, p);
      if (!pr) return;
      if (names.has(pr.name)) return p.add(`profiles[${i}].name`, `Duplicate value: ${show(pr.name)}`);
      names.add(pr.name);
      profiles.push(pr);
    });
  }
  let defaultProfile = profiles[0]?.name ?? DefaultProfileName;
  if (doc.defaultProfile !== undefined) {
    if (typeof doc.defaultProfile !== 'string' || !profiles.some((pr) => pr.name === doc.defaultProfile)) {
      p.add('defaultProfile', `Not found: ${show(doc.defaultProfile)}: profiles are ${quoteList(profiles.map((pr) => pr.name))}`);
    } else defaultProfile = doc.defaultProfile;
  }
  const scaleOut = buildScaleOut(doc.scaleOut, p);
  if (p.list.length) throw new SchedulerConfigError(source, p.list);
  return { profiles, defaultProfile, scaleOut, effective: effectiveOf(profiles, defaultProfile, scaleOut, doc) };
}

/**
 * Reads and validates a configuration file.
 * @throws SchedulerConfigError (invalid content, or the file cannot be read)
 */
export function loadSchedulerConfig(file: string): SchedulerConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new SchedulerConfigError(file, [(e as Error).message]);
  }
  return parseSchedulerConfig(text, file);
}

/** The configuration used without a file: one profile `default`, no scale-out command or webhook. */
export const defaultSchedulerConfig = (): SchedulerConfig => parseSchedulerConfig('', '<defaults>');

/**
 * The profile that schedules a HostedCluster: the one its `controlcenter.hcc.dev/scheduler-profile`
 * annotation names, else the default profile.
 * @returns the profile, or an Error whose message explains the unknown name (for the condition)
 */
export function profileFor(config: Pick<SchedulerConfig, 'profiles' | 'defaultProfile'>, hc: HostedCluster): Profile | Error {
  const want = hc.metadata.annotations?.[AnnotationSchedulerProfile]?.trim() || config.defaultProfile;
  const pr = config.profiles.find((x) => x.name === want);
  return pr ?? new Error(`scheduler profile "${want}" is not configured (profiles: ${config.profiles.map((x) => x.name).join(', ')})`);
}

/** The effective configuration as YAML (for `hcc scheduler --print-config`). */
export const formatSchedulerConfig = (config: SchedulerConfig): string => toYaml(config.effective, goYAMLOptions);
