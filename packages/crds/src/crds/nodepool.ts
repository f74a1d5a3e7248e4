/**
 * The NodePool CustomResourceDefinition (hypershift.openshift.io, v1beta1 only), with upstream's short
 * names, status and scale subresources (`spec.replicas` / `status.replicas`) and printer columns, plus
 * hcc's `Management Cluster` column.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/nodepool_types.go
 */
import { HyperShiftGroup, HyperShiftVersion, Resources } from '../names.js';
import { managementClusterColumn } from './columns.js';
import type { CustomResourceDefinition } from './crd-types.js';
import { nodePoolSchema } from './schema/nodepool.js';

/** `nodepools.hypershift.openshift.io`. Treat as read-only; `structuredClone` before changing it. */
export const nodePoolCRD: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${Resources.nodePools}.${HyperShiftGroup}` },
  spec: {
    group: HyperShiftGroup,
    names: {
      kind: 'NodePool',
      listKind: 'NodePoolList',
      plural: Resources.nodePools,
      singular: 'nodepool',
      shortNames: ['np', 'nps'],
      categories: ['all'],
    },
    scope: 'Namespaced',
    versions: [
      {
        name: HyperShiftVersion,
        served: true,
        storage: true,
        additionalPrinterColumns: [
          { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName', description: 'Cluster' },
          { name: 'Desired Nodes', type: 'integer', jsonPath: '.spec.replicas', description: 'Desired Nodes' },
          { name: 'Current Nodes', type: 'integer', jsonPath: '.status.replicas', description: 'Available Nodes' },
          {
            name: 'Autoscaling',
            type: 'string',
            jsonPath: '.status.conditions[?(@.type=="AutoscalingEnabled")].status',
            description: 'Autoscaling Enabled',
          },
          {
            name: 'Autorepair',
            type: 'string',
            jsonPath: '.status.conditions[?(@.type=="AutorepairEnabled")].status',
            description: 'Node Autorepair Enabled',
          },
          { name: 'Version', type: 'string', jsonPath: '.status.version', description: 'Current version' },
          {
            name: 'UpdatingVersion',
            type: 'string',
            jsonPath: '.status.conditions[?(@.type=="UpdatingVersion")].status',
            description: 'UpdatingVersion in progress',
          },
          {
            name: 'UpdatingConfig',
            type: 'string',
            jsonPath: '.status.conditions[?(@.type=="UpdatingConfig")].status',
            description: 'UpdatingConfig in progress',
          },
          {
            name: 'Message',
            type: 'string',
            jsonPath: '.status.conditions[?(@.type=="Ready")].message',
            description: 'Message',
          },
          managementClusterColumn,
        ],
        schema: { openAPIV3Schema: nodePoolSchema },
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
      },
    ],
  },
};
