import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { placementAnnotationsAdmission } from './placement-annotations.js';
import type { AdmissionAttributes } from '../admission.js';
import type { ResourceInfo } from '../../../registry/types.js';
import type { Store } from '../../../storage/store.js';

const hcInfo = { group: 'hypershift.openshift.io', resource: 'hostedclusters' } as ResourceInfo;
const npInfo = { group: 'hypershift.openshift.io', resource: 'nodepools' } as ResourceInfo;
const SEL = 'controlcenter.hcc.dev/management-cluster-selector';
const TOL = 'controlcenter.hcc.dev/tolerations';
const hc = (annotations: Record<string, string> = {}, name = 'ex', namespace = 'clusters'): KubeObject => ({ metadata: { name, namespace, annotations } });
const run = (obj: KubeObject, old?: KubeObject, info = hcInfo) =>
  placementAnnotationsAdmission.validate({ info, obj, old, user: { name: 'admin', groups: [] }, store: {} as Store } as AdmissionAttributes).map((e) => `${e.field}: ${e.detail ?? ''}`);

describe('placement annotations admission', () => {
  it.each([
    { name: 'a valid selector and tolerations', obj: hc({ [SEL]: 'region in (eu-west-1,eu-west-2),!cordoned', [TOL]: '[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]' }) },
    { name: 'empty annotations', obj: hc({ [SEL]: '', [TOL]: ' ' }) },
    { name: 'a prefixed key, an Exists toleration, and NoExecute with tolerationSeconds', obj: hc({ [TOL]: '[{"key":"example.com/gpu","operator":"Exists"},{"operator":"Exists"},{"key":"a","effect":"NoExecute","tolerationSeconds":30}]' }) },
    { name: 'a 63-character control-plane namespace', obj: hc({}, 'n'.repeat(54), 'clusters') },
  ])('accepts $name', ({ obj }) => {
    expect(run(obj)).toEqual([]);
  });

  it.each([
    { name: 'a selector that does not parse', obj: hc({ [SEL]: 'region in (a' }), want: `metadata.annotations[${SEL}]: not a label selector: ` },
    { name: 'tolerations that are not JSON', obj: hc({ [TOL]: 'not json' }), want: `metadata.annotations[${TOL}]: not a toleration list: not JSON: must be a JSON list of tolerations, e.g. [{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]` },
    { name: 'a toleration without a key or Exists', obj: hc({ [TOL]: '[{"value":"x"}]' }), want: `metadata.annotations[${TOL}]: not a toleration list: [0].operator: must be Exists when key is empty` },
    { name: 'a toleration key that is not a qualified name', obj: hc({ [TOL]: '[{"key":"bad key!","operator":"Equal","value":"x"}]' }), want: '[0].key: must be a qualified name' },
    { name: 'a toleration value that is not a label value', obj: hc({ [TOL]: '[{"key":"a","value":"has space"}]' }), want: '[0].value: must be a valid label value' },
    { name: 'tolerationSeconds that is not a number', obj: hc({ [TOL]: '[{"key":"a","effect":"NoExecute","tolerationSeconds":"x"}]' }), want: '[0].tolerationSeconds: must be an integer' },
    { name: 'tolerationSeconds without NoExecute', obj: hc({ [TOL]: '[{"key":"a","effect":"NoSchedule","tolerationSeconds":30}]' }), want: "[0].effect: must be 'NoExecute' when tolerationSeconds is set" },
    { name: 'a control-plane namespace over 63 characters', obj: hc({}, 'n'.repeat(55), 'clusters'), want: 'metadata.name: the control-plane namespace "clusters-nnn' },
    { name: 'a name with a dot (no valid control-plane namespace)', obj: hc({}, 'a.b', 'clusters'), want: 'metadata.name: the control-plane namespace "clusters-a.b" HyperShift creates for it would not be a valid Namespace name' },
  ])('refuses $name', ({ obj, want }) => {
    const errs = run(obj);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toContain(want);
  });

  it('does not check again what an update leaves unchanged, nor other kinds', () => {
    const bad = hc({ [SEL]: 'region in (a' }, 'n'.repeat(60));
    expect(run(bad, bad)).toEqual([]);
    expect(run({ ...bad, metadata: { ...bad.metadata, annotations: { [SEL]: 'region in (b' } } }, bad)).toHaveLength(1);
    expect(run(bad, undefined, npInfo)).toEqual([]);
  });
});

describe('placement annotations admission: changes to a placed HostedCluster', () => {
  const LABEL = 'controlcenter.hcc.dev/management-cluster';
  const placed = (annotations: Record<string, string>): KubeObject => ({ metadata: { name: 'ex', namespace: 'clusters', labels: { [LABEL]: 'mgmt-1' }, annotations } });
  const warnings = (obj: KubeObject, old?: KubeObject) => {
    const out: string[] = [];
    const errs = placementAnnotationsAdmission.validate({ info: hcInfo, obj, old, user: { name: 'admin', groups: [] }, store: {} as Store, warn: (w) => out.push(w) } as AdmissionAttributes);
    expect(errs).toEqual([]);
    return out;
  };

  it('accepts a changed selector, tolerations or profile with a warning that the placement stays', () => {
    expect(warnings(placed({ [SEL]: 'region=eu' }), placed({}))).toEqual([
      `metadata.annotations[${SEL}]: this HostedCluster is already placed on management cluster mgmt-1; placements are not re-evaluated, so it stays there (as a pod stays on its node when its nodeSelector changes); it takes effect only for a HostedCluster created anew (deleting this one tears its control plane down)`,
    ]);
    expect(warnings(placed({ [TOL]: '[]', 'controlcenter.hcc.dev/scheduler-profile': 'spread' }), placed({ [TOL]: '[{"operator":"Exists"}]' }))).toHaveLength(2);
  });

  it('says a removed annotation leaves the placement as it is, without "takes effect"', () => {
    expect(warnings(placed({}), placed({ [SEL]: 'region=eu' }))).toEqual([
      `metadata.annotations[${SEL}]: removed, but this HostedCluster is already placed on management cluster mgmt-1; placements are not re-evaluated, so it stays there (as a pod stays on its node when its nodeSelector changes)`,
    ]);
  });

  it('says nothing for an unplaced HostedCluster, an unchanged annotation, or other annotations', () => {
    expect(warnings(hc({ [SEL]: 'region=eu' }), hc({}))).toEqual([]);
    expect(warnings(placed({ [SEL]: 'region=eu', note: 'x' }), placed({ [SEL]: 'region=eu' }))).toEqual([]);
    expect(warnings(placed({ [SEL]: 'region=eu' }))).toEqual([]); // a create
  });
});
