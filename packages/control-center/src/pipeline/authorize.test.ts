import { describe, expect, it } from 'vitest';
import { authorizationAttributes, authorize, type Authorizer } from './authorize.js';
import { resolveRequestInfo } from './request-info.js';
import { StatusError } from '../apierrors/status.js';

const req = (method: string, url: string) => {
  const query = Object.fromEntries(new URL(url, 'http://x').searchParams);
  return { ri: resolveRequestInfo(method, url, query), query };
};
const denyAll: Authorizer = () => ({ allowed: false, reason: '' });
const messageOf = (method: string, url: string): string => {
  const { ri, query } = req(method, url);
  try {
    authorize(denyAll, { name: 'bob', groups: [] }, authorizationAttributes(ri, query));
  } catch (e) {
    return (e as StatusError).status.message as string;
  }
  return 'allowed';
};

describe('authorization attributes and the 403 message, as kube-apiserver', () => {
  it('takes the object name of a list or watch from a metadata.name field selector', () => {
    const { ri, query } = req('GET', '/api/v1/namespaces/n/secrets?watch=true&fieldSelector=metadata.name%3Ds1');
    expect(authorizationAttributes(ri, query)).toMatchObject({ verb: 'watch', name: 's1', namespace: 'n' });
    const other = req('GET', '/api/v1/namespaces/n/secrets?fieldSelector=type%3DOpaque');
    expect(authorizationAttributes(other.ri, other.query).name).toBe('');
  });

  it('puts a request on a namespace in that namespace', () => {
    const { ri, query } = req('GET', '/api/v1/namespaces/team-a');
    expect(authorizationAttributes(ri, query)).toMatchObject({ resource: 'namespaces', name: 'team-a', namespace: 'team-a' });
  });

  it('words the denial like forbiddenMessage: subresource, namespace or cluster scope, no empty name', () => {
    expect(messageOf('GET', '/apis/hypershift.openshift.io/v1beta1/hostedclusters')).toBe(
      'hostedclusters.hypershift.openshift.io is forbidden: User "bob" cannot list resource "hostedclusters" in API group "hypershift.openshift.io" at the cluster scope',
    );
    expect(messageOf('PUT', '/apis/hypershift.openshift.io/v1beta1/namespaces/c/hostedclusters/hc2/status')).toBe(
      'hostedclusters.hypershift.openshift.io "hc2" is forbidden: User "bob" cannot update resource "hostedclusters/status" in API group "hypershift.openshift.io" in the namespace "c"',
    );
    expect(messageOf('GET', '/api/v1/namespaces/n/secrets?watch=true&fieldSelector=metadata.name%3Ds1')).toBe(
      'secrets "s1" is forbidden: User "bob" cannot watch resource "secrets" in API group "" in the namespace "n"',
    );
  });
});
