/**
 * The real HyperShift CRD rules (packages/crds, copied from upstream) against real manifests:
 * every case of testdata/hypershift/15-negative-crd-validation-cases.yaml is rejected with its
 * upstream message, and every v1beta1 HostedCluster/NodePool of the demo and of inputs 03, 08, 09
 * passes with no error, with no rule skipped as unsupported.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hyperShiftCRDs } from '@hcc/crds';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { fieldErrorMessage } from '../../apierrors/field.js';
import { checkCustomResource, resetUnsupportedRules, unsupportedRules, type JSONSchemaProps } from './index.js';

type Obj = Record<string, unknown>;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..');

const schemas: Record<string, JSONSchemaProps> = Object.fromEntries(
  hyperShiftCRDs.map((crd) => [crd.spec.names.kind, crd.spec.versions.find((v) => v.name === 'v1beta1')!.schema!.openAPIV3Schema as JSONSchemaProps]),
);

/** The v1beta1 HostedClusters and NodePools of a YAML file. */
function load(path: string): Obj[] {
  return parseAllDocuments(readFileSync(path, 'utf8'), { uniqueKeys: false })
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => !!o && o.apiVersion === 'hypershift.openshift.io/v1beta1' && (o.kind === 'HostedCluster' || o.kind === 'NodePool'));
}

const annotation = (o: Obj, k: string): string | undefined => ((o.metadata as { annotations?: Record<string, string> }).annotations ?? {})[`test.example.com/${k}`];
const nameOf = (o: Obj): string => `${o.kind as string} ${(o.metadata as { name: string }).name}`;

/** Create: prune, default, validate (as the strategy does); returns the error messages and the stored object. */
function create(o: Obj): { errors: string[]; stored: Obj } {
  const stored = structuredClone(o);
  const { errors } = checkCustomResource(stored, schemas[o.kind as string]!, { fieldValidation: 'Strict' });
  return { errors: errors.map(fieldErrorMessage), stored };
}

function update(o: Obj, old: Obj): string[] {
  const obj = structuredClone(o);
  return checkCustomResource(obj, schemas[o.kind as string]!, { fieldValidation: 'Strict', oldObj: old }).errors.map(fieldErrorMessage);
}

const negative = load(join(repoRoot, 'testdata/hypershift/15-negative-crd-validation-cases.yaml'));
const valid = [
  ...readdirSync(join(repoRoot, 'demo/manifests'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(repoRoot, 'demo/manifests', f)),
  ...['03-agent-v1beta1-disconnected-ipv4.yaml', '08-kubevirt-v1beta1-cli-render-storage-tolerations-nads.yaml', '09-azure-v1beta1-cli-render-managed-identities.yaml'].map(
    (f) => join(repoRoot, 'testdata/hypershift', f),
  ),
].flatMap((f) => load(f).map((o) => ({ name: `${f.slice(repoRoot.length + 1)}: ${nameOf(o)}`, input: o })));

beforeAll(() => resetUnsupportedRules());

describe('HyperShift CRD rules: 15-negative-crd-validation-cases.yaml', () => {
  const creates = negative.filter((o) => annotation(o, 'operation') === 'create' && annotation(o, 'expected-error'));
  const updates = negative.filter((o) => annotation(o, 'operation') === 'update');

  it('has the cases', () => {
    expect({ creates: creates.length, updates: updates.length }).toEqual({ creates: 5, updates: 1 });
  });

  it.each(creates.map((o) => ({ name: nameOf(o), input: o, want: annotation(o, 'expected-error')! })))('create $name', ({ input, want }) => {
    const { errors } = create(input);
    expect(errors.some((e) => e.includes(want)), errors.join('\n')).toBe(true);
  });

  it.each(
    updates.map((o) => ({
      name: nameOf(o),
      input: { initial: negative.find((x) => nameOf(x) === nameOf(o) && annotation(x, 'operation') === 'create')!, updated: o },
      want: annotation(o, 'expected-error')!,
    })),
  )('update $name', ({ input, want }) => {
    const initial = create(input.initial);
    expect(initial.errors).toEqual([]);
    const errors = update(input.updated, initial.stored);
    expect(errors.some((e) => e.includes(want)), errors.join('\n')).toBe(true);
    // the same object without the change still passes its transition rules
    expect(update(input.initial, initial.stored)).toEqual([]);
  });

  it('renders errors as kube-apiserver v1.34 does', () => {
    const three = negative.find((o) => nameOf(o) === 'HostedCluster neg-three-services')!;
    expect(create(three).errors).toEqual(['spec: Invalid value: "object": spec.services in body should have at least 4 items or 3 for IBMCloud']);
    const inPlace = negative.find((o) => nameOf(o) === 'NodePool neg-replace-with-inplace')!;
    expect(create(inPlace).errors).toEqual([`spec.management: Invalid value: "object": The 'inPlace' field can only be set when 'upgradeType' is 'InPlace'`]);
  });
});

/**
 * Manifests that are meant to be valid but that a copied upstream rule rejects (the real
 * kube-apiserver rejects them too): kept as expected errors here, reported, not weakened.
 */
const knownRejections: Record<string, string[]> = {
  // CLI --render fixture with fake values: `fakeInfraID` has upper case, `fakeSubnetID` is no Azure resource ID.
  'testdata/hypershift/09-azure-v1beta1-cli-render-managed-identities.yaml: HostedCluster bryans-cluster': [
    `spec.infraID: Invalid value: "string": infraID must consist of lowercase alphanumeric characters or '-', start and end with an alphanumeric character, and be between 1 and 253 characters`,
    'spec.platform.azure.subnetID: Invalid value: "string": encryptionSetID must be in the format `/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Network/virtualNetworks/{vnetName}/subnets/{subnetName}`',
  ],
};

describe('HyperShift CRD rules: valid manifests pass', () => {
  it('found the manifests', () => {
    expect(valid.length).toBeGreaterThanOrEqual(16);
    for (const k of Object.keys(knownRejections)) expect(valid.map((v) => v.name)).toContain(k);
  });

  it.each(valid.map((v) => ({ ...v, want: knownRejections[v.name] ?? [] })))('$name', ({ input, want }) => {
    const { errors, stored } = create(input);
    expect(errors).toEqual(want);
    // an update that changes nothing passes: unchanged top-level fields are not validated again
    // (every error they could raise would be ratcheted), so nothing is reported
    const obj = structuredClone(input);
    const got = checkCustomResource(obj, schemas[input.kind as string]!, { fieldValidation: 'Strict', oldObj: stored });
    expect({ errors: got.errors.map(fieldErrorMessage), warnings: got.warnings }).toEqual({ errors: [], warnings: [] });
  });

  it('skipped no HyperShift rule as unsupported', () => {
    expect([...unsupportedRules.values()]).toEqual([]);
  });
});
