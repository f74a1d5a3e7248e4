import { describe, expect, it } from 'vitest';
import { queryBool, resolveRequestInfo } from './request-info.js';

describe('resolveRequestInfo', () => {
  it.each([
    { name: 'core list', input: ['GET', '/api/v1/namespaces/clusters/secrets', {}], want: { verb: 'list', group: '', version: 'v1', namespace: 'clusters', resource: 'secrets', name: '' } },
    { name: 'core get', input: ['GET', '/api/v1/namespaces/clusters/secrets/pull', {}], want: { verb: 'get', namespace: 'clusters', resource: 'secrets', name: 'pull' } },
    { name: 'cluster list', input: ['GET', '/api/v1/namespaces', {}], want: { verb: 'list', namespace: '', resource: 'namespaces', name: '' } },
    { name: 'namespace get', input: ['GET', '/api/v1/namespaces/clusters', {}], want: { verb: 'get', namespace: '', resource: 'namespaces', name: 'clusters' } },
    { name: 'namespace status', input: ['PUT', '/api/v1/namespaces/clusters/status', {}], want: { verb: 'update', namespace: '', resource: 'namespaces', name: 'clusters', subresource: 'status' } },
    { name: 'namespace finalize', input: ['PUT', '/api/v1/namespaces/clusters/finalize', {}], want: { verb: 'update', resource: 'namespaces', name: 'clusters', subresource: 'finalize' } },
    { name: 'CR status', input: ['PATCH', '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters/ex/status', {}], want: { verb: 'patch', group: 'hypershift.openshift.io', version: 'v1beta1', namespace: 'clusters', resource: 'hostedclusters', name: 'ex', subresource: 'status' } },
    { name: 'watch query', input: ['GET', '/apis/hypershift.openshift.io/v1beta1/hostedclusters?watch=true', { watch: 'true' }], want: { verb: 'watch', resource: 'hostedclusters', namespace: '' } },
    { name: 'watch prefix', input: ['GET', '/api/v1/watch/namespaces/clusters/secrets', {}], want: { verb: 'watch', resource: 'secrets', namespace: 'clusters' } },
    { name: 'watch=True (python client)', input: ['GET', '/api/v1/namespaces/clusters/configmaps?watch=True', { watch: 'True' }], want: { verb: 'watch', resource: 'configmaps' } },
    { name: 'watch query on a named object (a get, as kube)', input: ['GET', '/api/v1/namespaces/gc?watch=1', { watch: '1' }], want: { verb: 'get', resource: 'namespaces', name: 'gc' } },
    { name: 'watch query on a named custom resource', input: ['GET', '/apis/hypershift.openshift.io/v1beta1/namespaces/clusters/hostedclusters/ex?watch=true', { watch: 'true' }], want: { verb: 'get', resource: 'hostedclusters', name: 'ex' } },
    { name: 'watch prefix on a named object', input: ['GET', '/api/v1/watch/namespaces/clusters/secrets/s', {}], want: { verb: 'watch', resource: 'secrets', name: 's' } },
    { name: 'watch=false', input: ['GET', '/api/v1/namespaces/clusters/configmaps?watch=false', { watch: 'false' }], want: { verb: 'list', resource: 'configmaps' } },
    { name: 'watch=0', input: ['GET', '/api/v1/namespaces/clusters/configmaps?watch=0', { watch: '0' }], want: { verb: 'list', resource: 'configmaps' } },
    { name: 'delete collection', input: ['DELETE', '/api/v1/namespaces/clusters/configmaps', {}], want: { verb: 'deletecollection', resource: 'configmaps' } },
    { name: 'create', input: ['POST', '/apis/controlcenter.hcc.dev/v1alpha1/managementclusters', {}], want: { verb: 'create', group: 'controlcenter.hcc.dev', resource: 'managementclusters' } },
    // The path is decoded before it is split, as Go's net/http gives kube-apiserver: %2F separates.
    { name: 'an escaped slash separates (cluster scope)', input: ['GET', '/api/v1/secrets/team-b%2Fs1', {}], want: { verb: 'get', namespace: '', resource: 'secrets', name: 'team-b', subresource: 's1' } },
    { name: 'an escaped slash separates (namespaced)', input: ['GET', '/api/v1/namespaces/a/secrets/b%2fstatus', {}], want: { verb: 'get', namespace: 'a', resource: 'secrets', name: 'b', subresource: 'status' } },
    { name: 'an escaped namespace', input: ['GET', '/api/v1/namespaces%2Fa%2Fsecrets', {}], want: { verb: 'list', namespace: 'a', resource: 'secrets', name: '' } },
  ])('$name', ({ input, want }) => {
    const [method, url, query] = input as [string, string, Record<string, unknown>];
    const got = resolveRequestInfo(method, url, query);
    expect(got.isResourceRequest).toBe(true);
    expect(got).toMatchObject(want);
  });

  it.each([
    { name: 'version', input: '/version' },
    { name: 'api root', input: '/api' },
    { name: 'apis root', input: '/apis' },
    { name: 'group', input: '/apis/hypershift.openshift.io' },
    { name: 'group version', input: '/apis/hypershift.openshift.io/v1beta1' },
  ])('non-resource: $name', ({ input }) => {
    expect(resolveRequestInfo('GET', input, {}).isResourceRequest).toBe(false);
  });

  it.each([
    { input: undefined, want: false },
    { input: 'true', want: true },
    { input: 'True', want: true },
    { input: '1', want: true },
    { input: '', want: true },
    { input: 'false', want: false },
    { input: 'FALSE', want: false },
    { input: '0', want: false },
    { input: ['true', 'false'], want: true },
  ])('queryBool($input) = $want', ({ input, want }) => {
    expect(queryBool(input)).toBe(want);
  });
});
