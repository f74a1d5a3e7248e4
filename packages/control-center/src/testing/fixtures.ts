/**
 * Test fixtures for control center tests that talk to a running server: request bodies that pass
 * the HostedCluster CRD's schema and CEL rules.
 */
import type { KubeObject } from '@hcc/crds';

/**
 * A valid v1beta1 HostedCluster body (platform None, NodePort services) named `namespace/name`.
 * @param spec - fields merged over the spec (shallowly)
 * @param metadata - fields merged over the metadata (shallowly)
 */
export function hostedClusterBody(name: string, namespace = 'clusters', spec: Record<string, unknown> = {}, metadata: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'HostedCluster',
    metadata: { name, namespace, ...metadata },
    spec: {
      release: { image: 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64' },
      pullSecret: { name: 'pull-secret' },
      dns: { baseDomain: 'example.com' },
      networking: { clusterNetwork: [{ cidr: '10.132.0.0/14' }], serviceNetwork: [{ cidr: '172.31.0.0/16' }], networkType: 'OVNKubernetes' },
      platform: { type: 'None' },
      services: ['APIServer', 'OAuthServer', 'Konnectivity', 'Ignition'].map((service) => ({ service, servicePublishingStrategy: { type: 'NodePort', nodePort: { address: '10.0.0.1' } } })),
      ...spec,
    },
  };
}

/** The test CRD `widgets.example.hcc.dev` ({@link widgetCRD}) serves these. */
export const WidgetsPath = '/apis/example.hcc.dev/v1/namespaces/default/widgets';

/**
 * A namespaced test CRD, `widgets.example.hcc.dev` (kind Widget, version v1), whose schema has
 * `spec.size` (integer) and, with `status`, a status subresource with `status.ok` (boolean).
 */
export function widgetCRD(opts: { status?: boolean } = {}): KubeObject {
  const properties: Record<string, unknown> = { spec: { type: 'object', properties: { size: { type: 'integer' } } } };
  if (opts.status) properties.status = { type: 'object', properties: { ok: { type: 'boolean' } } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.hcc.dev' },
    spec: {
      group: 'example.hcc.dev',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, ...(opts.status ? { subresources: { status: {} } } : {}), schema: { openAPIV3Schema: { type: 'object', properties } } }],
    },
  };
}
