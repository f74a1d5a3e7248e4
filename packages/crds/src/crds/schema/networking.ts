/**
 * HostedCluster `spec.networking`, `spec.services` and `spec.dns`, with upstream's defaults, bounds and
 * CEL rules.
 * @see https://github.com/openshift/hypershift/blob/main/api/hypershift/v1beta1/hostedcluster_types.go
 *   (ClusterNetworking, ServicePublishingStrategyMapping, DNSSpec)
 */
import type { JSONSchemaProps } from '../crd-types.js';
import { arr, cel, enumOf, immutable, int32, obj, str } from './builders.js';

const cidrRule = cel(
  "self.matches('^((\\\\d{1,3}\\\\.){3}\\\\d{1,3}/\\\\d{1,2})$') || self.matches('^([0-9a-fA-F]{0,4}:){2,7}([0-9a-fA-F]{0,4})?/[0-9]{1,3}$')",
  'cidr must be a valid IPv4 or IPv6 CIDR notation (e.g., 192.168.1.0/24 or 2001:db8::/64)',
);

/** A CIDR string (hyperv1 CIDRBlock / ipnet.IPNet): at most 43 characters, IPv4 or IPv6 notation. */
const cidr = (description: string): JSONSchemaProps => str({ description, maxLength: 43, 'x-kubernetes-validations': [cidrRule] });

const networkList = (description: string, entry: JSONSchemaProps, message: string, extra: JSONSchemaProps = {}) =>
  arr(entry, { description, minItems: 1, maxItems: 2, 'x-kubernetes-validations': [immutable(message)], ...extra });

/** hyperv1.ClusterNetworking (`spec.networking`). Defaults to OVNKubernetes, 10.132.0.0/14 and 172.31.0.0/16. */
export const networkingSchema: JSONSchemaProps = obj(
  {
    machineNetwork: networkList(
      'machineNetwork is the list of IP address pools for machines. Immutable.',
      obj({ cidr: cidr('cidr is the IP block address pool for machines within the cluster.') }, { required: ['cidr'] }),
      'machineNetwork is immutable and cannot be modified once set.',
      { 'x-kubernetes-list-type': 'atomic' },
    ),
    clusterNetwork: networkList(
      'clusterNetwork is the list of IP address pools for pods. Immutable.',
      obj({ cidr: cidr('cidr is the IP block address pool.'), hostPrefix: int32() }, { required: ['cidr'] }),
      'clusterNetwork is immutable and cannot be modified once set.',
      { default: [{ cidr: '10.132.0.0/14' }] },
    ),
    serviceNetwork: networkList(
      'serviceNetwork is the list of IP address pools for services. Immutable.',
      obj({ cidr: cidr('cidr is the IP block address pool for services within the cluster.') }, { required: ['cidr'] }),
      'serviceNetwork is immutable and cannot be modified once set.',
      { default: [{ cidr: '172.31.0.0/16' }] },
    ),
    networkType: enumOf(['OpenShiftSDN', 'Calico', 'OVNKubernetes', 'Other'], {
      description: 'networkType specifies the SDN provider used for cluster networking.',
      default: 'OVNKubernetes',
    }),
    apiServer: obj(
      {
        advertiseAddress: str({ maxLength: 255, 'x-kubernetes-validations': [immutable('advertiseAddress is immutable')] }),
        port: int32({ 'x-kubernetes-validations': [immutable('port is immutable')] }),
        allowedCIDRBlocks: arr(str({ maxLength: 43, 'x-kubernetes-validations': [cidrRule] }), {
          maxItems: 500,
          'x-kubernetes-list-type': 'set',
        }),
      },
      { description: 'apiServer contains advanced network settings for the API server inside a node.' },
    ),
    allocateNodeCIDRs: enumOf(['Enabled', 'Disabled'], {
      'x-kubernetes-validations': [immutable('allocateNodeCIDRs is immutable and cannot be modified once set.')],
    }),
  },
  {
    description: 'networking specifies network configuration for the hosted cluster.',
    default: {
      clusterNetwork: [{ cidr: '10.132.0.0/14' }],
      networkType: 'OVNKubernetes',
      serviceNetwork: [{ cidr: '172.31.0.0/16' }],
    },
    'x-kubernetes-validations': [
      cel(
        '(!has(self.machineNetwork) && self.clusterNetwork.all(c, self.serviceNetwork.all(s, c.cidr != s.cidr)) || (has(self.machineNetwork) && (self.machineNetwork.all(m, self.clusterNetwork.all(c, m.cidr != c.cidr)) && self.machineNetwork.all(m, self.serviceNetwork.all(s, m.cidr != s.cidr)) && self.clusterNetwork.all(c, self.serviceNetwork.all(s, c.cidr != s.cidr)))))',
        'CIDR ranges in machineNetwork, clusterNetwork, and serviceNetwork must be unique and non-overlapping',
      ),
      cel(
        "has(self.allocateNodeCIDRs) && self.allocateNodeCIDRs == 'Enabled' ? self.networkType == 'Other' : true",
        "allocateNodeCIDRs can only be set to Enabled when networkType is 'Other'",
      ),
    ],
  },
);

const hostnameRule = cel(
  "self.matches('^(?:[a-zA-Z0-9-]+\\\\.)+[a-zA-Z]{2,}$')",
  'hostname must be a valid domain name (e.g., example.com)',
);

/** hyperv1.ServicePublishingStrategy: a union keyed by `type`. */
const servicePublishingStrategySchema: JSONSchemaProps = obj(
  {
    type: enumOf(['LoadBalancer', 'NodePort', 'Route', 'None', 'S3'], {
      description: 'type is the publishing strategy used for the service.',
    }),
    nodePort: obj(
      {
        address: str({
          description: 'address is the host/ip that the NodePort service is exposed over.',
          minLength: 1,
          maxLength: 253,
          'x-kubernetes-validations': [
            cel(
              "self.matches('^(([a-zA-Z0-9][-a-zA-Z0-9]*\\\\.)+[a-zA-Z]{2,}|localhost)$') || self.matches('^((\\\\d{1,3}\\\\.){3}\\\\d{1,3})$') || self.matches('^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:))$')",
              'address must be a valid hostname, IPv4, or IPv6 address',
            ),
          ],
        }),
        port: int32({ description: 'port of the NodePort service; <=0 means dynamically assigned.' }),
      },
      { description: 'nodePort configures exposing a service using a NodePort.', required: ['address'] },
    ),
    loadBalancer: obj(
      { hostname: str({ minLength: 1, maxLength: 253, 'x-kubernetes-validations': [hostnameRule] }) },
      { description: 'loadBalancer configures exposing a service using a dedicated LoadBalancer.' },
    ),
    route: obj(
      { hostname: str({ minLength: 1, maxLength: 253, 'x-kubernetes-validations': [hostnameRule] }) },
      { description: 'route configures exposing a service using a Route.' },
    ),
  },
  {
    description: 'servicePublishingStrategy specifies how to publish a service endpoint.',
    required: ['type'],
    'x-kubernetes-validations': [
      cel("self.type == 'NodePort' ? has(self.nodePort) : !has(self.nodePort)", 'nodePort is required when type is NodePort, and forbidden otherwise'),
      cel(
        "self.type == 'Route' ? !has(self.nodePort) && !has(self.loadBalancer) : !has(self.route)",
        'only route is allowed when type is Route, and forbidden otherwise',
      ),
      cel(
        "self.type == 'LoadBalancer' ? !has(self.nodePort) && !has(self.route) : !has(self.loadBalancer)",
        'only loadBalancer is required when type is LoadBalancer, and forbidden otherwise',
      ),
      cel(
        "self.type == 'None' ? !has(self.nodePort) && !has(self.route) && !has(self.loadBalancer) : true",
        'None does not allowed any configuration for loadBalancer, nodePort, or route',
      ),
      cel(
        "self.type == 'S3' ? !has(self.nodePort) && !has(self.route) && !has(self.loadBalancer) : true",
        'S3 does not allowed any configuration for loadBalancer, nodePort, or route',
      ),
    ],
  },
);

/**
 * `spec.services`: how each control-plane service is published. The at-least-4 (3 on IBMCloud) and
 * immutability rules live on `spec` (see hostedcluster schema) because they read `platform.type`.
 */
export const servicesSchema: JSONSchemaProps = arr(
  obj(
    {
      service: enumOf(['APIServer', 'OAuthServer', 'OIDC', 'Konnectivity', 'Ignition', 'OVNSbDb'], {
        description: 'service identifies the type of service being published.',
      }),
      servicePublishingStrategy: servicePublishingStrategySchema,
    },
    { required: ['service', 'servicePublishingStrategy'] },
  ),
  {
    description:
      'services specifies how individual control plane services endpoints are published. Requires APIServer, OAuthServer, Konnectivity and Ignition; immutable except on IBMCloud.',
    maxItems: 6,
    'x-kubernetes-list-type': 'atomic',
  },
);

const domainRule = (field: string) =>
  cel(
    `self == "" || self.matches('^(?:(?:[a-zA-Z0-9-]+\\\\.)+[a-zA-Z]{2,}|[a-zA-Z0-9-]+)$')`,
    `${field} must be a valid domain name (e.g., example, example.com, sub.example.com)`,
  );

/** hyperv1.DNSSpec (`spec.dns`). */
export const dnsSchema: JSONSchemaProps = obj(
  {
    baseDomain: str({
      description: 'baseDomain is the base domain of the hosted cluster. Immutable once set; "" lets the controller default it.',
      maxLength: 253,
      'x-kubernetes-validations': [domainRule('baseDomain'), cel('oldSelf == "" || self == oldSelf', 'baseDomain is immutable')],
    }),
    baseDomainPrefix: str({
      maxLength: 253,
      'x-kubernetes-validations': [domainRule('baseDomainPrefix'), immutable('baseDomainPrefix is immutable')],
    }),
    publicZoneID: str({
      minLength: 1,
      maxLength: 258,
      'x-kubernetes-validations': [cel('oldSelf == "" || self == oldSelf', 'publicZoneID is immutable')],
    }),
    privateZoneID: str({
      minLength: 1,
      maxLength: 265,
      'x-kubernetes-validations': [cel('oldSelf == "" || self == oldSelf', 'privateZoneID is immutable')],
    }),
  },
  { description: 'dns specifies the DNS configuration for the hosted cluster ingress.', required: ['baseDomain'] },
);
