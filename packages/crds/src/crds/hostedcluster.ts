/**
 * The HostedCluster CustomResourceDefinition (hypershift.openshift.io, v1beta1 only), as the control
 * center serves it and as `kubectl apply -f manifests/hostedclusters.hypershift.openshift.io.yaml`
 * installs it. Names, short names, subresources and printer columns match upstream HyperShift; hcc adds
 * the `Management Cluster` column. v1alpha1 is deliberately absent: current HyperShift no longer serves
 * it, so applying a v1alpha1 manifest fails with "no matches for kind".
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go
 * @see https://github.com/openshift/hypershift/tree/main/cmd/install/assets/hypershift-operator
 */
import { HyperShiftGroup, HyperShiftVersion, Resources } from '../names.js';
import { managementClusterColumn } from './columns.js';
import type { CustomResourceDefinition } from './crd-types.js';
import { hostedClusterSchema } from './schema/hostedcluster.js';

/** `hostedclusters.hypershift.openshift.io`. Treat as read-only; `structuredClone` before changing it. */
export const hostedClusterCRD: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${Resources.hostedClusters}.${HyperShiftGroup}` },
  spec: {
    group: HyperShiftGroup,
    names: {
      kind: 'HostedCluster',
      listKind: 'HostedClusterList',
      plural: Resources.hostedClusters,
      singular: 'hostedcluster',
      shortNames: ['hc', 'hcs'],
      // In the control center HostedClusters are the workload: `kubectl get all` lists them (with no
      // served kind in the category, kubectl answers "the server doesn't have a resource type all").
      categories: ['all'],
    },
    scope: 'Namespaced',
    versions: [
      {
        name: HyperShiftVersion,
        served: true,
        storage: true,
        additionalPrinterColumns: [
          {
            name: 'Version',
            type: 'string',
            jsonPath: '.status.version.history[?(@.state=="Completed")].version',
            description: 'Version',
          },
          { name: 'KubeConfig', type: 'string', jsonPath: '.status.kubeconfig.name', description: 'KubeConfig Secret' },
          { name: 'Progress', type: 'string', jsonPath: '.status.version.history[?(@.state!="")].state', description: 'Progress' },
          {
            name: 'Available',
            type: 'string',
            jsonPath: '.status.conditions[?(@.type=="Available")].status',
            description: 'Available',
          },
          {
            name: 'Progressing',
            type: 'string',
            jsonPath: '.status.conditions[?(@.type=="Progressing")].status',
            description: 'Progressing',
          },
          {
            name: 'Message',
            type: 'string',
            jsonPath: '.status.conditions[?(@.type=="Available")].message',
            description: 'Message',
          },
          managementClusterColumn,
        ],
        schema: { openAPIV3Schema: hostedClusterSchema },
        subresources: { status: {} },
      },
    ],
  },
};
