/**
 * Minimal valid HyperShift manifests for tests: a platform-None HostedCluster (NodePort
 * services, so no cloud values are needed), its pull Secret, and a NodePool.
 */

/** The release image of an OCP version, e.g. `4.16.12`. */
export const releaseImage = (version: string): string => `quay.io/openshift-release-dev/ocp-release:${version}-x86_64`;

/** A platform-None HostedCluster as YAML. */
export function noneHostedCluster(name: string, ns: string, version = '4.16.12'): string {
  return `apiVersion: hypershift.openshift.io/v1beta1
kind: HostedCluster
metadata: {name: ${name}, namespace: ${ns}}
spec:
  release: {image: "${releaseImage(version)}"}
  pullSecret: {name: ${name}-pull-secret}
  dns: {baseDomain: example.com}
  networking:
    clusterNetwork: [{cidr: 10.132.0.0/14}]
    serviceNetwork: [{cidr: 172.31.0.0/16}]
    networkType: OVNKubernetes
  platform: {type: None}
  services:
  - {service: APIServer, servicePublishingStrategy: {type: NodePort, nodePort: {address: 10.0.0.1}}}
  - {service: OAuthServer, servicePublishingStrategy: {type: NodePort, nodePort: {address: 10.0.0.1}}}
  - {service: Konnectivity, servicePublishingStrategy: {type: NodePort, nodePort: {address: 10.0.0.1}}}
  - {service: Ignition, servicePublishingStrategy: {type: NodePort, nodePort: {address: 10.0.0.1}}}
`;
}

/** The pull Secret a {@link noneHostedCluster} references. */
export function pullSecret(name: string, ns: string): string {
  return `apiVersion: v1
kind: Secret
metadata: {name: ${name}-pull-secret, namespace: ${ns}}
stringData: {.dockerconfigjson: '{"auths":{}}'}
`;
}

/** A NodePool of a HostedCluster; `extra` is appended to its spec (indented YAML lines). */
export function nodePool(name: string, cluster: string, ns: string, version = '4.16.12', extra = ''): string {
  return `apiVersion: hypershift.openshift.io/v1beta1
kind: NodePool
metadata: {name: ${name}, namespace: ${ns}}
spec:
  clusterName: ${cluster}
  replicas: 2
  management: {upgradeType: Replace}
  release: {image: "${releaseImage(version)}"}
  platform: {type: None}
${extra}`;
}
