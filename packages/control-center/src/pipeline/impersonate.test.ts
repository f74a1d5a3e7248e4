import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { impersonatedUser, serviceAccountOf } from './impersonate.js';
import type { Authorizer } from './authorize.js';

describe('serviceAccountOf', () => {
  it.each([
    { name: 'system:serviceaccount:b:bot', want: { namespace: 'b', name: 'bot' } },
    { name: 'system:serviceaccount:kube-system:default.x', want: { namespace: 'kube-system', name: 'default.x' } },
    // Not a ServiceAccount: a plain user name, as serviceaccount.SplitUsername refuses it.
    { name: 'system:serviceaccount:b', want: undefined },
    { name: 'system:serviceaccount:b:bot:x', want: undefined },
    { name: 'system:serviceaccount:B:bot', want: undefined },
    { name: 'system:serviceaccount:b:', want: undefined },
    { name: 'system:serviceaccounts:b', want: undefined },
    { name: 'bob', want: undefined },
  ])('$name', ({ name, want }) => {
    expect(serviceAccountOf(name)).toEqual(want);
  });
});

describe('impersonatedUser: headers read as kube-apiserver reads them', () => {
  const real = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
  /** A request with these headers (repeated names as arrays), as Node gives them. */
  const req = (headers: Record<string, string | string[]>) => {
    const distinct = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v : [v]]));
    const flat = Object.fromEntries(Object.entries(distinct).map(([k, v]) => [k, v.join(', ')]));
    return { headers: flat, raw: { headersDistinct: distinct } } as unknown as FastifyRequest;
  };
  const checked: string[] = [];
  const allowUsersOnly: Authorizer = (_u, ri) => {
    checked.push(`${ri.resource}${ri.subresource ? `/${ri.subresource}` : ''}:${ri.name}`);
    return ri.resource === 'users' || ri.resource === 'userextras' ? { allowed: true } : { allowed: false, reason: '' };
  };

  it('ignores an empty Impersonate-User and an empty Impersonate-Uid, and takes the first of repeated ones', () => {
    expect(impersonatedUser(req({ 'Impersonate-User': '' }), real, allowUsersOnly)).toBe(real);
    checked.length = 0;
    expect(impersonatedUser(req({ 'Impersonate-User': 'jane', 'Impersonate-Uid': '' }), real, allowUsersOnly)).toEqual({ name: 'jane', groups: ['system:authenticated'] });
    expect(checked).toEqual(['users:jane']);
    expect(impersonatedUser(req({ 'Impersonate-User': ['jane', 'joe'] }), real, allowUsersOnly).name).toBe('jane');
  });

  it('keeps an extra key that does not percent-decode as it is', () => {
    checked.length = 0;
    const u = impersonatedUser(req({ 'Impersonate-User': 'jane', 'Impersonate-Extra-%ZZ': 'a', 'Impersonate-Extra-Scopes%2Fx': 'b' }), real, allowUsersOnly);
    expect(u.extra).toEqual({ '%zz': ['a'], 'scopes/x': ['b'] });
    expect(checked).toEqual(['users:jane', 'userextras/%zz:a', 'userextras/scopes/x:b']);
  });

  it('takes __proto__ and constructor as extra keys like any other (no 500, nothing polluted)', () => {
    checked.length = 0;
    const u = impersonatedUser(req({ 'Impersonate-User': 'jane', 'Impersonate-Extra-__proto__': 'x', 'Impersonate-Extra-Constructor': 'y' }), real, allowUsersOnly);
    expect(Object.entries(u.extra ?? {})).toEqual([
      ['__proto__', ['x']],
      ['constructor', ['y']],
    ]);
    expect(checked).toEqual(['users:jane', 'userextras/__proto__:x', 'userextras/constructor:y']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(() => impersonatedUser(req({ 'Impersonate-Extra-__proto__': 'x' }), real, allowUsersOnly)).toThrow(/requires impersonating a user/);
  });

  it('refuses groups, a uid or extras without a user (400), and a uid the caller may not impersonate (403)', () => {
    expect(() => impersonatedUser(req({ 'Impersonate-Group': 'g' }), real, allowUsersOnly)).toThrow(/requires impersonating a user/);
    expect(() => impersonatedUser(req({ 'Impersonate-User': '', 'Impersonate-Uid': '1' }), real, allowUsersOnly)).toThrow(/requires impersonating a user/);
    expect(() => impersonatedUser(req({ 'Impersonate-User': 'jane', 'Impersonate-Uid': '1' }), real, allowUsersOnly)).toThrow(/cannot impersonate resource "uids" in API group "authentication.k8s.io"/);
  });
});
