import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@hcc/crds';
import { isNewer, pulledCRD, schemaSignature } from './crd-puller.js';

const crd = (versions: Record<string, Record<string, unknown>>, columns: { name: string; jsonPath: string }[] = []): KubeObject => ({
  metadata: { name: 'hostedclusters.hypershift.openshift.io' },
  spec: { versions: Object.entries(versions).map(([name, schema]) => ({ name, served: true, storage: true, schema: { openAPIV3Schema: schema }, additionalPrinterColumns: columns })) },
});
const obj = (props: Record<string, unknown>) => ({ type: 'object', properties: props });
const base = obj({ spec: obj({ platform: obj({ type: { type: 'string', enum: ['AWS', 'None'] } }) }) });
const moreEnum = obj({ spec: obj({ platform: obj({ type: { type: 'string', enum: ['AWS', 'None', 'GCP'] } }) }) });
const moreField = obj({ spec: obj({ platform: obj({ type: { type: 'string', enum: ['AWS', 'None'] } }), channel: { type: 'string' } }) });
const lessEnum = obj({ spec: obj({ platform: obj({ type: { type: 'string', enum: ['AWS'] } }) }) });

describe('schemaSignature', () => {
  it('lists field paths and enum values', () => {
    expect([...schemaSignature(base)].sort()).toEqual(['spec', 'spec.platform', 'spec.platform.type', 'spec.platform.type="AWS"', 'spec.platform.type="None"']);
  });
});

describe('isNewer', () => {
  it.each([
    { name: 'a new enum value', input: [crd({ v1beta1: moreEnum }), crd({ v1beta1: base })], want: true },
    { name: 'a new field', input: [crd({ v1beta1: moreField }), crd({ v1beta1: base })], want: true },
    { name: 'identical', input: [crd({ v1beta1: base }), crd({ v1beta1: base })], want: false },
    { name: 'fewer enum values', input: [crd({ v1beta1: lessEnum }), crd({ v1beta1: base })], want: false },
    { name: 'different, neither covers the other', input: [crd({ v1beta1: moreEnum }), crd({ v1beta1: moreField })], want: false },
    { name: 'drops a served version', input: [crd({ v1beta1: moreEnum }), crd({ v1beta1: base, v1alpha1: base })], want: false },
    { name: 'adds a version', input: [crd({ v1beta1: base, v1: base }), crd({ v1beta1: base })], want: true },
  ])('$name', ({ input, want }) => {
    expect(isNewer(input[0]!, input[1]!)).toBe(want);
  });
});

describe('pulledCRD', () => {
  it('keeps hcc printer columns and records the source', () => {
    const ours = crd({ v1beta1: base }, [{ name: 'Management Cluster', jsonPath: '.metadata.labels.controlcenter\\.hcc\\.dev/management-cluster' }]);
    const theirs = crd({ v1beta1: moreEnum }, [{ name: 'Version', jsonPath: '.status.version.history[0].version' }]);
    const out = pulledCRD(theirs, ours, 'mgmt-1');
    const cols = (out.spec as { versions: { additionalPrinterColumns: { name: string }[] }[] }).versions[0]!.additionalPrinterColumns.map((c) => c.name);
    expect(cols).toEqual(['Version', 'Management Cluster']);
    expect(out.metadata.annotations).toEqual({ 'controlcenter.hcc.dev/pulled-from': 'mgmt-1' });
  });

  it("keeps the control center's `all` category, which HyperShift's own CRDs do not have", () => {
    const ours = crd({ v1beta1: base });
    (ours.spec as Record<string, unknown>).names = { kind: 'HostedCluster', plural: 'hostedclusters', shortNames: ['hc', 'hcs'], categories: ['all'] };
    const theirs = crd({ v1beta1: moreEnum });
    (theirs.spec as Record<string, unknown>).names = { kind: 'HostedCluster', plural: 'hostedclusters', shortNames: ['hc', 'hcs'] };
    const out = pulledCRD(theirs, ours, 'mgmt-1');
    expect((out.spec as { names: unknown }).names).toEqual({ kind: 'HostedCluster', plural: 'hostedclusters', shortNames: ['hc', 'hcs'], categories: ['all'] });
    expect((theirs.spec as { names: { categories?: string[] } }).names.categories).toBeUndefined();
  });
});
