import { describe, expect, it } from 'vitest';
import { hostedCluster } from '../../testing/fixtures.js';
import { hostedClustersByReference, referenceKey } from './hostedcluster-indexes.js';

describe('hostedClustersByReference', () => {
  it('indexes every referenced Secret and ConfigMap, pull secret and arn-from-secret names included', () => {
    const hc = hostedCluster({
      spec: {
        sshKey: { name: 'my-key' },
        additionalTrustBundle: { name: 'user-ca-bundle' },
        configuration: { proxy: { trustedCA: { name: 'proxy-ca' } } },
        platform: { type: 'AWS', aws: { rolesRef: { ingressARN: 'arn-from-secret::ingress-role' } } },
      },
    });
    expect(hostedClustersByReference(hc).sort()).toEqual([
      'ConfigMap/clusters/proxy-ca',
      'ConfigMap/clusters/user-ca-bundle',
      'Secret/clusters/ingress-role',
      'Secret/clusters/my-key',
      'Secret/clusters/pull-secret',
    ]);
  });

  it('a Secret and a ConfigMap of the same name are different keys', () => {
    expect(referenceKey('Secret', 'ns', 'x')).not.toBe(referenceKey('ConfigMap', 'ns', 'x'));
    expect(hostedClustersByReference(hostedCluster({ spec: { pullSecret: undefined } }))).toEqual([]);
  });
});
