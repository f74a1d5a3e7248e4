import { describe, expect, it } from 'vitest';
import { serviceAccountOf } from './impersonate.js';

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
