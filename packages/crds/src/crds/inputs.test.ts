/**
 * The real HyperShift inputs (/work/shared/inputs/hypershift, see its README) against the CRD schemas:
 * which v1beta1 objects the schema accepts, which it rejects and why, and that every rejection listed in
 * 15-negative-crd-validation-cases.yaml is carried by a CEL rule of ours (CEL itself is evaluated by the
 * control center, not here).
 */
import { describe, expect, it } from 'vitest';
import { walkSchema } from '../schema-walk.js';
import { conform } from '../testing/conform.js';
import { inputsDir, loadAllInputs, type InputDoc } from '../testing/inputs.js';
import type { JSONSchemaProps, ValidationRule } from './crd-types.js';
import { hostedClusterCRD, nodePoolCRD } from './index.js';

const schemas: Record<string, JSONSchemaProps> = {
  HostedCluster: hostedClusterCRD.spec.versions[0]!.schema.openAPIV3Schema,
  NodePool: nodePoolCRD.spec.versions[0]!.schema.openAPIV3Schema,
};

/**
 * Schema violations (types, enums, required, unknown fields, bounds, patterns; not CEL) of every v1beta1
 * HostedCluster/NodePool in the inputs. `[]` means accepted by the OpenAPI part of the schema.
 */
const want: Record<string, string[]> = {
  // CLI --render fixture with fake values: upstream's `^arn:` pattern rejects the fake KMS key ARN.
  '02 HostedCluster cesar': [
    `spec.secretEncryption.kms.aws.activeKey.arn: Invalid value: "fakeKMSKeyARN": spec.secretEncryption.kms.aws.activeKey.arn in body should match '^arn:'`,
  ],
  '02 NodePool cesar-fakeName': [],
  '03 HostedCluster hosted-ipv4': [],
  '03 NodePool hosted-ipv4': [],
  '07 HostedCluster example-hcp': ['unknown field "spec.platform.kubevirt.baseDomain"'],
  '07 NodePool example-hcp-workers': [],
  '08 HostedCluster test1': [],
  '08 NodePool test1': [],
  '09 HostedCluster bryans-cluster': [],
  '09 NodePool bryans-cluster': [],
  // A doc excerpt: "... other HostedCluster configuration" omitted.
  '10 HostedCluster my-aro-hcp-cluster': ['spec.pullSecret: Required value', 'spec.services: Required value'],
  '11 HostedCluster cexample0000000000000': [],
  // Robustness fixture: empty release image, fake CIS CRN.
  '12 HostedCluster example': [
    `spec.platform.powervs.cisInstanceCRN: Invalid value: "fakeCISCRN": spec.platform.powervs.cisInstanceCRN in body should match '^crn:'`,
    'spec.release.image: Invalid value: "": spec.release.image in body should be at least 1 chars long',
  ],
  '12 NodePool example': ['spec.release.image: Invalid value: "": spec.release.image in body should be at least 1 chars long'],
  // Doc example predates AWSNodePoolPlatform.subnet becoming required.
  '13 NodePool custom-nodepool': ['spec.platform.aws.subnet: Required value'],
  '15 HostedCluster neg-bad-clusterid': ['spec.clusterID: Invalid value: "foo": spec.clusterID in body should be at least 36 chars long'],
  '15 HostedCluster neg-three-services': [],
  '15 HostedCluster neg-route-with-nodeport-block': [],
  '15 HostedCluster neg-services-immutable': [],
  '15 NodePool neg-replace-with-inplace': [],
  '15 NodePool neg-agent-scale-from-zero': [],
};

const key = (d: InputDoc) => `${d.file.slice(0, 2)} ${d.kind} ${d.name}`;
const annotations = (d: InputDoc) => ((d.object.metadata as { annotations?: Record<string, string> }).annotations ?? {});

/** Every CEL rule of a schema with the dot path (`[]` for list items) of the node it sits on. */
function rulesOf(schema: JSONSchemaProps): { path: string; rule: ValidationRule }[] {
  const out: { path: string; rule: ValidationRule }[] = [];
  walkSchema(schema, (node, path) => {
    for (const rule of node['x-kubernetes-validations'] ?? []) out.push({ path: path.join('.'), rule });
  });
  return out;
}

/**
 * JavaScript equivalents of the CEL rules the negative cases exercise, keyed by message, so the test can
 * show each case really violates its rule (and the accepted step of the update case does not).
 * `self` is the value at the rule's node; `old` the previous object's value on update.
 */
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const celInJs: Record<string, (self: Obj, old?: Obj) => boolean> = {
  'clusterID must be an RFC4122 UUID value (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx in hexadecimal digits)': (self) =>
    /[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}/.test(self as unknown as string),
  'spec.services in body should have at least 4 items or 3 for IBMCloud': (self) => self.services.length >= (self.platform.type === 'IBMCloud' ? 3 : 4),
  'nodePort is required when type is NodePort, and forbidden otherwise': (self) => (self.type === 'NodePort') === ('nodePort' in self),
  'Services is immutable. Changes might result in unpredictable and disruptive behavior.': (self, old) =>
    self.platform.type === 'IBMCloud' || !old || JSON.stringify(self.services) === JSON.stringify(old.services),
  "The 'inPlace' field can only be set when 'upgradeType' is 'InPlace'": (self) => !('inPlace' in self) || self.upgradeType === 'InPlace',
  'Scale-from-zero (autoScaling.min=0) is currently only supported for AWS and Azure platforms': (self) =>
    !self.autoScaling || self.autoScaling.min > 0 || ['AWS', 'Azure'].includes(self.platform.type),
};

/** The values a rule at `path` sees in `object` (fanning out over `[]`). */
function valuesAt(object: unknown, path: string): unknown[] {
  let values = [object];
  for (const step of path.split('.').filter(Boolean)) {
    values = values.flatMap((v) => {
      if (step === '[]') return Array.isArray(v) ? v : [];
      const child = v && typeof v === 'object' ? (v as Obj)[step] : undefined;
      return child === undefined ? [] : [child];
    });
  }
  return values;
}

describe('real inputs against the CRD schemas', () => {
  const docs = inputsDir ? loadAllInputs() : [];
  const v1beta1 = docs.filter((d) => d.apiVersion === 'hypershift.openshift.io/v1beta1' && d.kind in schemas);
  // The update pair in file 15 has two documents with one name; both must match the same expectation.
  it.each(v1beta1.map((d) => ({ name: `${key(d)} (document ${d.index})`, input: d, want: want[key(d)] })))('$name', ({ input, want }) => {
    expect(want, 'add this object to the table').toBeDefined();
    expect(conform(schemas[input.kind]!, input.object)).toEqual(want);
  });

  it('v1alpha1 objects exist in the inputs and no CRD of ours serves their version', () => {
    const alpha = docs.filter((d) => d.apiVersion === 'hypershift.openshift.io/v1alpha1');
    expect(alpha.length).toBeGreaterThan(0);
    for (const crd of [hostedClusterCRD, nodePoolCRD]) expect(crd.spec.versions.some((v) => v.name === 'v1alpha1')).toBe(false);
  });

  const negatives = docs.filter((d) => d.file.startsWith('15-') && annotations(d)['test.example.com/expected-error']);
  it.each(negatives.map((d) => ({ name: d.name, input: d, want: annotations(d)['test.example.com/expected-error']! })))(
    '15 $name is rejected by a CEL rule carrying "$want"',
    ({ input, want }) => {
      const matches = rulesOf(schemas[input.kind]!).filter(({ rule }) => rule.message?.includes(want));
      expect(matches, 'no rule with this message').toHaveLength(1);
      const { path, rule } = matches[0]!;
      const predicate = celInJs[rule.message!];
      expect(predicate, `add a JS equivalent of: ${rule.rule}`).toBeDefined();
      const update = annotations(input)['test.example.com/operation'] === 'update';
      const previous = update ? docs.find((d) => d.file === input.file && d.name === input.name && d.index < input.index) : undefined;
      const oldValues = previous ? valuesAt(previous.object, path) : [];
      const results = valuesAt(input.object, path).map((self, i) => predicate!(self as Obj, oldValues[i] as Obj | undefined));
      expect(results, `${path}: ${rule.rule}`).toContain(false);
      if (previous) expect(valuesAt(previous.object, path).map((self) => predicate!(self as Obj))).not.toContain(false);
    },
  );
});
