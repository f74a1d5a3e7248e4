/**
 * Manifests the conformance suite applies: a platform-None HostedCluster shaped like
 * `hcp create cluster none --render` output (every field the CRD requires, so kubectl 1.20's
 * client-side validation accepts it, as it would against kube-apiserver), a NodePool, a Secret,
 * a ManagementCluster and a small CRD of our own.
 */
import { stringify } from 'yaml';

export const releaseImage = (v = '4.14.38') => `quay.io/openshift-release-dev/ocp-release:${v}-x86_64`;

export interface HostedClusterOpts {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  release?: string;
  baseDomain?: string;
  /** Extra `spec.dns` keys (to send unknown fields). */
  dnsExtra?: Record<string, unknown>;
}

export function hostedCluster(ns: string, name: string, o: HostedClusterOpts = {}): Record<string, unknown> {
  const nodePort = (service: string) => ({ service, servicePublishingStrategy: { type: 'NodePort', nodePort: { address: '10.19.138.32' } } });
  return {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'HostedCluster',
    metadata: {
      name,
      namespace: ns,
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...(o.finalizers ? { finalizers: o.finalizers } : {}),
    },
    spec: {
      release: { image: releaseImage(o.release) },
      pullSecret: { name: 'pull-secret' },
      dns: { baseDomain: o.baseDomain ?? 'example.com', ...o.dnsExtra },
      etcd: { managementType: 'Managed', managed: { storage: { type: 'PersistentVolume', persistentVolume: { size: '8Gi' } } } },
      networking: { clusterNetwork: [{ cidr: '10.132.0.0/14' }], serviceNetwork: [{ cidr: '172.31.0.0/16' }], networkType: 'OVNKubernetes' },
      platform: { type: 'None' },
      services: ['APIServer', 'OAuthServer', 'Konnectivity', 'Ignition'].map(nodePort),
    },
  };
}

export function nodePool(ns: string, name: string, clusterName: string, replicas = 2): Record<string, unknown> {
  return {
    apiVersion: 'hypershift.openshift.io/v1beta1',
    kind: 'NodePool',
    metadata: { name, namespace: ns },
    spec: { clusterName, replicas, management: { autoRepair: false, upgradeType: 'InPlace' }, release: { image: releaseImage() }, platform: { type: 'None' } },
  };
}

export function pullSecret(ns: string, name = 'pull-secret'): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': '{"auths":{}}' } };
}

export function configMap(ns: string, name: string, data: Record<string, string>, labels?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...(labels ? { labels } : {}) }, data };
}

export function managementCluster(name: string, capacity = 5): Record<string, unknown> {
  return { apiVersion: 'controlcenter.hcc.dev/v1alpha1', kind: 'ManagementCluster', metadata: { name }, spec: { platforms: ['None', 'AWS'], capacity, mode: 'Pull' } };
}

/** A small namespaced CRD `widgets.conformance.hcc.dev` with a status subresource. */
export function widgetCRD(): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.conformance.hcc.dev' },
    spec: {
      group: 'conformance.hcc.dev',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wg'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer', minimum: 0, description: 'how big' } } },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
    },
  };
}

/** Objects as one multi-document YAML stream. */
export const yamlDocs = (...objs: Record<string, unknown>[]): string => objs.map((o) => stringify(o)).join('---\n');
