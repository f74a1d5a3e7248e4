import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostedCluster } from '../testing/fixtures.js';
import { defaultSchedulerConfig, formatSchedulerConfig, loadSchedulerConfig, parseSchedulerConfig, profileFor, SchedulerConfigError } from './config.js';

const problems = (text: string): string[] => {
  try {
    parseSchedulerConfig(text, 'test.yaml');
  } catch (e) {
    if (e instanceof SchedulerConfigError) return e.problems;
    throw e;
  }
  return [];
};

describe('parseSchedulerConfig: valid documents', () => {
  it('reads its own --print-config back, also with names a YAML 1.1 reader takes for booleans ("on", "y")', () => {
    const text = 'defaultProfile: "on"\nprofiles:\n- name: "on"\n  scores: [{name: SpreadByLabel, weight: 1}]\n  pluginConfig:\n  - {name: SpreadByLabel, args: {topologyKey: "y"}}\n';
    const c = parseSchedulerConfig(text);
    expect(c.defaultProfile).toBe('on');
    const printed = formatSchedulerConfig(c);
    expect(printed).toContain('defaultProfile: "on"');
    expect(parseSchedulerConfig(printed).effective).toEqual(c.effective);
  });

  it('empty text is the default configuration', () => {
    const c = parseSchedulerConfig('');
    expect(c.defaultProfile).toBe('default');
    expect(c.profiles.map((p) => p.name)).toEqual(['default']);
    expect(c.profiles[0]!.filters.map((f) => f.name)).toEqual([
      'Ready',
      'Unschedulable',
      'PlatformSupported',
      'ClusterSelector',
      'TaintToleration',
      'ReleaseSupported',
      'ControlPlaneNamespace',
      'Budget',
    ]);
    expect(c.profiles[0]!.scores.map((s) => [s.plugin.name, s.weight])).toEqual([
      ['MostBudget', 1],
      ['TaintToleration', 1],
    ]);
    expect(c.profiles[0]!.bind.name).toBe('DefaultBinder');
    expect(c.scaleOut).toEqual({ minIntervalSeconds: 300, debounceSeconds: 10, timeoutSeconds: 30 });
  });

  it('a full document', () => {
    const c = parseSchedulerConfig(`
apiVersion: controlcenter.hcc.dev/v1alpha1
kind: SchedulerConfiguration
defaultProfile: spread
profiles:
- name: spread
  filters: [Ready, ControlPlaneNamespace, Budget]
  scores:
  - {name: SpreadByLabel, weight: 3}
  - MostBudget
  pluginConfig:
  - {name: SpreadByLabel, args: {topologyKey: example.com/zone}}
- name: cost
  scores: [{name: Pack, weight: 1}]
scaleOut:
  webhook: http://127.0.0.1:9/scale
  command: [/bin/true, --flag]
  minIntervalSeconds: 1
  debounceSeconds: 0
`);
    expect(c.defaultProfile).toBe('spread');
    expect(c.profiles.map((p) => [p.name, p.filters.map((f) => f.name), p.scores.map((s) => `${s.plugin.name}×${s.weight}`)])).toEqual([
      ['spread', ['Ready', 'ControlPlaneNamespace', 'Budget'], ['SpreadByLabel×3', 'MostBudget×1']],
      ['cost', expect.arrayContaining(['Ready', 'Budget', 'TaintToleration']), ['Pack×1']],
    ]);
    expect(c.scaleOut).toEqual({ webhook: 'http://127.0.0.1:9/scale', command: ['/bin/true', '--flag'], minIntervalSeconds: 1, debounceSeconds: 0, timeoutSeconds: 30 });
    expect(c.effective).toMatchObject({ defaultProfile: 'spread', profiles: [{ name: 'spread', pluginConfig: [{ name: 'SpreadByLabel', args: { topologyKey: 'example.com/zone' } }] }, { name: 'cost' }] });
  });

  it('prints the args of every enabled plugin that takes some, defaulted, as kube-scheduler does', () => {
    const c = parseSchedulerConfig('profiles:\n- name: spread\n  scores: [SpreadByLabel]\n- name: plain\n');
    const profiles = c.effective.profiles as { name: string; pluginConfig?: unknown }[];
    expect(profiles.find((p) => p.name === 'spread')?.pluginConfig).toEqual([{ name: 'SpreadByLabel', args: { topologyKey: 'topology.kubernetes.io/region' } }]);
    expect(profiles.find((p) => p.name === 'plain')?.pluginConfig).toBeUndefined();
    // And it reads back to the same configuration.
    expect(parseSchedulerConfig(JSON.stringify(c.effective)).effective).toEqual(c.effective);
  });

  it('JSON works too (YAML is a superset)', () => {
    expect(parseSchedulerConfig('{"profiles":[{"name":"p","scores":[]}]}').profiles[0]!.scores).toEqual([]);
  });
});

describe('parseSchedulerConfig: every problem, with its path', () => {
  it.each([
    { name: 'YAML syntax', input: 'profiles: [', want: [expect.stringMatching(/^YAML: /)] },
    { name: 'not a mapping', input: '- a', want: ['Invalid value: the document must be a mapping'] },
    { name: 'unknown top-level field', input: 'profile: []', want: ['profile: Unknown field'] },
    { name: 'wrong kind', input: 'kind: KubeSchedulerConfiguration', want: ['kind: Unsupported value: "KubeSchedulerConfiguration": supported values: "SchedulerConfiguration"'] },
    { name: 'no profiles', input: 'profiles: []', want: ['profiles: Required value: must list at least one profile'] },
    {
      name: 'unknown filter',
      input: 'profiles: [{filters: [Ready, Readyy, ControlPlaneNamespace, Budget]}]',
      want: [expect.stringMatching(/^profiles\[0\]\.filters\[1\]: Unsupported value: "Readyy": supported values: "Budget", "ClusterSelector", /)],
    },
    {
      name: 'a score plugin as a filter',
      input: 'profiles: [{filters: [Ready, ControlPlaneNamespace, Pack, Budget]}]',
      want: [expect.stringMatching(/^profiles\[0\]\.filters\[2\]: Unsupported value: "Pack"/)],
    },
    {
      name: 'Budget is required',
      input: 'profiles: [{filters: [Ready, ControlPlaneNamespace]}]',
      want: ['profiles[0].filters: Required value: must include "Budget" (without it nothing keeps a management cluster under its capacity)'],
    },
    {
      name: 'ControlPlaneNamespace is required',
      input: 'profiles: [{filters: [Ready, Budget]}]',
      want: ['profiles[0].filters: Required value: must include "ControlPlaneNamespace" (without it two HostedClusters whose control-plane namespaces are the same (a-b/c and a/b-c are both a-b-c) could share a management cluster)'],
    },
    { name: 'Ready is required', input: 'profiles: [{filters: [ControlPlaneNamespace, Budget]}]', want: [expect.stringMatching(/^profiles\[0\]\.filters: Required value: must include "Ready"/)] },
    {
      name: 'Budget must be the last filter',
      input: 'profiles: [{filters: [Budget, Ready, ControlPlaneNamespace, PlatformSupported]}]',
      want: ['profiles[0].filters[0]: Invalid value: "Budget": must be the last filter (a HostedCluster it stops is counted as waiting for room, which holds only when every other filter let the cluster through)'],
    },
    {
      name: 'Budget before an unknown filter: both said at once',
      input: 'profiles: [{filters: [Ready, ControlPlaneNamespace, Budget, Bogus]}]',
      want: [
        expect.stringMatching(/^profiles\[0\]\.filters\[3\]: Unsupported value: "Bogus": supported values: /),
        'profiles[0].filters[2]: Invalid value: "Budget": must be the last filter (a HostedCluster it stops is counted as waiting for room, which holds only when every other filter let the cluster through)',
      ],
    },
    { name: 'duplicate filter', input: 'profiles: [{filters: [Ready, ControlPlaneNamespace, Budget, Ready]}]', want: ['profiles[0].filters[3]: Duplicate value: "Ready"'] },
    {
      name: 'unknown score',
      input: 'profiles: [{scores: [{name: Packk}]}]',
      want: ['profiles[0].scores[0].name: Unsupported value: "Packk": supported values: "LeastAllocated", "MostBudget", "Pack", "SpreadByLabel", "TaintToleration"'],
    },
    { name: 'weight 0', input: 'profiles: [{scores: [{name: Pack, weight: 0}]}]', want: ['profiles[0].scores[0].weight: Invalid value: 0: must be an integer from 1 to 100'] },
    { name: 'fractional weight', input: 'profiles: [{scores: [{name: Pack, weight: 1.5}]}]', want: ['profiles[0].scores[0].weight: Invalid value: 1.5: must be an integer from 1 to 100'] },
    {
      name: 'bad name and bad weight in one entry',
      input: 'profiles: [{scores: [{name: Packk, weight: 0}, {name: Pack}, {name: Pack, weight: 101}]}]',
      want: [
        'profiles[0].scores[0].name: Unsupported value: "Packk": supported values: "LeastAllocated", "MostBudget", "Pack", "SpreadByLabel", "TaintToleration"',
        'profiles[0].scores[0].weight: Invalid value: 0: must be an integer from 1 to 100',
        'profiles[0].scores[2].name: Duplicate value: "Pack"',
        'profiles[0].scores[2].weight: Invalid value: 101: must be an integer from 1 to 100',
      ],
    },
    { name: 'score without a name', input: 'profiles: [{scores: [{weight: 5}]}]', want: ['profiles[0].scores[0].name: Required value'] },
    { name: 'unknown score field', input: 'profiles: [{scores: [{name: Pack, wieght: 2}]}]', want: ['profiles[0].scores[0].wieght: Unknown field'] },
    { name: 'duplicate profile', input: 'profiles: [{name: a}, {name: a}]', want: ['profiles[1].name: Duplicate value: "a"'] },
    { name: 'bad profile name', input: 'profiles: [{name: Big_Name}]', want: [expect.stringMatching(/^profiles\[0\]\.name: Invalid value: "Big_Name": must be a DNS label/)] },
    { name: 'unknown defaultProfile', input: 'defaultProfile: x\nprofiles: [{name: a}]', want: ['defaultProfile: Not found: "x": profiles are "a"'] },
    {
      name: 'bad plugin args',
      input: 'profiles: [{scores: [SpreadByLabel], pluginConfig: [{name: SpreadByLabel, args: {topologyKey: "a b"}}]}]',
      want: [expect.stringMatching(/^profiles\[0\]\.pluginConfig\[0\]\.args\.topologyKey: Invalid value: "a b": /)],
    },
    {
      // Every problem at once: the args are checked although the entry enabling the plugin has a bad weight.
      name: 'bad plugin args beside a bad weight',
      input: 'profiles: [{scores: [{name: SpreadByLabel, weight: 0}], pluginConfig: [{name: SpreadByLabel, args: {topologyKey: "a b"}}]}]',
      want: [expect.stringMatching(/^profiles\[0\]\.scores\[0\]\.weight: Invalid value: 0: /), expect.stringMatching(/^profiles\[0\]\.pluginConfig\[0\]\.args\.topologyKey: Invalid value: "a b": /)],
    },
    {
      name: 'args for a plugin that takes none',
      input: 'profiles: [{pluginConfig: [{name: Budget, args: {x: 1}}]}]',
      want: ['profiles[0].pluginConfig[0].args.x: Unknown field (this plugin takes no args)'],
    },
    {
      name: 'args for a plugin not enabled',
      input: 'profiles: [{pluginConfig: [{name: SpreadByLabel, args: {}}]}]',
      want: ['profiles[0].pluginConfig: Invalid value: "SpreadByLabel": has args but is not enabled in filters or scores'],
    },
    {
      // The binder is no filter or score: no profile enables it so, and the list offered does not name it.
      name: 'args for the binder',
      input: 'profiles: [{pluginConfig: [{name: DefaultBinder, args: {}}]}]',
      want: [expect.stringMatching(/^profiles\[0\]\.pluginConfig\[0\]\.name: Unsupported value: "DefaultBinder": supported values: "Budget", (?!.*DefaultBinder)/)],
    },
    { name: 'webhook not http', input: 'scaleOut: {webhook: "ftp://x"}', want: ['scaleOut.webhook: Invalid value: "ftp://x": must be an http or https URL'] },
    { name: 'command not argv', input: 'scaleOut: {command: "add-cluster --now"}', want: ['scaleOut.command: Invalid value: "add-cluster --now": must be a non-empty list of strings (argv, no shell)'] },
    { name: 'interval 0', input: 'scaleOut: {minIntervalSeconds: 0}', want: ['scaleOut.minIntervalSeconds: Invalid value: 0: must be a number > 0 and <= 2147483 (about 24.8 days)'] },
    // Past 2^31-1 ms a Node timer fires after 1 ms: every signal would time out at once.
    { name: 'timeout past a timer', input: 'scaleOut: {timeoutSeconds: 99999999}', want: ['scaleOut.timeoutSeconds: Invalid value: 99999999: must be a number > 0 and <= 2147483 (about 24.8 days)'] },
    { name: 'debounce past a timer', input: 'scaleOut: {debounceSeconds: 3000000}', want: ['scaleOut.debounceSeconds: Invalid value: 3000000: must be a number >= 0 and <= 2147483 (about 24.8 days)'] },
    {
      name: 'several problems at once',
      input: 'profiles: [{filters: [Ready, ControlPlaneNamespace], scores: [{name: Pack, weight: -1}]}]\nscaleOut: {webhookk: x}',
      want: [
        'profiles[0].filters: Required value: must include "Budget" (without it nothing keeps a management cluster under its capacity)',
        'profiles[0].scores[0].weight: Invalid value: -1: must be an integer from 1 to 100',
        'scaleOut.webhookk: Unknown field',
      ],
    },
  ])('$name', ({ input, want }) => {
    expect(problems(input)).toEqual(want);
  });

  it('the error message names the file and lists the problems', () => {
    expect(() => parseSchedulerConfig('profiles: [{filters: [Ready]}]', 'sched.yaml')).toThrow(/^invalid scheduler configuration sched\.yaml:\n {2}- profiles\[0\]\.filters: Required value/);
  });
});

describe('loadSchedulerConfig', () => {
  it('reads a file, and says which one it could not read', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hcc-sched-cfg-'));
    try {
      const file = path.join(dir, 'scheduler.yaml');
      writeFileSync(file, 'profiles: [{name: only}]\n');
      expect(loadSchedulerConfig(file).defaultProfile).toBe('only');
      expect(() => loadSchedulerConfig(path.join(dir, 'missing.yaml'))).toThrow(/invalid scheduler configuration .*missing\.yaml:\n {2}- ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('profileFor', () => {
  const cfg = parseSchedulerConfig('profiles: [{name: default}, {name: cost, scores: [Pack]}]');
  it.each<{ name: string; input: Record<string, string>; want: string }>([
    { name: 'no annotation: the default profile', input: {}, want: 'default' },
    { name: 'annotation names a profile', input: { 'controlcenter.hcc.dev/scheduler-profile': 'cost' }, want: 'cost' },
    { name: 'unknown profile', input: { 'controlcenter.hcc.dev/scheduler-profile': 'nope' }, want: 'scheduler profile "nope" is not configured (profiles: default, cost)' },
  ])('$name', ({ input, want }) => {
    const p = profileFor(cfg, hostedCluster({ annotations: input }));
    expect(p instanceof Error ? p.message : p.name).toBe(want);
  });

  it('the built-in defaults have one profile', () => {
    expect(profileFor(defaultSchedulerConfig(), hostedCluster())).toMatchObject({ name: 'default' });
  });
});
