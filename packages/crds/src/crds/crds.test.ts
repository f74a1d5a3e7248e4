import { describe, expect, it } from 'vitest';
import { LabelManagementCluster } from '../names.js';
import { schemaAt, structuralViolations, walkSchema } from '../schema-walk.js';
import { conform } from '../testing/conform.js';
import type { CustomResourceDefinition, JSONSchemaProps } from './crd-types.js';
import {
  allCRDs,
  controlCenterCRDs,
  hostedClusterCRD,
  hyperShiftCRDs,
  hyperShiftCRDsForManagementClusters,
  managementClusterCRD,
  manifestFileName,
  nodePoolCRD,
} from './index.js';

const schemaOf = (crd: CustomResourceDefinition): JSONSchemaProps => crd.spec.versions[0]!.schema.openAPIV3Schema;
const columnNames = (crd: CustomResourceDefinition) => crd.spec.versions[0]!.additionalPrinterColumns?.map((c) => c.name);

describe('names and versions', () => {
  it.each([
    {
      name: 'HostedCluster',
      input: hostedClusterCRD,
      want: { crd: 'hostedclusters.hypershift.openshift.io', scope: 'Namespaced', version: 'v1beta1', shortNames: ['hc', 'hcs'], file: 'hostedclusters.hypershift.openshift.io.yaml' },
    },
    {
      name: 'NodePool',
      input: nodePoolCRD,
      want: { crd: 'nodepools.hypershift.openshift.io', scope: 'Namespaced', version: 'v1beta1', shortNames: ['np', 'nps'], file: 'nodepools.hypershift.openshift.io.yaml' },
    },
    {
      name: 'ManagementCluster',
      input: managementClusterCRD,
      want: { crd: 'managementclusters.controlcenter.hcc.dev', scope: 'Cluster', version: 'v1alpha1', shortNames: ['mc'], file: 'managementclusters.controlcenter.hcc.dev.yaml' },
    },
  ])('$name', ({ input, want }) => {
    expect(input.metadata.name).toBe(`${input.spec.names.plural}.${input.spec.group}`);
    expect(input.metadata.name).toBe(want.crd);
    expect(input.spec.scope).toBe(want.scope);
    expect(input.spec.names.shortNames).toEqual(want.shortNames);
    expect(input.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([[want.version, true, true]]);
    expect(input.spec.versions[0]!.subresources?.status).toEqual({});
    expect(manifestFileName(input)).toBe(want.file);
  });

  it('serves no v1alpha1 HyperShift version, so v1alpha1 manifests get "no matches for kind"', () => {
    for (const crd of hyperShiftCRDs) expect(crd.spec.versions.map((v) => v.name)).toEqual(['v1beta1']);
  });

  it('groups the CRDs', () => {
    expect(hyperShiftCRDs).toEqual([hostedClusterCRD, nodePoolCRD]);
    expect(controlCenterCRDs).toEqual([managementClusterCRD]);
    expect(allCRDs.map((c) => c.metadata.name)).toEqual([...hyperShiftCRDs, ...controlCenterCRDs].map((c) => c.metadata.name));
  });

  it('NodePool has the scale subresource on spec.replicas / status.replicas', () => {
    expect(nodePoolCRD.spec.versions[0]!.subresources?.scale).toEqual({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' });
  });
});

describe('printer columns', () => {
  it.each([
    { name: 'HostedCluster', input: hostedClusterCRD, want: ['Version', 'KubeConfig', 'Progress', 'Available', 'Progressing', 'Message', 'Management Cluster'] },
    {
      name: 'NodePool',
      input: nodePoolCRD,
      want: ['Cluster', 'Desired Nodes', 'Current Nodes', 'Autoscaling', 'Autorepair', 'Version', 'UpdatingVersion', 'UpdatingConfig', 'Message', 'Management Cluster'],
    },
    { name: 'ManagementCluster', input: managementClusterCRD, want: ['Ready', 'Budget', 'Hosted', 'Capacity', 'Platforms', 'Cluster ID', 'Mode', 'Cordoned', 'Deleting', 'Age'] },
  ])('$name', ({ input, want }) => {
    expect(columnNames(input)).toEqual(want);
  });

  it('the Management Cluster column reads the escaped placement label', () => {
    const column = hostedClusterCRD.spec.versions[0]!.additionalPrinterColumns!.at(-1)!;
    expect(column.jsonPath).toBe('.metadata.labels.controlcenter\\.hcc\\.dev/management-cluster');
    expect(column.jsonPath.replaceAll('\\.', '.')).toBe(`.metadata.labels.${LabelManagementCluster}`);
    expect(nodePoolCRD.spec.versions[0]!.additionalPrinterColumns!.at(-1)).toEqual(column);
  });

  it('ManagementCluster shows Capacity, Platforms, Cluster ID, Mode, Cordoned and Deleting only with -o wide, Age as a date', () => {
    const columns = managementClusterCRD.spec.versions[0]!.additionalPrinterColumns!;
    expect(columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['Capacity', 'Platforms', 'Cluster ID', 'Mode', 'Cordoned', 'Deleting']);
    expect(columns.at(-1)).toMatchObject({ type: 'date', jsonPath: '.metadata.creationTimestamp' });
  });
});

describe.each(allCRDs.map((crd) => ({ name: crd.spec.names.kind, schema: schemaOf(crd) })))('$name schema', ({ schema }) => {
  it('is structural', () => {
    expect(structuralViolations(schema)).toEqual([]);
  });

  it('leaves metadata to the apiserver', () => {
    expect(schema.properties?.metadata).toEqual({ type: 'object' });
  });

  it('has defaults that satisfy their own node', () => {
    const bad: string[] = [];
    walkSchema(schema, (node, path) => {
      if (node.default !== undefined) bad.push(...conform(node, node.default, path.join('.')));
    });
    expect(bad).toEqual([]);
  });

  it('has patterns that compile and CEL rules with messages', () => {
    walkSchema(schema, (node, path) => {
      if (node.pattern) expect(() => new RegExp(node.pattern!, 'u'), path.join('.')).not.toThrow();
      for (const rule of node['x-kubernetes-validations'] ?? []) {
        expect(rule.rule.trim(), path.join('.')).not.toBe('');
        // Upstream leaves exactly one rule without a message (AzureNodePoolPlatform.availabilityZone).
        if (path.join('.') !== 'spec.platform.azure.availabilityZone') expect(rule.message, `${path.join('.')}: ${rule.rule}`).toBeTruthy();
      }
    });
  });

  it('uses oldSelf only where old and new values correlate (no atomic/set list above the rule)', () => {
    walkSchema(schema, (node, path) => {
      if (!(node['x-kubernetes-validations'] ?? []).some((r) => r.rule.includes('oldSelf'))) return;
      let cursor: JSONSchemaProps = schema;
      for (const step of path) {
        if (step === '[]') expect(cursor['x-kubernetes-list-type'], `${path.join('.')}: list above a transition rule`).toBe('map');
        cursor = step === '[]' ? cursor.items! : step === '{}' ? cursor.additionalProperties! : cursor.properties![step]!;
      }
    });
  });

  it('requires the keys of every map-type list', () => {
    walkSchema(schema, (node, path) => {
      if (node['x-kubernetes-list-type'] !== 'map') return;
      for (const k of node['x-kubernetes-list-map-keys'] ?? []) {
        const item = node.items!;
        expect(item.required?.includes(k) || item.properties?.[k]?.default !== undefined, `${path.join('.')}[].${k}`).toBe(true);
      }
    });
  });
});

describe('declared fields', () => {
  const hc = schemaOf(hostedClusterCRD);

  it('spec.platform.kubevirt.baseDomain (input 07) is not a field, and kubevirt keeps no unknown fields', () => {
    expect(schemaAt(hc, ['spec', 'platform', 'kubevirt', 'baseDomain'])).toBeUndefined();
    expect(schemaAt(hc, ['spec', 'platform', 'kubevirt'])?.['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
    expect(schemaAt(hc, ['spec', 'platform', 'kubevirt', 'baseDomainPassthrough'])?.type).toBe('boolean');
  });

  it.each([
    { name: 'etcd', input: ['spec', 'etcd'], want: { managementType: 'Managed', managed: { storage: { type: 'PersistentVolume', persistentVolume: { size: '8Gi' } } } } },
    { name: 'networking', input: ['spec', 'networking'], want: { clusterNetwork: [{ cidr: '10.132.0.0/14' }], networkType: 'OVNKubernetes', serviceNetwork: [{ cidr: '172.31.0.0/16' }] } },
    { name: 'controllerAvailabilityPolicy', input: ['spec', 'controllerAvailabilityPolicy'], want: 'HighlyAvailable' },
    { name: 'infrastructureAvailabilityPolicy', input: ['spec', 'infrastructureAvailabilityPolicy'], want: 'SingleReplica' },
    { name: 'olmCatalogPlacement', input: ['spec', 'olmCatalogPlacement'], want: 'management' },
    { name: 'issuerURL', input: ['spec', 'issuerURL'], want: 'https://kubernetes.default.svc' },
  ])('HostedCluster spec default: $name', ({ input, want }) => {
    expect(schemaAt(hc, input)?.default).toEqual(want);
  });

  it('every platform type has a block in HostedCluster and NodePool', () => {
    const types = schemaAt(hc, ['spec', 'platform', 'type'])!.enum as string[];
    for (const crd of hyperShiftCRDs) {
      const platform = schemaAt(schemaOf(crd), ['spec', 'platform'])!;
      for (const t of types.filter((t) => t !== 'None')) {
        expect(Object.keys(platform.properties!).map((p) => p.toLowerCase()), `${crd.spec.names.kind} ${t}`).toContain(t.toLowerCase());
      }
    }
  });
});

describe('ManagementCluster objects', () => {
  const schema = schemaOf(managementClusterCRD);
  const mc = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
    apiVersion: 'controlcenter.hcc.dev/v1alpha1',
    kind: 'ManagementCluster',
    metadata: { name: 'mgmt-1' },
    spec,
    ...(status ? { status } : {}),
  });

  it.each([
    { name: 'empty spec', input: mc({}), want: [] },
    {
      name: 'full spec and status',
      input: mc(
        {
          platforms: ['AWS', 'KubeVirt'],
          capacity: 3,
          unschedulable: false,
          mode: 'Push',
          kubeconfigSecretRef: { name: 'mgmt-1-kubeconfig', namespace: 'hcc-system', key: 'kubeconfig' },
          taints: [{ key: 'maintenance', effect: 'NoSchedule' }],
        },
        {
          conditions: [{ type: 'Ready', status: 'True', reason: 'SyncerHeartbeat', lastTransitionTime: '2025-01-01T00:00:00Z' }],
          lastHeartbeatTime: '2025-01-01T00:00:00Z',
          leaseDurationSeconds: 240,
          namespaces: 12,
          hostedClusters: 1,
          budget: 2,
          syncerVersion: '0.1.0',
          supportedVersions: ['4.17', '4.16'],
          platforms: ['AWS'],
        },
      ),
      want: [],
    },
    { name: 'negative capacity', input: mc({ capacity: -1 }), want: ['spec.capacity: Invalid value: -1: spec.capacity in body should be greater than or equal to 0'] },
    {
      name: 'an announced Lease duration of 0',
      input: mc({}, { leaseDurationSeconds: 0 }),
      want: ['status.leaseDurationSeconds: Invalid value: 0: status.leaseDurationSeconds in body should be greater than or equal to 1'],
    },
    { name: 'unknown mode', input: mc({ mode: 'Both' }), want: ['spec.mode: Unsupported value: "Both": supported values: "Pull", "Push"'] },
    {
      name: 'unknown platform',
      input: mc({ platforms: ['Nutanix'] }),
      want: ['spec.platforms[0]: Unsupported value: "Nutanix": supported values: "AWS", "Azure", "KubeVirt", "Agent", "None", "IBMCloud", "PowerVS", "OpenStack", "GCP"'],
    },
    {
      name: 'NoExecute taint',
      input: mc({ taints: [{ key: 'k', effect: 'NoExecute' }] }),
      want: ['spec.taints[0].effect: Unsupported value: "NoExecute": supported values: "NoSchedule", "PreferNoSchedule"'],
    },
    { name: 'a taint with a prefixed key and a value', input: mc({ taints: [{ key: 'hcc.example.com/maintenance', value: 'until-monday', effect: 'PreferNoSchedule' }] }), want: [] },
    { name: 'a taint key that is no qualified name', input: mc({ taints: [{ key: 'bad key!', effect: 'NoSchedule' }] }), want: [expect.stringMatching(/^spec\.taints\[0\]\.key: Invalid value: "bad key!": spec\.taints\[0\]\.key in body should match/)] },
    { name: 'a taint value that is no label value', input: mc({ taints: [{ key: 'k', value: 'ü ü', effect: 'NoSchedule' }] }), want: [expect.stringMatching(/^spec\.taints\[0\]\.value: Invalid value: "ü ü"/)] },
    { name: 'kubeconfigSecretRef without name', input: mc({ kubeconfigSecretRef: { key: 'kubeconfig' } }), want: ['spec.kubeconfigSecretRef.name: Required value'] },
    { name: 'unknown field', input: mc({ region: 'us-east-1' }), want: ['unknown field "spec.region"'] },
  ])('$name', ({ input, want }) => {
    expect(conform(schema, input)).toEqual(want);
  });

  it('defaults mode to Pull and requires kubeconfigSecretRef for Push (CEL)', () => {
    expect(schemaAt(schema, ['spec', 'mode'])?.default).toBe('Pull');
    expect(schemaAt(schema, ['spec'])?.['x-kubernetes-validations']?.map((r) => r.message)).toEqual(['kubeconfigSecretRef is required when mode is Push']);
  });
});

describe('HyperShift CRDs for management clusters', () => {
  it.each(hyperShiftCRDsForManagementClusters.map((crd, i) => ({ name: crd.spec.names.kind, input: crd, served: hyperShiftCRDs[i]! })))(
    '$name: the same schema and columns without MANAGEMENT CLUSTER (copies there carry no placement label), and no `all` category (as upstream)',
    ({ input, served }) => {
      expect(served.spec.names.categories).toEqual(['all']);
      expect(input.spec.names.categories).toBeUndefined();
      expect({ ...input.spec.names, categories: served.spec.names.categories }).toEqual(served.spec.names);
      expect(columnNames(served)).toContain('Management Cluster');
      expect(columnNames(input)).toEqual(columnNames(served)!.filter((n) => n !== 'Management Cluster'));
      expect(input.spec.versions.map((v) => v.schema)).toEqual(served.spec.versions.map((v) => v.schema));
      expect(input.metadata).toEqual(served.metadata);
    },
  );
});
