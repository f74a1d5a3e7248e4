import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FakeWorld, hostedCluster, secret } from '../../testing/fixtures.js';
import { adminKubeconfig, apiServerURL, ensureCLISecrets } from './hostedcluster-reconcile-cli-secrets.js';

const decode = (s: string) => Buffer.from(s, 'base64').toString();

describe('ensureCLISecrets', () => {
  it.each([
    {
      name: 'creates both',
      input: { hc: hostedCluster(), existing: [] },
      want: ['create secrets clusters/example-admin-kubeconfig', 'create secrets clusters/example-kubeadmin-password'],
    },
    {
      name: 'keeps existing ones (the password is generated once)',
      input: { hc: hostedCluster(), existing: [secret('clusters', 'example-admin-kubeconfig'), secret('clusters', 'example-kubeadmin-password')] },
      want: [],
    },
    {
      name: 'no kubeadmin password with an explicit OAuth configuration',
      input: { hc: hostedCluster({ spec: { configuration: { oauth: { identityProviders: [] } } } }), existing: [] },
      want: ['create secrets clusters/example-admin-kubeconfig'],
    },
    {
      name: 'deletes the kubeadmin password once an explicit OAuth configuration is set',
      input: { hc: hostedCluster({ spec: { configuration: { oauth: { identityProviders: [] } } } }), existing: [secret('clusters', 'example-admin-kubeconfig'), secret('clusters', 'example-kubeadmin-password')] },
      want: ['delete secrets clusters/example-kubeadmin-password'],
    },
    {
      name: 'creates the custom kubeconfig while spec.kubeAPIServerDNSName is set',
      input: { hc: hostedCluster({ spec: { kubeAPIServerDNSName: 'api.custom.example.com' } }), existing: [secret('clusters', 'example-admin-kubeconfig'), secret('clusters', 'example-kubeadmin-password')] },
      want: ['create secrets clusters/example-custom-admin-kubeconfig'],
    },
    {
      name: 'deletes the custom kubeconfig once spec.kubeAPIServerDNSName is cleared',
      input: { hc: hostedCluster(), existing: [secret('clusters', 'example-admin-kubeconfig'), secret('clusters', 'example-kubeadmin-password'), secret('clusters', 'example-custom-admin-kubeconfig')] },
      want: ['delete secrets clusters/example-custom-admin-kubeconfig'],
    },
  ])('$name', async ({ input, want }) => {
    const world = new FakeWorld(input.existing);
    expect(await ensureCLISecrets(world.hostedClusterDeps()).run(input.hc)).toBe('continue');
    expect(world.calls).toEqual(want);
  });

  it('writes an owned kubeconfig for api.<name>.<baseDomain>:6443 and a kubeadmin-style password', async () => {
    const world = new FakeWorld();
    await ensureCLISecrets(world.hostedClusterDeps()).run(hostedCluster());
    const kubeconfig = world.secrets.get('clusters/example-admin-kubeconfig')!;
    expect(kubeconfig.metadata.ownerReferences).toEqual([
      { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', name: 'example', uid: 'uid-hc', controller: true, blockOwnerDeletion: true },
    ]);
    expect(kubeconfig.metadata.annotations).toEqual({ 'hypershift.openshift.io/cluster': 'clusters/example' });
    const doc = parse(decode((kubeconfig.data as Record<string, string>).kubeconfig!));
    expect(doc['current-context']).toBe('admin');
    expect(doc.clusters[0].cluster.server).toBe('https://api.example.hcc.example.com:6443');
    const password = decode((world.secrets.get('clusters/example-kubeadmin-password')!.data as Record<string, string>).password!);
    expect(password).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}-[a-z0-9]{5}-[a-z0-9]{5}$/);
  });

  it('points the custom kubeconfig at https://<kubeAPIServerDNSName>:443', async () => {
    const world = new FakeWorld();
    await ensureCLISecrets(world.hostedClusterDeps()).run(hostedCluster({ spec: { kubeAPIServerDNSName: 'api.custom.example.com' } }));
    const doc = parse(decode((world.secrets.get('clusters/example-custom-admin-kubeconfig')!.data as Record<string, string>).kubeconfig!));
    expect(doc.clusters[0].cluster.server).toBe('https://api.custom.example.com:443');
  });

  it('writes the custom kubeconfig again when spec.kubeAPIServerDNSName changes, and keeps it while the name stays (a rotation there is kept)', async () => {
    const world = new FakeWorld();
    const deps = world.hostedClusterDeps();
    await ensureCLISecrets(deps).run(hostedCluster({ spec: { kubeAPIServerDNSName: 'api.custom.example.com' } }));
    const key = 'clusters/example-custom-admin-kubeconfig';
    const rotated = { ...world.secrets.get(key)!, data: { kubeconfig: Buffer.from(decode((world.secrets.get(key)!.data as Record<string, string>).kubeconfig!).replace('client-key-data: ', 'client-key-data: cm90YXRlZA')).toString('base64') } };
    world.secrets.set(key, rotated);
    world.calls.length = 0;
    await ensureCLISecrets(deps).run(hostedCluster({ spec: { kubeAPIServerDNSName: 'api.custom.example.com' } }));
    expect(world.calls).toEqual([]);
    expect(world.secrets.get(key)).toBe(rotated);
    await ensureCLISecrets(deps).run(hostedCluster({ spec: { kubeAPIServerDNSName: 'api2.custom.example.com' } }));
    expect(world.calls).toEqual(['update secrets clusters/example-custom-admin-kubeconfig']);
    const doc = parse(decode((world.secrets.get(key)!.data as Record<string, string>).kubeconfig!));
    expect(doc.clusters[0].cluster.server).toBe('https://api2.custom.example.com:443');
    expect(world.secrets.get(key)!.metadata.ownerReferences).toEqual(rotated.metadata.ownerReferences);
  });

  it('falls back to example.com without a base domain', () => {
    const hc = hostedCluster({ spec: { dns: undefined } });
    expect(apiServerURL(hc)).toBe('https://api.example.example.com:6443');
    expect(adminKubeconfig(hc)).toContain('server: https://api.example.example.com:6443');
  });
});
